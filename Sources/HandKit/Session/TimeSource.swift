/// Where a session's versions get their times (handsh(1), Versions): the
/// core reads no clock of its own, so the shell hands it one (the system
/// clock, in whole seconds since 1970, UTC), a journal being resumed the
/// times its lines give, and a test any times it likes.
public struct TimeSource: Sendable {
  /// The second now.
  public let now: @Sendable () -> Int

  public init(_ now: @escaping @Sendable () -> Int) { self.now = now }

  /// A clock that always says `seconds`.
  public static func fixed(_ seconds: Int) -> TimeSource { TimeSource { seconds } }
}
