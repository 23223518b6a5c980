import HandKit

@testable import HandshCLI

// An entry into `Runner` that only the tests take: a product has none.

extension Runner {
  /// Runs the commands of a line already checked for syntax errors.
  mutating func run(_ line: Line, source: String?) -> LineEnd {
    var lines = OneLine(line: line)
    return run(&lines, source: source, rules: rules(source: source, checked: true))
  }
}
