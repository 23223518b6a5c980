extension Card {
  /// Reads a card as a person types it (handsh(1), Cards): a rank (`A`, `2`–`10`, `T`,
  /// `J`, `Q`, `K`) directly followed by a suit symbol (`♥♦♣♠`, `♡♢♧♤`, each
  /// optionally followed by U+FE0F) or letter (`HDCS`), in any case.
  public init?<Bytes: Collection<UInt8>>(parsing word: Bytes) {
    var i = word.startIndex
    guard i != word.endIndex else { return nil }
    let rank: UInt8
    let first = word[i]
    switch first {
    case UInt8(ascii: "2")...UInt8(ascii: "9"): rank = first &- UInt8(ascii: "1")
    case UInt8(ascii: "1"):
      i = word.index(after: i)
      guard i != word.endIndex, word[i] == UInt8(ascii: "0") else { return nil }
      rank = 9
    default:
      guard let letter = Card.rank(letter: first) else { return nil }
      rank = letter
    }
    i = word.index(after: i)
    guard let (suit, end) = Card.suit(in: word, at: i), end == word.endIndex else { return nil }
    self.init(unchecked: suit &* 13 &+ rank)
  }

  private static func rank(letter: UInt8) -> UInt8? {
    switch letter | 0x20 {  // ASCII lowercase
    case UInt8(ascii: "a"): 0
    case UInt8(ascii: "t"): 9
    case UInt8(ascii: "j"): 10
    case UInt8(ascii: "q"): 11
    case UInt8(ascii: "k"): 12
    default: nil
    }
  }

  /// The suit that starts at `i`, and where it ends.
  private static func suit<Bytes: Collection<UInt8>>(
    in word: Bytes, at start: Bytes.Index
  ) -> (UInt8, Bytes.Index)? {
    var i = start
    guard i != word.endIndex else { return nil }
    let first = word[i]
    i = word.index(after: i)
    switch first | 0x20 {
    case UInt8(ascii: "h"): return (0, i)
    case UInt8(ascii: "d"): return (1, i)
    case UInt8(ascii: "c"): return (2, i)
    case UInt8(ascii: "s"): return (3, i)
    default: break
    }
    // The suit symbols are U+2660–U+2667: E2 99 A0–A7 in UTF-8.
    guard first == 0xE2, i != word.endIndex, word[i] == 0x99 else { return nil }
    i = word.index(after: i)
    guard i != word.endIndex else { return nil }
    let suit: UInt8
    switch word[i] {
    case 0xA5, 0xA1: suit = 0  // ♥ ♡
    case 0xA6, 0xA2: suit = 1  // ♦ ♢
    case 0xA3, 0xA7: suit = 2  // ♣ ♧
    case 0xA0, 0xA4: suit = 3  // ♠ ♤
    default: return nil
    }
    i = word.index(after: i)
    // An optional U+FE0F (EF B8 8F), as phone keyboards type it.
    if i != word.endIndex, word[i] == 0xEF {
      var j = word.index(after: i)
      guard j != word.endIndex, word[j] == 0xB8 else { return nil }
      j = word.index(after: j)
      guard j != word.endIndex, word[j] == 0x8F else { return nil }
      i = word.index(after: j)
    }
    return (suit, i)
  }
}
