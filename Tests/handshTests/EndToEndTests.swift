import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(Glibc)
  private let systemRead = Glibc.read
  private let systemWrite = Glibc.write
#elseif canImport(Darwin)
  private let systemRead = Darwin.read
  private let systemWrite = Darwin.write
#endif

/// Runs the built `handsh` end to end: stdin as a stream, the GNU option
/// forms and usage errors (handsh(1), OPTIONS), bad input (THE LANGUAGE, OUTPUT), faults while
/// saving and opening (COMMANDS, EXIT STATUS), and the exit statuses.
///
/// Every test works in its own temporary folder; every process gets
/// `SWIFT_BACKTRACE=enable=no` and is killed (and the test failed) after
/// `timeout` seconds. Saving's replay, a closed pipe and `/dev/full` are
/// in `GoldenTests`.
final class EndToEndTests: XCTestCase {
  static let timeout = TestProcess.timeout

  /// This test's folder; handsh runs in it.
  var folder: URL!
  var binary: URL!
  private var previousSigpipe: sighandler_t?

  override func setUpWithError() throws {
    binary = try GoldenTests.handshBinary()
    folder = try GoldenTests.temporaryFolder()
    // Writing to a pipe whose reader is gone must fail the test, not kill it.
    previousSigpipe = signal(SIGPIPE, SIG_IGN)
  }

  override func tearDownWithError() throws {
    if let previousSigpipe { signal(SIGPIPE, previousSigpipe) }
    if let folder {
      _ = chmod(folder.path, 0o755)
      try? FileManager.default.removeItem(at: folder)
    }
  }

  // MARK: - Streaming stdin (handsh(1), DESCRIPTION)

  /// `(echo add; sleep 2; echo show) | handsh --seed 42`: the first hand
  /// line comes out while stdin is still open.
  func testPipedStdinRunsEachLineAsItArrives() throws {
    try checkStreaming(["--seed", "42"])
  }

  /// `-` as SCRIPT reads stdin the same way.
  func testDashReadsStdinLineByLine() throws {
    try checkStreaming(["--seed", "42", "-"])
    try checkStreaming(["-", "--seed=42"])
  }

  /// On stdin, a line with a syntax error runs none of its commands and
  /// stops the run like a failed command (unless `-k`).
  func testStdinSyntaxErrorStopsLikeAFailedCommand() throws {
    let text = Data("add\nadd; bogus\nadd\n".utf8)
    let stopped = try run(["--seed", "42", "-"], stdin: text)
    assertOutcome(
      stopped, out: "7♥\n", err: "<stdin>:2:6: error: unknown command 'bogus'\n", status: 1)

    let kept = try run(["-k", "--seed", "42", "-"], stdin: text)
    assertOutcome(
      kept, out: "7♥\n3♣ 7♥\n", err: "<stdin>:2:6: error: unknown command 'bogus'\n", status: 1)
  }

  // MARK: - Helpers

  typealias Outcome = TestRun

  /// Runs handsh (or EXECUTABLE) in this test's folder (see `TestProcess.run`).
  func run(
    _ arguments: [String], stdin: Data? = nil, executable: URL? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    whileRunning: (Process) -> Void = { _ in }
  ) throws -> Outcome {
    var input: URL? = nil
    if let stdin {
      let url = folder.appendingPathComponent(".stdin-\(UUID().uuidString)")
      try stdin.write(to: url)
      input = url
    }
    defer { input.map { try? FileManager.default.removeItem(at: $0) } }
    let result = try TestProcess.run(
      executable ?? binary, arguments, in: folder, stdin: input, whileRunning: whileRunning)
    if result.timedOut {
      XCTFail(
        "\(arguments) timed out after \(Int(Self.timeout)) s and was killed", file: file, line: line
      )
    }
    return result
  }

  func makeProcess(_ arguments: [String], executable: URL?) -> Process {
    let process = Process()
    process.executableURL = executable ?? binary
    process.arguments = arguments
    process.currentDirectoryURL = folder
    process.environment = TestProcess.environment()
    return process
  }

  /// Writes TEXT as `in.hand` and runs `handsh --seed 42 in.hand`.
  func runScript(_ text: Data, file: StaticString = #filePath, line: UInt = #line) throws
    -> Outcome
  {
    try write(text, to: "in.hand")
    return try run(["--seed", "42", "in.hand"], file: file, line: line)
  }

  /// Runs `handsh --seed 42 fifo.hand` where `fifo.hand` is a FIFO that
  /// another thread writes CHUNKS into, 300 ms apart.
  func runFIFO(chunks: [String]) throws -> Outcome {
    let path = folder.appendingPathComponent("fifo.hand").path
    unlink(path)
    XCTAssertEqual(mkfifo(path, 0o600), 0, "mkfifo: \(String(cString: strerror(errno)))")
    let written = DispatchSemaphore(value: 0)
    let writer = Thread {
      let fd = open(path, O_WRONLY)
      if fd >= 0 {
        for (index, chunk) in chunks.enumerated() {
          if index > 0 { usleep(300_000) }
          let bytes = Array(chunk.utf8)
          _ = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        }
        close(fd)
      }
      written.signal()
    }
    writer.start()
    let result = try run(["--seed", "42", "fifo.hand"])
    if written.wait(timeout: .now() + 2) == .timedOut {
      // handsh never opened the FIFO: open its other end to free the writer.
      XCTFail("handsh did not read the FIFO")
      let fd = open(path, O_RDONLY | O_NONBLOCK)
      _ = written.wait(timeout: .now() + 5)
      if fd >= 0 { close(fd) }
    }
    return result
  }

  /// Runs handsh with ARGUMENTS and stdin a pipe: `add` first, then, only
  /// once its hand line has come out, `show` and the end of input.
  func checkStreaming(
    _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let label = "handsh \(arguments.joined(separator: " "))"
    let scratch = try GoldenTests.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let errURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let errHandle = try FileHandle(forWritingTo: errURL)
    defer { try? errHandle.close() }

    let input = Pipe()
    let output = Pipe()
    let process = makeProcess(arguments, executable: nil)
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errHandle
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    try process.run()
    defer {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    let reader = output.fileHandleForReading.fileDescriptor

    try input.fileHandleForWriting.write(contentsOf: Data("add\n".utf8))
    var received = Self.read(reader, until: Data("7♥\n".utf8), seconds: 3)
    XCTAssertEqual(
      String(decoding: received, as: UTF8.self), "7♥\n",
      "\(label): the first hand line did not come out within 3 s while stdin stayed open",
      file: file, line: line)

    try input.fileHandleForWriting.write(contentsOf: Data("show\n".utf8))
    try input.fileHandleForWriting.close()
    received += Self.read(reader, until: nil, seconds: Self.timeout)
    let timedOut = TestProcess.wait(process, done)
    XCTAssertFalse(timedOut, "\(label) timed out and was killed", file: file, line: line)
    XCTAssertEqual(
      String(decoding: received, as: UTF8.self), "7♥\n1  7♥\n", label, file: file, line: line)
    XCTAssertEqual(
      try String(contentsOf: errURL, encoding: .utf8), "", label, file: file, line: line)
    XCTAssertEqual(process.terminationReason, .exit, label, file: file, line: line)
    XCTAssertEqual(process.terminationStatus, 0, label, file: file, line: line)
  }

  /// Reads FD until the bytes end with SUFFIX (or, without one, until end
  /// of file), or SECONDS pass.
  static func read(_ fd: Int32, until suffix: Data?, seconds: TimeInterval) -> Data {
    var data = Data()
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while Date() < deadline {
      if let suffix, data.count >= suffix.count, data.suffix(suffix.count) == suffix { break }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(1, min(100, deadline.timeIntervalSinceNow * 1000)))
      guard poll(&poller, 1, left) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return data
  }

  @discardableResult
  func write(_ data: Data, to name: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  func exists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
  }

  /// Names of save's temporary files (`.NAME.tmp-*`) left in a folder.
  func temporaryFiles(in subfolder: String? = nil) throws -> [String] {
    let url = subfolder.map { folder.appendingPathComponent($0) } ?? folder!
    return try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
      $0.hasPrefix(".") && $0.contains(".tmp-")
    }
  }

  /// No crash: ended by exit (not a signal) with status 0, 1 or 2, in time.
  /// Checks all three results of a run at once: stdout, stderr and status.
  func assertOutcome(
    _ result: Outcome, out: String, err: String, status: Int32, _ label: String = "",
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(result.out, out, "\(label) stdout", file: file, line: line)
    XCTAssertEqual(result.err, err, "\(label) stderr", file: file, line: line)
    XCTAssertEqual(result.status, status, "\(label) status", file: file, line: line)
  }

  func assertNoCrash(
    _ result: Outcome, _ label: String = "", file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertFalse(result.timedOut, "\(label) timed out", file: file, line: line)
    XCTAssertNil(
      result.signal, "\(label) was killed by signal \(result.signal ?? 0)", file: file, line: line)
    XCTAssertTrue(
      [0, 1, 2].contains(result.status), "\(label) exit status \(result.status)", file: file,
      line: line)
  }

  func assertSame(
    _ result: Outcome, _ expected: Outcome, _ label: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    assertNoCrash(result, label, file: file, line: line)
    XCTAssertEqual(result.status, expected.status, "\(label): exit status", file: file, line: line)
    if result.stdout != expected.stdout {
      XCTFail(
        "\(label): stdout\n" + GoldenTests.diff(expected.stdout, result.stdout), file: file,
        line: line)
    }
    if result.stderr != expected.stderr {
      XCTFail(
        "\(label): stderr\n" + GoldenTests.diff(expected.stderr, result.stderr), file: file,
        line: line)
    }
  }
}
