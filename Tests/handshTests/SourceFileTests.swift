import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
  private let systemWrite = Glibc.write
#elseif canImport(Darwin)
  import Darwin
  private let systemWrite = Darwin.write
#endif

/// `source FILE` on real files (handsh(1), COMMANDS, source): in every mode
/// that runs the language, and on files that are not plain scripts.
/// Everything happens in the test's own temporary folder.
final class SourceFileTests: XCTestCase {
  private var folder: URL!
  private var binary: URL!

  override func setUpWithError() throws {
    binary = try GoldenTests.handshBinary()
    folder = try GoldenTests.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func write(_ text: String, to name: String) throws {
    try Data(text.utf8).write(to: folder.appendingPathComponent(name))
  }

  private func run(_ arguments: [String], stdin: String? = nil) throws -> TestRun {
    var input: URL?
    if let stdin {
      input = folder.appendingPathComponent(".stdin")
      try Data(stdin.utf8).write(to: input!)
    }
    let result = try TestProcess.run(binary, arguments, in: folder, stdin: input, timeout: 10)
    XCTAssertFalse(result.timedOut, "handsh \(arguments) hung")
    XCTAssertNil(result.signal, "handsh \(arguments) died of a signal")
    return result
  }

  func testSourceRunsInScriptsCommandTextAndStdin() throws {
    try write("#!/usr/bin/env handsh\nadd\nadd\n", to: "setup.hand")
    try write("source setup.hand\nhistory\n", to: "main.hand")
    let expected = "7♥\n3♣ 7♥\n 0  start     (empty)\n 1  add 7♥    7♥\n*2  add 3♣    3♣ 7♥\n"
    for result in [
      try run(["--seed", "42", "main.hand"]),
      try run(["--seed", "42", "-c", "source setup.hand; history"]),
      try run(["--seed", "42", "-"], stdin: "source setup.hand\nhistory\n"),
    ] {
      XCTAssertEqual(result.out, expected)
      XCTAssertEqual(result.err, "")
      XCTAssertEqual(result.status, 0)
    }
    // -n checks the syntax only: FILE is not read.
    let checked = try run(["-n", "-c", "source missing.hand"])
    XCTAssertEqual(checked.err, "")
    XCTAssertEqual(checked.status, 0)
  }

  func testAFailureInFileStopsTheScriptAtItsOwnLine() throws {
    try write("add\ndel 9\nadd\n", to: "bad.hand")
    try write("add\nsource bad.hand\nadd\n", to: "main.hand")
    let result = try run(["--seed", "42", "main.hand"])
    XCTAssertEqual(result.out, "7♥\n3♣ 7♥\n")
    XCTAssertEqual(result.err, "bad.hand:2:1: error: no card at position 9 (hand has 2 cards)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A failure two and three files deep is reported at its own file and
  /// line, never at the file that sourced it; with `-k` the files around it
  /// go on. (Caught the mutant that named the outermost sourced file.)
  func testAFailureInANestedFileNamesThatFile() throws {
    try write("add\n\ndel 9\nadd\n", to: "inner.hand")
    try write("add\nsource inner.hand\nadd\n", to: "middle.hand")
    try write("source middle.hand\nshow\n", to: "outer.hand")
    let stopped = try run(["--seed", "42", "-c", "source outer.hand"])
    XCTAssertEqual(stopped.out, "7♥\n3♣ 7♥\n")
    XCTAssertEqual(
      stopped.err, "inner.hand:3:1: error: no card at position 9 (hand has 2 cards)\n")
    XCTAssertEqual(stopped.status, 1)

    let kept = try run(["--seed", "42", "-k", "-c", "source middle.hand; source outer.hand"])
    XCTAssertEqual(
      kept.err,
      "inner.hand:3:1: error: no card at position 9 (hand has 2 cards)\n"
        + "inner.hand:1:1: error: hand is full (5 cards)\n"
        + "inner.hand:3:1: error: no card at position 9 (hand has 5 cards)\n"
        + "inner.hand:4:1: error: hand is full (5 cards)\n"
        + "middle.hand:3:1: error: hand is full (5 cards)\n")
    XCTAssertEqual(kept.status, 1)
  }

  func testASyntaxErrorOnTheLastLineRunsNothing() throws {
    try write("add\nadd\nadd 1h", to: "last.hand")
    let result = try run(["--seed", "42", "-c", "source last.hand; show"])
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(result.err, "last.hand:3:5: error: invalid card '1h'\n")
    XCTAssertEqual(result.status, 1)
  }

  func testFilesThatCannotBeSourced() throws {
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("dir"), withIntermediateDirectories: false)
    try write("source self.hand\n", to: "self.hand")
    try Data([0x61, 0x64, 0x64, 0x0A, 0xC3, 0x28, 0x0A]).write(
      to: folder.appendingPathComponent("utf.hand"))
    let cases: [(String, String)] = [
      (
        "missing.hand",
        "<command line>:1:1: error: cannot read missing.hand: No such file or directory"
      ),
      ("dir", "<command line>:1:1: error: cannot read dir: Is a directory"),
      ("dir/", "<command line>:1:1: error: cannot read dir/: Is a directory"),
      ("\"\"", "<command line>:1:1: error: cannot read : No such file or directory"),
      ("self.hand", "self.hand:1:1: error: cannot source self.hand: nested too deeply (16 files)"),
      ("utf.hand", "utf.hand:2:1: error: invalid UTF-8 in input"),
    ]
    for (file, message) in cases {
      let result = try run(["--seed", "42", "-c", "source \(file); add"])
      XCTAssertEqual(result.out, "", file)
      XCTAssertEqual(result.err, message + "\n", file)
      XCTAssertEqual(result.status, 1, file)
    }
  }

  /// A FIFO that nobody writes never blocks: it reads as empty.
  func testAFIFOWithNoWriterDoesNotHang() throws {
    let path = folder.appendingPathComponent("fifo").path
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    let result = try run(["--seed", "42", "-c", "source fifo; add"])
    XCTAssertEqual(result.out, "7♥\n")
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
  }

  /// An endless line (as from `/dev/zero`), here a FIFO fed zero bytes:
  /// the line-length error at its line, in bounded memory.
  func testAnEndlessLineEndsWithTheLineLengthError() throws {
    let path = folder.appendingPathComponent("zero").path
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    let writer = Thread {
      let fd = open(path, O_WRONLY)
      guard fd >= 0 else { return }
      let zeros = [UInt8](repeating: 0, count: 1 << 16)
      // Until handsh stops reading (a broken pipe), or 64 MiB.
      for _ in 0..<1024 {
        let written = zeros.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        if written < 0 { break }
      }
      close(fd)
    }
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    writer.start()
    let result = try run(["--seed", "42", "-c", "add\nsource zero"])
    XCTAssertEqual(result.out, "7♥\n")
    XCTAssertEqual(result.err, "zero:1:1: error: line is longer than 1048576 bytes\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A golden test sources real files, relative to the current folder, and
  /// their diagnostics keep FILE:LINE:COLUMN.
  func testGoldenTestsSourceRealFiles() throws {
    try write("add\nadd\n", to: "setup.hand")
    try write("add\ndel 9\n", to: "bad.hand")
    try write(
      "#!/usr/bin/env -S handsh --seed 42\nsource setup.hand\n#> 7♥\n#> 3♣ 7♥\nsource bad.hand\n"
        + "#> K♥ 3♣ 7♥\n#2> bad.hand:2:1: error: no card at position 9 (hand has 3 cards)\n",
      to: "t.hand")
    let result = try run(["--test", "t.hand"])
    XCTAssertEqual(result.out, "1 passed, 0 failed\n", result.err)
    XCTAssertEqual(result.status, 0)
  }
}
