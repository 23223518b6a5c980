/// A parsed command: every case of the language, so that a new command is a
/// compile error until every `switch` handles it.
public enum Command: Sendable, Equatable {
  /// `add` draws the deck's next card; `add CARD` takes that card.
  case add(Card?)
  /// `del P`, with P counted from 1.
  case delete(Int)
  /// `mv A B`, with A and B counted from 1.
  case move(Int, Int)
  case undo(Int)
  case redo(Int)
  /// `goto V`: version V, 0 or more.
  case goto(Int)
  /// `new` with its seed; nil asks for a fresh random seed.
  case new(UInt64?)
  /// `limit N` sets the limit; `limit` prints it.
  case limit(Int?)
  /// `expect CARD…`; no cards is `expect empty`.
  case expect([Card])
  case show
  case deck
  /// `history`, or `history tree` (`tree` true): every version.
  case history(tree: Bool)
  case save(String)
  /// `source FILE`: runs the script FILE in the session.
  case source(String)
  /// `help` or `help COMMAND`.
  case help(CommandName?)
  /// `quit` or `exit`.
  case quit
}
