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

/// A problem at a line and column of a text, with its message: why a golden
/// file does not run (`GoldenDiagnostic`), why a journal is not resumed
/// (`JournalText.Failure`).
public struct LineDiagnostic: Error, Sendable, Equatable {
  public let line: Int
  public let column: Int
  public let message: String

  public init(line: Int, column: Int, message: String) {
    self.line = line
    self.column = column
    self.message = message
  }

  /// The diagnostic as handsh prints it; `path` is already made safe.
  public func text(path: String) -> String {
    diagnostic(message, at: SourceLocation(source: path, line: line, column: column))
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
