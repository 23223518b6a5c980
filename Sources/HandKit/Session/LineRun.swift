/// The ways the runs of lines differ (`LineExecutor.runLines(_:rules:sink:)`),
/// as data: stdin, the prompt, a sourced FILE and a golden file share the
/// loop and differ only here and in their sink.
public struct LineRules: Sendable {
  /// Each line is checked for syntax errors before it runs; false when the
  /// whole text was checked before any of it ran (a sourced FILE).
  public var checksEachLine: Bool
  /// `-k`: a failed command does not end its line, nor the run.
  public var keepGoing: Bool
  /// A line with a syntax error, or too long, or a failed command, ends
  /// the run (a script without `-k`); at the prompt the session goes on.
  public var failureStops: Bool
  /// `--check`: the lines are checked, none runs.
  public var checkOnly: Bool

  @inlinable public init(
    checksEachLine: Bool = true, keepGoing: Bool = false, failureStops: Bool = false,
    checkOnly: Bool = false
  ) {
    self.checksEachLine = checksEachLine
    self.keepGoing = keepGoing
    self.failureStops = failureStops
    self.checkOnly = checkOnly
  }

  /// The prompt's rules, a golden file's too: each line checked, then run;
  /// a failure skips the rest of its line, and the next line runs.
  public static let prompt = LineRules()
}

extension LineExecutor {
  /// The one loop over lines in the core, for stdin, the prompt, a sourced
  /// FILE and a golden file: each line too long is reported as a syntax
  /// error, each is checked (unless `rules` say the text was checked
  /// whole), each free of errors runs, and the run goes on as the line's
  /// end and `rules` say. The sink hears of the lines of the outermost run
  /// (`lineStarts`, `lineChecked`, `lineEnded`, `linesWaiting`); a sourced
  /// FILE's lines answer to the line that sourced it. Returns how the last
  /// line that ran ended (`.finished` if none) and whether a command or
  /// line failed.
  @inlinable public mutating func runLines<Source: LineSource, Sink: CommandSink>(
    _ lines: inout Source, rules: LineRules, sink: inout Sink
  ) -> (end: LineEnd, failed: Bool) {
    let outermost = sources.isEmpty
    var end = LineEnd.finished
    var failed = false
    lines.forEachLine { event in
      let ran: LineEnd?
      switch event {
      case .waiting:
        return !outermost || sink.linesWaiting(session: &session)
      case .tooLong(let number):
        // Like a syntax error: the line runs none of it (handsh(1), DESCRIPTION).
        startLine(number, outermost: outermost, sink: &sink)
        report(LineParser.tooLongMessage, column: 1, sink: &sink)
        failed = true
        ran = nil
        if rules.failureStops && !rules.checkOnly { end = .failed }
      case .line(let line):
        startLine(line.number, outermost: outermost, sink: &sink)
        if rules.checksEachLine, check(line.bytes, knownASCII: line.isASCII, sink: &sink) > 0 {
          failed = true
          ran = nil
          if rules.failureStops && !rules.checkOnly { end = .failed }
        } else if rules.checkOnly {
          ran = nil
        } else {
          if outermost { sink.lineChecked() }
          end = runLine(
            line.bytes, knownASCII: line.isASCII, keepGoing: rules.keepGoing, failed: &failed,
            sink: &sink)
          if end == .failed { failed = true }
          ran = end
        }
      }
      if outermost, let after = sink.lineEnded(ran, session: &session) { end = after }
      return end.goesOn(keepGoing: !rules.failureStops)
    }
    return (end, failed)
  }

  /// A line begins: the sink hears of it in the outermost run, and a
  /// sourced FILE's diagnostics point at it.
  @inlinable mutating func startLine<Sink: CommandSink>(
    _ number: Int, outermost: Bool, sink: inout Sink
  ) {
    if outermost {
      sink.lineStarts(number: number)
    } else {
      sources[sources.count - 1].line = number
    }
  }

  /// A diagnostic at `column` of the line running: at the prompt's or the
  /// sink's location, or at the line of the sourced FILE.
  @usableFromInline mutating func report<Sink: CommandSink>(
    _ message: String, column: Int, sink: inout Sink
  ) {
    if let (file, line) = sources.last {
      sink.diagnose(
        message, at: SourceLocation(source: safeText(file.utf8), line: line, column: column))
    } else {
      sink.diagnose(message, column: column)
    }
  }
}

extension SourcedLines: LineSource {
  /// A line too long ends the text: reading stopped there, and the whole
  /// text's check reported it.
  @usableFromInline mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    while let line = next(), let bytes = line.bytes {
      guard body(.line(HandKit.Line(number: line.number, bytes: bytes, isASCII: ascii))) else {
        return
      }
    }
  }
}
