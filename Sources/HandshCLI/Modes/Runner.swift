import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Runs lines through the session and writes what they show. Stdin and the
/// prompt go line by line through the core's one loop over lines
/// (`LineExecutor.run(lines:rules:sink:)`, which `source` and golden tests
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
  /// the prompt), by `rules`. At the prompt a failed line counts as
  /// finished.
  mutating func run<Source: LineSource>(
    _ lines: inout Source, source: String?, rules: LineRules
  ) -> LineEnd {
    sink.lineSource = source
    let end = executor.run(lines: &lines, rules: rules, sink: &sink).end
    return source == nil && end == .failed ? .finished : end
  }

  /// Runs the commands of a line already checked for syntax errors.
  mutating func run(_ line: Line, source: String?) -> LineEnd {
    var lines = OneLine(line: line)
    return run(&lines, source: source, rules: rules(source: source, checked: true))
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
      return run(&lines, source: nil, rules: rules(source: nil))
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
    let tooLong: Int? = {
      var lines = TextLines(text: text)
      lines.partial = !final
      lines.start(atOffset: state.next.offset, line: state.next.line)
      defer { state.next = lines.next }
      return forEachItem(&lines) { position, item, parser, line in
        // Consumed: a command's words go to the run without a copy, and
        // there is no item left to destroy.
        switch consume item {
        case .error(let error):
          guard limit.admit() else { return false }
          report(error.message, line: line.number, column: error.column, source: name)
          state.ahead.pause(at: position)
        case .command(let command, let span):
          state.ahead.run(command, span: span, parser: &parser, at: position, executor: &executor)
        case .end: break
        }
        return true
      }
    }()
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
    forEachItem(&lines) { position, item, parser, line in
      guard position >= resume, case .command(let command, let span) = consume item else {
        return true
      }
      sink.location = (name, line.number)
      end = executor.run(
        command, span: span, parser: &parser, keepGoing: options.keepGoing, sink: &sink)
      if recoverJournal() { end = .stopped }
      return end.goesOn(keepGoing: options.keepGoing)
    }
    return end.goesOn(keepGoing: options.keepGoing) ? .finished : end
  }

  /// stdin as lines arrive: each line is checked, then run, before the next
  /// is read. With no `name`, the prompt's rules: errors read
  /// `error: MESSAGE` and the session goes on.
  mutating func runStream<Source: LineSource>(_ lines: inout Source, name: String?) -> LineEnd {
    run(&lines, source: name, rules: rules(source: name, stream: true))
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

/// What the commands of a real run write and do: stdout through `Output`,
/// diagnostics on stderr, `save` on disk, fresh seeds from the system.
struct ProcessSink: CommandSink {
  var output: Output
  /// Where diagnostics go: stderr, unbuffered.
  var errors: Int32 = 2
  /// `-k`: on stdin, a journal that cannot be written is given up, and
  /// the run goes on without it.
  var keepGoing = false
  /// The source and line number diagnostics point at; no source at the prompt.
  var location: (source: String?, line: Int) = (nil, 0)
  /// The source whose lines run (`LineExecutor.run(lines:rules:sink:)`):
  /// where each line's diagnostics point.
  var lineSource: String?
  /// Whether any diagnostic was written (exit status 1).
  var failed = false
  /// The seeds a typed `new` drew and the reasons saves failed, oldest
  /// first, kept while recording (handsh(1), GOLDEN TESTS). The seeds that
  /// a `new` in a sourced file drew are not kept: the recording keeps the
  /// `source` line, not the file's lines.
  var effects: [Effect]?

  enum Effect: Equatable {
    case seed(UInt64)
    case save(failure: String?)
    /// `earlier` or `later` went to this version.
    case walked(to: Int)
  }

  /// Lent in place, as `Runner.output` is.
  var out: [UInt8] {
    get { output.buffer }
    set { output.buffer = newValue }
    _modify { yield &output.buffer }
  }

  /// Whether the journal's write failed: its message is the one said,
  /// at the first command it lost; what ran after that is taken back.
  private var journalFailed: Bool { output.journal?.failure != nil }

  mutating func diagnose(_ message: String, column: Int) {
    failed = true
    guard !endingBySignal else { return }
    output.flush()
    if journalFailed { return }
    if let source = location.source {
      Platform.printError(
        diagnostic(
          message, at: SourceLocation(source: source, line: location.line, column: column)),
        to: errors)
    } else {
      Platform.printError("error: " + message, to: errors)
    }
  }

  mutating func diagnose(_ message: String, at location: SourceLocation) {
    failed = true
    guard !endingBySignal else { return }
    output.flush()
    if journalFailed { return }
    Platform.printError(diagnostic(message, at: location), to: errors)
  }

  mutating func diagnose(_ message: String, in source: String) {
    failed = true
    guard !endingBySignal else { return }
    output.flush()
    if journalFailed { return }
    Platform.printError(diagnostic(message, in: source), to: errors)
  }

  /// What `CommandSink` asks for; `source` calls `readSource`, below.
  /// Nothing more runs once the journal could not take the lines of the
  /// commands before (handsh(1), JOURNAL): not a `source`, not a `save`.
  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    readSource(file).map(\.bytes)
  }

  /// Results made so far go out before a `source` starts reading its
  /// file, which may take long or wait (handsh(1), OUTPUT).
  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    output.flush()
    if journalFailed { return .failure(ReadFailure(Journal.stopped)) }
    return readSourcedText(file)
  }

  /// At the prompt, Ctrl-C (or a signal that ends handsh) abandons the
  /// check of a sourced file as it abandons its reading (handsh(1), THE
  /// PROMPT).
  mutating func checkInterrupted() -> ReadFailure? {
    handsh_prompt_interrupted() != 0 ? ReadFailure(Platform.describe(EINTR)) : nil
  }

  mutating func save(_ script: SavedScript, to file: String) -> String? {
    // What came before goes first: FILE may name stdout (handsh(1), FILES).
    output.flush()
    if journalFailed { return Journal.stopped }
    // Made as it is written: a long path is never held whole.
    let chunks = WriteSource { body in script.write { chunk in chunk.withUnsafeBytes(body) } }
    let failure = writeFile(chunks, to: Array(file.utf8)).map { Platform.describe($0.code) }
    effects?.append(.save(failure: failure))
    return failure
  }

  mutating func freshSeed() -> UInt64 { freshSeed(sourced: false) }

  mutating func freshSeed(sourced: Bool) -> UInt64 {
    let seed = UInt64.random(in: .min ... .max)
    if !sourced { effects?.append(.seed(seed)) }
    return seed
  }

  mutating func walked(to version: Int, sourced: Bool) {
    if !sourced { effects?.append(.walked(to: version)) }
  }

  /// False, and the line (and any file it sources) stops after the command
  /// in progress, when a write failed (the journal's too), or at the
  /// prompt when Ctrl-C came while the line ran (handsh(1), THE PROMPT).
  mutating func commandDone() -> Bool {
    output.flushIfFull()
    // Results appear as they are made: while a long line or file runs, at
    // most 50 ms after they were made (the clock looked at every 256
    // commands, which costs nothing).
    output.flushIfDue()
    if let journal = output.journal {
      if journal.pending.count >= Output.flushThreshold { output.flush() }
      if journal.due() {
        output.flush()
        journal.sync()
      }
      // The results of the commands whose lines were lost are dropped.
      if journal.failure != nil { output.flush() }
      if journal.failure != nil || journal.ended { return false }
    }
    return output.failure == nil && handsh_prompt_interrupted() == 0
  }

  var keepsJournal: Bool { output.journal != nil }

  mutating func lineStarts(number: Int) { location = (lineSource, number) }

  /// Before a wait for more input: the results out, and the journal to
  /// disk. False once a write failed, or the journal's (unless it goes on
  /// without it).
  mutating func linesWaiting(session: inout Session) -> Bool {
    output.flush()
    if output.failure != nil { return false }
    guard let journal = output.journal else { return true }
    guard syncJournal(session: &session) else { return !journal.ended }
    return goesOnAfterJournalFailure(source: lineSource)
  }

  /// After a line that ran, a journal that failed is recovered, and the
  /// run goes on or not (`goesOnAfterJournalFailure`).
  mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd? {
    guard end != nil, recoverJournal(session: &session) else { return nil }
    guard goesOnAfterJournalFailure(source: location.source) else { return .stopped }
    return location.source == nil ? .finished : .failed
  }

  /// After a failed journal write: the prompt goes on; stdin stops, unless
  /// `-k`, which goes on without the journal, saying so once.
  private mutating func goesOnAfterJournalFailure(source: String?) -> Bool {
    guard source != nil else { return true }
    guard keepGoing, let journal = output.journal else { return false }
    output.journal = nil
    Platform.printError(
      "handsh: going on without the journal \(journal.shown) (-k): it is no longer kept",
      to: errors)
    return true
  }

  /// After a journal write or flush that failed (handsh(1), JOURNAL): says
  /// so, at the first command whose line it may have lost, and rebuilds the
  /// session from FILE, so that the commands whose lines could not be
  /// written change nothing. True when that happened. `text`: the name of
  /// a whole text (`-c`, a SCRIPT), for a failure that lost no command.
  mutating func recoverJournal(text: String? = nil, session: inout Session) -> Bool {
    guard let journal = output.journal, let reason = journal.failure else { return false }
    let message = "cannot write journal \(journal.shown): \(reason)"
    let lost = journal.lost
    if let rebuilt = journal.rebuild() { session = rebuilt }
    if let lost, let source = lost.source {
      diagnose(message, at: SourceLocation(source: source, line: lost.line, column: lost.column))
    } else if lost != nil || text == nil {
      location = (nil, 0)
      diagnose(message, column: 1)
    } else if let text {
      diagnose(message, in: text)
    }
    return true
  }

  /// After a line at the prompt, and at the end: the journal's lines
  /// written and flushed to disk, then the results. True when the journal
  /// failed (said, and the session rebuilt).
  @discardableResult
  mutating func syncJournal(session: inout Session) -> Bool {
    guard let journal = output.journal else { return false }
    if journal.flush() { journal.sync() }
    output.flush()
    return recoverJournal(session: &session)
  }

  mutating func changed(_ move: CursorMove?, history: History) {
    changed(move, history: history) { 1 }
  }

  mutating func changed(_ move: CursorMove?, history: History, column: () -> Int) {
    let location = location
    output.journal?.record(move, in: history) {
      Journal.Place(source: location.source, line: location.line, column: column())
    }
  }

  /// At the prompt with stderr a terminal: point at the failed command of a
  /// line that holds several (handsh(1), THE PROMPT).
  var pointsAtFailures = false
  /// The line being run at the prompt, while `pointsAtFailures`.
  var enteredLine: [UInt8]?

  /// A signal that ends handsh came while the line ran (at the prompt): the
  /// command it interrupted (a blocked `source` or `save`) did not fail, and
  /// nothing is said of it; handsh ends as it does at the prompt.
  var endingBySignal: Bool { handsh_prompt_ending() != 0 }

  mutating func commandFailed(span: Range<Int>) {
    guard !endingBySignal, let line = enteredLine, line.withUnsafeBufferPointer(commandCount) > 1
    else { return }
    output.flush()
    for text in failurePointer(line: line, command: span) { Platform.printError(text, to: errors) }
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

/// How many commands (or syntax errors) a line holds.
private func commandCount(_ line: UnsafeBufferPointer<UInt8>) -> Int {
  var count = 0
  LineParser.forEachItem(in: line) { _, _ in
    count += 1
    return true
  }
  return count
}

/// Reads the script `file` for `source` with the one reader, as a SCRIPT
/// is read: whole, or up to a line over the length limit, or up to where
/// its syntax errors pass the error limit (`ErrorCounter`: endless noise
/// ends at once); but what is not a regular file (a FIFO, a device) is
/// read without waiting for a writer, and one with no writer reads as
/// empty, so a `source` never hangs the prompt on an open. Errors are
/// counted as each piece arrives, for a regular file too: a huge file of
/// bad lines is read no further than its error limit (handsh(1), LIMITS).
/// A text the counter found free of errors is said to be checked, so that
/// `source` does not parse it twice before running it.
func readSourcedText(_ file: String) -> Result<SourcedText, ReadFailure> {
  var errors = ErrorCounter()
  let read = readFile(Array(file.utf8), others: .readWithoutWaiting) { text, final in
    text.withUnsafeBufferPointer { errors.count($0, final: final) }
  }
  return read.map { SourcedText(bytes: $0.bytes, checked: errors.errors == 0) }
    .mapError { ReadFailure($0.reason) }
}
