import Testing

@testable import HandKit

/// The versions live in one store that copies of a history share until one
/// of them changes (copy on write): a copy is a value all the same.
@Suite struct HistoryStoreTests {
  private func run(_ commands: [Command], on session: inout Session) {
    for command in commands { _ = session.run(command) { 7 } }
  }

  @Test func aCopyKeepsItsVersionsWhenTheOriginalGoesOn() {
    var session = Session(seed: 1)
    run([.add(nil), .add(nil)], on: &session)
    let copy = session
    // More versions, then a branch from version 1, which makes version 1's
    // redo child the new version: a write to a version the copy holds too.
    run([.add(nil), .add(nil), .undo(3), .add(nil)], on: &session)
    #expect(session.history.count == 6)
    #expect(copy.history.count == 3)
    #expect(copy.history.cursor == 2)
    #expect(copy.history.current.hand.count == 2)
    #expect(copy.history.redoChild(of: 1) == 2)
    #expect(session.history.redoChild(of: 1) == 5)
  }

  @Test func theOriginalKeepsItsVersionsWhenTheCopyGoesOn() {
    var session = Session(seed: 1)
    run([.add(nil), .add(nil), .undo(1)], on: &session)
    var copy = session
    run([.add(nil), .goto(2)], on: &copy)
    #expect(copy.history.count == 4)
    #expect(session.history.count == 3)
    #expect(session.history.redoChild(of: 1) == 2)
    #expect(copy.history.redoChild(of: 1) == 2)
    #expect(session.history.cursor == 1)
  }

  @Test func storesOfManyChunksCompareAndCopyWhole() {
    // Past a chunk of 4096 versions: the copy made on the first write
    // holds every version, across chunks.
    var session = Session(seed: 3)
    run([.add(nil)], on: &session)
    for i in 0..<5000 { run([.limit(i % 2 == 0 ? 6 : 5)], on: &session) }
    var copy = session
    #expect(copy.history == session.history)
    run([.undo(4999), .add(nil)], on: &copy)
    #expect(copy.history != session.history)
    #expect(session.history.count == 5002)
    #expect(copy.history.count == 5003)
    for number in stride(from: 0, to: 5002, by: 97) {
      #expect(copy.history[number] == session.history[number])
    }
  }

  @Test func handsOfMoreThanTenCardsStayWithTheirVersions() {
    // Such hands are kept beside the store: a copy and its original each
    // see their own, whichever goes on.
    var session = Session(seed: 5, limit: 52)
    run(Array(repeating: .add(nil), count: 12), on: &session)
    let cards = (0...12).map { session.history[$0].hand.cards }
    #expect(cards[12].count == 12)
    var copy = session
    run([.undo(2), .add(nil), .add(nil), .delete(3)], on: &session)
    run([.move(1, 12), .undo(4), .delete(1)], on: &copy)
    #expect(session.history != copy.history)
    for number in 0...12 {
      #expect(session.history[number].hand.cards == cards[number])
      #expect(copy.history[number].hand.cards == cards[number])
    }
    var branch = session.history[14].hand.cards
    #expect(branch.count == 12)
    #expect(Array(branch.dropFirst(2)) == cards[10])
    branch.remove(at: 2)
    #expect(session.history.current.hand.cards == branch)
    #expect(copy.history[13].hand.cards == Array(cards[12].dropFirst()) + [cards[12][0]])
    #expect(copy.history.current.hand.cards == Array(cards[9].dropFirst()))
  }

  @Test func aStoreLetsGoOfItsHandsOfMoreThanTenCardsWhenFreed() {
    // Such a hand's cards are an array its version holds: once the
    // history is gone, the array is the caller's alone, so a change to it
    // is made in place, not in a copy.
    var cards: [Card] = []
    do {
      var session = Session(seed: 5, limit: 52)
      run(Array(repeating: .add(nil), count: 11), on: &session)
      cards = session.history.current.hand.cards
    }
    #expect(cards.count == 11)
    let before = cards.withUnsafeBufferPointer { $0.baseAddress }
    cards.swapAt(0, 1)
    #expect(cards.withUnsafeBufferPointer { $0.baseAddress } == before)
  }

  @Test func storesPastTheirFirstTableOfChunksKeepEveryVersion() {
    // The table of chunks starts with room for 16 (65,536 versions) and
    // grows: the chunks it held before must still be found after.
    var session = Session(seed: 3)
    run([.add(nil)], on: &session)
    let total = 70_000
    for i in 2..<total { run([.limit(i % 2 == 0 ? 6 : 5)], on: &session) }
    #expect(session.history.count == total)
    for number in stride(from: 2, to: total, by: 997) {
      #expect(session.history[number].limit == (number % 2 == 0 ? 6 : 5))
      #expect(session.history.parent(of: number) == number - 1)
      #expect(session.history[number].hand == session.history[1].hand)
    }
    var copy = session
    run([.undo(total - 2), .add(nil)], on: &copy)
    #expect(copy.history.count == total + 1)
    #expect(copy.history.redoChild(of: 1) == total)
    #expect(session.history.redoChild(of: 1) == 2)
    #expect(session.history.ancestor(of: total - 1, atDepth: 1) == 1)
  }

  /// A history of `count` versions made by `commands` over and over, after
  /// `first`.
  private func history(
    _ count: Int, limit: Int = 5, first: [Command] = [], _ commands: [Command]
  ) -> History {
    var session = Session(seed: 3, limit: limit)
    run(first, on: &session)
    var next = 0
    while session.history.count < count {
      _ = session.run(commands[next % commands.count]) { 18_446_744_073_709_551_615 }
      next += 1
    }
    return session.history
  }

  /// At most 48 bytes a version, whatever the command and the size of the
  /// hand (handsh(1), Versions): a `new`, with the largest seed or not, and
  /// hands of up to 52 cards cost what a `mv` of a small hand costs. The
  /// store's bytes are counted whole: its chunks (the last one part empty:
  /// one chunk of slack) and whatever a version keeps beside them.
  @Test(arguments: ["mv", "new", "new max", "52 cards", "52 cards, branching"])
  func aVersionHoldsAtMost48Bytes(_ script: String) {
    let count = 100_000
    let fiftyTwo = [Command.new(1)] + Array(repeating: .add(nil), count: 52)
    let history: History
    switch script {
    case "mv": history = self.history(count, first: [.add(nil), .add(nil)], [.move(1, 2)])
    case "new": history = self.history(count, [.new(1)])
    case "new max": history = self.history(count, [.new(nil)])
    case "52 cards": history = self.history(count, limit: 52, fiftyTwo)
    default:
      // Branches off the 52-card hand: each change after an undo makes a
      // version whose parent's hand is rebuilt from a delta.
      history = self.history(
        count, limit: 52, first: Array(repeating: .add(nil), count: 52),
        [.move(1, 52), .move(2, 51), .delete(3), .undo(1), .move(5, 1), .undo(2), .delete(1)])
    }
    #expect(history.count == count)
    let slack = 4096 * 48
    #expect(
      history.bytesHeld <= 48 * count + slack,
      "\(script): \(Double(history.bytesHeld - slack) / Double(count)) bytes a version")
  }

  /// Hands of more than ten cards are rebuilt from the nearest version up
  /// the path whose hand is kept whole: every version of a random walk over
  /// branches of large hands, asked for in any order, in the history and in
  /// a copy of it that went on, has the hand it had when it was made.
  @Test func everyVersionKeepsItsHandOnBranchesOfLargeHands() {
    var random = SplitMix64(seed: 11)
    var session = Session(seed: 9, limit: 52)
    run(Array(repeating: .add(nil), count: 30), on: &session)
    var hands: [Hand] = (0..<session.history.count).map { session.history[$0].hand }
    for _ in 0..<20_000 {
      let size = session.current.hand.count
      let position = { (r: inout SplitMix64) in 1 + Int(r.next() % UInt64(max(size, 1))) }
      let command: Command
      switch random.next() % 16 {
      case 0..<4: command = .add(nil)
      case 4..<6: command = .delete(position(&random))
      case 6..<10: command = .move(position(&random), position(&random))
      case 10..<12: command = .undo(1 + Int(random.next() % 20))
      case 12: command = .redo(1 + Int(random.next() % 4))
      case 13: command = .goto(Int(random.next() % UInt64(session.history.count)))
      case 14: command = .limit(size + Int(random.next() % 3))
      default: command = size < 20 ? .add(nil) : .delete(1)
      }
      let count = session.history.count
      _ = session.run(command) { 5 }
      if session.history.count > count {
        hands.append(session.current.hand)
      }
      if random.next() % 1000 == 0 { run([.new(nil)], on: &session) }
      while hands.count < session.history.count { hands.append(session.current.hand) }
      #expect(session.current.hand == hands[session.history.cursor])
    }
    #expect(hands.count > 10_000)
    #expect(hands.filter { $0.count > 10 }.count > hands.count / 3)
    var copy = session
    run([.goto(1), .add(nil), .goto(hands.count - 1), .delete(1)], on: &copy)
    for number in (0..<hands.count).shuffled(using: &random) {
      #expect(session.history[number].hand == hands[number], "version \(number)")
      #expect(copy.history[number].hand == hands[number], "version \(number) of the copy")
    }
  }

  /// `history` makes each large hand from the version before when that is
  /// its parent: every line shows the hand the version has.
  @Test func historyShowsEveryLargeHand() {
    var session = Session(seed: 4, limit: 52)
    run(Array(repeating: .add(nil), count: 40), on: &session)
    run([.move(1, 40), .undo(3), .delete(7), .move(2, 30), .goto(20), .add(nil)], on: &session)
    run(Array(repeating: .move(3, 1), count: 30) + [.undo(12), .delete(1)], on: &session)
    let renderer = Renderer(style: Style(ascii: true))
    var out: [UInt8] = []
    renderer.writeHistory(session.history, to: &out)
    let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
    #expect(lines.count == session.history.count)
    for (number, line) in lines.enumerated() {
      let hand = renderer.handText(session.history[number].hand)
      #expect(line.contains("  \(hand)"), "version \(number): \(line)")
    }
  }
}
