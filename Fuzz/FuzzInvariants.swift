// What every run's history must hold, checked after each fuzzed run.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The card-partition invariants of one version: the hand within the limit,
/// no card twice in the hand, no hand card still in the deck, and hand,
/// deck and discard pile adding up to exactly 52 cards.
func check(_ version: Version, in history: History, _ context: String) {
  let limit = version.limit
  guard (1...52).contains(limit) else { broken("limit \(limit) out of 1...52 (\(context))") }
  let hand = version.hand
  guard hand.count <= limit else {
    broken("hand has \(hand.count) cards, limit \(limit) (\(context))")
  }
  let game = history.game(of: version)
  guard game.order.count == 52 else { broken("game order has \(game.order.count) cards") }
  guard version.deck.bits >> 52 == 0 else { broken("deck bits beyond 52 (\(context))") }
  var seen: UInt64 = 0
  for index in 0..<hand.count {
    let card = hand[index]
    guard card.index < 52 else { broken("hand holds card index \(card.index) (\(context))") }
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in the hand (\(context))") }
    seen |= bit
    guard !version.deck.contains(card, in: game) else {
      broken("\(card) in both hand and deck (\(context))")
    }
  }
  let deckCards = version.deck.cards(in: game)
  guard deckCards.count == version.deck.count else { broken("deck count disagrees") }
  for card in deckCards {
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in hand and deck (\(context))") }
    seen |= bit
  }
  let discarded = version.discardCount
  guard discarded >= 0, hand.count + deckCards.count + discarded == 52 else {
    broken(
      "hand \(hand.count) + deck \(deckCards.count) + discard \(discarded) != 52 (\(context))")
  }
}

/// Text that `history` or `save` writes must parse back to one command with
/// no syntax error.
func checkParses(_ text: String, _ context: String) {
  var bytes = Array(text.utf8)
  let items = LineParser.parse(bytes: &bytes)
  for item in items {
    if case .error(let error) = item {
      broken("'\(safeText(text.utf8))' from \(context) does not parse: \(error.message)")
    }
  }
}

/// Checks every version of a runner's history.
func checkHistory(_ history: History, _ context: String) {
  for number in 0..<history.count {
    let version = history[number]
    check(version, in: history, "version \(number) \(context)")
    if number == 0 {
      guard case .start = version.step else { broken("version 0 is not start") }
      continue
    }
    // What `history` and `save` write parses back without a syntax error.
    let seed = history.game(of: version).seed
    checkParses(version.step.text(seed: seed, ascii: true), "history")
    checkParses(version.step.text(seed: seed, ascii: false), "history")
  }
}
