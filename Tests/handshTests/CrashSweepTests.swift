import Foundation
import XCTest

/// `scripts/crash-sweep` and `scripts/race-sweep`, reduced: a fault (an
/// error once or lasting, SIGKILL, every catchable signal in turn) at the
/// system calls of every writer leaves each target old or new, whole (the
/// history file whole lines, at most 1000), no temporary file, and handsh
/// ended by that very signal or with a message, never a crash; a file that
/// cannot be kept aside is not written in place; and another user's links,
/// swapped in while handsh works, are never followed, and names swapped
/// for other files, links or FIFOs never fail a run; and every state a
/// power cut may leave resumes (handsh(1), FILES, SIGNALS, LIMITS, JOURNAL).
/// The whole sweeps are the scripts without `--reduced`.
final class CrashSweepTests: XCTestCase {
  private func script(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("scripts/" + name)
  }

  private func requireStrace(in folder: URL) throws {
    _ = try requiredTool("strace")
    let probe = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "strace -f -o /dev/null /bin/true"], in: folder)
    if probe.status != 0 {
      throw XCTSkip("strace cannot trace here (scripts/bootstrap installs it)")
    }
  }

  /// Runs SCRIPT with ARGUMENTS against the built handsh; its last line.
  private func sweep(_ name: String, _ arguments: [String], timeout: TimeInterval) throws
    -> String
  {
    let binary = try TestProcess.handshBinary()
    let folder = try TestProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try requireStrace(in: folder)
    let result = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      [script(name).path] + arguments + ["--bin", binary.path], in: folder, timeout: timeout)
    XCTAssertFalse(result.timedOut)
    XCTAssertEqual(result.status, 0, result.out + result.err)
    let last = result.out.split(separator: "\n").last.map(String.init) ?? ""
    XCTAssertTrue(last.contains(" passed, 0 failed; "), last)
    return last
  }

  /// The number after the first `;` of a sweep's last line.
  private func second(_ last: String) -> Int {
    last.split(separator: ";").dropFirst().first?.split(separator: " ").first
      .flatMap { Int($0) } ?? 0
  }

  func testReducedSweepPasses() throws {
    let last = try sweep("crash-sweep", ["--reduced"], timeout: 600)
    // A sweep that injected nothing proves nothing.
    XCTAssertGreaterThan(second(last), 300, last)
    XCTAssertTrue(last.contains("19 fault classes"), last)
  }

  /// Every writer (the 70 MiB one aside) meets a lasting fault (`when=N+`,
  /// EIO, ENOSPC, EFBIG) at its write-side calls: the history cut among
  /// them, which a single fault's retry hides, and the journal's three (its
  /// compaction the third).
  func testLastingFaultsOnEveryWriter() throws {
    let last = try sweep("crash-sweep", ["--lasting"], timeout: 600)
    XCTAssertGreaterThan(second(last), 300, last)
    XCTAssertTrue(last.contains("over 24 writers"), last)
  }

  /// `scripts/power-cut`, reduced: every state a power cut may leave of a
  /// journal (kept at the prompt, by `-c`, resumed, cut short by a size
  /// limit) and of a saved file, built from an strace record of the run,
  /// resumes, keeps every result shown once a flush covered it, and brings
  /// back nothing the run did not do, by the journal's rules: at the
  /// prompt a result counts as soon as it is shown, and a cut-back after a
  /// failed write is on disk before the failure is said.
  func testReducedPowerCutSweepPasses() throws {
    let last = try sweep("power-cut", ["--reduced"], timeout: 600)
    // A sweep that built few states proves little.
    XCTAssertGreaterThan(second(last), 80, last)
    XCTAssertTrue(last.hasPrefix("6 passed, 0 failed; "), last)
  }

  /// Another user (uid 65534) swaps a name in a sticky folder between a
  /// file or folder of its own and a link to root's: 100 runs of each
  /// writer, the victim never changed, never read.
  func testReducedRaceSweepPasses() throws {
    guard getuid() == 0 else {
      throw XCTSkip("the race sweep needs root: its attacker is another user")
    }
    let last = try sweep("race-sweep", ["--reduced"], timeout: 900)
    XCTAssertTrue(last.contains(" 0 victim changes, 0 reads through a link"), last)
    XCTAssertGreaterThan(second(last), 900, last)
  }
}
