/// Why a file named by `source` cannot be read: the reason, as `strerror`
/// words it (`No such file or directory`).
public struct ReadFailure: Error, Sendable, Equatable {
  public let reason: String
  public init(_ reason: String) { self.reason = reason }
}

/// Where the commands of a line send what they show, and the three things a
/// command may ask of the world outside the library: writing a saved script,
/// reading a sourced one and drawing a fresh seed. The shell writes to the
/// process's streams; a golden test captures both streams line by line.
public protocol CommandSink {
  /// Bytes for stdout, appended by the renderers.
  var out: [UInt8] { get set }
  /// A syntax error or a failed command: its message and the 1-based column
  /// of the word it is about. Output appended so far comes first.
  mutating func diagnose(_ message: String, column: Int)
  /// A syntax error or a failed command on a line of a sourced file: always
  /// `FILE:LINE:COLUMN: error: MESSAGE`, at the prompt and in tests too.
  mutating func diagnose(_ message: String, at location: SourceLocation)
  /// A diagnostic about a whole text, with no line: `SOURCE: error:
  /// MESSAGE` (the error limit's `too many errors, stopping`).
  mutating func diagnose(_ message: String, in source: String)
  /// `save FILE`: writes `script`, made as it is written; the reason when
  /// it cannot.
  mutating func save(_ script: SavedScript, to file: String) -> String?
  /// `source FILE`: the file's bytes, whole, or up to a line longer than
  /// `LineParser.maximumLineLength`, or up to where its errors pass
  /// `ErrorLimit.count` (reading may stop there: `ErrorCounter`).
  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure>
  /// `source FILE`, as `read`, and whether the reader already checked all
  /// of the text for syntax errors as it read it and found none: the check
  /// before the run is then skipped, so a large FILE is parsed once before
  /// it runs, not twice.
  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure>
  /// Asked again and again while a sourced FILE is checked: a reason to
  /// abandon FILE as if it could not be read (at the prompt, Ctrl-C:
  /// `Interrupted system call`), nothing of it run; nil to go on.
  mutating func checkInterrupted() -> ReadFailure?
  /// `new` without a seed.
  mutating func freshSeed() -> UInt64
  /// `new` without a seed, typed (`sourced` false) or on a line of a
  /// sourced file: `--record` writes a typed `new` with the seed it drew.
  mutating func freshSeed(sourced: Bool) -> UInt64
  /// `earlier` or `later` went to `version`, typed (`sourced` false) or on
  /// a line of a sourced file: `--record` writes a typed one as the `goto
  /// V` it did, which replays the same whatever the clock.
  mutating func walked(to version: Int, sourced: Bool)
  /// After each command that ran, and between the pieces of a long output:
  /// false stops the line (a failed write).
  mutating func commandDone() -> Bool
  /// A command failed; called just before its diagnostic, with the byte
  /// range of the command's words in the line (the prompt points at it).
  mutating func commandFailed(span: Range<Int>)
  /// The hand line after a change: written to `out` at once, or, by a
  /// sink that holds its output, kept as the number of the version it
  /// shows and written later (a version never changes, so neither does
  /// its line).
  mutating func writeHandLine(_ history: History, renderer: Renderer)
  /// Whether the sink keeps a journal (handsh(1), JOURNAL): then it is told
  /// of every command that changed the state or the cursor.
  var keepsJournal: Bool { get }
  /// A command changed the state or the cursor: `move` when it moved the
  /// cursor (`undo`, `redo`, `goto`), else it made the current version of
  /// `history`. Called before the command's results are written.
  mutating func changed(_ move: CursorMove?, history: History)
  /// As `changed(_:history:)`, with the column of the command's first
  /// word, worked out only if the sink asks (a journal keeps where the
  /// first command whose line it has not written yet stands).
  mutating func changed(_ move: CursorMove?, history: History, column: () -> Int)
  /// The lines of a run (`run(lines:rules:sink:)`) are about to wait for
  /// more input: a moment to flush; false stops the run. `session` is the
  /// executor's, for a sink that rebuilds it (a journal that failed).
  mutating func linesWaiting(session: inout Session) -> Bool
  /// Line `number` of a run begins: it is checked next.
  mutating func lineStarts(number: Int)
  /// The line's check found no error: what is reported now are failures.
  mutating func lineChecked()
  /// The line ended: `end` if it ran, nil if it did not (a syntax error, a
  /// line too long, `--check`). Returns the end the run takes instead, or
  /// nil for `end` as it is (`.stopped` stops the run).
  mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd?
}

/// A sourced FILE's text, as the sink read it (`CommandSink.readSource`).
public struct SourcedText: Sendable {
  public var bytes: [UInt8]
  /// All of `bytes` was checked as it was read, and holds no syntax error.
  public var checked: Bool
  public init(bytes: [UInt8], checked: Bool = false) {
    self.bytes = bytes
    self.checked = checked
  }
}

extension CommandSink {
  @inlinable public mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    read(file).map { SourcedText(bytes: $0) }
  }
  @inlinable public mutating func checkInterrupted() -> ReadFailure? { nil }
  @inlinable public mutating func commandDone() -> Bool { true }
  @inlinable public mutating func commandFailed(span: Range<Int>) {}
  @inlinable public mutating func freshSeed(sourced: Bool) -> UInt64 { freshSeed() }
  @inlinable public mutating func walked(to version: Int, sourced: Bool) {}
  @inlinable public mutating func writeHandLine(_ history: History, renderer: Renderer) {
    renderer.writeHandLine(history, to: &out)
  }
  @inlinable public var keepsJournal: Bool { false }
  @inlinable public mutating func changed(_ move: CursorMove?, history: History) {}
  @inlinable public mutating func changed(
    _ move: CursorMove?, history: History, column: () -> Int
  ) {
    changed(move, history: history)
  }
  @inlinable public mutating func linesWaiting(session: inout Session) -> Bool { true }
  @inlinable public mutating func lineStarts(number: Int) {}
  @inlinable public mutating func lineChecked() {}
  @inlinable public mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd? {
    nil
  }
}

/// How a command, a line of commands or a whole run ended: the one answer
/// of every runner, from one command up to a SCRIPT.
public enum LineEnd: Sendable, Equatable {
  /// Everything ran (with `keepGoing`, some commands may have failed).
  case finished
  /// A command failed and the rest was skipped.
  case failed
  /// `quit` or `exit` ran.
  case quit
  /// The sink asked to stop.
  case stopped

  /// Whether a run goes on after this: it finished, or it failed and
  /// `keepGoing` (`-k`) lets it go on.
  @inlinable public func goesOn(keepGoing: Bool) -> Bool {
    self == .finished || (keepGoing && self == .failed)
  }
}

/// Runs lines of commands through a session and writes what they show: the
/// one implementation that scripts, stdin, the prompt and golden tests share.
public struct LineExecutor: Sendable {
  public var session: Session
  public let renderer: Renderer
  /// `--echo`: `> COMMAND` before each command.
  public let echo: Bool
  /// `--quiet`: no hand line after a change.
  public let quiet: Bool
  /// The sourced files being run, innermost last, each with the number of
  /// its line that is running: where their diagnostics point.
  @usableFromInline var sources: [(file: String, line: Int)] = []

  /// The most sourced files open at once (handsh(1), COMMANDS, source).
  public static let sourceDepthLimit = 16

  public init(session: Session, renderer: Renderer, echo: Bool = false, quiet: Bool = false) {
    self.session = session
    self.renderer = renderer
    self.echo = echo
    self.quiet = quiet
  }

  /// Reports every syntax error of `line` to `sink`; returns how many.
  @inlinable public func check<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false, sink: inout Sink
  ) -> Int {
    var errors = 0
    LineParser.forEachItem(in: line, knownASCII: knownASCII) { item, _ in
      if case .error(let error) = item {
        sink.diagnose(error.message, column: error.column)
        errors += 1
      }
      return true
    }
    return errors
  }

  /// Runs the commands of a line already checked for syntax errors. The
  /// first failed command ends the line unless `keepGoing` (a script's `-k`).
  @inlinable public mutating func run<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false, keepGoing: Bool = false,
    sink: inout Sink
  ) -> LineEnd {
    var failed = false
    return run(line, knownASCII: knownASCII, keepGoing: keepGoing, failed: &failed, sink: &sink)
  }

  /// The one step that runs a line's commands, for every runner of lines
  /// in the core (stdin and the prompt through `run`, a sourced FILE, a
  /// golden test): as `run`, and sets `failed` when a command failed, which
  /// with `keepGoing` the line's end does not say.
  @inlinable public mutating func run<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool, keepGoing: Bool, failed: inout Bool,
    sink: inout Sink
  ) -> LineEnd {
    var end = LineEnd.finished
    let whole = LineParser.forEachItem(in: line, knownASCII: knownASCII) { item, parser in
      guard case .command(let command, let span) = item else { return true }
      end = run(command, span: span, parser: &parser, keepGoing: keepGoing, sink: &sink)
      if end == .failed { failed = true }
      return end.goesOn(keepGoing: keepGoing)
    }
    return whole ? .finished : end
  }

  /// Runs one command that `parser` has just read (`span` holds its
  /// words): echoes it, applies it, shows the outcome or reports the failure.
  /// `keepGoing` (`-k`) lets a sourced file go on after a failed command.
  @inlinable public mutating func run<Sink: CommandSink>(
    _ command: consuming Command, span: Range<Int>, parser: inout LineParser,
    keepGoing: Bool = false, sink: inout Sink
  ) -> LineEnd {
    if echo { renderer.writeEcho(parser.words(in: span), to: &sink.out) }
    do throws(CommandError) {
      // `save` and `source` reach outside the session: they are done here.
      if case .save(let file) = command {
        if let reason = sink.save(SavedScript(session.history), to: file) {
          throw .cannotWrite(file: file, reason: reason)
        }
      } else if case .source(let file) = command {
        guard try source(file, keepGoing: keepGoing, sink: &sink) else { return .stopped }
      } else {
        let sourced = !sources.isEmpty
        // What a journal records of a move of the cursor, known only
        // before the command is consumed.
        let move = sink.keepsJournal ? CursorMove(command) : nil
        let walks = command.walksInOrderMade
        // Consumed: each case of the session's switch owns its words, so a
        // command with no file or cards has nothing to destroy.
        let outcome = try session.apply(consume command) { sink.freshSeed(sourced: sourced) }
        switch outcome {
        // The hand line after a change, nearly every command's outcome, is
        // written here: calling `show` copied the whole executor first.
        case .changed:
          if walks { sink.walked(to: session.history.cursor, sourced: sourced) }
          if sink.keepsJournal {
            sink.changed(move, history: session.history) { parser.column(at: span.lowerBound) }
          }
          if !quiet { sink.writeHandLine(session.history, renderer: renderer) }
        case .quit: return .quit
        default: show(outcome, sink: &sink)
        }
      }
    } catch {
      return report(error, span: span, parser: &parser, sink: &sink)
    }
    return sink.commandDone() ? .finished : .stopped
  }

  /// Reports the failure of the command at `span`: out of line, so that a
  /// command that ran carries no failure to destroy.
  @usableFromInline mutating func report<Sink: CommandSink>(
    _ failure: CommandError, span: Range<Int>, parser: inout LineParser, sink: inout Sink
  ) -> LineEnd {
    // A sourced file's failure was reported at its own line; at the
    // prompt, the `source` is then pointed at like any failed command.
    if failure == .sourceFailed {
      if sources.isEmpty { sink.commandFailed(span: span) }
      return .failed
    }
    let column = parser.column(at: span.lowerBound)
    if let (file, line) = sources.last {
      sink.diagnose(
        renderer.message(for: failure),
        at: SourceLocation(source: safeText(file.utf8), line: line, column: column))
    } else {
      sink.commandFailed(span: span)
      sink.diagnose(renderer.message(for: failure), column: column)
    }
    return .failed
  }

  /// `source FILE` (handsh(1), COMMANDS): reads FILE through the sink,
  /// checks all of it, then runs its commands in this session, each as if
  /// typed. Throws `.sourceFailed` when FILE had syntax errors or a command
  /// of it failed (each reported at its line); false when the sink asked to
  /// stop. `quit` ends FILE only.
  @usableFromInline mutating func source<Sink: CommandSink>(
    _ file: String, keepGoing: Bool, sink: inout Sink
  ) throws(CommandError) -> Bool {
    guard sources.count < LineExecutor.sourceDepthLimit else {
      throw .nestedTooDeeply(file: file)
    }
    let text: [UInt8]
    let checked: Bool
    switch sink.readSource(file) {
    case .success(let read): (text, checked) = (read.bytes, read.checked)
    case .failure(let failure): throw .cannotRead(file: file, reason: failure.reason)
    }
    let shown = safeText(file.utf8)
    sources.append((file, 0))
    defer { sources.removeLast() }
    return try text.withUnsafeBufferPointer { text throws(CommandError) -> Bool in
      let ascii = LineParser.isASCII(text)
      // The whole file first: any syntax error, and none of it runs. At
      // most `ErrorLimit.count` are reported; the next one stops the check.
      // In pieces of 64 KiB, the sink asked before each whether to abandon
      // FILE (Ctrl-C).
      if !checked {
        var check = ErrorCounter()
        var end = 0
        repeat {
          if end > 0, let failure = sink.checkInterrupted() {
            throw .cannotRead(file: file, reason: failure.reason)
          }
          end = min(end + (1 << 16), text.count)
          let piece = UnsafeBufferPointer(rebasing: text[..<end])
          let going = check.count(piece, final: end == text.count, knownASCII: ascii) {
            message, line, column in
            sink.diagnose(message, at: SourceLocation(source: shown, line: line, column: column))
          }
          guard going else { break }
        } while end < text.count
        if check.passed { sink.diagnose(ErrorLimit.message, in: shown) }
        guard check.errors == 0 else { throw .sourceFailed }
      }
      var lines = SourcedLines(text)
      lines.ascii = ascii
      let rules = LineRules(checksEachLine: false, keepGoing: keepGoing, failureStops: !keepGoing)
      // `quit` ends FILE only; a failed command, FILE and its `source`.
      let (end, failed) = run(lines: &lines, rules: rules, sink: &sink)
      if end == .stopped { return false }
      if failed { throw .sourceFailed }
      return true
    }
  }

  /// Shows what an outcome asks for.
  @usableFromInline func show<Sink: CommandSink>(_ outcome: Outcome, sink: inout Sink) {
    switch outcome {
    // `run` writes the hand line.
    case .changed, .nothing, .quit: break
    case .show: renderer.writeShow(session.history, to: &sink.out)
    case .deck: renderer.writeDeck(session.history, to: &sink.out)
    case .history(tree: false):
      // In pieces, each handed on: a long history is never all in memory.
      var next: Int? = 0
      while let from = next {
        next = renderer.writeHistory(
          session.history, from: from, upTo: sink.out.count + (1 << 16), to: &sink.out)
        if next != nil, !sink.commandDone() { break }
      }
    case .history(tree: true):
      var walk = HistoryTree(session.history)
      while renderer.writeHistoryTree(
        session.history, &walk, upTo: sink.out.count + (1 << 16), to: &sink.out)
      {
        if !sink.commandDone() { break }
      }
    case .limit(let limit): renderer.writeLimit(limit, to: &sink.out)
    case .help(let topic): sink.out.append(contentsOf: helpText(topic).utf8)
    }
  }
}
