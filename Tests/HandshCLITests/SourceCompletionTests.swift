import HandKit
import XCTest

@testable import HandshCLI

/// Tab after `source` offers file names, as after `save`, and nothing after
/// `goto` (handsh(1), THE PROMPT).
final class SourceCompletionTests: XCTestCase {
  let context = CompletionContext(
    hand: [Card(.seven, of: .hearts)],
    folder: { $0 == "" ? ["setup.hand", "my game.hand", "games"] : [] })

  func testFileNamesAfterSource() {
    let all = completions(typed: "", after: "source ", in: context)
    XCTAssertEqual(all.kind, .fileNames)
    XCTAssertEqual(Set(all.candidates), ["setup.hand", "my game.hand", "games"])
    XCTAssertEqual(
      completions(typed: "se", after: "add; source ", in: context).candidates, ["setup.hand"])
    XCTAssertEqual(
      completions(typed: "my", after: "source \"", in: context).candidates, ["my game.hand"])
    XCTAssertEqual(completions(typed: "s", after: "source x ", in: context).candidates, [])
  }

  func testNothingAfterGoto() {
    XCTAssertEqual(completions(typed: "", after: "goto ", in: context).candidates, [])
    XCTAssertEqual(completions(typed: "go", after: "", in: context).candidates, ["goto"])
  }
}
