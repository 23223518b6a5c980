/// An immutable, ordered hand of cards; position 1 (index 0) is the top.
///
/// A hand of up to ten cards lives in one word: a 4-bit count, then six bits
/// per card. Larger hands (the limit may be 52) spill to an array. Either way
/// a hand costs sixteen bytes inline, which keeps a version small.
public struct Hand: Sendable, Equatable {
  private static let inlineCapacity = 10

  /// The count in bits 0–3 and card `i` in bits `4 + 6i`, when small.
  private let packed: UInt64
  /// The cards, when there are more than `inlineCapacity`.
  private let spill: [Card]?

  // The operations are inlined: on a hand of up to ten cards each is a few
  // shifts and masks, which a call (and the retain of `spill` around it)
  // would cost several times over.

  public static let empty = Hand(packed: 0, spill: nil)

  private init(packed: UInt64, spill: [Card]?) {
    self.packed = packed
    self.spill = spill
  }

  public init<Cards: Collection<Card>>(_ cards: Cards) {
    if cards.count <= Hand.inlineCapacity {
      var packed = UInt64(cards.count)
      for (i, card) in cards.enumerated() { packed |= UInt64(card.index) << (4 + 6 * UInt64(i)) }
      self.init(packed: packed, spill: nil)
    } else {
      self.init(packed: 0, spill: Array(cards))
    }
  }

  /// The hand as one word when it has at most ten cards: the count in bits
  /// 0–3 (so at most 10 there), then six bits a card. Nil for a larger hand.
  @inline(__always)
  var word: UInt64? { spill == nil ? packed : nil }

  /// The hand of at most ten cards that `word` packs, as `word` gives it.
  @inline(__always)
  init(word: UInt64) { self.init(packed: word, spill: nil) }

  /// Whether the cards are in an array: more than ten of them.
  @inline(__always)
  var spills: Bool { spill != nil }

  @inline(__always)
  public var count: Int { spill?.count ?? Int(packed & 0xF) }
  public var isEmpty: Bool { count == 0 }

  /// The card at `index` (0-based). The caller checks the range.
  @inline(__always)
  public subscript(index: Int) -> Card {
    if let spill { return spill[index] }
    // index < 10: masking shifts, without the checks of `>>` and `*`.
    let cut = 4 &+ 6 &* UInt64(truncatingIfNeeded: index)
    return Card(unchecked: UInt8(truncatingIfNeeded: packed &>> cut) & 0x3F)
  }

  /// Calls `body` with each card, top first: for a small hand, a shift of
  /// one word per card.
  @inline(__always)
  func forEachCard(_ body: (Card) -> Void) {
    if let spill { return spill.forEach(body) }
    var rest = packed >> 4
    for _ in 0..<Int(packed & 0xF) {
      body(Card(unchecked: UInt8(truncatingIfNeeded: rest) & 0x3F))
      rest >>= 6
    }
  }

  /// The cards, top first.
  public var cards: [Card] { spill ?? (0..<count).map { self[$0] } }

  @inline(__always)
  public func contains(_ card: Card) -> Bool {
    (0..<count).contains { self[$0] == card }
  }

  /// The hand with `card` inserted so that it has index `index`.
  @inline(__always)
  public func inserting(_ card: Card, at index: Int) -> Hand {
    let n = count
    guard spill == nil, n < Hand.inlineCapacity else {
      var cards = cards
      cards.insert(card, at: index)
      return Hand(cards)
    }
    // index <= n < 10, so no shift here reaches 64 but the last, of bits
    // that are all zero: masking shifts, without the checks of `<<`.
    let cut = 4 &+ 6 &* UInt64(truncatingIfNeeded: index)
    let below = packed & ((1 &<< cut) &- 1) & ~0xF
    let above = (packed &>> cut) &<< (cut &+ 6)
    return Hand(
      packed: UInt64(n &+ 1) | below | UInt64(card.index) &<< cut | above, spill: nil)
  }

  /// The hand without the card at `index`.
  @inline(__always)
  public func removing(at index: Int) -> Hand {
    guard spill == nil else {
      var cards = cards
      cards.remove(at: index)
      return Hand(cards)
    }
    let cut = 4 &+ 6 &* UInt64(truncatingIfNeeded: index)
    let below = packed & ((1 &<< cut) &- 1) & ~0xF
    let above = cut &+ 6 >= 64 ? 0 : (packed &>> (cut &+ 6)) &<< cut
    return Hand(packed: (packed & 0xF) &- 1 | below | above, spill: nil)
  }

  /// The hand with the card at `from` moved so that it ends at index `to`.
  @inline(__always)
  public func moving(from: Int, to: Int) -> Hand {
    guard spill == nil else {
      var cards = cards
      cards.insert(cards.remove(at: from), at: to)
      return Hand(cards)
    }
    // Known small here, so neither step looks at an array.
    return removing(at: from).inserting(self[from], at: to)
  }
}
