import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Runs lines through the session and writes what they show. Stdin and the
/// prompt go line by line through the core's one loop over lines
/// (`LineExecutor.runLines(_:rules:sink:)`, which `source` and golden tests
/// share), with the rules of each mode as data (`LineRules`); a SCRIPT and
/// `-c` are checked whole as they are read, their commands run ahead
/// meanwhile (`runText`, `runScript`).
struct Runner {
  var executor: LineExecutor
  /// stdout, stderr and saving, as the process does them.
  var sink: ProcessSink
  let options: Options
  /// `--record FILE`: told each line entered at the prompt.
  var recorder: Recorder?
  /// `--journal FILE`: the version a journal resumed at (nil: a new one).
  var journalResumed: Int?

  /// A runner of `options` whose first game has `seed`, writing results to
  /// `output` and diagnostics to `errors` (the process's stdout and stderr,
  /// or files a test reads back).
  init(options: Options, seed: UInt64, output: Int32 = 1, errors: Int32 = 2) {
    self.options = options
    let color = options.color.colors(1)
    executor = LineExecutor(
      session: Session(seed: seed, limit: options.limit, clock: Platform.clock),
      renderer: Renderer(style: Style(ascii: options.ascii, color: color, json: options.json)),
      echo: options.echo, quiet: options.quiet)
    sink = ProcessSink(output: Output(fd: output), errors: errors)
    sink.keepGoing = options.keepGoing
  }

  var session: Session { executor.session }

  /// `_modify` (the coroutine accessor that Swift's own collections use)
  /// lends the stored value in place, so `runner.output.flush()` and
  /// `sink.out.append(…)` change the buffer where it lies instead of a
  /// get, a change and a set, on every line (`scripts/bench
  /// --instructions` counts what that saves).
  var output: Output {
    get { sink.output }
    set { sink.output = newValue }
    _modify { yield &sink.output }
  }

  /// Whether any command or line failed so far (exit status 1).
  var failed: Bool { sink.failed }

  // MARK: One line

  /// The rules of the lines of `source` (nil at the prompt): at the prompt
  /// a failure skips the rest of the line and the session goes on; in a
  /// script it stops the run, unless `-k`. `--check` holds for a stream
  /// of lines, not for a line entered or run alone.
  func rules(source: String?, checked: Bool = false, stream: Bool = false) -> LineRules {
    let script = source != nil
    return LineRules(
      checksEachLine: !checked, keepGoing: options.keepGoing && script,
      failureStops: script && !options.keepGoing, checkOnly: stream && options.checkOnly)
  }

  /// Runs lines through the core's one loop, as lines of `source` (nil at
  /// the prompt), by their `rules`: stdin as lines arrive (a `stream`,
  /// where `--check` holds), each line checked, then run, before the next
  /// is read; a line entered at the prompt. With no `source`, the
  /// prompt's rules: errors read `error: MESSAGE`, the session goes on, and
  /// a failed line counts as finished.
  mutating func runLines<Source: LineSource>(
    _ lines: inout Source, source: String?, checked: Bool = false, stream: Bool = false
  ) -> LineEnd {
    sink.lineSource = source
    let rules = rules(source: source, checked: checked, stream: stream)
    let end = executor.runLines(&lines, rules: rules, sink: &sink).end
    return source == nil && end == .failed ? .finished : end
  }

  /// After a journal write that failed (handsh(1), JOURNAL): says so, and
  /// rebuilds the session from FILE. True when that happened.
  mutating func recoverJournal(text: String? = nil) -> Bool {
    sink.recoverJournal(text: text, session: &executor.session)
  }

  /// A line entered at the prompt: checked, then run by the prompt's rules,
  /// and recorded with `--record`.
  mutating func enter(_ bytes: [UInt8]) -> LineEnd {
    if recorder != nil, bytes.count <= lineLimit { sink.effects = [] }
    if sink.pointsAtFailures, bytes.count <= lineLimit { sink.enteredLine = bytes }
    defer { sink.enteredLine = nil }
    let end = bytes.withUnsafeBufferPointer { buffer -> LineEnd in
      var lines = OneLine(line: Line(number: 1, bytes: buffer))
      return runLines(&lines, source: nil)
    }
    guard bytes.count <= lineLimit else { return .finished }
    recorder?.entered(bytes, effects: sink.effects ?? [])
    sink.effects = nil
    sink.syncJournal(session: &executor.session)
    // The journal's name was taken from it: the session ends.
    return output.journal?.ended == true ? .quit : end
  }

  // MARK: Whole runs

  /// The check of a whole text, made as the text arrives (`runText`,
  /// `runScript`), with the commands run ahead meanwhile.
  struct TextCheck {
    var ahead: RunAhead
    var limit = ErrorLimit()
    /// Where the next pass over more of the text starts.
    var next = (offset: 0, line: 1)
    /// The check ended: at the error limit, or at a line too long.
    var ended = false
  }

  /// A `-c` text (handsh(1), DESCRIPTION): nothing runs unless the whole
  /// text is free of syntax errors. The commands run ahead while the text
  /// is checked (`RunAhead`), and from where that paused once it is.
  mutating func runText(_ text: [UInt8], name: String) -> LineEnd {
    var state = TextCheck(
      ahead: RunAhead(
        from: session, enabled: !options.checkOnly, journaling: output.journal != nil,
        journalStart: output.journal?.sessionStart ?? 0))
    var text = text
    _ = check(&text, final: true, name: name, &state)
    return finish(text, name: name, state)
  }

  /// A SCRIPT, as `runText`, checked as it is read: reading stops where
  /// the check does (a line too long, the error limit), so endless noise
  /// ends at once. The read error when it cannot be read.
  mutating func runScript(_ path: [UInt8], name: String) -> Result<LineEnd, SystemError> {
    var state = TextCheck(
      ahead: RunAhead(
        from: session, enabled: !options.checkOnly, journaling: output.journal != nil,
        journalStart: output.journal?.sessionStart ?? 0))
    let read = readFile(path) { text, final in check(&text, final: final, name: name, &state) }
    switch read {
    case .success(let file):
      return .success(finish(file.bytes, name: name, state))
    case .failure(let error):
      state.ahead.rollBack(&executor)
      return .failure(error)
    }
  }

  /// Checks the lines of `text` (all of it so far; `final` when it is all
  /// there) that `state` has not checked yet, reporting each syntax error
  /// up to the error limit, and at the next one `too many errors,
  /// stopping` (handsh(1), LIMITS). False once the check has ended.
  /// The lines checked are dropped from the front of `text` when nothing
  /// will need them again: every command on them has run ahead, or the
  /// text has an error and nothing will run. So a long script costs the
  /// memory of its versions, not of its text too.
  private mutating func check(
    _ text: inout [UInt8], final: Bool, name: String, _ state: inout TextCheck
  ) -> Bool {
    guard !state.ended else { return false }
    // Apart from `state` while the lines are read: asked through `state`,
    // the limit cost every line of a script more (`scripts/bench
    // --instructions`).
    var limit = state.limit
    defer { state.limit = limit }
    // A scope of its own: `lines` shares the text, and must be gone before
    // the text is cut, or the cut would copy it.
    let tooLong: Int?
    do {
      var lines = TextLines(text: text)
      lines.partial = !final
      lines.start(atOffset: state.next.offset, line: state.next.line)
      defer { state.next = lines.next }
      tooLong = forEachItemOfText(&lines) { position, item, parser, line in
        // Consumed: a command's words go to the run without a copy, and
        // there is no item left to destroy.
        switch consume item {
        case .error(let error):
          guard limit.admit() else { return false }
          report(error.message, line: line.number, column: error.column, source: name)
          state.ahead.pause(at: position)
        case .command(let command, let span):
          state.ahead.runCommand(
            command, span: span, parser: &parser, at: position, executor: &executor)
        case .end: break
        }
        return true
      }
    }
    if state.next.offset > 0, state.ahead.pausedAt == nil || limit.errors > 0 {
      text.removeSubrange(..<min(state.next.offset, text.count))
      state.next.offset = 0
    }
    if let tooLong, !limit.passed {
      // Like a syntax error; the text ends there (handsh(1), DESCRIPTION).
      if limit.admit() { reportTooLong(line: tooLong, source: name) }
      state.ended = true
    }
    if limit.passed {
      sink.diagnose(ErrorLimit.message, in: name)
      state.ended = true
    }
    return !state.ended
  }

  /// After the check of a whole text: nothing runs if it found an error;
  /// else the output held while running ahead goes out, and the run goes
  /// on from where running ahead paused.
  private mutating func finish(_ text: [UInt8], name: String, _ state: TextCheck) -> LineEnd {
    let ahead = state.ahead
    guard state.limit.errors == 0 else {
      ahead.rollBack(&executor)
      return .failed
    }
    ahead.commit(
      to: &output, history: session.history, renderer: executor.renderer, source: name)
    // The lines of the commands run ahead could not be written.
    if output.journal != nil {
      output.flush()
      if recoverJournal(text: name) { return .stopped }
    }
    guard let resume = ahead.pausedAt, !options.checkOnly else { return .finished }
    var end = LineEnd.finished
    // The run goes on from the line where it paused, not over the lines
    // before it again.
    var lines = TextLines(text: text)
    lines.start(atOffset: resume.offset, line: resume.line)
    forEachItemOfText(&lines) { position, item, parser, line in
      guard position >= resume, case .command(let command, let span) = consume item else {
        return true
      }
      sink.location = (name, line.number)
      end = executor.runCommand(
        command, span: span, parser: &parser, keepGoing: options.keepGoing, sink: &sink)
      if recoverJournal() { end = .stopped }
      return end.goesOn(keepGoing: options.keepGoing)
    }
    return end.goesOn(keepGoing: options.keepGoing) ? .finished : end
  }

  // MARK: Diagnostics

  /// `SOURCE:LINE:COLUMN: error: MESSAGE` in a script, `error: MESSAGE` at
  /// the prompt. Output so far goes first, so the two streams interleave.
  mutating func report(_ message: String, line: Int, column: Int, source: String?) {
    sink.location = (source, line)
    sink.diagnose(message, column: column)
  }

  /// A line over the limit, reported like a syntax error at its column 1.
  mutating func reportTooLong(line: Int, source: String?) {
    report(LineParser.tooLongMessage, line: line, column: 1, source: source)
  }
}

/// One line as a source of lines: a line typed at the prompt, or one that
/// a test runs. It is handed on as it is, or as too long.
struct OneLine: LineSource {
  let line: Line

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    _ = body(line.bytes.count <= lineLimit ? .line(line) : .tooLong(number: line.number))
  }
}
