import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

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
  /// The source whose lines run (`LineExecutor.runLines(_:rules:sink:)`):
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
    let location = location
    report {
      guard let source = location.source else { return "error: " + message }
      return diagnostic(
        message, at: SourceLocation(source: source, line: location.line, column: column))
    }
  }

  mutating func diagnose(_ message: String, at location: SourceLocation) {
    report { diagnostic(message, at: location) }
  }

  mutating func diagnose(_ message: String, in source: String) {
    report { diagnostic(message, in: source) }
  }

  /// A diagnostic whose place is in its text: the run has failed; it is
  /// printed after the results made so far, unless a signal is ending the
  /// run or the journal's failure said it already.
  private mutating func report(_ text: () -> String) {
    failed = true
    guard !endingBySignal else { return }
    output.flush()
    if journalFailed { return }
    Platform.printError(text(), to: errors)
  }

  /// Results made so far go out before a `source` starts reading its
  /// file, which may take long or wait (handsh(1), OUTPUT). Nothing more
  /// runs once the journal could not take the lines of the commands
  /// before (handsh(1), JOURNAL): not a `source`, not a `save`.
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
