/// One game: a seed and the deck order it shuffles to. Every version of the
/// game shares this one value; a version's deck is only a bitmask over it.
public struct Game: Sendable, Equatable {
  /// The seed that shuffled this game's deck.
  public let seed: UInt64
  /// The deck's cards in draw order.
  public let order: [Card]
  /// For each card index, its place in `order`.
  let place: [UInt8]

  /// Shuffles a new deck by `seed`: Fisher–Yates from the back, with
  /// `j = next() mod (i + 1)` (handsh(1), The shuffle).
  public init(seed: UInt64) {
    var order = Card.all
    var place = [UInt8](repeating: 0, count: 52)
    // In place in each array's buffer: a swap or store through the array
    // checks its uniqueness and bounds each time.
    order.withUnsafeMutableBufferPointer { order in
      var random = SplitMix64(seed: seed)
      // i + 1 is at most 52, and j below it: plain arithmetic, unchecked.
      for i in stride(from: order.count - 1, through: 1, by: -1) {
        let j = Int(truncatingIfNeeded: random.next() % UInt64(truncatingIfNeeded: i &+ 1))
        order.swapAt(i, j)
      }
      place.withUnsafeMutableBufferPointer { place in
        for (i, card) in order.enumerated() {
          place[Int(card.index)] = UInt8(truncatingIfNeeded: i)
        }
      }
    }
    self.seed = seed
    self.order = order
    self.place = place
  }
}
