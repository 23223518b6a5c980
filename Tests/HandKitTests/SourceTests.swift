import Testing

@testable import HandKit

/// `source FILE` (handsh(1), COMMANDS): run by the one executor, with files
/// in memory.
@Suite struct SourceTests {
  /// Files in memory; what the commands wrote, stdout and stderr in order.
  struct MemorySink: LoggingSink {
    var files: [String: [UInt8]] = [:]
    var out: [UInt8] = []
    var reads: [String] = []
    var log: [String] = []

    func logged(_ message: String, column: Int) -> String { "error: \(message) @\(column)" }

    mutating func save(_ script: SavedScript, to file: String) -> String? {
      files[file] = Array(script.text.utf8)
      return nil
    }

    mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
      reads.append(file)
      guard let text = files[file] else {
        return .failure(ReadFailure("No such file or directory"))
      }
      return .success(text)
    }

    mutating func freshSeed() -> UInt64 { 7 }

    /// How many times the check may ask before it is told to abandon FILE
    /// (Ctrl-C at the prompt); nil: never.
    var interruptAfter: Int?
    var asked = 0

    mutating func checkInterrupted() -> ReadFailure? {
      asked += 1
      guard let limit = interruptAfter, asked > limit else { return nil }
      return ReadFailure("Interrupted system call")
    }
  }

  private func executor(echo: Bool = false) -> LineExecutor {
    LineExecutor(
      session: Session(seed: 42), renderer: Renderer(style: Style(ascii: true)), echo: echo)
  }

  /// Runs `line` as the prompt does: checked, then run.
  @discardableResult
  private func enter(
    _ line: String, _ executor: inout LineExecutor, _ sink: inout MemorySink,
    keepGoing: Bool = false
  ) -> LineEnd {
    var bytes = Array(line.utf8)
    let end = bytes.withUnsafeMutableBufferPointer { buffer -> LineEnd in
      let line = UnsafeBufferPointer(buffer)
      if executor.check(line, sink: &sink) > 0 { return .failed }
      return executor.run(line, keepGoing: keepGoing, sink: &sink)
    }
    sink.takeOutput()
    return end
  }

  @Test func eachCommandOfFileIsAVersionAndPrintsAsTyped() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["setup.hand"] = Array("#!/usr/bin/env handsh\nadd\nadd 5s # a comment\r\n".utf8)
    #expect(enter("source setup.hand; add", &executor, &sink) == .finished)
    #expect(sink.log == ["7H", "5S 7H", "3C 5S 7H"])
    #expect(executor.session.history.count == 4)
    // undo steps back through them one by one; save never writes `source`.
    enter("undo 2", &executor, &sink)
    #expect(executor.session.history.cursor == 1)
    #expect(executor.session.saveScript().contains("add 7H") == true)
    #expect(!executor.session.saveScript().contains("source"))
  }

  @Test func aSyntaxErrorAnywhereRunsNoneOfTheFile() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["bad.hand"] = Array("add\nadd\nmv 1\nadd; dle 1".utf8)
    #expect(enter("add; source bad.hand; add", &executor, &sink) == .failed)
    #expect(
      sink.log == [
        "7H", "bad.hand:3:1: error: missing argument (usage: mv A B)",
        "bad.hand:4:6: error: unknown command 'dle' (did you mean 'del'?)",
      ])
    #expect(executor.session.history.count == 2)
  }

  /// A large FILE is checked in pieces: an error on a line that a piece
  /// cuts in two is reported once, at its line and column, the error limit
  /// counts across pieces, and a `\r\n` file reads as a `\n` one.
  @Test func errorsAcrossTheCheckPiecesAreEachReportedOnce() {
    var (executor, sink) = (executor(), MemorySink())
    // 16 bytes a line: line 4097 starts at 65 536, where a piece ends.
    let filler = String(repeating: "add # 123456789\r\n".dropLast(2) + "\n", count: 4094)
    let bad = "mv 1\r\n" + "add; bogus 12345\n" + "  add 9x  # 1234\n"
    sink.files["big.hand"] = Array((filler + bad + "ok?\n").utf8)
    #expect(enter("source big.hand", &executor, &sink) == .failed)
    #expect(
      sink.log == [
        "big.hand:4095:1: error: missing argument (usage: mv A B)",
        "big.hand:4096:6: error: unknown command 'bogus'",
        "big.hand:4097:7: error: invalid card '9x'",
        "big.hand:4098:1: error: unknown command 'ok?'",
      ])
    var many = MemorySink()
    many.files["many.hand"] = Array(
      (filler + String(repeating: "nope\n", count: ErrorLimit.count + 5)).utf8)
    #expect(enter("source many.hand", &executor, &many) == .failed)
    #expect(many.log.count == ErrorLimit.count + 1)
    #expect(many.log.last == "many.hand: error: too many errors, stopping")
    #expect(executor.session.history.count == 1)
  }

  /// Ctrl-C while a large FILE is checked: FILE is abandoned as unread at
  /// once (the sink is asked as the check goes, not only once it is over),
  /// nothing of it runs, and the rest of the line is skipped.
  @Test func aCheckTheSinkInterruptsRunsNothing() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["big.hand"] = Array((String(repeating: "add\n", count: 200_000) + "bogus\n").utf8)
    sink.interruptAfter = 1
    #expect(enter("source big.hand; add", &executor, &sink) == .failed)
    #expect(sink.log == ["error: cannot read big.hand: Interrupted system call @1"])
    #expect(sink.asked == 2)
    #expect(executor.session.history.count == 1)
  }

  @Test func theFirstFailureEndsTheFileAndTheLine() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["f.hand"] = Array("add\n\n  del 9\nadd\n".utf8)
    #expect(enter("source f.hand; add", &executor, &sink) == .failed)
    #expect(sink.log == ["7H", "f.hand:3:3: error: no card at position 9 (hand has 1 card)"])
    #expect(executor.session.history.count == 2)
  }

  @Test func keepGoingRunsTheFileToItsEndButSourceStillFails() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["f.hand"] = Array("add\ndel 9\nadd\n".utf8)
    #expect(enter("source f.hand; add", &executor, &sink, keepGoing: true) == .finished)
    #expect(
      sink.log == [
        "7H", "f.hand:2:1: error: no card at position 9 (hand has 1 card)", "3C 7H", "KH 3C 7H",
      ])
  }

  @Test func quitEndsTheFileOnly() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["q.hand"] = Array("add; quit; add\nadd\n".utf8)
    #expect(enter("source q.hand; show", &executor, &sink) == .finished)
    #expect(sink.log == ["7H", "1  7H"])
  }

  @Test func aFailureBeforeQuitStillFailsSourceWithKeepGoing() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["q.hand"] = Array("add; del 9; quit; add\nadd\n".utf8)
    var failed = false
    let line = Array("source q.hand; add".utf8)
    let end = line.withUnsafeBufferPointer {
      executor.run($0, knownASCII: true, keepGoing: true, failed: &failed, sink: &sink)
    }
    sink.takeOutput()
    #expect(end == .finished)
    #expect(failed)
    #expect(
      sink.log == [
        "7H", "q.hand:1:6: error: no card at position 9 (hand has 1 card)", "3C 7H",
      ])
  }

  @Test func filesNestSixteenDeep() {
    var (executor, sink) = (executor(), MemorySink())
    for level in 1...17 {
      sink.files["\(level).hand"] = Array("add 2h\nundo\nsource \(level + 1).hand\n".utf8)
    }
    sink.files["17.hand"] = Array("add 3h\n".utf8)
    sink.files["18.hand"] = Array("add 4h\n".utf8)
    #expect(enter("source 2.hand", &executor, &sink) == .finished)
    #expect(sink.log.last == "3H")
    sink.log = []
    #expect(enter("source 1.hand", &executor, &sink) == .failed)
    #expect(
      sink.log.last == "16.hand:3:1: error: cannot source 17.hand: nested too deeply (16 files)")
    #expect(sink.log.count == 2 * 16 + 1)
  }

  @Test func aFileThatSourcesItselfStopsAtTheLimit() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["self.hand"] = Array("source self.hand\n".utf8)
    #expect(enter("source self.hand", &executor, &sink) == .failed)
    #expect(
      sink.log == ["self.hand:1:1: error: cannot source self.hand: nested too deeply (16 files)"])
    #expect(sink.reads.count == 16)
    #expect(executor.session.history.count == 1)
  }

  @Test func unreadableFilesAndBadText() {
    var (executor, sink) = (executor(), MemorySink())
    #expect(enter(#"add; source "no such.hand"; add"#, &executor, &sink) == .failed)
    #expect(sink.log == ["7H", "error: cannot read no such.hand: No such file or directory @6"])
    sink.log = []
    sink.files["utf.hand"] = [0x61, 0x64, 0x64, 0x0A, 0x61, 0xFF, 0x0A]
    #expect(enter("source utf.hand", &executor, &sink) == .failed)
    #expect(sink.log == ["utf.hand:2:1: error: invalid UTF-8 in input"])
    sink.log = []
    sink.files["long.hand"] = Array("add\n".utf8) + Array(repeating: 0x20, count: (1 << 20) + 1)
    #expect(enter("source long.hand", &executor, &sink) == .failed)
    #expect(sink.log == ["long.hand:2:1: error: line is longer than 1048576 bytes"])
    sink.log = []
    sink.files["last.hand"] = Array("add\nadd\nadd 1h".utf8)
    #expect(enter("source last.hand", &executor, &sink) == .failed)
    #expect(sink.log == ["last.hand:3:5: error: invalid card '1h'"])
    #expect(executor.session.history.count == 2)
  }

  @Test func aByteOrderMarkAndCarriageReturnsAreIgnored() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["bom.hand"] = [0xEF, 0xBB, 0xBF] + Array("add\r\ndel 5\r\n".utf8)
    #expect(enter("source bom.hand", &executor, &sink) == .failed)
    #expect(sink.log == ["7H", "bom.hand:2:1: error: no card at position 5 (hand has 1 card)"])
  }

  @Test func namesAreMadeSafeInDiagnostics() {
    var (executor, sink) = (executor(), MemorySink())
    sink.files["a\u{1B}b"] = Array("del 1\n".utf8)
    enter("source \"a\u{1B}b\"", &executor, &sink)
    #expect(sink.log == [#"a\x1Bb:1:1: error: no card at position 1 (hand has 0 cards)"#])
  }

  @Test func echoShowsTheSourceThenEachCommand() {
    var (executor, sink) = (executor(echo: true), MemorySink())
    sink.files["e.hand"] = Array("add; show\n".utf8)
    enter("source  e.hand", &executor, &sink)
    #expect(sink.log == ["> source e.hand", "> add", "7H", "> show", "1  7H"])
  }

  @Test func aFailedSourceChangesNothing() {
    var (executor, sink) = (executor(), MemorySink())
    enter("add", &executor, &sink)
    let before = executor.session.history
    enter("source missing.hand", &executor, &sink)
    #expect(executor.session.history == before)
  }
}
