// The input as a SCRIPT, as stdin and as lines typed at the prompt.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether every `save` and `source` in `lines` names a file right in the
/// current folder (a `source` elsewhere could read a FIFO or a device).
func savesStayInside(_ lines: [[UInt8]]) -> Bool {
  for line in lines {
    var bytes = line
    for item in LineParser.parse(bytes: &bytes) {
      let file: String
      switch item {
      case .command(.save(let name), _), .command(.source(let name), _): file = name
      default: continue
      }
      let name = Array(file.utf8)
      if name.isEmpty || name.contains(UInt8(ascii: "/")) || file == "." || file == ".."
        || name.count > 200
      {
        return false
      }
    }
  }
  return true
}

/// The lines of a text as a script splits them (too-long lines left out:
/// they never run).
func scriptLines(_ input: [UInt8]) -> [[UInt8]] {
  var lines: [[UInt8]] = []
  var text = TextLines(text: input)
  text.forEachLine { event in
    if case .line(let line) = event { lines.append(Array(line.bytes)) }
    return true
  }
  return lines
}

/// Whether a text runs the same whole as line by line: no syntax error, no
/// line over the limit, and no `new` without a seed (which draws a random
/// one).
func runsAlike(_ input: [UInt8]) -> Bool {
  var alike = true
  var text = TextLines(text: input)
  text.forEachLine { event in
    switch event {
    case .tooLong: alike = false
    case .waiting: break
    case .line(let line):
      var bytes = Array(line.bytes)
      for item in LineParser.parse(bytes: &bytes) {
        switch item {
        case .error: alike = false
        case .command(.new(nil), _): alike = false
        default: break
        }
      }
    }
    return alike
  }
  return alike
}

/// stdin as a runner reads it, from bytes in memory: the real splitter, fed
/// chunks of sizes a generator seeded by the input chooses.
struct ChunkedLines: LineSource {
  let input: [UInt8]
  var random: SplitMix64

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    var splitter = LineSplitter()
    var start = 0
    var random = random
    input.withUnsafeBufferPointer { buffer in
      while start < buffer.count {
        let size = min(buffer.count - start, 1 + Int(random.next() % 64))
        let chunk = UnsafeBufferPointer(rebasing: buffer[start..<(start + size)])
        start += size
        guard splitter.feed(chunk, final: false, body) else { return }
      }
      _ = splitter.feed(UnsafeBufferPointer(rebasing: buffer[buffer.count...]), final: true, body)
    }
  }
}

/// A runner of the options the input chose, writing to the output files.
func makeRunner(_ arguments: [String], seed: UInt64) -> Runner {
  guard let options = try? Options(parsing: arguments) else {
    broken("the fuzzer's own options \(arguments) do not parse")
  }
  return Runner(options: options, seed: seed, output: outputFiles.out, errors: outputFiles.err)
}

/// The same bytes as a SCRIPT and as stdin.
func fuzzScriptAndStdin(_ input: [UInt8], _ arguments: [String], seed: UInt64) {
  guard savesStayInside(scriptLines(input)) else { return }
  resetOutput()
  var whole = makeRunner(arguments, seed: seed)
  let wholeFlow = whole.runText(input, name: "s.hand")
  whole.output.flush()
  let wholeOut = contents(of: outputFiles.out)
  let wholeErr = contents(of: outputFiles.err)
  checkHistory(whole.session.history, "after the script")

  resetOutput()
  var stream = makeRunner(arguments, seed: seed)
  var lines = ChunkedLines(input: input, random: SplitMix64(seed: seed ^ 0x5EED))
  let streamFlow = stream.runLines(&lines, source: "s.hand", stream: true)
  stream.output.flush()
  checkHistory(stream.session.history, "after stdin")
  guard runsAlike(input) else { return }
  guard contents(of: outputFiles.out) == wholeOut else { broken("script and stdin stdout differ") }
  guard contents(of: outputFiles.err) == wholeErr else { broken("script and stdin stderr differ") }
  guard wholeFlow == streamFlow, whole.failed == stream.failed else {
    broken("script and stdin end differently: \(wholeFlow) \(streamFlow)")
  }
  guard whole.session.history == stream.session.history else {
    broken("script and stdin end in different states")
  }
}

/// Lines typed at the prompt.
func fuzzPrompt(_ input: [UInt8], _ arguments: [String], seed: UInt64) {
  let lines = promptLines(input)
  guard savesStayInside(lines) else { return }
  resetOutput()
  var runner = makeRunner(arguments, seed: seed)
  for line in lines {
    var bytes = line
    let hasError =
      line.count > lineLimit
      || LineParser.parse(bytes: &bytes).contains { if case .error = $0 { true } else { false } }
    let before = runner.session.history
    let flow = runner.enter(line)
    if hasError, runner.session.history != before {
      broken("a prompt line with a syntax error changed the state")
    }
    if flow == .quit { break }
  }
  runner.output.flush()
  checkHistory(runner.session.history, "after the prompt")
}
