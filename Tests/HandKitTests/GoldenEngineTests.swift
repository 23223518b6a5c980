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

  private func file(_ text: String, _ defaults: GoldenSettings = GoldenSettings()) -> GoldenFile {
    GoldenFile(text: Array(text.utf8), defaults: defaults)
  }

  private func run(_ text: String, _ defaults: GoldenSettings = GoldenSettings()) -> GoldenResult {
    file(text, defaults).run(effects: RecordedSaves())
  }

  private func updated(_ text: String) -> String {
    String(decoding: run(text).updatedText, as: UTF8.self)
  }

  private func messages(_ text: String) -> [String] {
    file(text).diagnostics.map { $0.text(path: "t.hand") }
  }

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

  // MARK: Running

  @Test func eachFileStartsFreshFromItsSeedAndLimit() {
    #expect(run("add\n#> 7♥\n", GoldenSettings(seed: 42)).passed)
    // Seed 0 by default; limit 5.
    let result = run("limit\ndeck\n")
    #expect(
      result.actual == [
        [OutputLine(.stdout, "5")], [OutputLine(.stdout, "52 in deck, 0 discarded, seed 0")],
      ])
  }

  @Test func theFirstFailedCommandSkipsTheRestOfItsLine() {
    let result = run("add; del 9; add\nadd\n", GoldenSettings(seed: 42))
    #expect(
      result.actual == [
        [
          OutputLine(.stdout, "7♥"),
          OutputLine(.stderr, "error: no card at position 9 (hand has 1 card)"),
        ],
        [OutputLine(.stdout, "3♣ 7♥")],
      ])
  }

  @Test func aSyntaxErrorRunsNoneOfTheLineAndTheFileGoesOn() {
    let result = run("add; del x; bogus\nadd\n", GoldenSettings(seed: 42))
    #expect(
      result.actual == [
        [
          OutputLine(
            .stderr, "error: invalid position 'x': expected a whole number of 1 or more"),
          OutputLine(.stderr, "error: unknown command 'bogus'"),
        ],
        [OutputLine(.stdout, "7♥")],
      ])
  }

  @Test func quitEndsTheFile() {
    let result = run("add\nadd; quit; add\nshow\n#> 1  x\n", GoldenSettings(seed: 42))
    #expect(result.actual == [[OutputLine(.stdout, "7♥")], [OutputLine(.stdout, "3♣ 7♥")], []])
    #expect(updated("add\nquit\nshow\n#> 1  x\n") == "add\n#> 8♠\nquit\nshow\n")
  }

  @Test func outputOptionsApply() {
    let settings = GoldenSettings(seed: 42, ascii: true, json: true, echo: true)
    let result = run("add\n", settings)
    #expect(
      result.actual == [
        [
          OutputLine(.stdout, "> add"),
          OutputLine(.stdout, #"{"version":1,"hand":["7H"],"deck":51,"discarded":0}"#),
        ]
      ])
    #expect(run("add\n", GoldenSettings(quiet: true)).actual == [[]])
  }

  @Test func saveGoesThroughTheEffectsAndItsFailureIsABlockLine() {
    var saves = RecordedSaves()
    saves.failure = "Permission denied"
    let result = file("add; save \"a b.hand\"; add\n", GoldenSettings(seed: 42)).run(effects: saves)
    #expect(
      result.actual == [
        [
          OutputLine(.stdout, "7♥"),
          OutputLine(.stderr, "error: cannot write a b.hand: Permission denied"),
        ]
      ])
  }

  /// A test writes no file: `save` keeps the script in the test's memory,
  /// failing only for an empty name or a folder's; `/dev/stdout` and
  /// `/dev/stderr` write it into the blocks.
  @Test func saveInATestGoesToMemoryOrIntoTheBlocks() {
    var memory = GoldenMemory()
    #expect(memory.save("x\n", to: "a/b.hand") == nil)
    #expect(memory.saved("a/b.hand") == Array("x\n".utf8))
    #expect(memory.saved("b.hand") == nil)
    #expect(memory.save("x\n", to: "") == "No such file or directory")
    #expect(memory.save("x\n", to: "dir/") == "Is a directory")
    #expect(memory.files.count == 1)
    let result = file(
      "add; save /dev/stdout; save /dev/stderr\nsave /no/such/folder/x\nsave \"\"\n",
      GoldenSettings(seed: 42)
    ).run(effects: GoldenMemory())
    let script = ["#!/usr/bin/env handsh", "new 42", "limit 5", "add 7H"]
    #expect(
      result.actual == [
        [OutputLine(.stdout, "7♥")] + script.map { OutputLine(.stdout, $0) }
          + script.map { OutputLine(.stderr, $0) },
        [],
        [OutputLine(.stderr, "error: cannot write : No such file or directory")],
      ])
  }

  /// A test writes no file, through either runner of golden tests (the
  /// engine with its memory, as `--test` runs it, and a document, as the
  /// language server runs it): saves to a new folder's files by their
  /// absolute names, and to a name of the working folder, leave nothing
  /// there, and a later `source` of the same test reads the script from
  /// the test's memory.
  @Test func aSaveInATestWritesNoRealFile() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-golden-saves-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let inFolder = folder.appendingPathComponent("new.hand").path
    let relative = "handsh-golden-save-\(UUID().uuidString).hand"
    let text = """
      #!/usr/bin/env -S handsh --seed 42
      add; save "\(inFolder)"; save \(relative)
      #> 7♥
      new 1; source "\(inFolder)"; show
      #> (empty)
      #> (empty)
      #> 7♥
      #> 1  7♥

      """
    var memory = GoldenMemory()
    let result = file(text).run(effects: memory)
    #expect(result.passed)
    #expect(memory.save("x\n", to: inFolder) == nil)
    #expect(memory.saved(inFolder) == Array("x\n".utf8))
    let document = HandDocument(text: Array(text.utf8))
    #expect(document.diagnostics.isEmpty, "\(document.diagnostics)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    #expect(!FileManager.default.fileExists(atPath: relative))
  }

  @Test func reviewWritesTheAcceptedBlocksOnly() {
    let result = run("add\n#> x\nadd\n#> y\nshow\n", GoldenSettings(seed: 42))
    #expect(result.differing == [0, 1, 2])
    #expect(
      String(decoding: result.updatedText(accepting: { $0 != 1 }), as: UTF8.self)
        == "add\n#> 7♥\nadd\n#> y\nshow\n#> 1  3♣\n#> 2  7♥\n")
    #expect(result.updatedText(accepting: { _ in false }) == result.file.text)
  }

  @Test func newWithoutASeedIsReproducible() {
    let first = run("new\ndeck\n")
    #expect(first.actual == run("new\ndeck\n").actual)
    var seeds = SplitMix64(seed: 0)
    #expect(
      first.actual[1] == [OutputLine(.stdout, "52 in deck, 0 discarded, seed \(seeds.next())")])
  }

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

  // MARK: Reports

  private let reports = [
    GoldenFileReport(path: "a.hand", status: .passed, seconds: 0.0125),
    GoldenFileReport(
      path: "b#1.hand", status: .failed(diff: Array("--- b\n+++ b\n@@ -1 +1 @@\n-x\n+y\n".utf8)),
      seconds: 1.5),
    GoldenFileReport(path: "c.hand", status: .error(["c.hand:1:3: error: <bad> & 'worse'"])),
  ]

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
