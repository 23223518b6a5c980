/// The moments of a run that the loops of `LineExecutor` tell their sink
/// of, for it to flush, point at a failure or stop the run: after each
/// command (`LineExecutor.runCommand`), around each line of the one loop
/// over lines (`LineExecutor.runLines`), and while a `source`d FILE is
/// checked. Never called by a command itself (what a command asks for is
/// `CommandEffects`). Every hook has a default that does nothing and goes
/// on, so a sink names only the moments it cares about.
public protocol LineHooks {
  /// After each command that ran, and between the pieces of a long output:
  /// false stops the line (a failed write).
  mutating func commandDone() -> Bool
  /// A command failed; called just before its diagnostic, with the byte
  /// range of the command's words in the line (the prompt points at it).
  mutating func commandFailed(span: Range<Int>)
  /// Asked again and again while a sourced FILE is checked: a reason to
  /// abandon FILE as if it could not be read (at the prompt, Ctrl-C:
  /// `Interrupted system call`), nothing of it run; nil to go on.
  mutating func checkInterrupted() -> ReadFailure?
  /// The lines of a run (`runLines(_:rules:sink:)`) are about to wait for
  /// more input: a moment to flush; false stops the run. `session` is the
  /// executor's, for a sink that rebuilds it (a journal that failed).
  mutating func linesWaiting(session: inout Session) -> Bool
  /// Line `number` of a run begins: it is checked next.
  mutating func lineStarts(number: Int)
  /// The line's check found no error: what is reported now are failures.
  mutating func lineChecked()
  /// The line ended: `end` if it ran, nil if it did not (a syntax error, a
  /// line too long, `--check`). Returns the end the run takes instead, or
  /// nil for `end` as it is (`.stopped` stops the run).
  mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd?
}

extension LineHooks {
  @inlinable public mutating func commandDone() -> Bool { true }
  @inlinable public mutating func commandFailed(span: Range<Int>) {}
  @inlinable public mutating func checkInterrupted() -> ReadFailure? { nil }
  @inlinable public mutating func linesWaiting(session: inout Session) -> Bool { true }
  @inlinable public mutating func lineStarts(number: Int) {}
  @inlinable public mutating func lineChecked() {}
  @inlinable public mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd? {
    nil
  }
}
