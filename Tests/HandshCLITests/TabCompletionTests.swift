import HandKit
import XCTest

@testable import HandshCLI

/// Tab at the prompt, without a terminal: `completions(typed:after:in:)` is
/// the whole decision (handsh(1), THE PROMPT, Completion).
final class TabCompletionTests: XCTestCase {
  func card(_ text: String) -> Card {
    guard let card = Card(parsing: Array(text.utf8)) else {
      XCTFail("not a card: \(text)")
      return Card(.ace, of: .hearts)
    }
    return card
  }

  func cards(_ text: String) -> [Card] { text.split(separator: " ").map { card(String($0)) } }

  /// Seed 42's first ten cards are in the hand; the deck as the game would
  /// list it (in shuffled order), so sorting is the function's job.
  lazy var context: CompletionContext = {
    let hand = cards("7♥ 3♣ K♥")
    var deck = Card.all.filter { !hand.contains($0) }
    deck.reverse()
    return CompletionContext(deck: deck, hand: hand, ascii: false)
  }()

  func candidates(_ typed: String, after before: String) -> [String] {
    completions(typed: typed, after: before, in: context).candidates
  }

  func testCommandNamesAtTheStartOfACommand() {
    XCTAssertEqual(candidates("h", after: ""), ["history", "help"])
    XCTAssertEqual(candidates("his", after: "add; "), ["history"])
    XCTAssertEqual(candidates("", after: "add;").count, CommandName.allCases.count)
    XCTAssertEqual(candidates("sh", after: "help "), ["show"])
    XCTAssertEqual(candidates("x", after: ""), [])
  }

  func testTheDecksCardsInNewDeckOrder() {
    let all = candidates("", after: "add ")
    XCTAssertEqual(all.count, 49)
    XCTAssertEqual(Array(all.prefix(7)), ["A♥", "2♥", "3♥", "4♥", "5♥", "6♥", "8♥"])
    XCTAssertEqual(Array(all.suffix(2)), ["Q♠", "K♠"])
    XCTAssertEqual(candidates("1", after: "add "), ["10♥", "10♦", "10♣", "10♠"])
    XCTAssertEqual(candidates("k", after: "add "), ["K♦", "K♣", "K♠"])
    XCTAssertEqual(candidates("7", after: "add  "), ["7♦", "7♣", "7♠"])
  }

  func testTCompletesTens() {
    XCTAssertEqual(candidates("t", after: "add "), ["10♥", "10♦", "10♣", "10♠"])
    XCTAssertEqual(candidates("Th", after: "add "), ["10♥"])
    XCTAssertEqual(candidates("T♠", after: "add "), ["10♠"])
  }

  func testEverySpellingOfASuit() {
    XCTAssertEqual(candidates("qh", after: "add "), ["Q♥"])
    XCTAssertEqual(candidates("Q♡", after: "add "), ["Q♥"])
    XCTAssertEqual(candidates("q♤\u{FE0F}", after: "add "), ["Q♠"])
    XCTAssertEqual(candidates("q♥\u{FE0F}", after: "add "), ["Q♥"])
    XCTAssertEqual(candidates("7h", after: "add "), [], "7♥ is in the hand")
    XCTAssertEqual(candidates("qx", after: "add "), [])
  }

  func testASCIINamesWithASCII() {
    context.ascii = true
    XCTAssertEqual(candidates("q", after: "add "), ["QH", "QD", "QC", "QS"])
    XCTAssertEqual(candidates("q♥", after: "add "), ["QH"])
    XCTAssertEqual(candidates("", after: "expect "), ["7H", "3C", "KH"])
  }

  func testTheCommonStartIsWholeCharacters() {
    let queens = completions(typed: "q", after: "add ", in: context)
    XCTAssertEqual(queens.common, "Q")
    XCTAssertEqual(completions(typed: "t", after: "add ", in: context).common, "10")
    XCTAssertEqual(Completions(.words, ["Q♥️", "Q♥"]).common, "Q")
    XCTAssertEqual(Completions(.words, []).common, "")
  }

  func testPositionsAfterDelAndMv() {
    XCTAssertEqual(candidates("", after: "del "), ["1", "2", "3"])
    XCTAssertEqual(candidates("", after: "mv "), ["1", "2", "3"])
    XCTAssertEqual(candidates("2", after: "mv 1 "), ["2"])
    XCTAssertEqual(candidates("", after: "mv 1 2 "), [])
    XCTAssertEqual(candidates("", after: "del 1 "), [])
    context.hand = cards("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥ 10♥ J♥ Q♥")
    XCTAssertEqual(candidates("1", after: "del "), ["1", "10", "11", "12"])
    context.hand = []
    XCTAssertEqual(candidates("", after: "del "), [])
  }

  func testPositionsAreListedWithTheirCards() {
    XCTAssertEqual(
      completions(typed: "", after: "del ", in: context).labels, ["1 7♥", "2 3♣", "3 K♥"])
    XCTAssertEqual(completions(typed: "2", after: "mv 1 ", in: context).labels, ["2 3♣"])
    context.ascii = true
    XCTAssertEqual(
      completions(typed: "", after: "mv ", in: context).labels, ["1 7H", "2 3C", "3 KH"])
    XCTAssertEqual(completions(typed: "", after: "add ", in: context).labels, [])
  }

  func testTheHandsCardsAfterExpect() {
    XCTAssertEqual(candidates("", after: "expect "), ["7♥", "3♣", "K♥"])
    XCTAssertEqual(candidates("", after: "expect 7h "), ["3♣", "K♥"])
    XCTAssertEqual(candidates("k", after: "expect 7♥ 3c "), ["K♥"])
    context.hand = []
    XCTAssertEqual(candidates("", after: "expect "), ["empty"])
    XCTAssertEqual(candidates("e", after: "expect "), ["empty"])
  }

  /// After `history`, its one word: `tree`; nothing after that.
  func testTreeAfterHistory() {
    XCTAssertEqual(candidates("", after: "history "), ["tree"])
    XCTAssertEqual(candidates("t", after: "history "), ["tree"])
    XCTAssertEqual(candidates("x", after: "history "), [])
    XCTAssertEqual(candidates("", after: "history tree "), [])
  }

  func testFileNamesAfterSave() {
    var asked: [String] = []
    context.folder = { folder in
      asked.append(folder)
      switch folder {
      case "": return [".", "..", "b.hand", "a.hand", ".hidden", "~home", "my game.hand"]
      case "games/": return ["old.hand"]
      default: return []
      }
    }
    let all = completions(typed: "", after: "save ", in: context)
    XCTAssertEqual(all.kind, .fileNames)
    XCTAssertEqual(all.candidates, ["a.hand", "b.hand", "my game.hand", "./~home"])
    XCTAssertEqual(candidates(".h", after: "save "), [".hidden"])
    XCTAssertEqual(candidates("games/o", after: "save "), ["games/old.hand"])
    XCTAssertEqual(candidates("~", after: "save "), ["./~home"])
    // Inside an opening quote: the typed text is unescaped first.
    XCTAssertEqual(candidates("my g", after: "save \""), ["my game.hand"])
    XCTAssertEqual(asked, ["", "", "games/", "", ""])
    XCTAssertEqual(candidates("a", after: "save x "), [])
    XCTAssertEqual(candidates("a", after: "add "), ["A♥", "A♦", "A♣", "A♠"])
  }

  func testCaseIsIgnoredWhenReadlineIsAskedTo() {
    XCTAssertEqual(candidates("HIS", after: ""), [])
    XCTAssertEqual(candidates("E", after: "expect "), [])
    context.ignoresCase = true
    XCTAssertEqual(candidates("HIS", after: ""), ["history"])
    XCTAssertEqual(candidates("Un", after: "help "), ["undo"])
    context.folder = { _ in ["Game.hand", "notes"] }
    XCTAssertEqual(candidates("g", after: "save "), ["Game.hand"])
    context.hand = []
    XCTAssertEqual(candidates("E", after: "expect "), ["empty"])
  }

  func testNothingInACommentOrAfterOtherCommands() {
    XCTAssertEqual(candidates("a", after: "show # "), [])
    XCTAssertEqual(candidates("", after: "undo "), [])
    XCTAssertEqual(candidates("", after: "limit "), [])
    XCTAssertEqual(candidates("", after: "add \""), [], "a quoted word is never a card")
    XCTAssertEqual(candidates("a", after: "help x "), [])
  }

  func testWordsAreSplitAsTheParserSplitsThem() {
    XCTAssertEqual(candidates("", after: "save \"a;b\"; del "), ["1", "2", "3"])
    XCTAssertEqual(candidates("", after: "save \"a\\\"; b\" "), [])
    XCTAssertEqual(candidates("", after: "\tadd\t"), candidates("", after: "add "))
  }

  // MARK: Lines of a paste

  func lines(_ text: String) -> [String] {
    promptLines(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
  }

  func testAPasteIsSplitAtEveryKindOfLineBreak() {
    XCTAssertEqual(lines("add"), ["add"])
    XCTAssertEqual(lines(""), [""])
    XCTAssertEqual(lines("add\n"), ["add"])
    XCTAssertEqual(lines("add\nadd\nshow\n"), ["add", "add", "show"])
    XCTAssertEqual(lines("# c\nadd   # first\nadd"), ["# c", "add   # first", "add"])
    XCTAssertEqual(lines("a\r\nb\rc\n\nd"), ["a", "b", "c", "", "d"])
    XCTAssertEqual(lines("\n"), [""])
  }
}
