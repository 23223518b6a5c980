import Foundation
import HandKit
import XCTest

/// What knows the commands outside the code, against the command table
/// (`CommandName.entry`): the README's table and scripts/gen-commands. (The
/// man page, `help` and the vim keywords: DocumentationTests, EditorTests.)
final class CommandListTests: XCTestCase {
  /// scripts/gen-commands writes the benchmarks' scripts with its own idea
  /// of the language: each line it writes must be a command of the table
  /// with the arguments the parser reads.
  func testEveryGeneratedLineIsACommandOfTheTable() throws {
    let python = try requiredTool("python3")
    let script = TestProcess.repository.appendingPathComponent("scripts/gen-commands").path
    let run = try TestProcess.run(
      python, [script, "--start-seed", "1", "3000", "7"], in: TestProcess.repository)
    XCTAssertEqual(run.status, 0, String(decoding: run.stderr, as: UTF8.self))
    var names: Set<CommandName> = []
    for line in String(decoding: run.stdout, as: UTF8.self).split(separator: "\n") {
      let items = LineParser.parse(String(line))
      XCTAssertEqual(items.count, 1, "\(line)")
      guard case .command(let command, _)? = items.first else {
        XCTFail("'\(line)' is not a command: \(items)")
        continue
      }
      names.insert(command.name)
    }
    assertSameNames(
      Set(names.map(\.rawValue)), ["add", "del", "mv", "undo", "redo", "new", "show"],
      "the commands scripts/gen-commands writes")
  }

  /// The README's "The language at a glance" names every command of the
  /// table in its first column, and no other.
  func testTheReadmesTableNamesEveryCommand() throws {
    let readme = try String(
      contentsOf: TestProcess.repository.appendingPathComponent("README.md"), encoding: .utf8)
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(of: "## The language at a glance") else {
      return XCTFail("README.md has no 'The language at a glance'")
    }
    var names: Set<String> = []
    for line in lines[(start + 1)...].prefix(while: { !$0.hasPrefix("## ") })
    where line.hasPrefix("| `") {
      let cell = line.split(separator: "|").first ?? ""
      // Every other piece between backquotes is code: `add`, `add QH`.
      for (i, piece) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
      where i % 2 == 1 {
        if let word = piece.split(separator: " ").first { names.insert(String(word)) }
      }
    }
    assertSameNames(
      names, Set(CommandName.allCases.map(\.rawValue)),
      "README.md's 'The language at a glance' against the command table")
  }
}
