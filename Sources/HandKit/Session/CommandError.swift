/// Why a command failed. A failed command changes nothing.
public enum CommandError: Error, Sendable, Equatable {
  case handFull(limit: Int)
  case deckEmpty
  case inHand(Card)
  case discarded(Card)
  case noCard(position: Int, count: Int)
  case nothingToUndo
  case cannotUndo(Int, only: Int)
  case nothingToRedo
  case cannotRedo(Int, only: Int)
  case handTooLarge(count: Int, limit: Int)
  case unexpectedHand(expected: [Card], actual: Hand)
  case cannotWrite(file: String, reason: String)
}
