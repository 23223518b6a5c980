/// What a successful command asks the shell to show or do.
public enum Outcome: Sendable, Equatable {
  /// The state or the cursor changed: write the hand line.
  case changed
  /// Nothing to write (`mv 2 2`, a `limit` that changes nothing, a passing
  /// `expect`).
  case nothing
  case show
  case deck
  case history
  /// `limit` without N: write the limit.
  case limit(Int)
  case help(CommandName?)
  /// Write `script` to `file` (I/O is the shell's job).
  case save(file: String, script: SavedScript)
  /// Run the script `file` in this session (reading it is the shell's job).
  case source(file: String)
  case quit
}
