/// What a successful command asks the shell to show or do. Plain data, a
/// few bytes with nothing to release: nearly every command's outcome is
/// `changed`, and telling so is one compare.
public enum Outcome: Sendable, Equatable {
  /// The state or the cursor changed: write the hand line.
  case changed
  /// Nothing to write (`mv 2 2`, a `limit` that changes nothing, a passing
  /// `expect`).
  case nothing
  case show
  case deck
  /// `history`, or with `tree` the versions drawn as a tree.
  case history(tree: Bool)
  /// `limit` without N: write the limit.
  case limit(Int)
  case help(CommandName?)
  case quit
}
