import Testing

@testable import HandKit

/// The forecast of a line (the prompt's preview, an editor's hover): what
/// Enter would do, worked out on a copy, with no side effect.
@Suite struct LineForecastTests {
  /// The preview of `line` typed in a session of seed 42 after `before`.
  private func preview(_ line: String, after before: String = "", ascii: Bool = false) -> String? {
    var session = Session(seed: 42)
    for item in LineParser.parse(before) {
      if case .command(let command, _) = item { _ = session.run(command) { 7 } }
    }
    let count = session.history.count
    let cursor = session.history.cursor
    let shown = Array(line.utf8).withUnsafeBufferPointer {
      session.forecast($0).preview(ascii: ascii)
    }
    // A copy: the session made no version and did not move.
    #expect(session.history.count == count)
    #expect(session.history.cursor == cursor)
    return shown
  }

  @Test func showsTheHandTheLineWouldLeave() {
    #expect(preview("add") == "⇒ 7♥")
    #expect(preview("add; add") == "⇒ 3♣ 7♥")
    #expect(preview("add; add", ascii: true) == "=> 3C 7H")
    #expect(preview("del 1", after: "add") == "⇒ (empty)")
    #expect(preview("undo", after: "add; add") == "⇒ 7♥")
    #expect(preview("new 1; add") == "⇒ 7♦")
  }

  @Test func showsTheFirstProblemEnterWouldReport() {
    #expect(
      preview("del 9", after: "add; add") == "⇒ error: no card at position 9 (hand has 2 cards)")
    // The first failure, not the commands after it.
    #expect(preview("add; del 9; add") == "⇒ error: no card at position 9 (hand has 1 card)")
    // A syntax error anywhere runs none of the line: it is the problem.
    let syntax = preview("add; add 1x")
    #expect(syntax?.hasPrefix("⇒ error: ") == true, "\(String(describing: syntax))")
    #expect(preview("add 1x", ascii: true)?.hasPrefix("=> error: ") == true)
  }

  @Test func showsNothingForALineThatChangesNothing() {
    #expect(preview("") == nil)
    #expect(preview("show; deck; help") == nil)
    #expect(preview("# a comment") == nil)
    #expect(preview("add; undo") == nil)
  }

  @Test func showsNothingForALineThatReachesOutside() {
    for line in [
      "save f.hand", "add; save f.hand", "source f.hand", "quit", "exit", "new", "add; new",
      "history", "history tree",
    ] {
      #expect(preview(line) == nil, "\(line)")
    }
  }

  @Test func stopAbandonsTheForecast() {
    let session = Session(seed: 42)
    var asked = 0
    let forecast = Array("add; add; add".utf8).withUnsafeBufferPointer {
      session.forecast($0) {
        asked += 1
        return true
      }
    }
    #expect(asked == 1)
    #expect(forecast.unknown == .stopped)
    #expect(forecast.preview(ascii: false) == nil)
  }

  @Test func beforeStopsAtAByteOffsetAndANewMayDrawFromASeed() {
    let session = Session(seed: 42)
    let line = Array("add; add; del 5".utf8)
    let forecast = line.withUnsafeBufferPointer { session.forecast($0, before: 10) }
    #expect(LineForecast.text(of: forecast.hand, ascii: true) == "3C 7H")
    #expect(forecast.problem == nil)
    let drawn = Array("new; add".utf8).withUnsafeBufferPointer { session.forecast($0, seed: 0) }
    #expect(drawn.unknown == nil)
    #expect(drawn.hand.count == 1)
  }
}
