import Foundation
import XCTest

/// `scripts/crash-sweep --reduced`: a fault (ENOSPC, SIGTERM, SIGKILL) at
/// every write-side system call of the main writers leaves each target old
/// or new, whole, no temporary file, and handsh ended by the signal or
/// with a message, never a crash (handsh(1), FILES, SIGNALS). The whole
/// sweep (every writer, every fault) is `scripts/crash-sweep`.
final class CrashSweepTests: XCTestCase {
  func testReducedSweepPasses() throws {
    let binary = try TestProcess.handshBinary()
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let script = root.appendingPathComponent("scripts/crash-sweep")
    let folder = try TestProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let probe = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "strace -f -o /dev/null /bin/true"], in: folder)
    if probe.status != 0 {
      throw XCTSkip("strace cannot trace here (scripts/bootstrap installs it)")
    }
    let result = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      [script.path, "--reduced", "--bin", binary.path], in: folder, timeout: 300)
    XCTAssertFalse(result.timedOut)
    XCTAssertEqual(result.status, 0, result.out + result.err)
    let last = result.out.split(separator: "\n").last.map(String.init) ?? ""
    XCTAssertTrue(last.contains(" passed, 0 failed; "), last)
    // A sweep that injected nothing proves nothing.
    let injected = last.split(separator: ";").dropFirst().first?.split(separator: " ").first
      .flatMap { Int($0) }
    XCTAssertGreaterThan(injected ?? 0, 50, last)
  }
}
