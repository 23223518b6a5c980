import Foundation
import Testing

@testable import HandKit

/// GoldenEngineTests, continued: the reports (summary lines, TAP, JUnit),
/// what they may carry, and names in diff headers.
extension GoldenEngineTests {
  // MARK: Reports

  @Test func summaryLines() {
    #expect(GoldenSummary(reports).line(update: false) == "1 passed, 1 failed, 1 error")
    #expect(GoldenSummary(Array(reports.prefix(2))).line(update: false) == "1 passed, 1 failed")
    let updated = [GoldenFileReport(path: "x", status: .updated(diff: []))]
    #expect(
      GoldenSummary(updated + reports + reports).line(update: true)
        == "2 passed, 1 updated, 2 errors")
  }

  @Test func tapVersion13() {
    #expect(
      String(decoding: tapReport(reports, update: false), as: UTF8.self) == """
        TAP version 13
        1..3
        ok 1 - a.hand
        not ok 2 - b\\x231.hand
          ---
          message: "output differs"
          diff: "--- b\\n+++ b\\n@@ -1 +1 @@\\n-x\\n+y\\n"
          ...
        not ok 3 - c.hand
          ---
          message: "error"
          errors: "c.hand:1:3: error: <bad> & 'worse'\\n"
          ...
        # 1 passed, 1 failed, 1 error

        """)
  }

  /// A value longer than prove's reader can match is a list of quoted
  /// pieces, each at most `tapPieceBytes`, cut after a line break where the
  /// piece holds one; a `:` in a piece is `\x3a`; joined, they are the value.
  @Test func longTAPValuesArePieces() {
    #expect(tapValue("diff", "a: b\n") == [#"  diff: "a: b\n""#])
    let line = String(repeating: "x", count: 20_000) + "\n"
    let lines = tapValue("diff", "k: v\n" + line + line + line)
    #expect(lines.first == "  diff:")
    #expect(lines.count == 4)
    #expect(lines[1] == "    - \"k\\x3a v\\n" + String(repeating: "x", count: 20_000) + "\\n\"")
    #expect(lines.dropFirst().allSatisfy { $0.utf8.count <= tapPieceBytes + 8 })
    #expect(lines.dropFirst().allSatisfy { $0.hasSuffix("\\n\"") })
    let long = tapValue("diff", String(repeating: "y", count: 70_000))
    #expect(long.count == 4)
    #expect(long.dropFirst().map(\.utf8.count) == [30_008, 30_008, 10_008])
    // Never cut inside an escape or a character.
    let escapes = tapValue("errors", String(repeating: "\t♥", count: 20_000))
    for piece in escapes.dropFirst() {
      #expect(piece.hasPrefix("    - \"\\t") || piece.hasPrefix("    - \"♥"))
      #expect(!piece.hasSuffix("\\\""))
    }
  }

  /// A text over `junitTextBytes` is cut at a line's end and says how many
  /// lines were left out.
  @Test func longJUnitTextsAreCut() {
    let line = String(repeating: "z", count: 1_000_000)
    let text = junitText(Array(repeating: line, count: 10), note: "see there")
    #expect(text.utf8.count <= junitTextBytes)
    #expect(text.hasSuffix("z\n[2 more lines left out: see there]"))
    #expect(junitText(["a", "b"], note: "x") == "a\nb")
  }

  @Test func junitXML() {
    #expect(
      String(decoding: junitReport(reports, seconds: 2), as: UTF8.self) == """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites tests="3" failures="1" errors="1" time="2.000">
          <testsuite name="handsh" tests="3" failures="1" errors="1" skipped="0" time="2.000">
            <testcase classname="handsh" name="a.hand" time="0.013"/>
            <testcase classname="handsh" name="b#1.hand" time="1.500">
              <failure message="output differs" type="golden">--- b
        +++ b
        @@ -1 +1 @@
        -x
        +y</failure>
            </testcase>
            <testcase classname="handsh" name="c.hand" time="0.000">
              <error message="c.hand:1:3: error: &lt;bad&gt; &amp; &apos;worse&apos;" type="malformed">c.hand:1:3: error: &lt;bad&gt; &amp; &apos;worse&apos;</error>
            </testcase>
          </testsuite>
        </testsuites>

        """)
  }

  @Test func reportsNeverCarryRawControlBytesOrInvalidUTF8() {
    let bad = [GoldenFileReport(path: "x", status: .failed(diff: [0x2B, 0x1B, 0xFF, 0x0A]))]
    let tap = String(decoding: tapReport(bad, update: false), as: UTF8.self)
    #expect(tap.contains(#"diff: "+\\x1B\\xFF\n""#))
    let xml = String(decoding: junitReport(bad, seconds: 0), as: UTF8.self)
    #expect(xml.contains(">+\\x1B\\xFF</failure>"))
  }

  /// XML and YAML forbid U+FFFE and U+FFFF, and the other noncharacters
  /// have no place in a report: each is written `\u{HHHH}`, in the diff, the
  /// path and the messages alike.
  @Test func reportsNeverCarryNoncharacters() {
    let nonchar = String(
      String.UnicodeScalarView(
        [0xFFFF, 0xFFFE, 0xFDD0, 0x1FFFF, 0x10FFFE].compactMap(Unicode.Scalar.init)))
    let escaped = "\\u{FFFF}\\u{FFFE}\\u{FDD0}\\u{1FFFF}\\u{10FFFE}"
    let bad = [
      GoldenFileReport(
        path: "x\(nonchar).hand", status: .failed(diff: Array("+#> \(nonchar)\n".utf8))),
      GoldenFileReport(path: "y.hand", status: .error(["y.hand:1:1: error: '\(nonchar)'"])),
    ]
    for report in [tapReport(bad, update: false), junitReport(bad, seconds: 0)] {
      let text = String(decoding: report, as: UTF8.self)
      #expect(!text.unicodeScalars.contains { $0.value & 0xFFFE == 0xFFFE || $0.value == 0xFDD0 })
      // In the diff, the path and the message (TAP doubles the path's `\`).
      #expect(text.split(separator: "u{FFFF}", omittingEmptySubsequences: false).count - 1 >= 3)
      // (TAP's YAML doubles every `\` of the text in its quoted values.)
      let doubled = "\\\\u{FFFF}\\\\u{FFFE}\\\\u{FDD0}\\\\u{1FFFF}\\\\u{10FFFE}"
      #expect(
        text.contains("; " + escaped) || text.contains("> " + escaped)
          || text.contains("> " + doubled))
    }
  }

  @Test func skippedAndUpdatedFilesInTheReports() {
    let reports = [
      GoldenFileReport(path: "a.hand", status: .skipped),
      GoldenFileReport(path: "b.hand", status: .updated(diff: [])),
    ]
    #expect(GoldenSummary(reports).line(update: false) == "0 passed, 0 failed, 1 skipped")
    #expect(GoldenSummary(reports).line(update: true) == "0 passed, 1 updated, 1 skipped")
    var kept = reports
    kept[1].kept = 2
    #expect(GoldenSummary(kept).line(.review) == "0 passed, 1 updated, 2 kept, 1 skipped")
    #expect(
      String(decoding: tapReport(reports, update: true), as: UTF8.self) == """
        TAP version 13
        1..2
        ok 1 - a.hand # SKIP no input lines
        ok 2 - b.hand # updated
        # 0 passed, 1 updated, 1 skipped

        """)
    let xml = String(decoding: junitReport(reports, seconds: 0), as: UTF8.self)
    #expect(
      xml.contains(
        """
            <testcase classname="handsh" name="a.hand" time="0.000">
              <skipped message="no input lines"/>
            </testcase>
            <testcase classname="handsh" name="b.hand" time="0.000">
              <system-out>updated</system-out>
            </testcase>
        """))
  }

  /// Diff headers name a file as git does, so `patch -p0` finds it.
  @Test func awkwardNamesAreQuotedInDiffHeaders() {
    #expect(quotedPath(Array("cases/a.hand".utf8)) == "cases/a.hand")
    #expect(quotedPath(Array("♥/h#ash.hand".utf8)) == "♥/h#ash.hand")
    #expect(quotedPath(Array("a b♥.hand".utf8)) == "\"a b♥.hand\"")
    #expect(quotedPath(Array("t\tq\"b\\n\n.hand".utf8)) == #""t\tq\"b\\n\n.hand""#)
    #expect(quotedPath([0x63, 0x01, 0x7F, 0xFF, 0xC2, 0x85]) == #""c\001\177\377\302\205""#)
    let result = run("add\n", GoldenSettings(seed: 42))
    #expect(
      String(decoding: result.diff(path: Array("a b.hand".utf8)), as: UTF8.self).hasPrefix(
        "--- \"a b.hand\"\n+++ \"a b.hand\"\n@@"))
  }
}
