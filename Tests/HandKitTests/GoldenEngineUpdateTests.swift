import Foundation
import Testing

@testable import HandKit

/// GoldenEngineTests, continued: updating a file's blocks (what is kept byte
/// for byte, line ends, long lines) and the diff between old and new.
extension GoldenEngineTests {
  // MARK: Updating

  @Test func updateReplacesAddsAndRemovesBlocksOnly() {
    let text = "# keep\nadd  # a comment\n#> wrong\n\nshow\nexpect empty\n#> stale\n#2> stale\n"
    #expect(
      updated(text)
        == "# keep\nadd  # a comment\n#> 8♠\n\nshow\n#> 1  8♠\nexpect empty\n#2> error: expected (empty), hand is 8♠\n"
    )
  }

  @Test func anUnchangedBlockIsKeptByteForByte() {
    // The block of line 1 passes and keeps its CRLF; line 3's is new, in CRLF.
    let text = "add\r\n#> 8♠\r\nshow\n"
    #expect(updated(text) == "add\r\n#> 8♠\r\nshow\n#> 1  8♠\r\n")
  }

  @Test func newLinesEndAsTheFileEndsItsFirstLine() {
    #expect(updated("add\r\nadd\r\n") == "add\r\n#> 8♠\r\nadd\r\n#> J♣ 8♠\r\n")
    #expect(updated("add\nadd\r\n") == "add\n#> 8♠\nadd\r\n#> J♣ 8♠\n")
  }

  @Test func aLastLineWithoutALineBreakGetsOne() {
    #expect(updated("add") == "add\n#> 8♠\n")
    #expect(updated("add\n#> x") == "add\n#> 8♠\n")
    #expect(updated("add\n#> 8♠") == "add\n#> 8♠")
    #expect(run("add\n#> 8♠").passed)
  }

  @Test func aByteOrderMarkAndInvalidUTF8OutsideBlocksAreKept() {
    let text: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("add\n# \u{1}".utf8) + [0xFF] + Array("\n".utf8)
    let result = GoldenFile(text: text).run(effects: RecordedSaves())
    #expect(result.actual == [[OutputLine(.stdout, "8♠")]])
    #expect(
      result.updatedText
        == [0xEF, 0xBB, 0xBF] + Array("add\n#> 8♠\n# \u{1}".utf8) + [0xFF] + Array("\n".utf8))
  }

  @Test func invalidUTF8InAnExpectationLineFailsAndIsReplaced() {
    let text: [UInt8] = Array("add\n#> A".utf8) + [0xE2, 0x99] + Array("\n".utf8)
    let result = GoldenFile(text: text).run(effects: RecordedSaves())
    #expect(!result.passed)
    #expect(result.updatedText == Array("add\n#> 8♠\n".utf8))
    let diff = result.diff(path: "t.hand")
    #expect(
      diff == Array("--- t.hand\n+++ t.hand\n@@ -1,2 +1,2 @@\n add\n-#> A".utf8) + [0xE2, 0x99]
        + Array("\n+#> 8♠\n".utf8))
  }

  @Test func aMebibyteLineIsKeptAndRun() {
    let long = "# " + String(repeating: "x", count: 1 << 20)
    let text = long + "\nadd\n"
    #expect(updated(text) == long + "\nadd\n#> 8♠\n")
    let word = String(repeating: "y", count: 1 << 20)
    let result = run(word + "\n")
    // The diagnostic quotes a huge word shortened (handsh(1), Diagnostics).
    let quoted = String(repeating: "y", count: 80) + "…" + String(repeating: "y", count: 32)
    #expect(result.actual.first?.first?.text == Array("error: unknown command '\(quoted)'".utf8))
  }

  /// `history` writes in pieces; a block past 64 KiB must still be whole.
  @Test func aLongHistoryIsOneWholeBlock() {
    let result = run(
      String(repeating: "new 1; ", count: 4000) + "\nhistory\n", GoldenSettings(quiet: true))
    #expect(result.actual.count == 2)
    #expect(result.actual.last?.count == 4001)
    #expect(result.actual.last?.last?.text == Array("*4000  new 1     (empty)".utf8))
  }

  /// A line past the limit is an error, as at the prompt, and none of it runs.
  @Test func aLineOverTheLimitIsAnError() {
    let long = "add" + String(repeating: " ", count: 1 << 20)
    #expect(
      updated(long + "\nshow\n") == long
        + "\n#2> error: line is longer than 1048576 bytes\nshow\n#> (empty)\n")
    // The limit counts a `\r` before the line break too.
    let fits = "add" + String(repeating: " ", count: (1 << 20) - 4)
    #expect(updated(fits + "\r\n") == fits + "\r\n#> 8♠\r\n")
    #expect(updated(fits + " \r\n").hasSuffix("#2> error: line is longer than 1048576 bytes\r\n"))
  }

  /// Thousands of changed blocks: the diff is found between the input lines,
  /// so it is as exact and cheap as with one (it took minutes and gigabytes
  /// when searched over the whole file).
  @Test func manyChangedBlocksDiffBlockByBlock() {
    let text = String(repeating: "limit\n#> 4\n", count: 20_000)
    let diff = String(decoding: run(text).diff(path: "t.hand"), as: UTF8.self)
    let lines = diff.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.filter { $0 == "-#> 4" }.count == 20_000)
    #expect(lines.filter { $0 == "+#> 5" }.count == 20_000)
    #expect(
      lines.prefix(6) == [
        "--- t.hand", "+++ t.hand", "@@ -1,40000 +1,40000 @@", " limit", "-#> 4", "+#> 5",
      ])
  }

  /// A shebang's abbreviations are those of the command line: `--j` is
  /// ambiguous there (--json, --jobs, --junit), so it is here.
  @Test func shebangPrefixesAreUniqueAmongAllOptions() {
    #expect(
      messages("#!/usr/bin/env -S handsh --j\nadd\n") == [
        "t.hand:1:26: error: option '--j' is ambiguous"
      ])
    #expect(file("#!/usr/bin/env -S handsh --js\nadd\n").settings.json)
    #expect(
      messages("#!/usr/bin/env -S handsh --ju x\nadd\n").first?.contains(
        "cannot be used in a test file") == true)
  }

  @Test func aTypedMarkerInTheOutputStaysOneLine() {
    // `help` prints many lines; each is its own block line.
    let result = run("help add\n")
    #expect(result.actual.first?.count == helpText(.add).split(separator: "\n").count)
  }

  // MARK: The diff

  private func diff(_ old: String, _ new: String) -> String {
    String(
      decoding: unifiedDiff(Array(old.utf8), Array(new.utf8), oldName: "a", newName: "b"),
      as: UTF8.self)
  }

  @Test func diffHeadersAndRanges() {
    #expect(diff("x\n", "x\n") == "")
    #expect(diff("x\n", "y\n") == "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n")
    #expect(diff("", "y\n") == "--- a\n+++ b\n@@ -0,0 +1 @@\n+y\n")
    #expect(diff("x\ny\n", "y\n") == "--- a\n+++ b\n@@ -1,2 +1 @@\n-x\n y\n")
    #expect(diff("x", "x\n") == "--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n")
  }

  @Test func hunksMergeWhenAtMostSixLinesApart() {
    let lines = (1...20).map { "l\($0)\n" }
    func changed(_ indices: [Int]) -> String {
      lines.enumerated().map { indices.contains($0.offset) ? "X\n" : $0.element }.joined()
    }
    let old = lines.joined()
    func hunks(_ text: String) -> Int {
      text.split(separator: "\n").filter { $0.hasPrefix("@@") }.count
    }
    // Six unchanged lines between two changes: one hunk; seven: two.
    #expect(hunks(diff(old, changed([3, 10]))) == 1)
    #expect(hunks(diff(old, changed([3, 11]))) == 2)
    #expect(
      diff(old, changed([3, 11])).hasPrefix(
        "--- a\n+++ b\n@@ -1,7 +1,7 @@\n l1\n l2\n l3\n-l4\n+X\n"))
  }
}
