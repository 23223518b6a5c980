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

  /// Runs the commands of a line already checked for syntax errors: the
  /// one step for every runner of lines in the core (stdin, the prompt, a
  /// sourced FILE, a golden test, through `runLines`). The first failed
  /// command ends the line unless `keepGoing` (a script's `-k`); `failed`
  /// is set when a command failed, which with `keepGoing` the line's end
  /// does not say.
  @inlinable public mutating func runLine<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool, keepGoing: Bool, failed: inout Bool,
    sink: inout Sink
  ) -> LineEnd {
    var end = LineEnd.finished
    let whole = LineParser.forEachItem(in: line, knownASCII: knownASCII) { item, parser in
      guard case .command(let command, let span) = item else { return true }
      end = runCommand(command, span: span, parser: &parser, keepGoing: keepGoing, sink: &sink)
      if end == .failed { failed = true }
      return end.goesOn(keepGoing: keepGoing)
    }
    return whole ? .finished : end
  }

  /// Runs one command that `parser` has just read (`span` holds its
  /// words): echoes it, applies it, shows the outcome or reports the failure.
  /// `keepGoing` (`-k`) lets a sourced file go on after a failed command.
  @inlinable public mutating func runCommand<Sink: CommandSink>(
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
      let (end, failed) = runLines(&lines, rules: rules, sink: &sink)
      if end == .stopped { return false }
      if failed { throw .sourceFailed }
      return true
    }
  }

  /// Shows what an outcome asks for.
  @usableFromInline func show<Sink: CommandSink>(_ outcome: Outcome, sink: inout Sink) {
    switch outcome {
    // `runCommand` writes the hand line.
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
