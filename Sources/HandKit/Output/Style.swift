/// How output is written: the choices of the renderer, not `if`s scattered
/// through the code.
public struct Style: Sendable, Equatable {
  /// Suits as letters (`QH`) instead of symbols (`Q♥`).
  public var ascii: Bool
  /// Red cards wrapped in `ESC[31m` … `ESC[0m`.
  public var color: Bool
  /// JSON lines instead of text.
  public var json: Bool

  public init(ascii: Bool = false, color: Bool = false, json: Bool = false) {
    self.ascii = ascii
    self.color = color
    self.json = json
  }
}
