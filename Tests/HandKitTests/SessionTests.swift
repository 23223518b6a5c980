import Testing

@testable import HandKit

@Suite struct SessionTests {
  private let renderer = Renderer(style: Style(ascii: true))

  /// Runs `text` (commands separated by `;`), failing on any syntax error.
  @discardableResult
  private func run(_ session: inout Session, _ text: String) -> [Result<Outcome, CommandError>] {
    var results: [Result<Outcome, CommandError>] = []
    for item in LineParser.parse(text) {
      guard case .command(let command, _) = item else {
        Issue.record("syntax error in \(text): \(item)")
        continue
      }
      results.append(session.run(command) { 99 })
    }
    return results
  }

  private func failure(_ text: String, seed: UInt64 = 42) -> String? {
    var session = Session(seed: seed)
    guard case .failure(let error) = run(&session, text).last else { return nil }
    return renderer.message(for: error)
  }

  private func hand(_ session: Session) -> String { renderer.handText(session.current.hand) }

  @Test func addDrawsInShuffleOrderOntoTheTop() {
    var session = Session(seed: 42)
    run(&session, "add; add; add")
    #expect(hand(session) == "KH 3C 7H")
    run(&session, "add 5h")
    #expect(hand(session) == "5H KH 3C 7H")
    run(&session, "add")
    #expect(hand(session) == "AS 5H KH 3C 7H")  // 5H is skipped later, AS is next
  }

  @Test func failuresAndTheirMessages() {
    #expect(failure("add;add;add;add;add;add") == "hand is full (5 cards)")
    #expect(failure("limit 1; add; add") == "hand is full (1 card)")
    #expect(failure("add 7h; add 7h") == "7H is in the hand")
    #expect(failure("add 7h; del 1; add 7h") == "7H was discarded")
    #expect(failure("del 1") == "no card at position 1 (hand has 0 cards)")
    #expect(failure("add; del 2") == "no card at position 2 (hand has 1 card)")
    #expect(failure("add; add; mv 3 1") == "no card at position 3 (hand has 2 cards)")
    #expect(failure("add; add; mv 1 4") == "no card at position 4 (hand has 2 cards)")
    #expect(failure("undo") == "nothing to undo")
    #expect(failure("add; add; undo 3") == "cannot undo 3 steps (only 2)")
    #expect(failure("redo") == "nothing to redo")
    #expect(failure("add; add; undo 2; redo 3") == "cannot redo 3 steps (only 2)")
    #expect(failure("add; add; add; limit 2") == "hand has 3 cards, more than 2")
    #expect(failure("add; expect empty") == "expected (empty), hand is 7H")
    #expect(failure("add; add; expect 7h 3c") == "expected 7H 3C, hand is 3C 7H")
    #expect(failure("limit 1; add; add 3c") == "hand is full (1 card)")  // full before in-hand
  }

  @Test func theDeckRunsOut() {
    var session = Session(seed: 3, limit: 52)
    run(&session, Array(repeating: "add", count: 52).joined(separator: ";"))
    #expect(session.current.deck.isEmpty)
    run(&session, "del 1; limit 52")
    #expect(
      failure(
        "limit 52;" + Array(repeating: "add", count: 52).joined(separator: ";") + "; del 1; add",
        seed: 3) == "deck is empty")
  }

  @Test func undoOfAddPutsTheCardBackAndUndoOfDelTakesItBack() {
    var session = Session(seed: 42)
    run(&session, "add; del 1")
    #expect(session.current.discardCount == 1)
    run(&session, "undo")
    #expect(session.current.discardCount == 0 && session.current.deck.count == 51)
    run(&session, "undo")
    #expect(session.current.deck.count == 52)
    run(&session, "add")
    #expect(hand(session) == "7H")  // the same card again
  }

  @Test func aChangeKeepsTheRedoBranchAndNoChangeAddsNoVersion() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; undo 2")
    #expect(session.history.count == 4 && session.history.cursor == 1)
    run(&session, "mv 1 1; limit 5")
    #expect(session.history.count == 4)
    run(&session, "add 2d")
    // A new branch: version 4, made from 1; 2 and 3 stay.
    #expect(session.history.count == 5 && session.history.redoDepth() == 0)
    #expect(session.history.cursor == 4 && session.history.parent(of: 4) == 1)
    run(&session, "new 7; new 7")
    #expect(session.history.count == 7)
  }

  @Test func moveShiftsTheCardsBetween() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; add")
    #expect(hand(session) == "AS KH 3C 7H")
    run(&session, "mv 1 3")
    #expect(hand(session) == "KH 3C AS 7H")
    run(&session, "mv 4 1")
    #expect(hand(session) == "7H KH 3C AS")
  }

  @Test func newKeepsTheLimitAndUsesTheFreshSeed() {
    var session = Session(seed: 42)
    run(&session, "limit 3; add; new")
    #expect(session.current.limit == 3)
    #expect(session.history.game(of: session.current).seed == 99)
    #expect(session.current.hand.isEmpty && session.current.deck.count == 52)
  }

  @Test func saveWritesThePathFromTheGamesStart() {
    var session = Session(seed: 42)
    run(&session, "add; new 7; limit 7; add; add 10s; add; del 2; mv 1 2; add; undo")
    #expect(
      session.saveScript() == """
        #!/usr/bin/env handsh
        new 7
        limit 5
        limit 7
        add 4D
        add 10S
        add 5H
        del 2
        mv 1 2

        """)
  }

  @Test func historyAndJSON() {
    var session = Session(seed: 42)
    run(&session, "add; add 10s; undo")
    var out: [UInt8] = []
    Renderer(style: Style()).writeHistory(session.history, to: &out)
    #expect(
      String(decoding: out, as: UTF8.self)
        == " 0  start     (empty)\n*1  add 7♥    7♥\n 2  add 10♠   10♠ 7♥\n")
    out = []
    let json = Renderer(style: Style(json: true))
    json.writeHandLine(session.history, to: &out)
    json.writeDeck(session.history, to: &out)
    json.writeHistory(session.history, to: &out)
    #expect(
      String(decoding: out, as: UTF8.self) == """
        {"version":1,"hand":["7♥"],"deck":51,"discarded":0}
        {"deck":51,"discarded":0,"seed":42}
        {"version":0,"parent":null,"command":"start","hand":[],"current":false}
        {"version":1,"parent":0,"command":"add 7♥","hand":["7♥"],"current":true}
        {"version":2,"parent":1,"command":"add 10♠","hand":["10♠","7♥"],"current":false}

        """)
  }

  @Test func historyPadsColouredCardsByTheirText() {
    var session = Session(seed: 42)
    run(&session, "add 10h; undo; add 2s")
    var out: [UInt8] = []
    Renderer(style: Style(color: true)).writeHistory(session.history, to: &out)
    let red = { (card: String) in "\u{1B}[31m" + card + "\u{1B}[0m" }
    #expect(
      String(decoding: out, as: UTF8.self)
        == " 0  start     (empty)\n 1  add \(red("10♥"))   \(red("10♥"))\n*2  add 2♠    2♠  (from 0)\n"
    )
  }

  @Test func colourWrapsRedCardsOnly() {
    var session = Session(seed: 42)
    run(&session, "add; add")
    var out: [UInt8] = []
    Renderer(style: Style(color: true)).writeHandLine(session.history, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == "3♣ \u{1B}[31m7♥\u{1B}[0m\n")
  }

  @Test func showIsANumberedTable() {
    var session = Session(seed: 42, limit: 12)
    run(&session, Array(repeating: "add", count: 10).joined(separator: ";"))
    var out: [UInt8] = []
    renderer.writeShow(session.history, to: &out)
    let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
    #expect(lines.first == " 1  5H" && lines.last == "10  7H")
  }
}

@Suite struct SpellingTests {
  /// `history` writes a command in canonical form, whatever was typed:
  /// `del 02` is `del 2`, `add` has its card and `new` its seed.
  @Test func historyWritesTheCanonicalForm() {
    let bytes = Array("del 02; mv 1 2; limit 007; new 0042".utf8)
    var session = Session(seed: 42, limit: 5)
    for _ in 0..<3 { _ = session.run(.add(nil)) { 0 } }
    bytes.withUnsafeBufferPointer { buffer in
      var parser = LineParser(buffer)
      while let item = parser.next() {
        guard case .command(let command, _) = item else { continue }
        _ = try? session.apply(command) { 0 }
      }
    }
    let history = session.history
    #expect(
      (4..<history.count).map { history.commandText(of: $0, ascii: true) } == [
        "del 2", "mv 1 2", "limit 7", "new 42",
      ])
    // A new branch leaves the versions it branches off as they were.
    _ = session.run(.undo(3)) { 0 }
    _ = session.run(.limit(9)) { 0 }
    #expect(session.history.count == 9)
    #expect(session.history.commandText(of: 5, ascii: true) == "mv 1 2")
    #expect(session.history.commandText(of: 8, ascii: true) == "limit 9")
  }
}
