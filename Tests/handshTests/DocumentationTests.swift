import Foundation
import HandKit
import XCTest

/// One source of truth: the options in the code (`--help` is made
/// from the option table) and the commands in the code (`CommandName`) must
/// all be in the man page, in `--help` and in `help`; the man page must lint
/// clean; every example must run as its comments say.
final class DocumentationTests: XCTestCase {
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

  private func handsh(_ arguments: [String]) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: folder)
  }

  private func manLines() throws -> [Substring] {
    try String(contentsOf: manPage, encoding: .utf8).split(separator: "\n")
  }

  /// Long option names in `text`: `--name` words.
  private func longOptions(in text: some StringProtocol) -> Set<String> {
    var names: Set<String> = []
    var rest = Substring(text)
    while let range = rest.range(of: "--") {
      let name = rest[range.upperBound...].prefix { $0.isLetter || $0 == "-" }
      if !name.isEmpty { names.insert(String(name)) }
      rest = rest[range.upperBound...]
    }
    return names
  }

  func testManPageAndHelpListTheSameOptions() throws {
    let help = try handsh(["--help"])
    XCTAssertEqual(help.status, 0)
    let fromHelp = longOptions(in: help.out)
    // The man page writes `Fl \-name`; its OPTIONS section lists each with `.It Fl`.
    let fromMan = Set(
      try manLines().filter { $0.hasPrefix(".It Fl") }.flatMap {
        longOptions(in: $0.replacingOccurrences(of: "Fl \\-", with: "--"))
      })
    XCTAssertFalse(fromHelp.isEmpty)
    assertSameNames(fromMan, fromHelp, "man/handsh.1 OPTIONS against --help")
    for option in [
      "command", "seed", "limit", "keep-going", "check", "quiet", "interactive", "echo", "json",
      "ascii", "color", "test", "update", "jobs", "tap", "junit", "record", "help", "version",
    ] {
      XCTAssertTrue(fromHelp.contains(option), "option --\(option) missing from --help")
    }
  }

  /// Every long option of the table is offered by both shell completions.
  func testCompletionsOfferEveryOption() throws {
    let help = try handsh(["--help"])
    for file in ["completions/handsh.bash", "completions/_handsh"] {
      let text = try String(
        contentsOf: TestProcess.repository.appendingPathComponent(file), encoding: .utf8)
      let offered = longOptions(in: text)
      for option in longOptions(in: help.out) {
        XCTAssertTrue(offered.contains(option), "\(file) does not offer --\(option)")
      }
    }
  }

  /// GOLDEN TESTS: the man page's example test passes as shown, and the
  /// section names every option of golden tests and the exit statuses.
  func testManPageGoldenTestsSection() throws {
    let lines = try manLines()
    guard let section = lines.firstIndex(of: ".Sh GOLDEN TESTS"),
      let end = lines[(section + 1)...].firstIndex(where: { $0.hasPrefix(".Sh ") })
    else { return XCTFail("man/handsh.1 has no GOLDEN TESTS section") }
    let body = lines[section..<end]
    for option in ["test", "update", "jobs", "tap", "junit", "record", "seed", "limit"] {
      XCTAssertTrue(
        body.contains { $0.contains("Fl \\-\(option)") || $0.contains("Fl j") && option == "jobs" },
        "GOLDEN TESTS does not mention --\(option)")
    }
    XCTAssertTrue(body.contains { $0.contains("exit status is 0") })
    // The first literal block is the example test; unescape mdoc's glyphs.
    guard let open = body.firstIndex(where: { $0.hasPrefix(".Bd -literal") }),
      let close = body[open...].firstIndex(of: ".Ed")
    else { return XCTFail("GOLDEN TESTS has no example") }
    let glyphs = ["\\(HE": "♥", "\\(DI": "♦", "\\(CL": "♣", "\\(SP": "♠"]
    var text = body[(open + 1)..<close].joined(separator: "\n") + "\n"
    for (glyph, card) in glyphs { text = text.replacingOccurrences(of: glyph, with: card) }
    XCTAssertTrue(text.hasPrefix("#!/usr/bin/env -S handsh --seed 42\n"), text)
    try Data(text.utf8).write(to: folder.appendingPathComponent("deal.hand"))
    let run = try handsh(["--test", "deal.hand"])
    XCTAssertEqual(run.out, "1 passed, 0 failed\n", run.err)
    XCTAssertEqual(run.status, 0)
  }

  func testManPageAndHelpListEveryCommand() throws {
    let code = Set(CommandName.allCases.map(\.rawValue))
    let help = try handsh(["-c", "help"])
    XCTAssertEqual(help.status, 0)
    let listed = Set(
      help.out.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap {
        $0.split(separator: " ").first.map(String.init)
      })
    assertSameNames(listed, code, "`help` against the command table")
    var fromMan: Set<String> = []
    for line in try manLines() where line.hasPrefix(".It Ic ") {
      let words = line.split(separator: " ")
      for (i, word) in words.enumerated() where word == "Ic" && i + 1 < words.count {
        fromMan.insert(String(words[i + 1]))
      }
    }
    assertSameNames(fromMan, code, "man/handsh.1 COMMANDS against the command table")
  }

  func testHelpExplainsEachCommandWithAnExample() throws {
    for name in CommandName.allCases {
      let help = try handsh(["-c", "help \(name.rawValue)"])
      XCTAssertEqual(help.status, 0, name.rawValue)
      XCTAssertTrue(help.out.hasPrefix(name.usage + "\n"), "help \(name): \(help.out)")
      XCTAssertTrue(help.out.contains("Example: "), "help \(name) has no example")
    }
  }

  func testManPageLintsClean() throws {
    guard
      let mandoc = ["/usr/bin/mandoc", "/usr/local/bin/mandoc"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else {
      return XCTFail("mandoc is not installed: apt-get install mandoc (.ci/run does)")
    }
    let lint = try TestProcess.run(
      URL(fileURLWithPath: mandoc), ["-Tlint", manPage.path], in: folder)
    // mandoc can warn on stderr about its own database; the lint verdict is
    // its status and stdout.
    XCTAssertEqual(lint.status, 0, lint.out + lint.err)
    XCTAssertEqual(lint.out, "", "mandoc -Tlint has remarks")
    let rendered = try TestProcess.run(
      URL(fileURLWithPath: mandoc), ["-Tmarkdown", manPage.path], in: folder)
    XCTAssertTrue(rendered.out.contains("EXIT STATUS"), "man page does not render")
  }

  // MARK: Examples

  private func example(_ name: String) -> URL {
    TestProcess.repository.appendingPathComponent("examples/\(name)")
  }

  /// The lines a comment block shows after "this script prints:", indented.
  private func documentedOutput(of name: String) throws -> String? {
    let lines = try String(contentsOf: example(name), encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasSuffix("this script prints:") }) else {
      return nil
    }
    let block = lines[(start + 1)...].drop { $0 == "#" }.prefix { $0.hasPrefix("#     ") }
    return block.map { String($0.dropFirst(6)) + "\n" }.joined()
  }

  func testExamplesRunAsDocumented() throws {
    let names = try FileManager.default.contentsOfDirectory(
      atPath: TestProcess.repository.appendingPathComponent("examples").path
    ).filter { $0.hasSuffix(".hand") }.sorted()
    XCTAssertGreaterThanOrEqual(names.count, 4)
    for name in names {
      let run = try handsh(["--seed", "42", example(name).path])
      XCTAssertEqual(run.status, 0, "\(name): \(run.err)")
      XCTAssertEqual(run.err, "", name)
      if let documented = try documentedOutput(of: name) {
        XCTAssertEqual(run.out, documented, "\(name) no longer prints what its comment says")
      }
    }
  }

  func testSavedGameExampleReplays() throws {
    let run = try handsh(["--seed", "1", example("saved-game.hand").path])
    XCTAssertEqual(run.status, 0, run.err)
    let saved = folder.appendingPathComponent("saved.hand")
    let replay = try handsh(["-q", "--seed", "99", saved.path])
    XCTAssertEqual(replay.status, 0, replay.err)
    let shown = try handsh([
      "-q", "--seed", "5", "-c", try String(contentsOf: saved, encoding: .utf8) + "\nshow\ndeck",
    ])
    XCTAssertEqual(
      shown.out, "1  4♦\n2  10♣\n3  4♣\n4  J♣\n5  5♥\n46 in deck, 1 discarded, seed 7\n")
  }
}
