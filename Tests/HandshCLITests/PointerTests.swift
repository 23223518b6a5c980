import HandKit
import XCTest

@testable import HandshCLI

/// The pointer under a line typed at the prompt (handsh(1), THE PROMPT):
/// marks under their text in terminal columns, windows on a narrow terminal.
final class PointerTests: XCTestCase {
  func span(of part: String, in line: String, after: Int = 0) -> Range<Int> {
    let bytes = Array(line.utf8)
    let wanted = Array(part.utf8)
    for start in after...max(after, bytes.count - wanted.count)
    where Array(bytes[start..<(start + wanted.count)]) == wanted {
      return start..<(start + wanted.count)
    }
    XCTFail("\(part) is not in \(line)")
    return 0..<0
  }

  func pointer(_ line: String, _ failed: String, width: Int = 0) -> [String] {
    pointerRows(line: Array(line.utf8), marks: [span(of: failed, in: line)], width: width)
  }

  func syntax(_ line: String, width: Int = 0) -> [String] {
    syntaxPointer(line: Array(line.utf8), width: width)
  }

  func testThePointerUnderlinesTheFailedCommand() {
    XCTAssertEqual(
      pointer("add; del 9; add", "del 9"),
      ["  add; del 9; add", "       ^^^^^"])
    // Suits are one column; a variation selector is shown by number, like
    // every invisible character, and counted as shown.
    XCTAssertEqual(
      pointer("add Q♥️; del 9", "del 9"),
      ["  add Q♥\\u{FE0F}; del 9", "                  ^^^^^"])
    // Control characters are shown escaped, and counted as shown.
    XCTAssertEqual(
      pointer("add\u{1B}x; del 9", "del 9"),
      ["  add\\x1Bx; del 9", "            ^^^^^"])
  }

  func testWideCharactersAndCombiningMarks() {
    XCTAssertEqual(pointer("漢字; del 9", "del 9"), ["  漢字; del 9", "        ^^^^^"])
    XCTAssertEqual(
      pointer("save \"日本語\"; del 9", "del 9"),
      ["  save \"日本語\"; del 9", "                 ^^^^^"])
    XCTAssertEqual(
      pointer("save \"cafe\u{301}\"; del 9", "del 9"),
      ["  save \"cafe\u{301}\"; del 9", "               ^^^^^"])
    XCTAssertEqual(
      pointer("save \"日本語\"; del 9", "save \"日本語\""),
      ["  save \"日本語\"; del 9", "  ^^^^^^^^^^^^^"])
  }

  func testATabRunsToTheNextMultipleOfEight() {
    // The echo starts at column 2: `add;` ends at 6, the tab runs to 8.
    XCTAssertEqual(
      pointer("add;\tdel 9", "del 9"),
      ["  add;  del 9", "        ^^^^^"])
    XCTAssertEqual(
      pointer("add;\t\tdel 9", "del 9"),
      ["  add;          del 9", "                ^^^^^"])
    XCTAssertEqual(pointer("\tadd; del 9", "del 9"), ["        add; del 9", "             ^^^^^"])
  }

  /// Checks that every pair of rows fits in `width - 1` columns and that the
  /// marks of each stand under text that starts like one of `marked`.
  func assertAligned(
    _ rows: [String], width: Int, marked: [String], file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(rows.count % 2, 0, file: file, line: line)
    for pair in stride(from: 0, to: rows.count - 1, by: 2) {
      let echo = rows[pair]
      let marks = rows[pair + 1]
      XCTAssertLessThanOrEqual(columns(of: echo), width - 1, echo, file: file, line: line)
      XCTAssertLessThanOrEqual(columns(of: marks), width - 1, marks, file: file, line: line)
      guard let caret = marks.firstIndex(of: "^") else {
        XCTFail("no mark in \(marks)", file: file, line: line)
        continue
      }
      let target = columns(of: marks[..<caret])
      var rest = Substring(echo)
      var column = 0
      while column < target, let first = rest.unicodeScalars.first {
        column += columns(of: first)
        rest = Substring(rest.unicodeScalars.dropFirst())
      }
      XCTAssertEqual(column, target, echo, file: file, line: line)
      let carets = marks[caret...].prefix { $0 == "^" }.count
      let shown = String(rest.prefix { $0 != "…" })
      XCTAssertTrue(
        marked.contains { $0.hasPrefix(shown.prefix(carets)) || shown.hasPrefix($0) },
        "\(echo) / \(marks)", file: file, line: line)
    }
  }

  func testALongLineIsWindowedAroundTheMarks() {
    let line = "add; add; add; show; history; deck; del 9; add 5h; show; deck; history"
    let middle = pointer(line, "del 9", width: 40)
    XCTAssertEqual(middle.count, 2)
    XCTAssertTrue(middle[0].hasPrefix("  …") && middle[0].hasSuffix("…"), middle[0])
    assertAligned(middle, width: 40, marked: ["del 9"])
    // At the start: cut at the end only.
    let start = pointer(line, "add", width: 40)
    XCTAssertEqual(start[1], "  ^^^")
    XCTAssertTrue(start[0].hasPrefix("  add; add") && start[0].hasSuffix("…"), start[0])
    XCTAssertEqual(columns(of: start[0]), 39)
    // At the end: cut at the start only.
    let end = pointer(line, "history", after: 40, width: 20)
    XCTAssertTrue(end[0].hasPrefix("  …") && end[0].hasSuffix("deck; history"), end[0])
    assertAligned(end, width: 20, marked: ["history"])
  }

  func pointer(_ line: String, _ failed: String, after: Int, width: Int) -> [String] {
    pointerRows(
      line: Array(line.utf8), marks: [span(of: failed, in: line, after: after)], width: width)
  }

  func testWideCharactersAreNeverCutInHalf() {
    for count in 28...31 {
      let line =
        String(repeating: "漢", count: count) + "; del 9; " + String(repeating: "字", count: count)
      for width in [20, 21, 40] {
        let rows = pointer(line, "del 9", width: width)
        XCTAssertEqual(rows.count, 2)
        assertAligned(rows, width: width, marked: ["del 9"])
      }
    }
  }

  func testAMarkWiderThanTheTerminalShowsItsStart() {
    let word = String(repeating: "x", count: 100)
    let rows = pointer("add; save \(word)y", "save \(word)y", width: 40)
    XCTAssertEqual(rows.count, 2)
    assertAligned(rows, width: 40, marked: ["save \(word)y"])
  }

  func testMarksTooFarApartGetAWindowEach() {
    let line = "mv 1 x; " + String(repeating: "show; ", count: 10) + "mv x 1"
    let rows = syntax(line, width: 40)
    XCTAssertEqual(rows.count, 4)
    XCTAssertEqual(rows[1], "       ^")
    assertAligned(rows, width: 40, marked: ["x"])
  }

  func testSyntaxErrorsAreMarkedUnderEveryOffendingWord() {
    XCTAssertEqual(
      syntax("mv 1 x; mv x 1; add zz"),
      ["  mv 1 x; mv x 1; add zz", "       ^     ^        ^^"])
    XCTAssertEqual(syntax("add; bogus 1"), ["  add; bogus 1", "       ^^^^^"])
    XCTAssertEqual(syntax("save \"a b"), ["  save \"a b", "       ^^^^"])
    XCTAssertEqual(syntax("del"), ["  del", "  ^^^"])
    XCTAssertEqual(syntax("add; show"), [])
    XCTAssertEqual(syntax("漢字; add zz"), ["  漢字; add zz", "  ^^^^      ^^"])
  }
}
