import Foundation
import XCTest

/// Runs the pseudo-terminal tests of the readline prompt (`Tests/pty`,
/// pytest + pexpect; handsh(1), THE PROMPT) against the `handsh` built next
/// to this test bundle (the debug build); InstallTests runs the same suite
/// against the installed release binary:
///
///     HANDSH_BIN=<that handsh> python3 -m pytest -q -p no:cacheprovider Tests/pty
///
/// run from the repository root, killed after `timeout` seconds. The test
/// fails, never skips, when python3, pytest or pexpect is missing, when
/// pytest exits non-zero, and when its output does not report a test as
/// passed (a run that ran nothing cannot pass).
final class PtyTests: XCTestCase {
  static let timeout: TimeInterval = 300

  func testPromptInAPseudoTerminal() throws {
    try Self.runSuite(against: try Self.handshBinary())
  }

  /// Runs Tests/pty with HANDSH_BIN=binary; fails the calling test on any
  /// failure.
  static func runSuite(
    against binary: URL, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    // A clear failure, not a silent skip, when the tools are missing.
    let probe = try Self.python(
      ["-c", "import pytest, pexpect"], environment: [:], timeout: 60)
    guard probe.status == 0 else {
      XCTFail(
        """
        the pty tests of the prompt need python3 with pytest and pexpect: \
        pip install pexpect pytest (or apt install python3-pexpect python3-pytest)
        python3 -c 'import pytest, pexpect' said (status \(probe.status)):
        \(probe.output)
        """, file: file, line: line)
      return
    }

    let result = try Self.python(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "Tests/pty"],
      environment: ["HANDSH_BIN": binary.path], timeout: Self.timeout)
    if result.timedOut {
      XCTFail(
        "the pty tests took longer than \(Int(Self.timeout)) s and were killed:\n\(result.output)",
        file: file, line: line)
      return
    }
    XCTAssertEqual(
      result.status, 0,
      "the pty tests of \(binary.path) failed (exit status \(result.status)):\n\(result.output)",
      file: file, line: line)
    XCTAssertTrue(
      result.output.contains(" passed"),
      "the pty tests reported nothing as passed:\n\(result.output)", file: file, line: line)
  }

  // MARK: - Running python3

  struct Result {
    var output: String
    var status: Int32
    var timedOut: Bool
  }

  /// Runs `python3 ARGUMENTS` in the repository root (see `TestProcess.run`);
  /// the output is stdout then stderr, and an exit by signal N reads as 128 + N.
  static func python(
    _ arguments: [String], environment: [String: String], timeout: TimeInterval
  ) throws -> Result {
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments, in: TestProcess.repository,
      environment: environment.merging(["PYTHONDONTWRITEBYTECODE": "1"]) { a, _ in a },
      timeout: timeout)
    return Result(output: run.out + run.err, status: run.shellStatus, timedOut: run.timedOut)
  }

  static func handshBinary() throws -> URL { try TestProcess.handshBinary() }
}
