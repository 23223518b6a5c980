import Foundation
import HandKit
import Testing

@testable import HandshCLI

/// The runner's rules, in-process (handsh(1), DESCRIPTION): a text is
/// checked whole before anything runs, stdin and the prompt go line by line,
/// and a SCRIPT runs ahead while it is still being checked (RunAhead). The
/// runner writes to two temporary files that the test reads back.
struct RunnerTests {
  /// What a run wrote, and how it ended.
  struct Run: Equatable {
    var out: String
    var err: String
    var failed: Bool
  }

  /// Runs `body` with a runner writing to two fresh temporary files.
  private func capture(
    _ arguments: [String], seed: UInt64 = 42, _ body: (inout Runner) -> Void
  ) throws -> Run {
    let options = try Options(parsing: arguments)
    let out = tmpfile()
    let err = tmpfile()
    defer {
      fclose(out)
      fclose(err)
    }
    var runner = Runner(options: options, seed: seed, output: fileno(out), errors: fileno(err))
    body(&runner)
    runner.output.flush()
    return Run(out: contents(of: out), err: contents(of: err), failed: runner.failed)
  }

  private func contents(of file: UnsafeMutablePointer<FILE>?) -> String {
    let fd = fileno(file)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    lseek(fd, 0, SEEK_SET)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private func script(_ text: String, _ arguments: [String] = []) throws -> Run {
    try capture(arguments) { _ = $0.runText(Array(text.utf8), name: "s.hand") }
  }

  /// The same text read line by line from a file, as from stdin.
  private func stream(_ text: String, _ arguments: [String] = []) throws -> Run {
    let file = tmpfile()
    defer { fclose(file) }
    Array(text.utf8).withUnsafeBytes { _ = write(fileno(file), $0.baseAddress, $0.count) }
    lseek(fileno(file), 0, SEEK_SET)
    return try capture(arguments) { runner in
      var lines = StreamLines(fd: fileno(file))
      _ = runner.runStream(&lines, name: "s.hand")
    }
  }

  /// A script run whole prints what its lines print one by one, whatever
  /// pauses the run ahead: a failure, a save, a quit, a history.
  @Test(arguments: [[], ["-k"], ["-k", "--echo", "--json"], ["-q"]])
  func aScriptRunsAsItsLinesWould(arguments: [String]) throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-runner-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let saved = folder.appendingPathComponent("out.hand").path
    let text =
      "add; add; del 9; add\nshow\nsave \"\(saved)\"; add\nmv 1 7; new 3\nhistory\nquit; add\nadd\n"
    let whole = try script(text, arguments)
    #expect(whole == (try stream(text, arguments)))
    #expect(whole.failed)
    #expect(whole.err.hasPrefix("s.hand:1:11: error: no card at position 9 (hand has 2 cards)\n"))
  }

  /// Output held past its limit while checking pauses the run ahead, which
  /// resumes in place after the check.
  @Test func heldOutputPastItsLimitResumesInPlace() throws {
    // `help` prints about 1 KiB: 40 000 of them hold more than 32 MiB.
    let text = String(repeating: "help\n", count: 40_000) + "del 99\nshow\n"
    let whole = try script(text, ["-k"])
    #expect(whole.out.utf8.count > RunAhead.holdLimit)
    #expect(whole.err == "s.hand:40001:1: error: no card at position 99 (hand has 0 cards)\n")
    #expect(whole == (try stream(text, ["-k"])))
  }

  /// A runner writing to `output`, and what ran ahead of it while `text`
  /// was read, as `runScript` runs it ahead, not committed yet.
  private func runAhead(_ text: [UInt8], output: Int32) throws -> (Runner, RunAhead) {
    var runner = Runner(
      options: try Options(parsing: [String]()), seed: 42, output: output, errors: 2)
    var ahead = RunAhead(from: runner.session, enabled: true)
    var lines = TextLines(text: text)
    forEachItem(&lines) { position, item, parser, _ in
      guard case .command(let command, let span) = consume item else { return true }
      ahead.run(command, span: span, parser: &parser, at: position, executor: &runner.executor)
      return true
    }
    return (runner, ahead)
  }

  /// A hand line is held as the number of the version it shows, not as
  /// its text: 350 000 hand lines of five cards, 8.7 MB of text, run ahead
  /// whole, without a pause (so the text is parsed once), and come out as
  /// the lines one by one print them. (Held as text, they passed the limit
  /// and paused the run.)
  @Test func handLinesAreHeldAsTheirVersions() throws {
    let text = Array(
      ("add; add; add; add; add\n" + String(repeating: "mv 1 2\n", count: 350_000)).utf8)
    let out = tmpfile()
    defer { fclose(out) }
    var (runner, ahead) = try runAhead(text, output: fileno(out))
    #expect(ahead.pausedAt == nil)
    ahead.commit(
      to: &runner.output, history: runner.session.history, renderer: runner.executor.renderer)
    runner.output.flush()
    let held = contents(of: out)
    #expect(held.utf8.count > RunAhead.holdLimit)
    #expect(held.hasPrefix("7♥\n3♣ 7♥\n"))
    let byLines = try capture([]) { runner in
      var lines = TextLines(text: text)
      lines.forEachLine { event in
        guard case .line(let line) = event else { return true }
        return runner.run(line, source: "s.hand") == .finished
      }
    }
    #expect(byLines.out == held)
  }

  /// Held output that cannot be written (here a descriptor open only for
  /// reading) is dropped once the first write fails, not gathered in
  /// memory: 200 000 hand lines would be 5 MB.
  @Test func heldOutputStopsAtAFailedWrite() throws {
    let text = Array(
      ("add; add; add; add; add\n" + String(repeating: "mv 1 2\n", count: 200_000)).utf8)
    try withReadOnlyDescriptor(named: "handsh-held") { fd in
      var (runner, ahead) = try runAhead(text, output: fd)
      ahead.commit(
        to: &runner.output, history: runner.session.history, renderer: runner.executor.renderer)
      #expect(runner.output.failure == EBADF)
      #expect(runner.output.buffer.count < 2 * Output.flushThreshold)
    }
  }

  /// Held text (here `help`, with no hand line in it, whose own check
  /// would stop its chunk) is not gathered in memory once a write has
  /// failed: the first chunk's failed write ends the commit, and what
  /// stays buffered is at most about one chunk, not the 2 MB held.
  @Test func heldTextStopsAtAFailedWrite() throws {
    let text = Array(String(repeating: "help\n", count: 2_000).utf8)
    try withReadOnlyDescriptor(named: "handsh-held-text") { fd in
      var (runner, ahead) = try runAhead(text, output: fd)
      #expect(ahead.pausedAt == nil)
      ahead.commit(
        to: &runner.output, history: runner.session.history, renderer: runner.executor.renderer)
      #expect(runner.output.failure == EBADF)
      #expect(runner.output.buffer.count < 2 * Output.flushThreshold)
    }
  }

  /// Runs `body` with a descriptor open only for reading, on a new empty
  /// file in the temporary folder: every write to it fails with EBADF.
  private func withReadOnlyDescriptor(
    named name: String, _ body: (Int32) throws -> Void
  ) throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString)").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let fd = open(path, O_RDONLY)
    #expect(fd >= 0)
    defer { close(fd) }
    try body(fd)
  }

  /// `history` is never run ahead (its output grows with the history, and
  /// streams when it runs), nor is a command that cannot be taken back:
  /// each pauses the run ahead right where it stands, and the commands
  /// before it have run.
  @Test(arguments: ["history", "save never.hand", "quit", "source never.hand"])
  func aCommandThatIsNotHeldPausesTheRunAhead(command: String) throws {
    let text = Array("add; add\nshow; \(command); add\nadd\n".utf8)
    let out = tmpfile()
    defer { fclose(out) }
    let (runner, ahead) = try runAhead(text, output: fileno(out))
    #expect(ahead.pausedAt == TextPosition(line: 2, item: 1))
    #expect(runner.session.history.cursor == 2)
  }

  /// A syntax error anywhere runs nothing: not the output, not a save.
  @Test func aSyntaxErrorOnTheLastLineRunsNothing() throws {
    let text = String(repeating: "add\nhelp\n", count: 5) + "save never.hand\ndel x\n"
    let run = try script(text)
    #expect(run.out == "")
    #expect(run.failed)
    #expect(
      run.err == "s.hand:12:5: error: invalid position 'x': expected a whole number of 1 or more\n")
    #expect(!FileManager.default.fileExists(atPath: "never.hand"))
  }

  /// A failure stops a script; with -k it goes on with the next command, on
  /// the same line too.
  @Test func aFailureStopsAScriptUnlessKeepGoing() throws {
    #expect(
      try script("add; del 9; add\nadd\n")
        == Run(
          out: "7♥\n", err: "s.hand:1:6: error: no card at position 9 (hand has 1 card)\n",
          failed: true))
    #expect(
      try script("add; del 9; add\nadd\n", ["-k"]).out == "7♥\n3♣ 7♥\nK♥ 3♣ 7♥\n")
  }

  /// At the prompt a failure skips the rest of its line and the session goes
  /// on; a syntax error runs none of the line.
  @Test func promptLinesFollowThePromptsRules() throws {
    let run = try capture([]) { runner in
      _ = runner.enter(Array("add; del 9; add".utf8))
      _ = runner.enter(Array("add; del x".utf8))
      _ = runner.enter(Array("show".utf8))
    }
    #expect(run.out == "7♥\n1  7♥\n")
    #expect(
      run.err
        == "error: no card at position 9 (hand has 1 card)\n"
        + "error: invalid position 'x': expected a whole number of 1 or more\n")
  }

  /// A line over the limit at the prompt is reported, and nothing of it runs.
  @Test func aLineOverTheLimitAtThePrompt() throws {
    let run = try capture([]) { runner in
      _ = runner.enter(Array("add".utf8) + [UInt8](repeating: 0x20, count: lineLimit))
      _ = runner.enter(Array("show".utf8))
    }
    #expect(run.out == "(empty)\n")
    #expect(run.err == "error: line is longer than 1048576 bytes\n")
  }

  /// A line over the limit runs nothing and is not kept in the history file.
  @Test func aLineOverTheLimitIsNotKeptInHistory() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-history-\(UUID().uuidString)").path
    defer { unlink(path) }
    var history = HistoryFile(path: path)
    let run = try capture([]) { runner in
      _ = enter(Array("add".utf8) + [UInt8](repeating: 0x20, count: lineLimit), &runner, &history)
      _ = enter(Array("show".utf8), &runner, &history)
    }
    #expect(run.err == "error: line is longer than 1048576 bytes\n")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "show\n")
  }

  /// `-n` checks every line and runs none; stdin reports each bad line.
  @Test func checkOnlyRunsNothing() throws {
    let text = "add\ndel x\nadd 1z\nshow\n"
    let checked = try stream(text, ["-n"])
    #expect(checked.out == "")
    #expect(
      checked.err
        == "s.hand:2:5: error: invalid position 'x': expected a whole number of 1 or more\n"
        + "s.hand:3:5: error: invalid card '1z'\n")
    #expect(try script(text, ["-n"]).err == checked.err)
  }
}
