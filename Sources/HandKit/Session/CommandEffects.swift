/// Why a file named by `source` cannot be read: the reason, as `strerror`
/// words it (`No such file or directory`).
public struct ReadFailure: Error, Sendable, Equatable {
  public let reason: String
  public init(_ reason: String) { self.reason = reason }
}

/// What a command may ask of the world outside the library, and where it
/// sends what it shows: writing a saved script, reading a sourced one,
/// drawing a fresh seed, telling a journal or a recording what changed.
/// Called by `LineExecutor` as it runs one command
/// (`LineExecutor.runCommand`) and a `source`d FILE, never by a loop over
/// lines (those call `LineHooks`). The shell does them on the process's
/// streams and on disk (`ProcessSink`), or holds them while a text runs
/// ahead (`HeldOutput`); a golden test and an editor keep them in memory
/// (`CaptureSink`).
public protocol CommandEffects {
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
  /// `ErrorLimit.count` (reading may stop there: `ErrorCounter`); and
  /// whether the reader already checked all of the text for syntax errors
  /// as it read it and found none: the check before the run is then
  /// skipped, so a large FILE is parsed once before it runs, not twice.
  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure>
  /// `new` without a seed, typed (`sourced` false) or on a line of a
  /// sourced file: `--record` writes a typed `new` with the seed it drew.
  mutating func freshSeed(sourced: Bool) -> UInt64
  /// `earlier` or `later` went to `version`, typed (`sourced` false) or on
  /// a line of a sourced file: `--record` writes a typed one as the `goto
  /// V` it did, which replays the same whatever the clock.
  mutating func walked(to version: Int, sourced: Bool)
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
  /// `history`. Called before the command's results are written, with the
  /// column of the command's first word, worked out only if the sink asks
  /// (a journal keeps where the first command whose line it has not
  /// written yet stands).
  mutating func changed(_ move: CursorMove?, history: History, column: () -> Int)
}

/// A sourced FILE's text, as the sink read it (`CommandEffects.readSource`).
public struct SourcedText: Sendable {
  public var bytes: [UInt8]
  /// All of `bytes` was checked as it was read, and holds no syntax error.
  public var checked: Bool
  public init(bytes: [UInt8], checked: Bool = false) {
    self.bytes = bytes
    self.checked = checked
  }
}

extension CommandEffects {
  @inlinable public mutating func walked(to version: Int, sourced: Bool) {}
  @inlinable public mutating func writeHandLine(_ history: History, renderer: Renderer) {
    renderer.writeHandLine(history, to: &out)
  }
  @inlinable public var keepsJournal: Bool { false }
  @inlinable public mutating func changed(
    _ move: CursorMove?, history: History, column: () -> Int
  ) {}
}
