/// One of the 52 cards, stored as its index `suit * 13 + rank`.
public struct Card: Hashable, Comparable, Sendable {
  /// The card's index, 0 to 51.
  public let index: UInt8

  /// Every card in new-deck order: `A♥ 2♥ … K♥ A♦ … K♠`.
  public static let all: [Card] = (0..<52).map { Card(unchecked: UInt8($0)) }

  /// The card with this index, or nil when the index is not 0–51.
  public init?(index: Int) {
    guard (0..<52).contains(index) else { return nil }
    self.index = UInt8(index)
  }

  public init(_ rank: Rank, of suit: Suit) {
    index = suit.rawValue &* 13 &+ rank.rawValue
  }

  init(unchecked index: UInt8) { self.index = index }

  public var suit: Suit { Suit(rawValue: index / 13) ?? .spades }
  public var rank: Rank { Rank(rawValue: index % 13) ?? .king }

  /// The card as `handsh` writes it: `Q♥`, or `QH` when `ascii` is set.
  public func name(ascii: Bool = false) -> String {
    rank.name + (ascii ? suit.letter : suit.symbol)
  }

  public static func < (a: Card, b: Card) -> Bool { a.index < b.index }
}

extension Card: CustomStringConvertible {
  public var description: String { name() }
}
