import HandKit
import XCTest

/// The columns a terminal gives text (handsh(1), THE PROMPT), checked against
/// characters whose width is known (wcwidth(3), as readline draws them).
final class ColumnTests: XCTestCase {
  func width(_ text: String, from start: Int = 0) -> Int { columns(of: text, from: start) }

  func testASCIIAndCardsTakeOneColumnEach() {
    XCTAssertEqual(width("add 7h"), 6)
    XCTAssertEqual(width("Q♥ 10♠"), 6)
    XCTAssertEqual(width("♡♢♧♤"), 4)
  }

  func testWideCharactersTakeTwo() {
    XCTAssertEqual(width("日本語"), 6)
    XCTAssertEqual(width("漢字"), 4)
    XCTAssertEqual(width("한국"), 4)
    XCTAssertEqual(width("ＡＢ"), 4, "fullwidth forms")
    XCTAssertEqual(width("ｱｲ"), 2, "halfwidth forms")
    XCTAssertEqual(width("\u{3000}"), 2, "ideographic space")
    XCTAssertEqual(width("\u{20000}"), 2, "CJK extension B")
  }

  func testEmojiWithAndWithoutVariationSelector() {
    XCTAssertEqual(width("😀"), 2, "an emoji drawn as a picture")
    XCTAssertEqual(width("🂡"), 1, "a playing card is not")
    XCTAssertEqual(width("♥"), 1)
    // U+FE0F adds no column of its own: the heart stays one column.
    XCTAssertEqual(width("♥\u{FE0F}"), 1)
    XCTAssertEqual(width("☺\u{FE0F}"), 1)
    XCTAssertEqual(width("😀\u{FE0F}"), 2)
    XCTAssertEqual(width("\u{FE0E}"), 0)
  }

  func testCombiningMarksTakeNone() {
    XCTAssertEqual(width("e\u{301}"), 1)
    XCTAssertEqual(width("é"), 1)
    XCTAssertEqual(width("a\u{20DD}"), 1, "an enclosing mark")
    XCTAssertEqual(width("\u{1112}\u{1161}\u{11AB}"), 2, "a Hangul syllable in jamo")
  }

  func testZeroWidthCharactersTakeNoneAndTheirEscapesTheirLength() {
    XCTAssertEqual(width("a\u{200B}b"), 2)
    XCTAssertEqual(width("\u{2060}\u{FEFF}"), 0)
    XCTAssertEqual(width("\u{AD}"), 1, "the soft hyphen is drawn")
    // As the pointer shows them: escaped.
    XCTAssertEqual(width(safeText(Array("\u{200B}".utf8))), 8)
    XCTAssertEqual(width(safeText(Array("\u{FEFF}add".utf8))), 11)
    XCTAssertEqual(width(safeText([0x1B, 0x78])), 5)
    XCTAssertEqual(width(safeText([0xFF])), 4)
  }

  func testControlCharactersTakeNone() {
    XCTAssertEqual(width("\u{1B}"), 0)
    XCTAssertEqual(width("\u{7F}\u{85}"), 0)
  }

  func testATabRunsToTheNextMultipleOfEight() {
    XCTAssertEqual(width("\t"), 8)
    XCTAssertEqual(width("ab\tc"), 9)
    XCTAssertEqual(width("\t", from: 2), 6)
    XCTAssertEqual(width("\t", from: 8), 8)
    XCTAssertEqual(width("日本語\t"), 8)
    XCTAssertEqual(nextTabStop(after: 7), 8)
    XCTAssertEqual(nextTabStop(after: 15), 16)
  }
}
