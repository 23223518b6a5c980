import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The reader and memory (handsh(1), LIMITS): the error limit of a whole
/// text, endless input, the size limit of a golden test, `history` in
/// canonical form whatever the spelling, and a `save` that writes as it
/// goes. Every file lives in the test's own temporary folder; a device node
/// is made there (`mknod`, as root only), never taken from the real `/dev`.
final class ReaderMemoryTests: XCTestCase {
  private var folder: URL!
  private var binary: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  // MARK: - The error limit

  /// Twenty syntax errors are all reported; the 21st is `too many errors,
  /// stopping`, and nothing after it is read: a SCRIPT, `-c` text and a
  /// sourced FILE alike, status 1, nothing run.
  func testTheTwentyFirstErrorStops() throws {
    let bad = (1...30).map { "bogus\($0)\n" }.joined()
    try write("bad.hand", "add\n" + bad)
    let twenty = (1...20).map {
      "bad.hand:\($0 + 1):1: error: unknown command 'bogus\($0)'\n"
    }.joined()
    let script = try run(["--seed", "42", "bad.hand"])
    XCTAssertEqual(script.out, "")
    XCTAssertEqual(script.err, twenty + "bad.hand: error: too many errors, stopping\n")
    XCTAssertEqual(script.status, 1)

    let check = try run(["--seed", "42", "-n", "bad.hand"])
    XCTAssertEqual(check.err, script.err)
    XCTAssertEqual(check.status, 1)

    // Errors on one line count one by one.
    let line = (1...25).map { "x\($0)" }.joined(separator: "; ")
    let command = try run(["--seed", "42", "-c", "add; " + line])
    var column = 6
    var expected = ""
    for index in 1...20 {
      expected += "<command line>:1:\(column): error: unknown command 'x\(index)'\n"
      column += "x\(index); ".count
    }
    XCTAssertEqual(command.out, "")
    XCTAssertEqual(command.err, expected + "<command line>: error: too many errors, stopping\n")
    XCTAssertEqual(command.status, 1)

    // A sourced FILE, named as written in `source`.
    let sourced = try run(["--seed", "42", "-c", "add; source \"./bad.hand\"; add"])
    XCTAssertEqual(sourced.out, "7♥\n")
    XCTAssertEqual(
      sourced.err,
      twenty.replacingOccurrences(of: "bad.hand:", with: "./bad.hand:")
        + "./bad.hand: error: too many errors, stopping\n")
    XCTAssertEqual(sourced.status, 1)
  }

  /// Exactly twenty errors: each reported, no stopping message. A line
  /// too long counts as one error: as the 21st, it is the stopping one.
  func testTwentyErrorsAndALongLine() throws {
    let twenty = (1...20).map { "bogus\($0)\n" }.joined()
    try write("twenty.hand", twenty)
    let result = try run(["twenty.hand"])
    XCTAssertEqual(result.err.split(separator: "\n").count, 20)
    XCTAssertFalse(result.err.contains("too many"))
    XCTAssertEqual(result.status, 1)

    try write("long.hand", twenty + String(repeating: "#", count: (1 << 20) + 1) + "\nadd\n")
    let long = try run(["long.hand"])
    XCTAssertEqual(long.err.split(separator: "\n").count, 21)
    XCTAssertTrue(long.err.hasSuffix("\nlong.hand: error: too many errors, stopping\n"), long.err)
    XCTAssertFalse(long.err.contains("longer than"))
    XCTAssertEqual(long.status, 1)
  }

  /// A large regular file of bad lines: `source` stops reading it at the
  /// error limit, as a SCRIPT does, instead of reading all of it first
  /// (200 MB of `bogus` lines were read whole: 205 MB of memory). 96 MiB
  /// here; reading stops within the first pieces, so memory stays far
  /// under the file's size.
  func testSourceOfALargeFileOfErrorsStopsReadingAtTheLimit() throws {
    let piece = Data(String(repeating: "bogus\n", count: 1 << 20).utf8)
    let url = url("noise.hand")
    FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    for _ in 0..<16 { try handle.write(contentsOf: piece) }
    try handle.close()
    let first = (1...20).map { "noise.hand:\($0):1: error: unknown command 'bogus'\n" }.joined()
    for arguments in [
      ["noise.hand"], ["-c", "source noise.hand"], ["-k", "-c", "source noise.hand"],
    ] {
      let result = try measured(arguments)
      XCTAssertEqual(result.status, 1, "\(arguments)")
      XCTAssertEqual(
        result.err, first + "noise.hand: error: too many errors, stopping\n", "\(arguments)")
      assertPeak(result, under: 24 * 1024, "peak RSS of \(arguments) over a 96 MiB file of errors")
    }
  }

  /// An endless device of random bytes (a copy of /dev/urandom's node):
  /// `handsh FILE`, `-c 'source FILE'` and `-k -c 'source FILE'` end at
  /// once with at most 20 errors and the stopping message, in bounded
  /// memory, never a crash.
  func testEndlessRandomInputEndsAtOnce() throws {
    try requireRoot("mknod makes the random device")
    XCTAssertEqual(mknod(path("random"), S_IFCHR | 0o444, dev_t((1 << 8) | 9)), 0)
    for arguments in [["random"], ["-c", "source random"], ["-k", "-c", "source random"]] {
      let result = try measured(arguments)
      XCTAssertEqual(result.status, 1, "\(arguments)")
      let lines = result.err.split(separator: "\n", omittingEmptySubsequences: false)
      XCTAssertLessThanOrEqual(lines.count, 22, "\(arguments): \(result.err.prefix(2000))")
      XCTAssertTrue(
        result.err.hasSuffix("random: error: too many errors, stopping\n"),
        "\(arguments): \(result.err.suffix(300))")
      assertPeak(result, under: 64 * 1024, "peak RSS of handsh \(arguments)")
    }
  }

  /// Memory grows with the text held, never a multiple of it: a 70 MB
  /// script of comments, run or sourced, peaks under 1.25 times its size
  /// plus 16 MiB (growing an array by copying it whole held two copies at
  /// once: 143 MB).
  func testMemoryNeverAMultipleOfTheText() throws {
    let line = "# " + String(repeating: "x", count: 97) + "\n"
    try write("big.hand", String(repeating: line, count: 700_000) + "add\n")
    let size = 700_000 * 100
    let bound = (size + size / 4) / 1024 + 16 * 1024
    for arguments in [["big.hand"], ["-c", "source big.hand"]] {
      let result = try measured(["--seed", "42"] + arguments)
      XCTAssertEqual(result.status, 0, result.err)
      XCTAssertEqual(result.out, "7♥\n")
      assertPeak(result, under: bound, "peak RSS of \(arguments) over a 70 MB text")
    }
  }

  // MARK: - Golden tests over 64 MiB

  /// A test file over 64 MiB is an error, never read; the other files
  /// run as usual. A 2 GB sparse one under a 600 MB address-space limit
  /// is the same error, never a crash.
  func testAGoldenFileOver64MiBIsAnError() throws {
    try write("t/ok.hand", "add\n#> 8♠\n")
    let fd = open(path("t/big.hand"), O_CREAT | O_WRONLY, 0o644)
    XCTAssertGreaterThanOrEqual(fd, 0)
    close(fd)
    XCTAssertEqual(truncate(path("t/big.hand"), (64 << 20) + 1), 0)
    let result = try run(["--test", "t"])
    XCTAssertEqual(result.out, "1 passed, 0 failed, 1 error\n")
    XCTAssertEqual(
      result.err, "handsh: cannot read 't/big.hand': too large for a golden test (over 64 MiB)\n")
    XCTAssertEqual(result.status, 2)
    // Nothing was rewritten, nor left beside it.
    let update = try run(["--test", "--update", "t"])
    XCTAssertEqual(update.err, result.err)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: path("t")).sorted(),
      [
        "big.hand", "ok.hand",
      ])
    var status = stat()
    XCTAssertEqual(stat(path("t/big.hand"), &status), 0)
    XCTAssertEqual(status.st_size, (64 << 20) + 1)

    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
      throw XCTSkip("no prlimit(1) to limit the address space with")
    }
    if ProcessInfo.processInfo.environment["HANDSH_TEST_SANITIZER"] != nil {
      throw XCTSkip("a sanitizer's shadow memory needs more address space than the limit")
    }
    XCTAssertEqual(truncate(path("t/big.hand"), 2_000_000_000), 0)
    let limited = try run(
      ["--as=600000000", binary.path, "--test", "t"],
      executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
    XCTAssertEqual(limited.out, "1 passed, 0 failed, 1 error\n")
    XCTAssertEqual(limited.err, result.err)
    XCTAssertEqual(limited.status, 2)
  }

  // MARK: - history in canonical form

  /// `history` and `--json` history write each command in canonical form:
  /// numbers without leading zeros, whatever was typed.
  func testHistoryWritesTheCanonicalForm() throws {
    let typed = "add; add; add; del 02; mv 0000001 2; limit 007; new 0042; history"
    let text = try run(["--seed", "42", "-q", "-c", typed])
    XCTAssertEqual(
      text.out,
      """
       0  start     (empty)
       1  add 7♥    7♥
       2  add 3♣    3♣ 7♥
       3  add K♥    K♥ 3♣ 7♥
       4  del 2     K♥ 7♥
       5  mv 1 2    7♥ K♥
       6  limit 7   7♥ K♥
      *7  new 42    (empty)

      """)
    XCTAssertEqual(text.status, 0, text.err)
    let json = try run(["--seed", "42", "-q", "--json", "-c", typed])
    let commands = json.out.split(separator: "\n").compactMap { line -> String? in
      guard let start = line.range(of: "\"command\":\"") else { return nil }
      return String(line[start.upperBound...].prefix { $0 != "\"" })
    }
    XCTAssertEqual(
      commands, ["start", "add 7♥", "add 3♣", "add K♥", "del 2", "mv 1 2", "limit 7", "new 42"])
  }

  /// The spelling of a command costs no memory: 300,000 lines of
  /// `mv 0000000001 0000000002` peak as `mv 1 2` does, and 60 lines of
  /// `mv 000…0001 2` with a million zeros each keep nothing of them.
  func testSpellingCostsNoMemory() throws {
    let count = 300_000
    try write("plain.hand", "add; add\n" + String(repeating: "mv 1 2\n", count: count))
    try write(
      "padded.hand",
      "add; add\n" + String(repeating: "mv 0000000001 0000000002\n", count: count))
    let plain = try measured(["--seed", "42", "-q", "-"], stdin: "plain.hand")
    let padded = try measured(["--seed", "42", "-q", "-"], stdin: "padded.hand")
    XCTAssertEqual(plain.status, 0, plain.err)
    XCTAssertEqual(padded.status, 0, padded.err)
    assertPeak(
      Measured(status: 0, err: "", peakKiB: padded.peakKiB - plain.peakKiB), under: 4 * 1024,
      "padded spellings peak \(padded.peakKiB) KiB against \(plain.peakKiB) KiB")

    let zeros = "mv " + String(repeating: "0", count: 1_000_000) + "1 2\n"
    try write("zeros.hand", "add; add\n" + String(repeating: zeros, count: 60) + "history\n")
    let many = try measured(["--seed", "42", "-q", "-"], stdin: "zeros.hand")
    XCTAssertEqual(many.status, 0, many.err)
    XCTAssertEqual(many.out.split(separator: "\n").last, "*62  mv 1 2    3♣ 7♥")
    assertPeak(many, under: 40 * 1024, "peak RSS of 60 lines of a million zeros")
  }

  /// A SCRIPT's lines are not kept once they have run ahead: 300,000
  /// lines of `mv 0000000001 0000000002` and a save cost what the same
  /// lines through stdin cost, not their 7.5 MB of text on top.
  func testAScriptKeepsNoTextThatRan() throws {
    let body = "add; add\n" + String(repeating: "mv 0000000001 0000000002\n", count: 300_000)
    try write("long.hand", body + "save out.hand\n")
    let script = try measured(["--seed", "42", "-q", "long.hand"])
    let stdin = try measured(["--seed", "42", "-q", "-"], stdin: "long.hand")
    XCTAssertEqual(script.status, 0, script.err)
    XCTAssertEqual(stdin.status, 0, stdin.err)
    let saved = try Data(contentsOf: url("out.hand"))
    XCTAssertEqual(
      saved.count,
      "#!/usr/bin/env handsh\nnew 42\nlimit 5\nadd 7H\nadd 3C\n".utf8.count + 300_000 * 7)
    assertPeak(
      Measured(status: 0, err: "", peakKiB: script.peakKiB - stdin.peakKiB), under: 3 * 1024,
      "the script's peak RSS \(script.peakKiB) KiB against stdin's \(stdin.peakKiB) KiB")
  }

  // MARK: - save writes as it goes

  /// `save` at the end of a long path peaks as `show` does: the script is
  /// written as it is made, never held whole.
  func testSaveOfALongPathWritesAsItGoes() throws {
    let count = 500_000
    let body = "add; add\n" + String(repeating: "mv 1 2\n", count: count)
    try write("save.hand", body + "save out.hand\n")
    try write("show.hand", body + "show\n")
    let save = try measured(["--seed", "42", "-q", "-"], stdin: "save.hand")
    let show = try measured(["--seed", "42", "-q", "-"], stdin: "show.hand")
    XCTAssertEqual(save.status, 0, save.err)
    XCTAssertEqual(show.status, 0, show.err)
    let saved = try Data(contentsOf: url("out.hand"))
    let expected = Data(
      ("#!/usr/bin/env handsh\nnew 42\nlimit 5\nadd 7H\nadd 3C\n"
        + String(repeating: "mv 1 2\n", count: count)).utf8)
    XCTAssertEqual(saved.count, expected.count)
    XCTAssertTrue(saved == expected, "the saved script differs")
    assertPeak(
      Measured(status: 0, err: "", peakKiB: save.peakKiB - show.peakKiB), under: 3 * 1024,
      "save's peak RSS \(save.peakKiB) KiB against show's \(show.peakKiB) KiB")
  }

  // MARK: - Helpers

  private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
  private func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  private func write(_ name: String, _ text: String) throws {
    let url = url(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  private func requireRoot(_ why: String) throws {
    if getuid() != 0 { throw XCTSkip("not root: \(why)") }
  }

  /// Set by scripts/sanitize: no memory bound of ours allows for it.
  private var sanitizer: String? { ProcessInfo.processInfo.environment["HANDSH_TEST_SANITIZER"] }

  private func run(
    _ arguments: [String], stdin: String? = nil, executable: URL? = nil,
    timeout: TimeInterval = TestProcess.timeout, line: UInt = #line
  ) throws -> TestRun {
    let result = try TestProcess.run(
      executable ?? binary, arguments, in: folder, stdin: stdin.map { url($0) }, timeout: timeout)
    XCTAssertFalse(result.timedOut, "\(arguments) timed out and was killed", line: line)
    XCTAssertNil(result.signal, "\(arguments) died of signal \(result.signal ?? 0)", line: line)
    return result
  }

  struct Measured {
    var status: Int32
    var err: String
    var out = ""
    var peakKiB: Int
  }

  private func assertPeak(
    _ measured: Measured, under bound: Int, _ what: String, line: UInt = #line
  ) {
    guard sanitizer == nil else { return }
    XCTAssertLessThan(measured.peakKiB, bound, what, line: line)
  }

  /// Runs handsh through `/usr/bin/time -f %M` (its peak RSS in KiB), stdin
  /// from the folder's file STDIN.
  private func measured(
    _ arguments: [String], stdin: String? = nil, line: UInt = #line
  ) throws -> Measured {
    let time = URL(fileURLWithPath: "/usr/bin/time")
    guard FileManager.default.isExecutableFile(atPath: time.path) else {
      throw XCTSkip("no /usr/bin/time to measure the peak RSS with (Debian: apt-get install time)")
    }
    let report = path(".peak")
    let seconds = sanitizer == nil ? 30 : 200
    let result = try run(
      ["-o", report, "-f", "%M", "/usr/bin/timeout", "-s", "KILL", "\(seconds)", binary.path]
        + arguments, stdin: stdin, executable: time, timeout: TimeInterval(seconds + 5),
      line: line)
    let text = String(decoding: try Data(contentsOf: url(".peak")), as: UTF8.self)
    let peak = Int(text.split(separator: "\n").last ?? "") ?? .max
    return Measured(status: result.status, err: result.err, out: result.out, peakKiB: peak)
  }
}
