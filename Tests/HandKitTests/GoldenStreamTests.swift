import Foundation
import Testing

@testable import HandKit

/// What the engine gives a runner that reports as it goes (handsh(1),
/// GOLDEN TESTS): a test stopped from outside (a time limit) at the line
/// it reached, the report in pieces that join into the whole one, and
/// names that keep U+0080–U+009F apart from bytes.
@Suite struct GoldenStreamTests {
  struct NoFiles: GoldenEffects {
    mutating func save(_ script: String, to file: String) -> String? { nil }
  }

  private func file(_ text: String) -> GoldenFile {
    GoldenFile(text: Array(text.utf8), defaults: GoldenSettings())
  }

  /// `stop` answering true after a few asks stops the test at the line
  /// running then; nothing after it runs, and it neither passes nor is a
  /// block that differs.
  @Test func aStoppedTestStopsAtTheLineItReached() {
    let text = "add\n#> 8♠\nadd; add; add\nadd\nadd\n"
    var asked = 0
    let result = file(text).run(effects: NoFiles()) {
      asked += 1
      return asked >= 3
    }
    #expect(result.stoppedLine == 3)
    #expect(!result.passed)
    #expect(result.differing == [])
    #expect(result.actual.count == 4)
    #expect(result.actual[1...].allSatisfy { $0.isEmpty })
    // Never asked to stop: the same run as ever.
    let whole = file(text).run(effects: NoFiles()) { false }
    #expect(whole.stoppedLine == nil)
    #expect(whole.differing == [1, 2, 3])
  }

  /// A stop asked while a long sourced file runs stops it inside.
  @Test func aStopReachesInsideASourcedFile() {
    let memory = GoldenMemory { _ in .success(Array(String(repeating: "add\n", count: 9).utf8)) }
    var asked = 0
    let result = file("source x\nadd\n").run(effects: memory) {
      asked += 1
      return asked >= 4
    }
    #expect(result.stoppedLine == 1)
    #expect(asked == 4)
  }

  /// The TAP and the JUnit written piece by piece are the whole reports.
  @Test func thePiecesJoinIntoTheWholeReports() {
    let reports = [
      GoldenFileReport(path: "a.hand", status: .passed),
      GoldenFileReport(path: "b.hand", status: .failed(diff: Array("--- b\n+++ b\n".utf8))),
      GoldenFileReport(path: "c.hand", status: .error(["c.hand: interrupted"])),
    ]
    var tap = tapHeader(count: 3)
    var junit: [UInt8] = []
    var summary = GoldenSummary([])
    for (index, report) in reports.enumerated() {
      tap += tapLines(report, number: index + 1)
      junit += junitCase(report, body: junitCaseBody(report))
      summary.add(report)
    }
    #expect(tap + tapFooter(summary, update: false) == tapReport(reports, update: false))
    #expect(
      junitHeader(summary, seconds: 1) + junit + junitFooter
        == junitReport(reports, seconds: 1))
    #expect(summary == GoldenSummary(reports))
    #expect(summary.files == 3)
  }

  /// U+0085 is `\u{0085}`; the byte 0x85 is `\x85`; a backslash before
  /// either is doubled, so no two names meet.
  @Test func aC1CharacterAndItsByteGetTwoNames() {
    let character: [UInt8] = Array("c1".utf8) + [0xC2, 0x85] + Array(".hand".utf8)
    let byte: [UInt8] = Array("c1".utf8) + [0x85] + Array(".hand".utf8)
    #expect(tapName(character) == "c1\\u{0085}.hand")
    #expect(tapName(byte) == "c1\\x85.hand")
    #expect(junitName(character) == "c1\\u{0085}.hand")
    #expect(junitName(byte) == "c1\\x85.hand")
    #expect(tapName(Array("c1\\u{0085}#.hand".utf8)) == "c1\\\\u{0085}\\x23.hand")
    #expect(tapName([0xC2, 0x9F, 0x41]) == "\\u{009F}A")
    #expect(tapName([0xC2]) == "\\xC2")
  }
}
