/// The thirteen ranks, ace low, in the order that card indexes use (handsh(1), Cards).
public enum Rank: UInt8, CaseIterable, Sendable {
  case ace, two, three, four, five, six, seven, eight, nine, ten, jack, queen, king

  /// The rank as it is written: `A`, `2` … `10`, `J`, `Q`, `K`.
  public var name: String { spelling.description }

  /// `name`, as bytes that need no String (the renderer's tables of names).
  var spelling: StaticString {
    switch self {
    case .ace: "A"
    case .two: "2"
    case .three: "3"
    case .four: "4"
    case .five: "5"
    case .six: "6"
    case .seven: "7"
    case .eight: "8"
    case .nine: "9"
    case .ten: "10"
    case .jack: "J"
    case .queen: "Q"
    case .king: "K"
    }
  }
}
