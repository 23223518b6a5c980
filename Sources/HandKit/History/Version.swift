/// One immutable state of the session: hand, deck and limit, within a game.
/// The discard pile is what is in neither the hand nor the deck, so it needs
/// no storage of its own and a card is always in exactly one of the three.
public struct Version: Sendable, Equatable {
  public let hand: Hand
  public let deck: Deck
  /// The number of the version that starts this version's game (whose
  /// entry keeps the game's seed).
  let game: UInt32
  let storedLimit: UInt8
  /// What made this version.
  public let step: Step

  init(hand: Hand, deck: Deck, game: UInt32, limit: Int, step: Step) {
    self.hand = hand
    self.deck = deck
    self.game = game
    self.storedLimit = UInt8(truncatingIfNeeded: limit)
    self.step = step
  }

  /// The version that `step` makes of this one: `hand`, and `deck` when
  /// given, in the same game and limit.
  @inline(__always)
  func making(hand: Hand, deck: Deck? = nil, _ step: Step) -> Version {
    Version(hand: hand, deck: deck ?? self.deck, game: game, limit: limit, step: step)
  }

  /// The most cards the hand may hold, 1–52.
  public var limit: Int { Int(storedLimit) }

  /// How many cards are in the discard pile.
  public var discardCount: Int { 52 - deck.count - hand.count }
}
