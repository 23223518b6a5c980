import Testing

@testable import HandKit

/// Properties over thousands of random command sequences (handsh(1), The game, and save under COMMANDS).
@Suite struct PropertyTests {
  /// A random command, valid or not, as text, for the state of `session`:
  /// positions run from 1 to two past the hand's size, undo and redo counts
  /// up to two past the history's depth (or 10), and limits over all of 1...52 (half of
  /// them 52), so that hands grow past the ten cards a hand keeps inline
  /// and the deck runs out; `new` is rare, so a game lasts. Failures are
  /// common too. (The generators once drew limits of at most 8 and
  /// positions of at most 7: no hand ever reached 11 cards, no deck ran
  /// out, and a bug in either went unseen.)
  private func randomCommand(_ random: inout SplitMix64, for session: Session) -> String {
    let card = Card.all[Int(random.next() % 52)].name(ascii: random.next() % 2 == 0)
    let size = session.current.hand.count
    let position = { (r: inout SplitMix64) in 1 + Int(r.next() % UInt64(size + 2)) }
    // Mostly small, so that a run's history grows long.
    let count = { (r: inout SplitMix64, depth: Int) in 1 + Int(r.next() % UInt64(min(depth, 8) + 2))
    }
    switch random.next() % 64 {
    case 0..<16: return "add"
    case 16..<20: return "add \(card)"
    case 20..<30: return "del \(position(&random))"
    case 30..<42: return "mv \(position(&random)) \(position(&random))"
    case 42..<45: return "undo"
    case 45..<48: return "undo \(count(&random, session.history.undoDepth))"
    case 48..<51: return "redo"
    case 51..<54: return "redo \(count(&random, session.history.redoDepth(upTo: 10)))"
    case 54..<59: return random.next() % 2 == 0 ? "limit 52" : "limit \(1 + random.next() % 52)"
    case 59: return "new \(random.next() % 5)"
    case 60, 61: return "expect \(card)"
    case 62: return "limit"
    default: return walk(&random, for: session)
    }
  }

  /// `earlier` or `later`, by a count (up to two past the versions there
  /// are that way) or a time (seconds to days, around the clock's steps).
  private func walk(_ random: inout SplitMix64, for session: Session) -> String {
    let name = random.next() % 2 == 0 ? "earlier" : "later"
    let ahead = session.history.count - 1 - session.history.cursor
    let reach = name == "earlier" ? session.history.cursor : ahead
    switch random.next() % 4 {
    case 0: return name
    case 1: return "\(name) \(1 + random.next() % UInt64(reach + 2))"
    default:
      let unit = ["s", "s", "s", "m", "h", "d"][Int(random.next() % 6)]
      return "\(name) \(1 + random.next() % 40)\(unit)"
    }
  }

  /// The clock of a random run: mostly on by 0 to 3 seconds a command,
  /// now and then back by up to 20 (a clock set back), so `earlier TIME`
  /// and `later TIME` meet both kinds of history.
  private func tick(_ clock: inout (now: Int, random: SplitMix64), _ session: inout Session) {
    if clock.random.next() % 25 == 0 {
      clock.now -= Int(clock.random.next() % 20)
    } else {
      clock.now += Int(clock.random.next() % 4)
    }
    session.clock = .fixed(clock.now)
  }

  /// `earlier` and `later` against the model: `goto` to the version the
  /// rules name (handsh(1), COMMANDS), worked out one version at a time
  /// from the times, or the failure at either end. The whole history is
  /// compared: cursor, redo children, every version and its time.
  private func checkWalk(
    _ command: Command, before: Session, after: Session, _ result: Result<Outcome, CommandError>
  ) {
    let history = before.history
    let (current, last) = (history.cursor, history.count - 1)
    let time = { (number: Int) in history.time(of: number) }
    let target: Int?
    let failure: CommandError
    switch command {
    case .earlier(let stride):
      failure = .noEarlierVersion
      guard current > 0 else {
        target = nil
        break
      }
      switch stride {
      case .versions(let count): target = max(0, current - count)
      case .seconds(let span):
        target = (0..<current).last { time($0) <= time(current) - span } ?? 0
      }
    case .later(let stride):
      failure = .noLaterVersion
      guard current < last else {
        target = nil
        break
      }
      switch stride {
      case .versions(let count): target = min(last, current + count)
      case .seconds(let span):
        let found = (0...last).last { time($0) <= time(current) + span } ?? 0
        target = found > current ? found : current + 1
      }
    default: return
    }
    guard let target else {
      #expect(result == .failure(failure), "\(command) at \(current) of 0...\(last)")
      return
    }
    var model = before
    #expect(model.run(.goto(target)) { 0 } == .success(.changed))
    #expect(result == .success(.changed), "\(command)")
    #expect(after.history == model.history, "\(command) from \(current): not goto \(target)")
    #expect(after.current == model.current)
  }

  /// Which states the random runs reached: a test of the generators, so
  /// that widening the state space cannot silently narrow again.
  private struct Reached {
    var largestHand = 0
    var emptyDeck = 0
    var addOnEmptyDeck = 0
    var fullHand = 0
    var largestLimit = 0
    var longestHistory = 0

    mutating func note(_ session: Session, _ result: Result<Outcome, CommandError>) {
      let now = session.current
      largestHand = max(largestHand, now.hand.count)
      largestLimit = max(largestLimit, now.limit)
      longestHistory = max(longestHistory, session.history.count)
      if now.deck.count == 0 { emptyDeck += 1 }
      if case .failure(.deckEmpty) = result { addOnEmptyDeck += 1 }
      if case .failure(.handFull) = result { fullHand += 1 }
    }

    func check(longRuns: Bool) {
      #expect(largestHand >= 11, "no hand past the inline ten cards: \(largestHand)")
      #expect(largestLimit == 52)
      #expect(fullHand > 0, "no add on a full hand")
      guard longRuns else { return }
      #expect(largestHand >= 20, "no hand of 20 cards: \(largestHand)")
      #expect(emptyDeck > 0, "the deck never ran out")
      #expect(addOnEmptyDeck > 0, "no add on an empty deck")
      #expect(longestHistory > 1000, "no long history: \(longestHistory)")
    }
  }

  /// Checks that a successful add, del or mv did to the hand what a plain
  /// array does: the reference model of the hand, whatever its size. Read
  /// from the step the command made, so that any command that makes one is
  /// modelled, and a new kind of step is a compile error here.
  private func checkAgainstModel(
    _ command: Command, before: [Card], versionsBefore: Int, after: Session,
    _ result: Result<Outcome, CommandError>
  ) {
    guard case .success(.changed) = result, after.history.count > versionsBefore else { return }
    let hand = after.current.hand.cards
    var model = before
    switch after.current.step {
    case .add:
      guard let top = hand.first else {
        Issue.record("add left an empty hand")
        return
      }
      if case .add(let card?) = command { #expect(top == card) }
      #expect(!before.contains(top), "add drew \(top), already in the hand")
      model.insert(top, at: 0)
    case .delete(let position): model.remove(at: Int(position) - 1)
    case .move(let from, let to): model.insert(model.remove(at: Int(from) - 1), at: Int(to) - 1)
    // The hand alone is modelled: a limit leaves it as it was, a new game
    // empties it, which other checks cover.
    case .start, .limit, .new: return
    }
    #expect(hand == model, "\(command) on \(before.count) cards")
    #expect(after.current.hand == Hand(model), "\(command): the hand differs from its own cards")
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
    var clock = (now: 1_000, random: SplitMix64(seed: 2025))
    var reached = Reached()
    for sequence in 0..<300 {
      var session = Session(seed: UInt64(sequence), limit: 1 + sequence % 52)
      for _ in 0..<200 {
        guard let command = command(randomCommand(&random, for: session)) else {
          Issue.record("generated an invalid command")
          continue
        }
        tick(&clock, &session)
        let before = session
        let result = session.run(command, freshSeed: { 5 })
        if case .failure = result {
          #expect(session.history == before.history, "a failed \(command) changed the state")
        }
        checkAgainstModel(
          command, before: before.current.hand.cards, versionsBefore: before.history.count,
          after: session, result)
        checkWalk(command, before: before, after: session, result)
        checkCardsArePartitioned(session)
        reached.note(session, result)
      }
    }
    reached.check(longRuns: false)
  }

  /// Long runs, of thousands of commands each: long histories, many games,
  /// hands of any size and decks run out, checked as above.
  @Test func longRunsKeepEveryRule() {
    var random = SplitMix64(seed: 31)
    var clock = (now: 1_000, random: SplitMix64(seed: 32))
    var reached = Reached()
    for sequence in 0..<8 {
      var session = Session(seed: UInt64(sequence), limit: 52)
      for _ in 0..<5000 {
        guard let command = command(randomCommand(&random, for: session)) else {
          Issue.record("generated an invalid command")
          continue
        }
        tick(&clock, &session)
        let before = session.history
        let hand = session.current.hand.cards
        let result = session.run(command, freshSeed: { 9 })
        if case .failure = result {
          #expect(session.history == before, "a failed \(command) changed the state")
        }
        checkAgainstModel(
          command, before: hand, versionsBefore: before.count, after: session, result)
        checkCardsArePartitioned(session)
        reached.note(session, result)
      }
    }
    reached.check(longRuns: true)
  }

  @Test func undoThenRedoReturnsTheIdenticalVersion() {
    var random = SplitMix64(seed: 99)
    for sequence in 0..<300 {
      var session = Session(seed: UInt64(sequence))
      for _ in 0..<80 {
        if let command = command(randomCommand(&random, for: session)) {
          _ = session.run(command) { 3 }
        }
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
      var session = Session(seed: UInt64(sequence), limit: 3 + sequence % 50)
      for _ in 0..<60 {
        if let command = command(randomCommand(&random, for: session)) {
          _ = session.run(command) { 11 }
        }
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
      if let command = command(randomCommand(&random, for: session)) {
        _ = session.run(command) { 77 }
      }
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
