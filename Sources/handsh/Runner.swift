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
    case .auto: color = System.isTerminal(1) && (System.environment("NO_COLOR") ?? "").isEmpty
    }
    renderer = Renderer(style: Style(ascii: options.ascii, color: color, json: options.json))
  }

  // MARK: Checking

  /// Reports every syntax error of `line`; returns how many there were.
  /// `source` is nil at the prompt.
  mutating func check(_ line: Line, source: String?) -> Int {
    var parser = LineParser(line.bytes)
    var errors = 0
    while let item = parser.next() {
      if case .error(let error) = item {
        report(error.message, line: line.number, column: error.column, source: source)
        errors += 1
      }
    }
    return errors
  }

  /// Checks every line of `source` first; true when there was no error.
  mutating func checkAll<Source: LineSource>(_ lines: inout Source, name: String) -> Bool {
    var errors = 0
    lines.forEachLine { event in
      if case .line(let line) = event { errors += check(line, source: name) }
      return true
    }
    if errors > 0 { failed = true }
    return errors == 0
  }

  // MARK: Running

  /// Runs the commands of a line already checked for syntax errors.
  mutating func run(_ line: Line, source: String?) -> Flow {
    var parser = LineParser(line.bytes)
    while let item = parser.next() {
      guard case .command(let command, let span) = item else { continue }
      if options.echo { renderer.writeEcho(parser.words(in: span), to: &output.buffer) }
      let result = session.run(command) { UInt64.random(in: .min ... .max) }
      let failure: CommandError?
      switch result {
      case .success(let outcome):
        if case .quit = outcome { return .quit }
        failure = perform(outcome)
      case .failure(let error):
        failure = error
      }
      if let failure {
        failed = true
        report(
          renderer.message(for: failure), line: line.number,
          column: parser.column(at: span.lowerBound), source: source)
        if !options.keepGoing && source != nil { return .stop }
      }
      output.flushIfFull()
    }
    return .next
  }

  /// Shows what an outcome asks for; a failed `save` is the one failure.
  private mutating func perform(_ outcome: Outcome) -> CommandError? {
    let history = session.history
    switch outcome {
    case .changed: if !options.quiet { renderer.writeHandLine(history, to: &output.buffer) }
    case .nothing, .quit: break
    case .show: renderer.writeShow(history, to: &output.buffer)
    case .deck: renderer.writeDeck(history, to: &output.buffer)
    case .history: renderer.writeHistory(history, to: &output.buffer)
    case .limit(let limit): renderer.writeLimit(limit, to: &output.buffer)
    case .help(let topic): output.buffer.append(contentsOf: helpText(topic).utf8)
    case .save(let file, let script):
      if let code = writeAtomically(script, to: file) {
        return .cannotWrite(file: file, reason: System.describe(code))
      }
    }
    return nil
  }

  // MARK: Whole runs

  /// A SCRIPT or `-c` text: check it all, then run it (SPEC §6).
  mutating func runText(_ text: [UInt8], name: String) -> Flow {
    var lines = TextLines(text: text)
    guard checkAll(&lines, name: name) else { return .stop }
    if options.checkOnly { return .next }
    var flow = Flow.next
    lines.forEachLine { event in
      guard case .line(let line) = event else { return true }
      flow = run(line, source: name)
      if case .next = flow { return true }
      return false
    }
    return flow
  }

  /// stdin as lines arrive: each line is checked, then run, before the next
  /// is read. With no `name`, the prompt's rules: errors read
  /// `error: MESSAGE` and the session goes on.
  mutating func runStream<Source: LineSource>(_ lines: inout Source, name: String?) -> Flow {
    var flow = Flow.next
    lines.forEachLine { event in
      switch event {
      case .waiting:
        output.flush()
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

  /// `SOURCE:LINE:COLUMN: error: MESSAGE` in a script, `error: MESSAGE` at
  /// the prompt. Output so far goes first, so the two streams interleave.
  mutating func report(_ message: String, line: Int, column: Int, source: String?) {
    output.flush()
    if let source {
      System.printError(
        diagnostic(message, at: SourceLocation(source: source, line: line, column: column)))
    } else {
      System.printError("error: " + message)
    }
  }
}
