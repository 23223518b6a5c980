import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// How a run of a program ended, and what it wrote.
struct TestRun {
  var stdout: Data
  var stderr: Data
  /// The exit status; for a process ended by a signal, the signal number.
  var status: Int32
  /// The signal that ended the process, if one did.
  var signal: Int32?
  var timedOut: Bool
  var out: String { String(decoding: stdout, as: UTF8.self) }
  var err: String { String(decoding: stderr, as: UTF8.self) }
  /// The status as a shell reports it: 128 + N for signal N.
  var shellStatus: Int32 { signal.map { 128 + $0 } ?? status }
}

/// Runs programs for the end-to-end tests: stdout and stderr go to files (no
/// pipe can fill up and block), and a run that outlives `timeout` is killed,
/// so a hang fails a test instead of blocking CI.
enum TestProcess {
  static let timeout: TimeInterval = 20

  /// The environment every run starts from: no colour surprises, no history
  /// file, and no Swift backtracer (which can hang on a piped output).
  static func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = nil
    env["SWIFT_BACKTRACE"] = "enable=no"
    env["HANDSH_HISTORY"] = ""
    env.merge(extra) { _, new in new }
    return env
  }

  static func run(
    _ executable: URL, _ arguments: [String], in folder: URL, stdin: URL? = nil,
    environment: [String: String] = [:], stdout: Any? = nil, timeout: TimeInterval = timeout,
    whileRunning: (Process) -> Void = { _ in }
  ) throws -> TestRun {
    let scratch = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout")
    let errURL = scratch.appendingPathComponent("stderr")
    FileManager.default.createFile(atPath: outURL.path, contents: nil)
    FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let outHandle = try FileHandle(forWritingTo: outURL)
    let errHandle = try FileHandle(forWritingTo: errURL)
    let inHandle = try stdin.map { try FileHandle(forReadingFrom: $0) }
    defer {
      try? outHandle.close()
      try? errHandle.close()
      try? inHandle?.close()
    }

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = folder
    process.environment = Self.environment(environment)
    process.standardInput = inHandle ?? FileHandle.nullDevice
    process.standardOutput = stdout ?? outHandle
    process.standardError = errHandle
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    try process.run()
    whileRunning(process)
    let timedOut = wait(process, done, timeout: timeout)
    let signaled = process.terminationReason == .uncaughtSignal
    return TestRun(
      stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL),
      status: process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
      timedOut: timedOut)
  }

  /// Waits for PROCESS (whose termination handler signals DONE) to end,
  /// killing it after TIMEOUT seconds; true when it had to be killed.
  static func wait(
    _ process: Process, _ done: DispatchSemaphore, timeout: TimeInterval = timeout
  ) -> Bool {
    var timedOut = false
    if done.wait(timeout: .now() + timeout) == .timedOut {
      timedOut = true
      kill(process.processIdentifier, SIGKILL)
      done.wait()
    }
    process.waitUntilExit()
    return timedOut
  }

  /// The repository's top folder.
  static var repository: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  /// EXECUTABLE and ARGUMENTS, wrapped so that /dev is read-only for it
  /// when the tests run as root: in a mount namespace of its own, /dev is
  /// bound onto itself read-only, so a test that names `/dev/stdout` (a
  /// golden test's `save /dev/stdout`) can write into the stream but never
  /// replace, create or chmod anything in the machine's /dev, even with a
  /// bug in the writer. An ordinary user cannot change /dev anyway, and
  /// runs unwrapped. Root without `unshare` does not run it at all: the
  /// run fails, saying why, rather than write near the machine's /dev.
  static func withReadOnlyDev(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
    guard getuid() == 0 else { return (executable, arguments) }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
      let refusal = "echo 'no /usr/bin/unshare: /dev cannot be made read-only' >&2; exit 125"
      return (URL(fileURLWithPath: "/bin/sh"), ["-c", refusal])
    }
    let script = "mount --bind /dev /dev && mount -o remount,bind,ro /dev && exec \"$0\" \"$@\""
    return (
      URL(fileURLWithPath: "/usr/bin/unshare"),
      ["--mount", "--propagation", "private", "/bin/sh", "-c", script, executable.path]
        + arguments
    )
  }

  /// The `handsh` that `swift build` put next to the test bundle.
  /// `HANDSH_TEST_BINARY`, when set, names another binary to run instead
  /// (an older build, to show that a new test fails on it).
  static func handshBinary() throws -> URL {
    if let other = ProcessInfo.processInfo.environment["HANDSH_TEST_BINARY"], !other.isEmpty {
      return URL(fileURLWithPath: other)
    }
    let bundle = Bundle(for: Marker.self).bundleURL
    var folders = [bundle.deletingLastPathComponent()]
    if bundle.pathExtension != "xctest" { folders.insert(bundle, at: 0) }
    for folder in folders {
      let candidate = folder.appendingPathComponent("handsh")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    XCTFail("no handsh binary in \(folders.map(\.path)); run swift build first")
    throw CocoaError(.fileNoSuchFile)
  }

  static func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private final class Marker {}
}

/// A program a test needs (a consumer such as `prove` or `xmllint`), looked
/// for in FOLDERS. A missing one skips the test, except in CI, where
/// scripts/bootstrap installs every one and a missing one fails the test:
/// no guarantee goes unchecked behind a skip.
func requiredTool(
  _ name: String, in folders: [String] = ["/usr/bin", "/bin", "/usr/local/bin"],
  environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> URL {
  for folder in folders {
    let url = URL(fileURLWithPath: folder).appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: url.path) { return url }
  }
  let why = "\(name) is not installed (scripts/bootstrap installs it)"
  if runningInCI(environment) { throw MissingTool(description: why) }
  throw XCTSkip(why)
}

/// A program a test needs is missing in CI: thrown, a test failure.
struct MissingTool: Error, CustomStringConvertible {
  var description: String
}

extension TestProcess {
  /// EXECUTABLE and ARGUMENTS, to run as a user whom permission bits stop:
  /// as they are when not root; as root, through setpriv as uid/gid 65534
  /// (who must be able to reach the files the run needs). setpriv that
  /// cannot drop skips the test, and fails it in CI.
  static func unprivileged(_ executable: URL, _ arguments: [String]) throws -> (URL, [String]) {
    guard getuid() == 0 else { return (executable, arguments) }
    let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
    let drop = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    let probe =
      FileManager.default.isExecutableFile(atPath: setpriv.path)
      ? try run(setpriv, drop + ["/bin/true"], in: URL(fileURLWithPath: "/")) : nil
    guard let probe, probe.status == 0 else {
      let why = "running as root, and setpriv cannot drop to uid 65534: \(probe?.err ?? "none")"
      if runningInCI() { throw MissingTool(description: why) }
      throw XCTSkip(why)
    }
    return (setpriv, drop + [executable.path] + arguments)
  }
}

/// A test class of end-to-end runs, each test in a temporary folder of its
/// own (removed after it) with the built binary: `handsh` runs it there.
class FolderTests: XCTestCase, FolderTestCase {
  var binary: URL!
  var folder: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  /// Runs the binary with `arguments` in the test's folder.
  func handsh(_ arguments: [String]) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: folder)
  }
}

protocol FolderTestCase: AnyObject {
  var folder: URL! { get }
  var binary: URL! { get }
}

extension FolderTestCase {
  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
  func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// Runs `script` with /bin/sh in the test's folder, `$0` the binary.
  func shell(_ script: String) throws -> TestRun {
    try TestProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, binary.path], in: folder)
  }

  /// Writes `text` to NAME, making its folders first.
  func write(_ name: String, _ text: String) throws {
    let url = url(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  /// Writes `text` to NAME, whose folder is there.
  func make(_ name: String, _ text: String) throws {
    try Data(text.utf8).write(to: url(name))
  }

  /// NAME's text, which must be UTF-8.
  func text(_ name: String) throws -> String {
    try String(contentsOf: url(name), encoding: .utf8)
  }

  /// NAME's bytes as text, invalid UTF-8 repaired.
  func contents(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: url(name)), as: UTF8.self)
  }

  /// NAME's `lstat`, or nil when there is nothing there.
  func status(_ name: String) -> stat? {
    var result = stat()
    return lstat(path(name), &result) == 0 ? result : nil
  }

  func requireRoot(_ why: String) throws {
    if getuid() != 0 { throw XCTSkip("not root: \(why)") }
  }
}
