import HandKit

/// What the loop does after a line.
enum Flow {
  case next
  /// A failure stops the run (no `-k`).
  case stop
  /// `quit` or `exit`.
  case quit
}

/// Runs lines through the session and writes what they show: the one loop
/// that scripts, stdin, `-c` and the prompt share.
struct Runner {
  var session: Session
  let renderer: Renderer
  var output = Output()
  let options: Options
  /// Whether any command or line failed so far (exit status 1).
  var failed = false

  init(options: Options, seed: UInt64) {
    self.options = options
    session = Session(seed: seed, limit: options.limit)
    let color: Bool
    switch options.color {
    case .always: color = true
    case .never: color = false
    case .auto:
      // TERM=dumb (an Emacs shell buffer) is a terminal that shows escapes raw.
      color =
        Platform.isTerminal(1) && Platform.environment("TERM") != "dumb"
        && (Platform.environment("NO_COLOR") ?? "").isEmpty
    }
    renderer = Renderer(style: Style(ascii: options.ascii, color: color, json: options.json))
  }

  // MARK: Checking

  /// Reports every syntax error of `line`; returns how many there were.
  /// `source` is nil at the prompt.
  mutating func check(_ line: Line, source: String?) -> Int {
    var parser = LineParser(line.bytes, knownASCII: line.isASCII)
    var errors = 0
    while true {
      let item = parser.nextItem()
      if case .end = item { break }
      if case .error(let error) = item {
        report(error.message, line: line.number, column: error.column, source: source)
        errors += 1
      }
    }
    return errors
  }

  // MARK: Running

  /// Runs the commands of a line already checked for syntax errors, from
  /// its command number `first` on.
  mutating func run(_ line: Line, source: String?, from first: Int = 0) -> Flow {
    var parser = LineParser(line.bytes, knownASCII: line.isASCII)
    var index = -1
    while true {
      let item = parser.nextItem()
      if case .end = item { break }
      index += 1
      guard case .command(let command, let span) = item, index >= first else { continue }
      var failure: CommandError?
      do throws(CommandError) {
        let outcome = try execute(command, span: span, parser: parser)
        if case .quit = outcome { return .quit }
        failure = perform(outcome)
      } catch {
        failure = error
      }
      if let failure {
        failed = true
        report(
          renderer.message(for: failure), line: line.number,
          column: parser.column(at: span.lowerBound), source: source)
        // At the prompt the rest of the line is skipped; a script stops.
        if source == nil { return .next }
        if !options.keepGoing { return .stop }
      }
      output.flushIfFull()
      if output.failure != nil { return .stop }
    }
    return .next
  }

  /// Echoes (with `--echo`) and applies one command of the line `parser` reads.
  private mutating func execute(
    _ command: Command, span: Range<Int>, parser: LineParser
  ) throws(CommandError) -> Outcome {
    if options.echo { renderer.writeEcho(parser.words(in: span), to: &output.buffer) }
    return try session.apply(command, written: spelling(command, span, parser)) {
      UInt64.random(in: .min ... .max)
    }
  }

  /// How `history` must write a change typed with padded numbers (`del 02`).
  private func spelling(_ command: Command, _ span: Range<Int>, _ parser: LineParser) -> String? {
    switch command {
    case .delete, .move, .limit(.some): parser.unusualSpelling(of: span)
    default: nil
    }
  }

  /// Shows what an outcome asks for; a failed `save` is the one failure.
  private mutating func perform(_ outcome: Outcome) -> CommandError? {
    switch outcome {
    case .changed:
      if !options.quiet { renderer.writeHandLine(session.history, to: &output.buffer) }
    case .nothing, .quit: break
    case .show: renderer.writeShow(session.history, to: &output.buffer)
    case .deck: renderer.writeDeck(session.history, to: &output.buffer)
    case .history:
      // Streamed through the buffer: a long history is never all in memory.
      var next: Int? = 0
      while let from = next, output.failure == nil {
        next = renderer.writeHistory(
          session.history, from: from, upTo: Output.flushThreshold, to: &output.buffer)
        output.flushIfFull()
      }
    case .limit(let limit): renderer.writeLimit(limit, to: &output.buffer)
    case .help(let topic): output.buffer.append(contentsOf: helpText(topic).utf8)
    case .save(let file, let script):
      if let error = save(script, to: file) {
        return .cannotWrite(file: file, reason: Platform.describe(error.code))
      }
    }
    return nil
  }

  // MARK: Whole runs

  /// A SCRIPT or `-c` text (SPEC §6): nothing runs unless the whole text is
  /// free of syntax errors. Checking and running share one parse: commands
  /// run while the text is being checked, their output held back, and the
  /// held output is written only once the last line has checked clean. What
  /// cannot be taken back (a save, a quit, a failure's diagnostic) or held
  /// output grown large pauses that; the run resumes there after the check.
  mutating func runText(_ text: [UInt8], name: String) -> Flow {
    var lines = TextLines(text: text)
    var errors = 0
    var pause: (line: Int, command: Int)? = options.checkOnly ? (1, 0) : nil
    let before = session
    output.hold()
    lines.forEachLine { event in
      if case .tooLong(let number) = event {
        // Like a syntax error; the text ends there (handsh(1), DESCRIPTION).
        reportTooLong(line: number, source: name)
        errors += 1
        return false
      }
      guard case .line(let line) = event else { return true }
      var parser = LineParser(line.bytes, knownASCII: line.isASCII)
      var index = 0
      loop: while true {
        switch parser.nextItem() {
        case .end: break loop
        case .error(let error):
          report(error.message, line: line.number, column: error.column, source: name)
          errors += 1
          if pause == nil { pause = (line.number, index) }
        case .command(let command, let span):
          if pause == nil, !runAhead(command, span: span, parser: parser) {
            pause = (line.number, index)
          }
        }
        index += 1
      }
      return true
    }
    guard errors == 0 else {
      // Nothing ran: not the output, not the changes (`-i` goes on from here).
      session = before
      output.discard()
      failed = true
      return .stop
    }
    output.release()
    guard let pause, !options.checkOnly else { return .next }
    var flow = Flow.next
    lines.forEachLine { event in
      guard case .line(let line) = event, line.number >= pause.line else { return true }
      flow = run(line, source: name, from: line.number == pause.line ? pause.command : 0)
      return flow == .next
    }
    return flow
  }

  /// Runs a command while the rest of the text is still being checked, its
  /// output held. False, with nothing done, when it must wait for the check.
  private mutating func runAhead(_ command: Command, span: Range<Int>, parser: LineParser) -> Bool {
    switch command {
    case .save, .quit, .history: return false
    default: break
    }
    guard output.heldBytes < Runner.holdLimit else { return false }
    let mark = output.buffer.count
    do throws(CommandError) {
      _ = perform(try execute(command, span: span, parser: parser))
      output.flushIfFull()
      return true
    } catch {
      // A failed command changed nothing; it runs again, and reports, later.
      output.buffer.removeSubrange(mark...)
      return false
    }
  }

  /// The most output held back while a text is checked (bounds the memory).
  static let holdLimit = 32 << 20

  /// stdin as lines arrive: each line is checked, then run, before the next
  /// is read. With no `name`, the prompt's rules: errors read
  /// `error: MESSAGE` and the session goes on.
  mutating func runStream<Source: LineSource>(_ lines: inout Source, name: String?) -> Flow {
    var flow = Flow.next
    lines.forEachLine { event in
      switch event {
      case .waiting:
        output.flush()
        if output.failure != nil { return false }
      case .tooLong(let number):
        // Like a syntax error: the line runs none of it (handsh(1), DESCRIPTION).
        reportTooLong(line: number, source: name)
        failed = true
        if options.checkOnly || options.keepGoing || name == nil { return true }
        flow = .stop
      case .line(let line):
        if check(line, source: name) > 0 {
          failed = true
          if options.checkOnly || options.keepGoing || name == nil { return true }
          flow = .stop
        } else if !options.checkOnly {
          flow = run(line, source: name)
        }
      }
      if case .next = flow { return true }
      return false
    }
    return flow
  }

  // MARK: Diagnostics

  /// A line longer than the line limit, reported at its column 1.
  mutating func reportTooLong(line: Int, source: String?) {
    report("line is longer than \(lineLimit) bytes", line: line, column: 1, source: source)
  }

  /// `SOURCE:LINE:COLUMN: error: MESSAGE` in a script, `error: MESSAGE` at
  /// the prompt. Output so far goes first, so the two streams interleave.
  mutating func report(_ message: String, line: Int, column: Int, source: String?) {
    output.flush()
    if let source {
      Platform.printError(
        diagnostic(message, at: SourceLocation(source: source, line: line, column: column)))
    } else {
      Platform.printError("error: " + message)
    }
  }
}
