@testable import HandKit

// Entries into the core that only the tests take: a product has none.

extension Session {
  /// Runs `command`; on failure nothing changes.
  mutating func run(
    _ command: Command, freshSeed: () -> UInt64
  ) -> Result<Outcome, CommandError> {
    do throws(CommandError) {
      return .success(try apply(command, freshSeed: freshSeed))
    } catch {
      return .failure(error)
    }
  }
}

extension LineExecutor {
  /// Runs the commands of a line already checked for syntax errors. The
  /// first failed command ends the line unless `keepGoing` (a script's `-k`).
  mutating func run<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false, keepGoing: Bool = false,
    sink: inout Sink
  ) -> LineEnd {
    var failed = false
    return runLine(
      line, knownASCII: knownASCII, keepGoing: keepGoing, failed: &failed, sink: &sink)
  }

  /// `runLine`, by the name the tests knew it by.
  mutating func run<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool, keepGoing: Bool, failed: inout Bool,
    sink: inout Sink
  ) -> LineEnd {
    runLine(line, knownASCII: knownASCII, keepGoing: keepGoing, failed: &failed, sink: &sink)
  }

  /// `runLines`, by the name the tests knew it by.
  mutating func run<Source: LineSource, Sink: CommandSink>(
    lines: inout Source, rules: LineRules, sink: inout Sink
  ) -> (end: LineEnd, failed: Bool) {
    runLines(&lines, rules: rules, sink: &sink)
  }
}
