import Foundation
import Testing

@testable import HandKit

/// GoldenEngineTests, continued: running a file (a fresh start from its seed
/// and limit, failed commands and syntax errors, quit, output options, save
/// in a test, --review).
extension GoldenEngineTests {
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
}
