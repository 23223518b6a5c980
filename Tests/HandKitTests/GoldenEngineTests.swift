import Foundation
import Testing

@testable import HandKit

/// The golden-test engine, one rule of the format at a time (handsh(1),
/// GOLDEN TESTS): reading a file, running it, the updated text, the diff and
/// the reports.
@Suite struct GoldenEngineTests {
  /// Saves that only remember what they were asked to write.
  struct RecordedSaves: GoldenEffects {
    var files: [String] = []
    var failure: String?
    mutating func save(_ script: String, to file: String) -> String? {
      files.append(file)
      return failure
    }
  }

  func file(_ text: String, _ defaults: GoldenSettings = GoldenSettings()) -> GoldenFile {
    GoldenFile(text: Array(text.utf8), defaults: defaults)
  }

  func run(_ text: String, _ defaults: GoldenSettings = GoldenSettings()) -> GoldenResult {
    file(text, defaults).run(effects: RecordedSaves())
  }

  func updated(_ text: String) -> String {
    String(decoding: run(text).updatedText, as: UTF8.self)
  }

  func messages(_ text: String) -> [String] {
    file(text).diagnostics.map { $0.text(path: "t.hand") }
  }

  /// The reports of three files (passed, failed, error), for the report tests.
  let reports = [
    GoldenFileReport(path: "a.hand", status: .passed, seconds: 0.0125),
    GoldenFileReport(
      path: "b#1.hand", status: .failed(diff: Array("--- b\n+++ b\n@@ -1 +1 @@\n-x\n+y\n".utf8)),
      seconds: 1.5),
    GoldenFileReport(path: "c.hand", status: .error(["c.hand:1:3: error: <bad> & 'worse'"])),
  ]

  // MARK: The format

  @Test func theExampleOfTheManualPasses() {
    let text = """
      #!/usr/bin/env -S handsh --seed 42
      add; add
      #> 7♥
      #> 3♣ 7♥
      del 9
      #2> error: no card at position 9 (hand has 2 cards)
      show
      #> 1  3♣
      #> 2  7♥

      """
    let result = run(text)
    #expect(file(text).diagnostics.isEmpty)
    #expect(result.passed)
    #expect(result.diff(path: "x").isEmpty)
  }

  @Test func markersTextAndEmptyLines() {
    let parsed = file("help show\n#> show\n#>\n#2> a  \n#2>\n")
    #expect(parsed.diagnostics.isEmpty)
    #expect(parsed.inputs.count == 1)
    #expect(
      parsed.inputs.first?.expected == [
        OutputLine(.stdout, "show"), OutputLine(.stdout, ""), OutputLine(.stderr, "a  "),
        OutputLine(.stderr, ""),
      ])
  }

  @Test func aCarriageReturnBeforeTheLineBreakIsDropped() {
    let parsed = file("add\r\n#> 1 \r\n")
    #expect(parsed.inputs.first?.expected == [OutputLine(.stdout, "1 ")])
  }

  @Test func mistypedMarkersAreErrorsNeverSilentComments() {
    #expect(
      messages("add\n#>x\n#>>\n#2>x\n#2>>\n") == [
        "t.hand:2:3: error: malformed expected output: '#>' must be followed by a space or the end of the line",
        "t.hand:3:3: error: malformed expected output: '#>' must be followed by a space or the end of the line",
        "t.hand:4:4: error: malformed expected output: '#2>' must be followed by a space or the end of the line",
        "t.hand:5:4: error: malformed expected output: '#2>' must be followed by a space or the end of the line",
      ])
    // Other comments.
    #expect(messages("add\n#2 x\n# > x\n#x #> y\n").isEmpty)
  }

  /// An indented marker would silently check nothing: it is malformed.
  @Test func indentedMarkersAreMalformedNeverComments() {
    #expect(
      messages("add\n  #> x\n\t#2> y\n \t#>\n# #> z\n") == [
        "t.hand:2:3: error: malformed expected output: '#>' must start the line",
        "t.hand:3:2: error: malformed expected output: '#2>' must start the line",
        "t.hand:4:3: error: malformed expected output: '#>' must start the line",
      ])
  }

  /// A file without an input line checks nothing: it is skipped, not passed.
  @Test func aFileWithNoInputLineChecksNothing() {
    #expect(file("").checksNothing)
    #expect(file("#!/usr/bin/env -S handsh --seed 1\n# only a comment\n\n").checksNothing)
    #expect(!file("# c\nshow\n").checksNothing)
  }

  @Test func orphanBlocksAreErrorsOncePerBlock() {
    let orphan = "expected output must directly follow the line that prints it"
    #expect(messages("#> a\n#> b\nadd\n") == ["t.hand:1:1: error: " + orphan])
    #expect(messages("add\n\n#> 7♥\n") == ["t.hand:3:1: error: " + orphan])
    #expect(messages("add\n# note\n#> 7♥\n#2> x\n") == ["t.hand:3:1: error: " + orphan])
    #expect(messages("#!/usr/bin/env handsh\n#> x\n") == ["t.hand:2:1: error: " + orphan])
  }

  @Test func inputLinesAreNeitherBlankNorComments() {
    let parsed = file("  \t\n\t# c\nadd # c\n  show\n")
    #expect(parsed.inputs.map(\.number) == [3, 4])
  }

  @Test func malformedFilesDoNotRun() {
    // The engine still reads them; the shell refuses to run them.
    #expect(!file("add\n#>x\n").diagnostics.isEmpty)
  }

  // MARK: Shebang options

  @Test func shebangOptionsInTheirGNUForms() {
    func settings(_ line: String) -> GoldenSettings { file(line + "\n").settings }
    #expect(settings("#!/usr/bin/env -S handsh --seed 42 --limit 3").seed == 42)
    #expect(settings("#!/usr/bin/env -S handsh --seed 42 --limit 3").limit == 3)
    #expect(settings("#!/usr/bin/env -S handsh --seed=7").seed == 7)
    #expect(settings("#!/usr/bin/env -S handsh -s7 -l 2").limit == 2)
    #expect(settings("#!/usr/bin/env -S handsh -qs 9") == GoldenSettings(seed: 9, quiet: true))
    #expect(
      settings("#!/usr/local/bin/handsh --ascii --json --echo --quiet")
        == GoldenSettings(ascii: true, json: true, echo: true, quiet: true))
    #expect(settings("#!/usr/bin/env -S handsh --se 5 --li=4") == GoldenSettings(seed: 5, limit: 4))
    // Tabs split words too, whatever the form of the shebang.
    #expect(settings("#!/usr/bin/env -S handsh\t--seed\t3").seed == 3)
    // Not a shebang that runs handsh: a comment.
    #expect(settings("#!/bin/sh --seed 3") == GoldenSettings())
    #expect(settings("#!/usr/bin/env handsh") == GoldenSettings())
  }

  /// The one writer of first lines (the recorder's and the journal's)
  /// writes what the reader takes back, every option in its place.
  @Test func theShebangWriterWritesWhatTheReaderReads() {
    #expect(
      ShebangOptions.line(seed: 42, limit: 3)
        == "#!/usr/bin/env -S handsh --seed 42 --limit 3\n")
    #expect(
      ShebangOptions.line(seed: 7, limit: nil, ascii: true, json: true, echo: true, quiet: true)
        == "#!/usr/bin/env -S handsh --seed 7 --ascii --json --echo --quiet\n")
    for bits in 0..<64 {
      let flag = { (bit: Int) in bits & (1 << bit) != 0 }
      let seed = UInt64.max - UInt64(bits)
      let limit = flag(4) ? 1 + bits % 52 : nil
      let written = GoldenSettings(
        seed: seed, limit: limit ?? 5, ascii: flag(0), json: flag(1), echo: flag(2),
        quiet: flag(3))
      let line = ShebangOptions.line(
        seed: seed, limit: limit, ascii: flag(0), json: flag(1), echo: flag(2), quiet: flag(3))
      let read = file(line + "add\n")
      #expect(read.diagnostics.isEmpty, "\(line)")
      #expect(read.settings == written, "\(line)")
    }
  }

  @Test func shebangOptionsWinOverTheCommandLine() {
    let defaults = GoldenSettings(seed: 1, limit: 9, ascii: true)
    #expect(
      file("#!/usr/bin/env -S handsh --seed 2\n", defaults).settings
        == GoldenSettings(seed: 2, limit: 9, ascii: true))
  }

  @Test func otherOptionsInTheShebangMakeTheFileMalformed() {
    let only = "only --seed, --limit, --ascii, --json, --echo and --quiet may appear there"
    #expect(
      messages("#!/usr/bin/env -S handsh --seed 1 --keep-going\n") == [
        "t.hand:1:35: error: '--keep-going' cannot be used in a test file; " + only
      ])
    #expect(
      messages("#!/usr/bin/env -S handsh -k\n") == [
        "t.hand:1:26: error: '-k' cannot be used in a test file; " + only
      ])
    #expect(
      messages("#!/usr/bin/env -S handsh --seed x\n") == [
        "t.hand:1:33: error: invalid seed 'x': expected a whole number from 0 to 18446744073709551615"
      ])
    // A bad value is pointed at, not its option.
    #expect(
      messages("#!/usr/bin/env -S handsh --limit=53\n") == [
        "t.hand:1:34: error: invalid limit '53': expected a whole number from 1 to 52"
      ])
    #expect(
      messages("#!/usr/bin/env -S handsh --seed\n") == [
        "t.hand:1:26: error: option '--seed' requires an argument"
      ])
    #expect(
      messages("#!/usr/bin/env -S handsh --ascii=1\n") == [
        "t.hand:1:26: error: option '--ascii' doesn't allow an argument"
      ])
    #expect(
      messages("#!/usr/bin/env -S handsh x.hand\n") == [
        "t.hand:1:26: error: unexpected argument 'x.hand' in a test file's first line"
      ])
  }
}
