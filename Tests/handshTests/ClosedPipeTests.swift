import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A reader that goes away ends handsh at once and quietly, by SIGPIPE,
/// as it ends `cat` or `yes` (handsh(1), EXIT STATUS): `handsh long.hand |
/// head -c1` ends with status 141 (128 + SIGPIPE), whatever the parent did
/// with SIGPIPE. (Caught the mutant that ignored SIGPIPE in main.swift:
/// handsh then saw EPIPE, wrote an error and ended with status 1.)
final class ClosedPipeTests: XCTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    folder = try TestProcess.temporaryFolder()
    // Far more output than a pipe holds (64 KiB), so handsh is still
    // writing when `head` has gone.
    let text = "add\n" + String(repeating: "help\nshow\n", count: 20_000)
    try Data(text.utf8).write(to: folder.appendingPathComponent("long.hand"))
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  func testClosedPipeEndsHandshBySigpipe() throws {
    try check(parentIgnoresSigpipe: false)
  }

  /// A parent that ignores SIGPIPE (as some daemons and test runners do)
  /// does not change how handsh ends: it restores the default.
  func testClosedPipeEndsHandshBySigpipeWhenTheParentIgnoresIt() throws {
    try check(parentIgnoresSigpipe: true)
  }

  private func check(parentIgnoresSigpipe: Bool, line: UInt = #line) throws {
    let binary = try TestProcess.handshBinary()
    // bash's PIPESTATUS: the status of handsh, not of head.
    let pipeline =
      (parentIgnoresSigpipe ? "trap '' PIPE; " : "")
      + "\"$0\" long.hand | head -c1 >/dev/null; echo \"${PIPESTATUS[0]}\""
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/bash"), ["-c", pipeline, binary.path], in: folder,
      environment: ["HANDSH_HISTORY": ""])
    XCTAssertFalse(run.timedOut, line: line)
    XCTAssertEqual(run.out, "141\n", "handsh | head -c1: status", line: line)
    XCTAssertEqual(run.err, "", "handsh said something on a closed pipe", line: line)
  }
}
