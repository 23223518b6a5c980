// libFuzzer target for handsh: arbitrary bytes through the code handsh
// itself runs, not a copy of its loop. Built by scripts/fuzz from the real
// modules, HandKit and HandshCLI (with -enable-testing, so this file sees
// their internal API), and CHandsh's C side.
//
// Every input runs as each of these:
//   -  a SCRIPT and stdin: `Runner.runText` (the run-ahead check of a whole
//      text, `RunAhead`, `LineExecutor`) and `Runner.runLines` fed the same
//      bytes in random chunks through the real `LineSplitter`; where the text
//      is free of syntax errors, both must print the same and end in the
//      same state;
//   -  lines typed at the prompt: `promptLines`, then `Runner.enter` for
//      each (the prompt's line rules); a line with a syntax error changes
//      nothing;
//   -  a golden test: `GoldenFile` parsed and run, its diff, and the text
//      `--update` writes, written with `TestFiles.rewrite` (the writer) and
//      read back; that text must parse clean and pass; and run again under
//      a small output bound, which must stop it exactly at the line whose
//      output passes the bound, every block before it unchanged;
//   -  bytes for the writer: `writeFile` onto a file, a symbolic link, a hard
//      link, a folder or a missing file, as the second byte chooses; it must write
//      exactly the bytes or fail leaving the old file, and leave no
//      temporary file.
//   -  the language server: `FrameReader` fed the bytes in random chunks
//      and whole (the same frames), and, when they name no Content-Length,
//      followed by a message that must be read whatever came before, `LanguageServer` handling each frame,
//      the bytes as one JSON body, and as a document opened, edited and
//      asked about; every message it writes must read back equal, and every
//      request get exactly one response.
// Every input also runs both line splitters against each other, and every
// run's history is checked whole (the card partition, text that parses).
// Options come from the next bytes through the real option parser: seed =
// FNV-1a (64-bit) of the first eight bytes, limit = 1 + (byte0 ^ byte1) % 52,
// and the output style and -k from byte 0's bits. `save` writes into a fresh
// folder (the current folder during a run); an input whose `save` or
// `source` names a path outside it (a `/`, `.` or `..`) is skipped, so
// nothing outside it is ever written or read. A broken invariant calls abort(), which libFuzzer reports
// as a crash.
//
// This file holds the entry point and what every target shares; each target
// is in a file of its own: FuzzSplitters, FuzzScript (script, stdin and the
// prompt), FuzzGolden, FuzzWriter and FuzzServer, with FuzzInvariants (a
// history's checks) and FuzzScratch (the folder and output files).

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Fails the run with a message libFuzzer shows next to the crash.
func broken(_ what: String) -> Never {
  var text = "handsh fuzz: invariant broken: \(what)\n"
  text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  abort()
}

/// The session's seed: FNV-1a over the first eight bytes.
func seed(of input: UnsafeBufferPointer<UInt8>) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in input.prefix(8) {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }
  return hash
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let buffer = UnsafeBufferPointer(start: data, count: size)
  let input = Array(buffer)
  let first = size > 0 ? input[0] : 0
  let second = size > 1 ? input[1] : 0
  let sessionSeed = seed(of: buffer)
  let limit = 1 + Int(first ^ second) % 52
  #if FUZZ_SELFTEST
    // Lets scripts/fuzz check its own crash handling (FUZZ_SELFTEST=1).
    if size >= 9, input.prefix(9).elementsEqual("crash-me!".utf8) { broken("self-test") }
  #endif
  _ = scratch
  emptyScratch()
  checkSplitters(buffer)

  var arguments = ["--limit", "\(limit)", "--color", first & 0x80 != 0 ? "always" : "never"]
  if first & 0x04 != 0 { arguments.append("-k") }
  if first & 0x08 != 0 { arguments.append("--json") }
  if first & 0x10 != 0 { arguments.append("--ascii") }
  if first & 0x20 != 0 { arguments.append("--echo") }
  if first & 0x40 != 0 { arguments.append("-q") }
  fuzzScriptAndStdin(input, arguments, seed: sessionSeed)
  emptyScratch()
  fuzzPrompt(input, arguments, seed: sessionSeed)
  emptyScratch()
  fuzzGolden(
    input,
    GoldenSettings(
      seed: sessionSeed, limit: limit, ascii: first & 0x10 != 0, json: first & 0x08 != 0,
      echo: first & 0x20 != 0, quiet: first & 0x40 != 0))
  emptyScratch()
  fuzzWriter(Array(input.dropFirst(2)), kind: second)
  fuzzServer(input)
  return 0
}
