import Foundation
import HandKit
import XCTest

/// scripts/gen-commands writes the benchmarks' scripts with its own idea of
/// the language: each line it writes must be a command of the command table
/// (`CommandName.entry`) with the arguments the parser reads.
final class GenCommandsTests: XCTestCase {
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
    XCTAssertEqual(names, [.add, .del, .mv, .undo, .redo, .new, .show])
  }
}
