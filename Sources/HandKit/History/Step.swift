/// The change that made a version, as `history` and `save` write it.
/// Positions and limits of a successful change are at most 52, so a step
/// fits in three bytes.
public enum Step: Sendable, Equatable {
  /// Version 0 of the session.
  case start
  /// `add` or `add CARD`, with the card it took.
  case add(Card)
  case delete(UInt8)
  case move(UInt8, UInt8)
  case limit(UInt8)
  /// `new`; its seed is the version's game's seed.
  case new
}
