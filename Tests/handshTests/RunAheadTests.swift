import Foundation
import XCTest

/// A SCRIPT runs ahead while it is still being checked (RunAhead): what it
/// prints must be exactly what running it line by line prints, whatever
/// pauses the run ahead (a failure, a save, a quit, 32 MiB of held output),
/// and nothing at all when a later line has a syntax error.
final class RunAheadTests: XCTestCase {
  private var binary: URL!
  private var folder: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  /// The script run whole, and the same lines from stdin (no run ahead).
  private func both(_ text: String, _ options: [String]) throws -> (TestRun, TestRun) {
    let script = folder.appendingPathComponent("s.hand")
    try Data(text.utf8).write(to: script)
    let whole = try TestProcess.run(binary, options + ["s.hand"], in: folder)
    let lines = try TestProcess.run(binary, options + ["-"], in: folder, stdin: script)
    return (whole, lines)
  }

  private func assertSame(
    _ text: String, _ options: [String], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let (whole, lines) = try both(text, options)
    XCTAssertEqual(whole.status, lines.status, file: file, line: line)
    XCTAssertTrue(whole.stdout == lines.stdout, "stdout differs", file: file, line: line)
    XCTAssertEqual(
      whole.err, lines.err.replacingOccurrences(of: "<stdin>:", with: "s.hand:"), file: file,
      line: line)
  }

  func testFailuresSavesAndQuitPauseAndResumeInPlace() throws {
    let text =
      "add; add; del 9; add\nshow\nsave out.hand; add\nmv 1 7; new 3\nhistory\nquit; add\nadd\n"
    try assertSame(text, ["--seed", "42"])
    try assertSame(text, ["--seed", "42", "-k"])
    try assertSame(text, ["--seed", "42", "-k", "--echo", "--json"])
  }

  func testHeldOutputPastItsLimitResumesInPlace() throws {
    // About 9 KiB per `history`: 4500 of them hold more than 32 MiB.
    let text =
      "limit 52\n" + String(repeating: "add\n", count: 52)
      + String(repeating: "history\n", count: 4500) + "del 99\nshow\n"
    let (whole, lines) = try both(text, ["--seed", "1", "-k"])
    XCTAssertGreaterThan(whole.stdout.count, 32 << 20)
    XCTAssertEqual(whole.status, 1)
    XCTAssertTrue(whole.stdout == lines.stdout)
    XCTAssertEqual(whole.err, "s.hand:4554:1: error: no card at position 99 (hand has 52 cards)\n")
  }

  func testASyntaxErrorOnTheLastLineRunsNothing() throws {
    let text =
      "limit 52\n" + String(repeating: "add\n", count: 52)
      + String(repeating: "history\n", count: 4500) + "save x.hand\ndel x\n"
    let script = folder.appendingPathComponent("s.hand")
    try Data(text.utf8).write(to: script)
    let whole = try TestProcess.run(binary, ["--seed", "1", "s.hand"], in: folder)
    XCTAssertEqual(whole.status, 1)
    XCTAssertEqual(whole.out, "")
    XCTAssertEqual(
      whole.err,
      "s.hand:4555:5: error: invalid position 'x': expected a whole number of 1 or more\n")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.hand").path))
  }
}
