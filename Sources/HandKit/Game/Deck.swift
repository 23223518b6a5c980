/// The cards still in the deck: one bit per place in the game's shuffled
/// order, so a deck costs eight bytes and drawing is a count of zero bits.
public struct Deck: Sendable, Equatable {
  let bits: UInt64

  /// A full deck.
  static let full = Deck(bits: (1 << 52) - 1)

  /// How many cards are in the deck.
  public var count: Int { bits.nonzeroBitCount }

  public var isEmpty: Bool { bits == 0 }

  // A place is below 52: the shifts need no check for reaching 64, and
  // these few instructions are inlined where an `add` uses them.

  /// The next card to draw: the first card of the order still in the deck.
  @inline(__always)
  public func top(in game: Game) -> Card? {
    isEmpty ? nil : game.order[bits.trailingZeroBitCount]
  }

  @inline(__always)
  public func contains(_ card: Card, in game: Game) -> Bool {
    bits & (1 &<< game.place[Int(card.index)]) != 0
  }

  /// The deck without `card`; the order of the rest is unchanged.
  @inline(__always)
  public func removing(_ card: Card, in game: Game) -> Deck {
    Deck(bits: bits & ~(1 &<< game.place[Int(card.index)]))
  }

  /// The cards in the deck, in draw order.
  public func cards(in game: Game) -> [Card] {
    (0..<52).compactMap { bits & (1 << UInt64($0)) != 0 ? game.order[$0] : nil }
  }
}
