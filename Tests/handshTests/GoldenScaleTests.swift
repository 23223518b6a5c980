import Foundation
import HandKit
import XCTest

@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Golden tests at the scale of a CI job (handsh(1), GOLDEN TESTS): the
/// report written as files finish, a job's time limit (a signal) and
/// `--timeout`, memory that does not grow with the failing files, `--update`
/// that never writes what `--test` refuses, names kept apart, a file that
/// is not regular named twice, and what GNU patch cannot take.
/// scripts/ci-scale runs the whole-size cases (1,000 files, 64 MiB).
final class GoldenScaleTests: FolderTests {
  /// t/a.hand fails at once, t/b.hand passes, t/z.hand runs for hours:
  /// each of its lines sources 100 times a file of 1,000 `undo; redo`.
  private func makeSlowTree() throws {
    try write("loop.src", String(repeating: "undo; redo\n", count: 1000))
    try write("mid.src", String(repeating: "source loop.src\n", count: 100))
    try write("t/a.hand", "add\n#> x\n")
    try write("t/b.hand", "add\n#> 8♠\n")
    // Line 2 runs two billion commands: whatever the machine's speed, a
    // time limit stops the file there.
    try write("big.src", String(repeating: "source mid.src\n", count: 10_000))
    try write("t/z.hand", "add\nsource big.src\n")
  }

  /// A run of handsh whose stdout is a pipe read as it comes.
  private final class LiveRun {
    let process = Process()
    let pipe = Pipe()
    let errors: URL
    let done = DispatchSemaphore(value: 0)
    var seen = Data()

    init(_ binary: URL, _ arguments: [String], in folder: URL) throws {
      errors = folder.appendingPathComponent("stderr.txt")
      _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
      process.executableURL = binary
      process.arguments = arguments
      process.currentDirectoryURL = folder
      process.environment = TestProcess.environment()
      process.standardInput = FileHandle.nullDevice
      process.standardOutput = pipe
      process.standardError = try FileHandle(forWritingTo: errors)
      process.terminationHandler = { [done] _ in done.signal() }
      try process.run()
    }

    /// Reads stdout until `text` is in what was read, or the pipe ends, or
    /// `seconds` pass (a generous bound: never a timed assertion).
    func read(until text: String, seconds: Double = 20) -> String {
      let fd = pipe.fileHandleForReading.fileDescriptor
      let end = Date().addingTimeInterval(seconds)
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while !String(decoding: seen, as: UTF8.self).contains(text), Date() < end {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 100) > 0 else { continue }
        let count = Glibc.read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        seen.append(contentsOf: buffer[..<count])
      }
      return String(decoding: seen, as: UTF8.self)
    }

    /// Everything up to the end of stdout, then the end of the process.
    func finish() -> (out: String, err: String, signal: Int32?) {
      let out = read(until: "\u{0}never\u{0}")
      if TestProcess.wait(process, done) { return (out, "killed: it did not end", nil) }
      let err = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
      let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
      return (out, err, signal)
    }

    func kill(_ signal: Int32) { _ = Glibc.kill(process.processIdentifier, signal) }
  }

  // MARK: 1. Results as they finish, a signal, a time limit

  /// The plain report and TAP show each file that finished while a slow
  /// file after it still runs. (On the old binary nothing came before the
  /// slow file ended.)
  func testEachFileIsReportedWhileASlowFileStillRuns() throws {
    try makeSlowTree()
    for (arguments, needle) in [
      (["--test", "-j", "2", "t"], "+#> 8♠\n"),
      (["--test", "--tap", "-j", "2", "t"], "ok 2 - t/b.hand\n"),
    ] {
      let run = try LiveRun(binary, arguments, in: folder)
      let seen = run.read(until: needle)
      XCTAssertTrue(seen.contains(needle), "\(arguments): nothing while z.hand ran: \(seen)")
      XCTAssertTrue(run.process.isRunning, "z.hand is slow: the run should still go on")
      run.kill(SIGKILL)
      _ = run.finish()
    }
  }

  /// SIGINT, SIGTERM and SIGHUP: the running file is reported
  /// `interrupted`, the summary and the JUnit file are written (valid for
  /// Jenkins' schema), and handsh ends by the signal.
  func testASignalReportsTheRunningFilesThenEndsByIt() throws {
    try makeSlowTree()
    for signal in [SIGINT, SIGTERM, SIGHUP] {
      let arguments = ["--test", "--tap", "-j", "2", "--junit", "r.xml", "t"]
      let run = try LiveRun(binary, arguments, in: folder)
      XCTAssertTrue(run.read(until: "ok 2 - t/b.hand\n").contains("ok 2 - t/b.hand\n"))
      run.kill(signal)
      let (out, err, ended) = run.finish()
      XCTAssertEqual(ended, signal, "signal \(signal): \(err)")
      XCTAssertTrue(out.hasPrefix("TAP version 13\n1..3\nnot ok 1 - t/a.hand\n"), out)
      XCTAssertTrue(
        out.hasSuffix(
          """
          ok 2 - t/b.hand
          not ok 3 - t/z.hand
            ---
            message: "error"
            errors: "t/z.hand: interrupted\\n"
            ...
          # 1 passed, 1 failed, 1 error

          """), out)
      XCTAssertEqual(err, "t/a.hand:1: output differs\nt/z.hand: interrupted\n")
      let xml = try contents("r.xml")
      XCTAssertTrue(xml.contains("<testsuites tests=\"3\" failures=\"1\" errors=\"1\""), xml)
      XCTAssertTrue(
        xml.contains("<error message=\"t/z.hand: interrupted\" type=\"interrupted\">"), xml)
      if let xmllint = try? requiredTool("xmllint") {
        let schema = TestProcess.repository.appendingPathComponent("Tests/Schemas/junit-10.xsd")
        let valid = try TestProcess.run(
          xmllint, ["--noout", "--schema", schema.path, "r.xml"], in: folder)
        XCTAssertEqual(valid.status, 0, valid.err)
      }
      try FileManager.default.removeItem(at: url("r.xml"))
    }
  }

  /// `--timeout 1`: the slow file stops at the line it reached, an error
  /// (status 2), never rewritten by `--update`; the others are reported as
  /// ever.
  func testTimeoutStopsAFileAtTheLineItReached() throws {
    try makeSlowTree()
    let before = try Data(contentsOf: url("t/z.hand"))
    for update in [false, true] {
      try write("t/a.hand", "add\n#> x\n")
      let run = try handsh(["--test", "--timeout", "1"] + (update ? ["--update"] : []) + ["t"])
      XCTAssertEqual(run.status, 2, run.err)
      XCTAssertTrue(run.err.hasSuffix("t/z.hand:2: timed out after 1 s\n"), run.err)
      XCTAssertTrue(
        run.out.hasSuffix(
          update ? "1 passed, 1 updated, 1 error\n" : "1 passed, 1 failed, 1 error\n"),
        run.out)
      XCTAssertEqual(try Data(contentsOf: url("t/z.hand")), before)
    }
    let bad = try handsh(["--test", "--timeout", "0", "t"])
    XCTAssertEqual(bad.status, 2)
    XCTAssertTrue(bad.err.hasPrefix("handsh: invalid timeout '0'"), bad.err)
    let alone = try handsh(["--timeout", "3", "t/a.hand"])
    XCTAssertEqual(
      alone.err.split(separator: "\n").first, "handsh: --timeout can only be used with --test")
  }

  // MARK: 2. Memory bounded by the jobs

  /// Six failing files of about 130 KB of output each peak within 2 MB of
  /// two such files (GNU time's maximum resident size). (The old binary
  /// held every report to the end: 3.7 MB more for the four files.)
  func testMemoryDoesNotGrowWithTheFailingFiles() throws {
    let time = try requiredTool("time")
    let text = (0..<1200).map { "new \($0); add; add; add; add\n" }.joined()
    var peaks: [Int] = []
    for count in [2, 6] {
      let tree = "m\(count)"
      for index in 0..<count { try write("\(tree)/t\(index).hand", text) }
      let run = try TestProcess.run(
        time, ["-f", "%M", binary.path, "--test", "-j", "2", "--junit", "r.xml", tree],
        in: folder)
      XCTAssertEqual(run.status, 1, run.err)
      let last = run.err.split(separator: "\n").last.map(String.init) ?? ""
      peaks.append(try XCTUnwrap(Int(last), run.err))
    }
    XCTAssertLessThan(peaks[1] - peaks[0], 2 * 1024, "peaks in KB: \(peaks)")
  }

  // MARK: 3. --update refuses what --test would refuse

  /// A file whose update would pass the limit `--test` reads is not
  /// rewritten: `PATH: too large to update (over 64 MiB)`, an error. In
  /// process with a limit of 200 bytes (scripts/ci-scale: the real 64 MiB).
  func testUpdateNeverWritesAFileTestWouldRefuse() throws {
    try write("u.hand", "add\nadd\nadd\n")
    var options = try Options(parsing: ["--test", "--update", "u.hand"])
    options.color = .never
    var run = GoldenTestRun(options: options)
    run.updateLimit = 40
    let item = TestFiles.Item(path: Array("u.hand".utf8))
    let cwd = FileManager.default.currentDirectoryPath
    FileManager.default.changeCurrentDirectoryPath(folder.path)
    defer { FileManager.default.changeCurrentDirectoryPath(cwd) }
    let refused = run.runOne(item).report
    XCTAssertEqual(refused.status, .error(["u.hand: too large to update (over 64 MiB)"]))
    XCTAssertEqual(try text("u.hand"), "add\nadd\nadd\n")
    run.updateLimit = 200
    XCTAssertEqual(run.runOne(item).report.status, .updated(diff: try diffOfUpdate()))
  }

  private func diffOfUpdate() throws -> [UInt8] {
    Array(
      """
      --- u.hand
      +++ u.hand
      @@ -1,3 +1,6 @@
       add
      +#> 8♠
       add
      +#> J♣ 8♠
       add
      +#> 9♥ J♣ 8♠

      """.utf8)
  }

  // MARK: 4. Names apart

  /// `c1<U+0085>.hand` and `c1<byte 0x85>.hand` get two names in TAP and
  /// JUnit: `c1\u{0085}.hand` and `c1\x85.hand`.
  func testAC1CharacterAndTheByteGetTwoNames() throws {
    let made = try shell(
      """
      mkdir n && printf 'add\\n#> x\\n' > "n/$(printf 'c1\\302\\205.hand')" &&
      printf 'add\\n#> x\\n' > "n/$(printf 'c1\\205.hand')"
      """)
    XCTAssertEqual(made.status, 0, made.err)
    let run = try handsh(["--test", "--tap", "--junit", "r.xml", "n"])
    XCTAssertTrue(run.out.contains("not ok 1 - n/c1\\x85.hand\n"), run.out)
    XCTAssertTrue(run.out.contains("not ok 2 - n/c1\\u{0085}.hand\n"), run.out)
    let xml = try contents("r.xml")
    XCTAssertTrue(xml.contains("name=\"n/c1\\x85.hand\""), xml)
    XCTAssertTrue(xml.contains("name=\"n/c1\\u{0085}.hand\""), xml)
  }

  // MARK: 5. A file that is not regular, named twice

  /// A FIFO and a dangling link named twice (`f.hand ./f.hand`) are each
  /// reported once, in the words used when a folder holds them.
  func testANonRegularFileNamedTwiceIsReportedOnce() throws {
    try FileManager.default.createDirectory(at: url("d"), withIntermediateDirectories: true)
    XCTAssertEqual(mkfifo(path("d/f.hand"), 0o600), 0)
    try FileManager.default.createSymbolicLink(
      atPath: path("d/gone.hand"), withDestinationPath: "missing.hand")
    let found = try handsh(["--test", "d"])
    XCTAssertEqual(
      found.err,
      """
      handsh: cannot read 'd/f.hand': not a regular file
      handsh: cannot read 'd/gone.hand': No such file or directory

      """)
    for name in ["f.hand", "gone.hand"] {
      let twice = try TestProcess.run(
        binary, ["--test", name, "./\(name)"], in: url("d"))
      let line = found.err.split(separator: "\n").first { $0.contains(name) } ?? ""
      // Under its first name in the report's order: `./` sorts first.
      XCTAssertEqual(twice.err, line.replacingOccurrences(of: "d/", with: "./") + "\n")
      XCTAssertEqual(twice.out, "0 passed, 0 failed, 1 error\n")
      XCTAssertEqual(twice.status, 2)
    }
  }

  // MARK: 6. What GNU patch cannot take

  /// GNU patch cannot patch a name of 248 bytes or more (it adds 8 for its
  /// temporary file); `git apply` can: the man page says both.
  func testTheManPageSaysWhatGNUPatchCannotTake() throws {
    let patch = try requiredTool("patch")
    let git = try requiredTool("git")
    let name = String(repeating: "x", count: 243) + ".hand"
    try write(name, "add\n#> x\n")
    let report = try shell("\"$0\" --test \(name) > report")
    XCTAssertEqual(report.status, 1, report.err)
    let patched = try TestProcess.run(patch, ["-p0", "-i", "report"], in: folder)
    XCTAssertNotEqual(patched.status, 0, "GNU patch took a name of 248 bytes: \(patched.out)")
    let applied = try TestProcess.run(git, ["apply", "report"], in: folder)
    XCTAssertEqual(applied.status, 0, applied.err)
    XCTAssertEqual(try text(name), "add\n#> 8♠\n")

    let man = try String(
      contentsOf: TestProcess.repository.appendingPathComponent("man/handsh.1"), encoding: .utf8)
    guard let start = man.range(of: ".Ss The report"),
      let end = man.range(of: ".Ss Recording", range: start.upperBound..<man.endIndex)
    else { return XCTFail("man/handsh.1 has no 'The report' section") }
    let section = man[start.upperBound..<end.lowerBound]
    XCTAssertTrue(section.contains("248 bytes"), "the man page does not say patch's limit")
    XCTAssertTrue(section.contains("git apply"))
  }
}
