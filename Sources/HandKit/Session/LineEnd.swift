/// How a command, a line of commands or a whole run ended: the one answer
/// of every runner, from one command up to a SCRIPT.
public enum LineEnd: Sendable, Equatable {
  /// Everything ran (with `keepGoing`, some commands may have failed).
  case finished
  /// A command failed and the rest was skipped.
  case failed
  /// `quit` or `exit` ran.
  case quit
  /// The sink asked to stop.
  case stopped

  /// Whether a run goes on after this: it finished, or it failed and
  /// `keepGoing` (`-k`) lets it go on.
  @inlinable public func goesOn(keepGoing: Bool) -> Bool {
    self == .finished || (keepGoing && self == .failed)
  }
}
