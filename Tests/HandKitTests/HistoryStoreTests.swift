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
}
