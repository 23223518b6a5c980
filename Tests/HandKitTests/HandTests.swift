import Testing

@testable import HandKit

@Suite struct HandTests {
  /// The packed hand behaves exactly like an array, small or spilled.
  @Test func matchesAnArrayModel() {
    var random = SplitMix64(seed: 7)
    for _ in 0..<2000 {
      var model: [Card] = []
      var hand = Hand.empty
      for _ in 0..<40 {
        let choice = random.next() % 4
        if choice < 2 || model.isEmpty, model.count < 52 {
          let card = Card.all[Int(random.next() % 52)]
          let at = Int(random.next() % UInt64(model.count + 1))
          model.insert(card, at: at)
          hand = hand.inserting(card, at: at)
        } else if choice == 2 {
          let at = Int(random.next() % UInt64(model.count))
          model.remove(at: at)
          hand = hand.removing(at: at)
        } else {
          let from = Int(random.next() % UInt64(model.count))
          let to = Int(random.next() % UInt64(model.count))
          model.insert(model.remove(at: from), at: to)
          hand = hand.moving(from: from, to: to)
        }
        #expect(hand.cards == model)
        #expect(hand == Hand(model))
      }
    }
  }

  @Test func aVersionIsThirtyTwoBytes() {
    // The memory figures of PERFORMANCE.md rest on these sizes.
    #expect(MemoryLayout<Hand>.size == 16)
    #expect(MemoryLayout<Deck>.size == 8)
    #expect(MemoryLayout<Step>.size <= 3)
    #expect(MemoryLayout<Version>.stride == 32)
  }
}
