/// The four suits, in the order that card indexes use (handsh(1), Cards).
public enum Suit: UInt8, CaseIterable, Sendable {
  case hearts, diamonds, clubs, spades

  /// The suit as `handsh` writes it by default.
  public var symbol: String { symbolSpelling.description }

  /// The suit as `--ascii` writes it.
  public var letter: String { letterSpelling.description }

  /// `symbol` and `letter` as bytes that need no String (the renderer's
  /// tables of names).
  var symbolSpelling: StaticString {
    switch self {
    case .hearts: "♥"
    case .diamonds: "♦"
    case .clubs: "♣"
    case .spades: "♠"
    }
  }

  var letterSpelling: StaticString {
    switch self {
    case .hearts: "H"
    case .diamonds: "D"
    case .clubs: "C"
    case .spades: "S"
    }
  }

  /// Hearts and diamonds are red; clubs and spades are black.
  public var isRed: Bool { self == .hearts || self == .diamonds }
}
