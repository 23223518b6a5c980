@testable import HandKit

/// A sink for the core's tests that keeps, in order, what the commands
/// wrote to stdout (a line an entry) and what they reported; a sink adds
/// its files, seeds and hooks.
protocol LoggingSink: CommandSink {
  var out: [UInt8] { get set }
  var log: [String] { get set }
  /// How a syntax error at `column` is logged.
  func logged(_ message: String, column: Int) -> String
  /// FILE's bytes for `source`, from the test's files.
  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure>
  /// The seed of a `new` without one, typed or sourced alike.
  mutating func freshSeed() -> UInt64
}

extension LoggingSink {
  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    read(file).map { SourcedText(bytes: $0) }
  }

  mutating func freshSeed(sourced: Bool) -> UInt64 { freshSeed() }

  /// Moves what the commands wrote so far into `log`, a line an entry.
  mutating func takeOutput() {
    guard !out.isEmpty else { return }
    log += String(decoding: out, as: UTF8.self).split(separator: "\n").map { String($0) }
    out = []
  }

  mutating func diagnose(_ message: String, column: Int) {
    takeOutput()
    log.append(logged(message, column: column))
  }

  mutating func diagnose(_ message: String, at location: HandKit.SourceLocation) {
    takeOutput()
    log.append(diagnostic(message, at: location))
  }

  mutating func diagnose(_ message: String, in source: String) {
    takeOutput()
    log.append(diagnostic(message, in: source))
  }
}
