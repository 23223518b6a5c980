import Testing

@testable import HandKit

/// Properties over thousands of random command sequences (handsh(1), The game, and save under COMMANDS).
@Suite struct PropertyTests {
  /// A random command, valid or not, as text: positions and counts run a
  /// little past what the state allows so that failures are common too.
  private func randomCommand(_ random: inout SplitMix64) -> String {
    let card = Card.all[Int(random.next() % 52)].name(ascii: random.next() % 2 == 0)
    let small = { (r: inout SplitMix64) in 1 + Int(r.next() % 7) }
    switch random.next() % 14 {
    case 0, 1, 2: return "add"
    case 3: return "add \(card)"
    case 4, 5: return "del \(small(&random))"
    case 6: return "mv \(small(&random)) \(small(&random))"
    case 7: return "undo"
    case 8: return "undo \(small(&random))"
    case 9: return "redo"
    case 10: return "redo \(small(&random))"
    case 11: return random.next() % 4 == 0 ? "new \(random.next() % 5)" : "limit \(small(&random))"
    case 12: return "expect \(card)"
    default: return "limit"
    }
  }

  private func command(_ text: String) -> Command? {
    guard case .command(let command, _)? = LineParser.parse(text).first else { return nil }
    return command
  }

  private func checkCardsArePartitioned(_ session: Session) {
    let now = session.current
    let game = session.history.game(of: now)
    let hand = now.hand.cards
    let deck = now.deck.cards(in: game)
    #expect(Set(hand).count == hand.count, "a card twice in the hand")
    #expect(Set(hand).isDisjoint(with: deck), "a card in both hand and deck")
    #expect(hand.count + deck.count + now.discardCount == 52)
    #expect(now.discardCount >= 0 && hand.count <= now.limit)
  }

  @Test func failedCommandsChangeNothingAndCardsStayPartitioned() {
    var random = SplitMix64(seed: 2024)
    for sequence in 0..<300 {
      var session = Session(seed: UInt64(sequence), limit: 1 + sequence % 8)
      for _ in 0..<120 {
        guard let command = command(randomCommand(&random)) else {
          Issue.record("generated an invalid command")
          continue
        }
        let before = session
        if case .failure = session.run(command, freshSeed: { 5 }) {
          #expect(session.history == before.history, "a failed \(command) changed the state")
        }
        checkCardsArePartitioned(session)
      }
    }
  }

  @Test func undoThenRedoReturnsTheIdenticalVersion() {
    var random = SplitMix64(seed: 99)
    for sequence in 0..<300 {
      var session = Session(seed: UInt64(sequence))
      for _ in 0..<80 {
        if let command = command(randomCommand(&random)) { _ = session.run(command) { 3 } }
      }
      let depth = session.history.undoDepth
      guard depth > 0 else { continue }
      let steps = 1 + Int(random.next() % UInt64(depth))
      let before = session.history
      #expect(session.run(.undo(steps)) { 0 } == .success(.changed))
      #expect(session.history.undoDepth == before.undoDepth - steps)
      #expect(session.run(.redo(steps)) { 0 } == .success(.changed))
      #expect(session.history == before)
    }
  }

  @Test func saveThenReplayRebuildsTheVersion() {
    var random = SplitMix64(seed: 7)
    for sequence in 0..<300 {
      var session = Session(seed: UInt64(sequence), limit: 3 + sequence % 5)
      for _ in 0..<60 {
        if let command = command(randomCommand(&random)) { _ = session.run(command) { 11 } }
      }
      var replay = Session(seed: 12345)
      for line in session.saveScript().split(separator: "\n") {
        for item in LineParser.parse(String(line)) {
          guard case .command(let command, _) = item else {
            Issue.record("saved script has a syntax error: \(line)")
            continue
          }
          if case .failure(let error) = replay.run(command, freshSeed: { 0 }) {
            Issue.record("saved script fails at \(line): \(error)")
          }
        }
      }
      let (a, b) = (session.current, replay.current)
      #expect(a.hand == b.hand && a.deck == b.deck && a.limit == b.limit)
      #expect(a.discardCount == b.discardCount)
      #expect(session.history.game(of: a) == replay.history.game(of: b))
    }
  }

  @Test func historyAndSaveTextParsesBackToTheSameCommands() {
    var random = SplitMix64(seed: 5)
    var session = Session(seed: 1, limit: 52)
    for _ in 0..<3000 {
      if let command = command(randomCommand(&random)) { _ = session.run(command) { 77 } }
    }
    let history = session.history
    for number in 1..<history.count {
      let version = history[number]
      let seed = history.game(of: version).seed
      for ascii in [true, false] {
        let parsed = command(version.step.text(seed: seed, ascii: ascii))
        switch version.step {
        case .start: Issue.record("start after version 0")
        case .add(let card): #expect(parsed == .add(card))
        case .delete(let p): #expect(parsed == .delete(Int(p)))
        case .move(let a, let b): #expect(parsed == .move(Int(a), Int(b)))
        case .limit(let n): #expect(parsed == .limit(Int(n)))
        case .new: #expect(parsed == .new(seed))
        }
      }
    }
  }
}
