import Testing

@testable import HandKit

/// The one loop over lines (`LineExecutor.run(lines:rules:sink:)`): the
/// rules as data, and the sink's hooks heard for the outermost lines only.
@Suite struct LineRunTests {
  /// Lines from strings, with a wait before each, and a line too long
  /// where a string is nil.
  struct Lines: LineSource {
    var lines: [String?]

    mutating func forEachLine(_ body: (LineEvent) -> Bool) {
      for (index, line) in lines.enumerated() {
        guard body(.waiting) else { return }
        guard let line else {
          guard body(.tooLong(number: index + 1)) else { return }
          continue
        }
        var bytes = Array(line.utf8)
        let go = bytes.withUnsafeMutableBufferPointer {
          body(.line(Line(number: index + 1, bytes: UnsafeBufferPointer($0))))
        }
        guard go else { return }
      }
    }
  }

  /// What the commands wrote and the hooks heard, in order.
  struct LogSink: LoggingSink {
    var out: [UInt8] = []
    var log: [String] = []
    var files: [String: [UInt8]] = [:]
    /// The line after which `lineEnded` stops the run.
    var stopAfter: Int?
    var line = 0

    func logged(_ message: String, column: Int) -> String { "error: \(message)" }
    mutating func save(_ script: SavedScript, to file: String) -> String? { nil }
    mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
      files[file].map { .success($0) } ?? .failure(ReadFailure("No such file or directory"))
    }
    mutating func freshSeed() -> UInt64 { 7 }

    mutating func linesWaiting(session: inout Session) -> Bool {
      log.append("waiting")
      return true
    }
    mutating func lineStarts(number: Int) {
      line = number
      log.append("line \(number)")
    }
    mutating func lineChecked() { log.append("checked") }
    mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd? {
      takeOutput()
      log.append("ended \(end.map { "\($0)" } ?? "unrun")")
      return line == stopAfter ? .stopped : nil
    }
  }

  private func run(
    _ lines: [String?], rules: LineRules, sink: inout LogSink
  ) -> (end: LineEnd, failed: Bool, versions: Int) {
    var executor = LineExecutor(
      session: Session(seed: 42), renderer: Renderer(style: Style(ascii: true)))
    var source = Lines(lines: lines)
    let (end, failed) = executor.run(lines: &source, rules: rules, sink: &sink)
    return (end, failed, executor.session.history.count)
  }

  @Test func thePromptGoesOnAfterEveryKindOfError() {
    var sink = LogSink()
    let ran = run(["add", "dle", nil, "del 9; add", "add"], rules: .prompt, sink: &sink)
    #expect(ran.end == .finished)
    #expect(ran.failed)
    // A failure skips the rest of its line only.
    #expect(ran.versions == 3)
    #expect(
      sink.log == [
        "waiting", "line 1", "checked", "7H", "ended finished",
        "waiting", "line 2", "error: unknown command 'dle' (did you mean 'del'?)", "ended unrun",
        "waiting", "line 3", "error: \(LineParser.tooLongMessage)", "ended unrun",
        "waiting", "line 4", "checked", "error: no card at position 9 (hand has 1 card)",
        "ended failed",
        "waiting", "line 5", "checked", "3C 7H", "ended finished",
      ])
  }

  @Test func aFailureStopsAScriptUnlessItKeepsGoing() {
    for (lines, versions) in [(["add", "dle", "add"], 2), (["add", nil, "add"], 2)] {
      var sink = LogSink()
      let stopped = run(lines, rules: LineRules(failureStops: true), sink: &sink)
      #expect(stopped.end == .failed)
      #expect(stopped.versions == versions)
      var going = LogSink()
      let kept = run(lines, rules: LineRules(keepGoing: true), sink: &going)
      #expect(kept.end == .finished)
      #expect(kept.failed)
      #expect(kept.versions == 3)
    }
    var sink = LogSink()
    let failed = run(
      ["add", "del 9; add", "add"], rules: LineRules(failureStops: true), sink: &sink)
    #expect(failed.end == .failed)
    #expect(failed.versions == 2)
  }

  @Test func checkOnlyRunsNothing() {
    var sink = LogSink()
    let ran = run(
      ["add", "dle", "add"], rules: LineRules(failureStops: true, checkOnly: true), sink: &sink)
    #expect(ran.end == .finished)
    #expect(ran.versions == 1)
    #expect(sink.log.filter { $0 == "checked" }.isEmpty)
    #expect(sink.log.contains("error: unknown command 'dle' (did you mean 'del'?)"))
  }

  @Test func theSinkStopsTheRunAfterALine() {
    var sink = LogSink()
    sink.stopAfter = 2
    let ran = run(["add", "add", "add"], rules: .prompt, sink: &sink)
    #expect(ran.end == .stopped)
    #expect(ran.versions == 3)
  }

  @Test func aSourcedFilesLinesAreNotTheSinks() {
    var sink = LogSink()
    sink.files["f.hand"] = Array("add\nadd\n".utf8)
    let ran = run(["source f.hand", "add"], rules: .prompt, sink: &sink)
    #expect(ran.end == .finished)
    #expect(ran.versions == 4)
    #expect(sink.log.filter { $0.hasPrefix("line ") } == ["line 1", "line 2"])
    #expect(sink.log.filter { $0.hasPrefix("ended ") } == ["ended finished", "ended finished"])
  }
}
