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
  /// `goto V` past the last version.
  case noVersion(Int, last: Int)
  /// `earlier` at version 0.
  case noEarlierVersion
  /// `later` at the newest version.
  case noLaterVersion
  /// `source FILE` that cannot be read: missing, a folder, unreadable.
  case cannotRead(file: String, reason: String)
  /// A 17th `source` inside 16 sourced files.
  case nestedTooDeeply(file: String)
  /// A command of a sourced file failed (or it had syntax errors): that was
  /// reported at its line, and the `source` adds no message of its own.
  case sourceFailed
}
