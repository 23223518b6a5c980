import HandKit
import Testing

/// The columns a terminal gives text (handsh(1), THE PROMPT), checked against
/// characters whose width is known (wcwidth(3), as readline draws them).
@Suite struct ColumnTests {
  func width(_ text: String, from start: Int = 0) -> Int { columns(of: text, from: start) }

  @Test func asciiAndCardsTakeOneColumnEach() {
    #expect(width("add 7h") == 6)
    #expect(width("Q♥ 10♠") == 6)
    #expect(width("♡♢♧♤") == 4)
  }

  @Test func wideCharactersTakeTwo() {
    #expect(width("日本語") == 6)
    #expect(width("漢字") == 4)
    #expect(width("한국") == 4)
    #expect(width("ＡＢ") == 4, "fullwidth forms")
    #expect(width("ｱｲ") == 2, "halfwidth forms")
    #expect(width("\u{3000}") == 2, "ideographic space")
    #expect(width("\u{20000}") == 2, "CJK extension B")
  }

  @Test func emojiWithAndWithoutVariationSelector() {
    #expect(width("😀") == 2, "an emoji drawn as a picture")
    #expect(width("🂡") == 1, "a playing card is not")
    #expect(width("♥") == 1)
    // U+FE0F adds no column of its own: the heart stays one column.
    #expect(width("♥\u{FE0F}") == 1)
    #expect(width("☺\u{FE0F}") == 1)
    #expect(width("😀\u{FE0F}") == 2)
    #expect(width("\u{FE0E}") == 0)
  }

  @Test func combiningMarksTakeNone() {
    #expect(width("e\u{301}") == 1)
    #expect(width("é") == 1)
    #expect(width("a\u{20DD}") == 1, "an enclosing mark")
    #expect(width("\u{1112}\u{1161}\u{11AB}") == 2, "a Hangul syllable in jamo")
  }

  @Test func zeroWidthCharactersTakeNoneAndTheirEscapesTheirLength() {
    #expect(width("a\u{200B}b") == 2)
    #expect(width("\u{2060}\u{FEFF}") == 0)
    #expect(width("\u{AD}") == 1, "the soft hyphen is drawn")
    // As the pointer shows them: escaped.
    #expect(width(safeText(Array("\u{200B}".utf8))) == 8)
    #expect(width(safeText(Array("\u{FEFF}add".utf8))) == 11)
    #expect(width(safeText([0x1B, 0x78])) == 5)
    #expect(width(safeText([0xFF])) == 4)
  }

  @Test func controlCharactersTakeNone() {
    #expect(width("\u{1B}") == 0)
    #expect(width("\u{7F}\u{85}") == 0)
  }

  @Test func aTabRunsToTheNextMultipleOfEight() {
    #expect(width("\t") == 8)
    #expect(width("ab\tc") == 9)
    #expect(width("\t", from: 2) == 6)
    #expect(width("\t", from: 8) == 8)
    #expect(width("日本語\t") == 8)
    #expect(nextTabStop(after: 7) == 8)
    #expect(nextTabStop(after: 15) == 16)
  }
}
