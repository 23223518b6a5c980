import Foundation
import HandKit
import XCTest

/// The vim files for .hand scripts (editors/vim, installed by scripts/install
/// and the Debian package): file-type detection and syntax groups, checked
/// in a headless `vim -es` with no user configuration.
final class EditorTests: XCTestCase {
  private var folder: URL!
  private let vimFiles = TestProcess.repository.appendingPathComponent("editors/vim")

  override func setUpWithError() throws {
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  /// Opens `file` in vim with only editors/vim added to the runtime path,
  /// runs `commands` (Ex lines that may `echo`), and returns what they echoed.
  private func vim(_ file: URL, _ commands: [String]) throws -> String {
    guard
      let vim = ["/usr/bin/vim", "/usr/local/bin/vim"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else {
      XCTFail("vim is not installed: apt-get install vim (scripts/bootstrap does)")
      throw CocoaError(.fileNoSuchFile)
    }
    let output = folder.appendingPathComponent("vim.out")
    let script = folder.appendingPathComponent("check.vim")
    let lines =
      [
        "set runtimepath^=\(vimFiles.path)", "filetype on", "syntax on",
        "edit \(file.path)", "redir! > \(output.path)",
      ] + commands + ["redir END", "qall!"]
    try lines.joined(separator: "\n").write(to: script, atomically: true, encoding: .utf8)
    // -u NONE: no vimrc and no plugins; -i NONE: no viminfo; -N: not vi.
    let run = try TestProcess.run(
      URL(fileURLWithPath: vim), ["-es", "-N", "-u", "NONE", "-i", "NONE", "-S", script.path],
      in: folder, environment: ["HOME": folder.path, "VIMINIT": "", "TERM": "dumb"])
    XCTAssertFalse(run.timedOut, "vim timed out")
    return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
  }

  private func write(_ name: String, _ text: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  func testFileTypeByNameAndByShebang() throws {
    let cases: [(String, String, String)] = [
      ("game.hand", "add\n", "hand"),
      ("game", "#!/usr/bin/env -S handsh --seed 42\nadd\n", "hand"),
      ("deal", "#!/usr/bin/env handsh\nadd\n", "hand"),
      ("local", "#!/usr/local/bin/handsh -q\nadd\n", "hand"),
      ("shell", "#!/bin/sh\necho handsh\n", "sh"),
      ("notes", "handsh is fun\n", ""),
    ]
    for (name, text, expected) in cases {
      let file = try write(name, text)
      let said = try vim(file, ["echo 'ft=' . &filetype"])
      XCTAssertTrue(
        said.contains("ft=\(expected)\n") || said.hasSuffix("ft=\(expected)"),
        "\(name): \(said)")
    }
  }

  func testSyntaxGroups() throws {
    let file = try write(
      "groups.hand",
      """
      #!/usr/bin/env -S handsh --seed 42
      add; add QH  # two cards
      #> 7♥ 3♣
      #2> error: no card at position 9 (hand has 2 cards)
      mv 10d 2s 12
      save "my game#1.hand"
      expect empty
      add 7h#x
      #>x
      del 3♦️ ks ♡
      help show

      """)
    // (line, byte column, group): the columns count bytes, as vim's do.
    let expected: [(Int, Int, String)] = [
      (1, 1, "handShebang"), (1, 20, "handShebang"),
      (2, 1, "handCommand"), (2, 4, "handSeparator"), (2, 6, "handCommand"),
      (2, 10, "handRedCard"), (2, 14, "handComment"),
      (3, 1, "handExpectOutMarker"), (3, 4, "handExpectOut"),
      (4, 1, "handExpectErrMarker"), (4, 5, "handExpectErr"),
      (5, 4, "handRedCard"), (5, 8, "handBlackCard"), (5, 11, "handNumber"),
      (6, 1, "handCommand"), (6, 6, "handFile"), (6, 14, "handFile"), (6, 21, "handFile"),
      (7, 8, "handEmpty"),
      (8, 5, "handRedCard"), (8, 7, "handComment"),
      (9, 1, "handComment"),  // a malformed marker is no expectation
      (10, 5, "handRedCard"), (10, 10, "handRedCard"), (10, 13, "handBlackCard"),
      (10, 16, ""),
      (11, 6, "handCommand"),
    ]
    let said = try vim(
      file,
      ["echo 'ft=' . &filetype"]
        + expected.map { line, column, _ in
          "echo '\(line):\(column)=' . synIDattr(synID(\(line), \(column), 1), 'name')"
        })
    XCTAssertTrue(said.contains("ft=hand"), said)
    for (line, column, group) in expected {
      XCTAssertTrue(
        said.split(separator: "\n").contains("\(line):\(column)=\(group)"),
        "line \(line), column \(column) should be \(group.isEmpty ? "no group" : group):\n\(said)")
    }
  }

  /// The command names of the syntax file are those of the language.
  func testSyntaxFileKnowsEveryCommand() throws {
    let text = try String(
      contentsOf: vimFiles.appendingPathComponent("syntax/hand.vim"), encoding: .utf8)
    var names: Set<String> = []
    for line in text.split(separator: "\n") where line.hasPrefix("syntax keyword handCommand ") {
      names.formUnion(line.split(separator: " ").dropFirst(3).map(String.init))
    }
    assertSameNames(
      names, Set(CommandName.allCases.map(\.rawValue)),
      "editors/vim/syntax/hand.vim's handCommand keywords against the command table")
  }
}
