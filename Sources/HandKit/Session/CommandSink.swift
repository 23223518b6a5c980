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
