/// Where the commands of a line send what they show, and the two things a
/// command may ask of the world outside the library: writing a saved script
/// and drawing a fresh seed. The shell writes to the process's streams; a
/// golden test captures both streams line by line.
public protocol CommandSink {
  /// Bytes for stdout, appended by the renderers.
  var out: [UInt8] { get set }
  /// A syntax error or a failed command: its message and the 1-based column
  /// of the word it is about. Output appended so far comes first.
  mutating func diagnose(_ message: String, column: Int)
  /// `save FILE`: writes `script`; the reason when it cannot.
  mutating func save(_ script: String, to file: String) -> String?
  /// `new` without a seed.
  mutating func freshSeed() -> UInt64
  /// After each command that ran, and between the pieces of a long output:
  /// false stops the line (a failed write).
  mutating func commandDone() -> Bool
  /// A command failed; called just before its diagnostic, with the byte
  /// range of the command's words in the line (the prompt points at it).
  mutating func commandFailed(span: Range<Int>)
}

extension CommandSink {
  @inlinable public mutating func commandDone() -> Bool { true }
  @inlinable public mutating func commandFailed(span: Range<Int>) {}
}

/// How the commands of a line ended.
public enum LineEnd: Sendable, Equatable {
  /// Every command of the line ran (with `keepGoing`, some may have failed).
  case finished
  /// A command failed and the rest of the line was skipped.
  case failed
  /// `quit` or `exit` ran.
  case quit
  /// The sink asked to stop.
  case stopped
}

/// How one command ended.
public enum CommandEnd: Sendable, Equatable {
  case ran, failed, quit
  /// The sink asked to stop.
  case stopped
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
    var parser = LineParser(line, knownASCII: knownASCII)
    var errors = 0
    while true {
      let item = parser.nextItem()
      if case .end = item { break }
      if case .error(let error) = item {
        sink.diagnose(error.message, column: error.column)
        errors += 1
      }
    }
    return errors
  }

  /// Runs the commands of a line already checked for syntax errors. The
  /// first failed command ends the line unless `keepGoing` (a script's `-k`).
  @inlinable public mutating func run<Sink: CommandSink>(
    _ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false, keepGoing: Bool = false,
    sink: inout Sink
  ) -> LineEnd {
    var parser = LineParser(line, knownASCII: knownASCII)
    while true {
      let item = parser.nextItem()
      if case .end = item { break }
      guard case .command(let command, let span) = item else { continue }
      switch run(command, span: span, parser: &parser, sink: &sink) {
      case .ran: break
      case .failed: if !keepGoing { return .failed }
      case .quit: return .quit
      case .stopped: return .stopped
      }
    }
    return .finished
  }

  /// Runs one command that `parser` has just read (`span` holds its
  /// words): echoes it, applies it, shows the outcome or reports the failure.
  @inlinable public mutating func run<Sink: CommandSink>(
    _ command: Command, span: Range<Int>, parser: inout LineParser, sink: inout Sink
  ) -> CommandEnd {
    if echo { renderer.writeEcho(parser.words(in: span), to: &sink.out) }
    var failure: CommandError?
    do throws(CommandError) {
      let outcome = try session.apply(command, written: spelling(command, span, parser)) {
        sink.freshSeed()
      }
      if case .quit = outcome { return .quit }
      failure = show(outcome, sink: &sink)
    } catch {
      failure = error
    }
    if let failure {
      sink.commandFailed(span: span)
      sink.diagnose(renderer.message(for: failure), column: parser.column(at: span.lowerBound))
      return .failed
    }
    return sink.commandDone() ? .ran : .stopped
  }

  /// How `history` must write a change typed with padded numbers (`del 02`).
  @usableFromInline func spelling(_ command: Command, _ span: Range<Int>, _ parser: LineParser)
    -> String?
  {
    switch command {
    case .delete, .move, .limit(.some): parser.unusualSpelling(of: span)
    default: nil
    }
  }

  /// Shows what an outcome asks for; a failed `save` is the one failure.
  @usableFromInline func show<Sink: CommandSink>(_ outcome: Outcome, sink: inout Sink)
    -> CommandError?
  {
    switch outcome {
    case .changed:
      if !quiet { renderer.writeHandLine(session.history, to: &sink.out) }
    case .nothing, .quit: break
    case .show: renderer.writeShow(session.history, to: &sink.out)
    case .deck: renderer.writeDeck(session.history, to: &sink.out)
    case .history:
      // In pieces, each handed on: a long history is never all in memory.
      var next: Int? = 0
      while let from = next {
        next = renderer.writeHistory(
          session.history, from: from, upTo: sink.out.count + (1 << 16), to: &sink.out)
        if next != nil, !sink.commandDone() { break }
      }
    case .limit(let limit): renderer.writeLimit(limit, to: &sink.out)
    case .help(let topic): sink.out.append(contentsOf: helpText(topic).utf8)
    case .save(let file, let script):
      if let reason = sink.save(script, to: file) {
        return .cannotWrite(file: file, reason: reason)
      }
    }
    return nil
  }
}
