/// The thirteen ranks, ace low, in the order that card indexes use (handsh(1), Cards).
public enum Rank: UInt8, CaseIterable, Sendable {
  case ace, two, three, four, five, six, seven, eight, nine, ten, jack, queen, king

  /// The rank as it is written: `A`, `2` … `10`, `J`, `Q`, `K`.
  public var name: String {
    switch self {
    case .ace: "A"
    case .jack: "J"
    case .queen: "Q"
    case .king: "K"
    default: String(rawValue + 1)
    }
  }
}
