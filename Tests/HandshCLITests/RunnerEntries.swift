import HandKit

@testable import HandshCLI

// An entry into `Runner` that only the tests take: a product has none.

extension Runner {
  /// Runs the commands of a line already checked for syntax errors.
  mutating func run(_ line: Line, source: String?) -> LineEnd {
    var lines = OneLine(line: line)
    return runLines(&lines, source: source, checked: true)
  }

  /// stdin's lines, as `Handsh` runs them (`runLines`, a stream).
  mutating func runStream<Source: LineSource>(_ lines: inout Source, name: String?) -> LineEnd {
    runLines(&lines, source: name, stream: true)
  }
}

extension RunAhead {
  /// `runCommand`, by the name the tests knew it by.
  mutating func run(
    _ command: consuming Command, span: Range<Int>, parser: inout LineParser,
    at position: TextPosition, executor: inout LineExecutor
  ) {
    runCommand(command, span: span, parser: &parser, at: position, executor: &executor)
  }
}

/// `forEachItemOfText`, by the name the tests knew it by.
@discardableResult
func forEachItem(
  _ lines: inout TextLines,
  _ body: (TextPosition, consuming ParsedItem, inout LineParser, Line) -> Bool
) -> Int? {
  forEachItemOfText(&lines, body)
}
