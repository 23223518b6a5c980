import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the pseudo-terminal tests of the readline prompt (`Tests/pty`,
/// pytest + pexpect; SPEC §8, issue 3) against the `handsh` built next to
/// this test bundle:
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
    let binary = try Self.handshBinary()

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
        """)
      return
    }

    let result = try Self.python(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "Tests/pty"],
      environment: ["HANDSH_BIN": binary.path], timeout: Self.timeout)
    if result.timedOut {
      XCTFail(
        "the pty tests took longer than \(Int(Self.timeout)) s and were killed:\n\(result.output)")
      return
    }
    XCTAssertEqual(
      result.status, 0, "the pty tests failed (exit status \(result.status)):\n\(result.output)")
    XCTAssertTrue(
      result.output.contains(" passed"),
      "the pty tests reported nothing as passed:\n\(result.output)")
  }

  // MARK: - Running python3

  struct Result {
    var output: String
    var status: Int32
    var timedOut: Bool
  }

  /// Runs `python3 ARGUMENTS` in the repository root with stdout and stderr
  /// going to one file (no pipe can fill up), killing it after TIMEOUT
  /// seconds. An exit by signal N reads as 128 + N.
  static func python(
    _ arguments: [String], environment: [String: String], timeout: TimeInterval
  ) throws -> Result {
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-pty-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("output")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    let outHandle = try FileHandle(forWritingTo: outURL)
    defer { try? outHandle.close() }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    process.currentDirectoryURL = repositoryRoot
    var env = ProcessInfo.processInfo.environment
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["SWIFT_BACKTRACE"] = "enable=no"
    env.merge(environment) { _, new in new }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = outHandle
    process.standardError = outHandle

    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    do {
      try process.run()
    } catch {
      return Result(
        output: "cannot run python3 through /usr/bin/env: \(error)", status: 127, timedOut: false)
    }
    var timedOut = false
    if done.wait(timeout: .now() + timeout) == .timedOut {
      timedOut = true
      process.terminate()
      if done.wait(timeout: .now() + 5) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        done.wait()
      }
    }
    process.waitUntilExit()
    let status =
      process.terminationReason == .uncaughtSignal
      ? 128 + process.terminationStatus : process.terminationStatus
    let output = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
    return Result(output: output, status: status, timedOut: timedOut)
  }

  // MARK: - Finding things

  /// The repository root: this file is `Tests/handshTests/PtyTests.swift`.
  static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  /// The `handsh` that `swift build` put next to the test bundle.
  static func handshBinary() throws -> URL {
    let bundle = Bundle(for: PtyTests.self).bundleURL
    var candidates = [bundle.deletingLastPathComponent().appendingPathComponent("handsh")]
    if bundle.pathExtension != "xctest" {
      candidates.append(bundle.appendingPathComponent("handsh"))
    }
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
      return candidate
    }
    XCTFail("no handsh binary at \(candidates.map(\.path)); run swift build first")
    throw CocoaError(.fileNoSuchFile)
  }
}
