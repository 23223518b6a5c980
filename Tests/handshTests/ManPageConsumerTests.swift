import Foundation
import XCTest

/// What the man page tells a CI or editor user about the tools around
/// `handsh`, checked with those tools: the `history` drawn under Versions,
/// jq and large seeds, vim's columns, `git apply` and `patch` on the report,
/// and `prove -v` with names that are not ASCII.
final class ManPageConsumerTests: XCTestCase {
  private var binary: URL!
  private var folder: URL!
  private let manPage = TestProcess.repository.appendingPathComponent("man/handsh.1")

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func tool(_ name: String) throws -> URL {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return try requiredTool(name, in: path.split(separator: ":").map(String.init))
  }

  /// Runs `script` with /bin/sh in the test's folder, `handsh` on the PATH.
  private func shell(_ script: String) throws -> TestRun {
    let path =
      binary.deletingLastPathComponent().path + ":"
      + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder, environment: ["PATH": path])
  }

  private func write(_ name: String, _ text: String) throws {
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  /// The literal blocks (`.Bd -literal` … `.Ed`) of the man page section or
  /// subsection `title`, as a reader sees them (mdoc's glyphs and escapes
  /// undone).
  private func literalBlocks(under title: String) throws -> [String] {
    let lines = try String(contentsOf: manPage, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0 == ".Ss " + title || $0 == ".Sh " + title })
    else {
      XCTFail("man/handsh.1 has no section \(title)")
      return []
    }
    let end =
      lines[(start + 1)...].firstIndex(where: { $0.hasPrefix(".Ss ") || $0.hasPrefix(".Sh ") })
      ?? lines.endIndex
    var blocks: [String] = []
    var current: [Substring]?
    for line in lines[start..<end] {
      if line.hasPrefix(".Bd -literal") {
        current = []
      } else if line == ".Ed", let block = current {
        var text = block.joined(separator: "\n") + "\n"
        for (glyph, card) in [
          "\\(HE": "♥", "\\(DI": "♦", "\\(CL": "♣", "\\(SP": "♠", "\\e": "\\", "\\\\": "\\",
          "\\[u251C]": "├", "\\[u2500]": "─", "\\[u2502]": "│", "\\[u2514]": "└",
        ] {
          text = text.replacingOccurrences(of: glyph, with: card)
        }
        blocks.append(text)
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// Versions: the example is what `history` prints after the commands the
  /// text names.
  func testTheVersionsExampleIsWhatHistoryPrints() throws {
    let block = try XCTUnwrap(literalBlocks(under: "Versions").first)
    let run = try TestProcess.run(
      binary, ["--seed", "42", "-q", "-c", "add; add; add; undo 2; add 5s; history"], in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    XCTAssertEqual(block, run.out)
  }

  /// Versions: the tree drawn there is what `history tree` prints after
  /// the same commands.
  func testTheVersionsTreeIsWhatHistoryTreePrints() throws {
    let blocks = try literalBlocks(under: "Versions")
    XCTAssertGreaterThan(blocks.count, 1, "no tree under Versions")
    let run = try TestProcess.run(
      binary, ["--seed", "42", "-q", "-c", "add; add; add; undo 2; add 5s; history tree"],
      in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    XCTAssertTrue(run.out.contains("├─"), run.out)
    XCTAssertEqual(blocks.dropFirst().first, run.out)
  }

  /// Commands that print: the tree with two branchings, three columns a
  /// step, is what `history tree` prints after the same commands, in
  /// Unicode; and in ASCII, with the glyphs the page names.
  func testTheHistoryTreePictureIsWhatHistoryTreePrints() throws {
    let blocks = try literalBlocks(under: "Commands that print")
    let block = try XCTUnwrap(blocks.first { $0.contains("*7") }, "no tree of 8 versions")
    let commands = "add; add; add; undo 2; add; add; undo; add; goto 2; add; history tree"
    let run = try TestProcess.run(binary, ["--seed", "42", "-q", "-c", commands], in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    XCTAssertEqual(block, run.out)
    XCTAssertTrue(run.out.contains("│  └─ *7  add K♥"), run.out)
    let ascii = try TestProcess.run(
      binary, ["--seed", "42", "-q", "--ascii", "-c", commands], in: folder)
    let glyphs = ["├─": "|-", "└─": "`-", "│": "|", "♥": "H", "♣": "C"]
    var expected = block
    for (glyph, plain) in glyphs {
      expected = expected.replacingOccurrences(of: glyph, with: plain)
    }
    XCTAssertEqual(ascii.out, expected)
  }

  /// JSON: jq 1.6 rounds a seed above 2^53; the man page's pipeline reads
  /// it exactly.
  func testTheJqPipelineReadsALargeSeedExactly() throws {
    _ = try tool("jq")
    let seed = "16204158316458563583"
    let block = try XCTUnwrap(literalBlocks(under: "JSON").first { $0.contains("jq") })
    let command = block.dropFirst(2).replacingOccurrences(
      of: "handsh --json", with: "handsh --json --seed \(seed)")
    let run = try shell(command)
    XCTAssertEqual(run.status, 0, run.err)
    XCTAssertEqual(run.out, seed + "\n")
  }

  /// Diagnostics: the column counts Unicode scalars; vim's `%c` takes it for
  /// a byte offset, and the `%v` the man page gives lands on the word.
  func testVimLandsOnTheWordWithTheManPagesErrorformat() throws {
    let vim = try tool("vim")
    try write("x.hand", "add Q♥; mv ♥♥ 1\n")
    let run = try TestProcess.run(binary, ["x.hand"], in: folder)
    try run.stderr.write(to: folder.appendingPathComponent("errors"))
    XCTAssertTrue(run.err.hasPrefix("x.hand:1:12: error: invalid position '♥♥'"), run.err)
    let block = try XCTUnwrap(
      literalBlocks(under: "Diagnostics").first { $0.contains("efm") || $0.contains("errorformat") }
    )
    let setting = try XCTUnwrap(block.split(separator: "\n").first).dropFirst()
    func landing(_ set: String) throws -> String {
      let out = folder.appendingPathComponent("out")
      let jump = try TestProcess.run(
        vim,
        [
          "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", set, "-c", "cfile errors", "-c", "cc 1",
          "-c", #"call writefile([strpart(getline("."), col(".") - 1)], "out")"#, "-c", "qa!",
        ], in: folder)
      XCTAssertEqual(jump.status, 0, jump.err)
      return try String(contentsOf: out, encoding: .utf8)
    }
    XCTAssertEqual(try landing(String(setting)), "♥♥ 1\n")
    // `%c`, a byte offset, lands to the left of the word, as the man page says.
    let byByte = try landing(#"set errorformat=%f:%l:%c:\ %m"#)
    XCTAssertEqual(byByte, "v ♥♥ 1\n")
    let text = try String(contentsOf: manPage, encoding: .utf8)
    XCTAssertTrue(text.contains("as a byte offset, and so lands to the left"), "man page")
  }

  /// Every line `--test` writes on stderr, `PATH:LINE: output differs` and
  /// `PATH:LINE:COLUMN: error: …`, is a valid quickfix entry under the man
  /// page's errorformat, at the line it names.
  func testVimReadsEveryLineOfATestRunWithTheManPagesErrorformat() throws {
    let vim = try tool("vim")
    try write("t/fail.hand", "add\n#> x\nadd\n#> y\n")
    try write("t/bad.hand", "add\n#>x\n")
    let run = try TestProcess.run(binary, ["--test", "t"], in: folder)
    XCTAssertEqual(run.status, 2)
    try run.stderr.write(to: folder.appendingPathComponent("errors"))
    XCTAssertEqual(
      run.err,
      "t/bad.hand:2:3: error: malformed expected output: '#>' must be followed by a space or "
        + "the end of the line\nt/fail.hand:1: output differs\nt/fail.hand:3: output differs\n")
    let block = try XCTUnwrap(
      literalBlocks(under: "Diagnostics").first { $0.contains("efm") || $0.contains("errorformat") }
    )
    let setting = String(try XCTUnwrap(block.split(separator: "\n").first).dropFirst())
    let list = try TestProcess.run(
      vim,
      [
        "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", setting, "-c", "cfile errors", "-c",
        #"call writefile(map(getqflist(), 'v:val.valid . " " . bufname(v:val.bufnr) . ":" . v:val.lnum'), "out")"#,
        "-c", "qa!",
      ], in: folder)
    XCTAssertEqual(list.status, 0, list.err)
    XCTAssertEqual(
      try String(contentsOf: folder.appendingPathComponent("out"), encoding: .utf8),
      "1 t/bad.hand:2\n1 t/fail.hand:1\n1 t/fail.hand:3\n")
  }

  /// The report: `git apply -p0` rejects `./` names, plain `git apply`
  /// takes them; `git apply -p0` takes a report of `handsh --test tests`.
  /// `patch` splits hard links, `--update` keeps them.
  func testGitApplyAndPatchAsTheManPageSays() throws {
    _ = try tool("git")
    _ = try tool("patch")
    try write("tests/a.hand", "add\n#> x\n")
    XCTAssertEqual(
      link(
        folder.appendingPathComponent("tests/a.hand").path,
        folder.appendingPathComponent("tests/b.hand").path), 0)
    let run = try shell(
      """
      handsh --test . > dot.diff; handsh --test tests > plain.diff
      git apply --check -p0 dot.diff 2>/dev/null && echo dot-p0
      git apply --check dot.diff && echo dot-default
      git apply --check -p0 plain.diff && echo plain-p0
      """)
    XCTAssertEqual(run.out, "dot-default\nplain-p0\n", run.err)
    XCTAssertTrue(
      try String(contentsOf: folder.appendingPathComponent("dot.diff"), encoding: .utf8)
        .hasPrefix("--- ./tests/a.hand\n"))
    let links = try shell(
      """
      cp -R tests patched && ln -f patched/a.hand patched/b.hand
      sed 's|tests/|patched/|' plain.diff | patch -s -p0
      stat -c %h patched/a.hand
      handsh --test --update tests > /dev/null; stat -c %h tests/a.hand
      """)
    XCTAssertEqual(links.out, "1\n2\n", links.err)
  }

  /// `prove -v` prints a name that is not ASCII as Latin-1 unless
  /// PERL_UNICODE=SO, as the man page says.
  func testProveVerboseNeedsPerlUnicode() throws {
    _ = try tool("prove")
    try write("t/é.hand", "add\n#> 8♠\n")
    let run = try shell(
      """
      handsh --test --tap t > r.tap
      prove -v -e cat r.tap | grep -a '^ok 1'
      PERL_UNICODE=SO prove -v -e cat r.tap | grep -a '^ok 1'
      """)
    XCTAssertEqual(
      run.stdout,
      Data("ok 1 - t/".utf8) + Data([0xE9]) + Data(".hand\nok 1 - t/é.hand\n".utf8), run.err)
  }
}
