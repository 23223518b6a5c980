/// A syntax error: its message and the 1-based column (in Unicode scalars)
/// of the word it is about.
public struct SyntaxError: Error, Sendable, Equatable {
  public let message: String
  public let column: Int

  public init(_ message: String, column: Int) {
    self.message = message
    self.column = column
  }
}

/// Where a command or an error stands: a source, a line and a column.
public struct SourceLocation: Sendable, Equatable {
  public let source: String
  public let line: Int
  public let column: Int

  public init(source: String, line: Int, column: Int) {
    self.source = source
    self.line = line
    self.column = column
  }
}

/// A diagnostic as scripts write it: `SOURCE:LINE:COLUMN: error: MESSAGE`.
public func diagnostic(_ message: String, at location: SourceLocation) -> String {
  "\(location.source):\(location.line):\(location.column): error: \(message)"
}
