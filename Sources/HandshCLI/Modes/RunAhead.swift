import HandKit

/// Where a command stands in a text: its line, and its place among the
/// items (commands and syntax errors) of that line, counted from 0. Both
/// passes over a text count with `forEachItemOfText`, so they agree.
struct TextPosition: Comparable {
  var line: Int
  var item: Int
  /// Where the line starts in the text, to read on from it (not compared).
  var offset = 0

  static func < (a: TextPosition, b: TextPosition) -> Bool {
    (a.line, a.item) < (b.line, b.item)
  }

  static func == (a: TextPosition, b: TextPosition) -> Bool {
    (a.line, a.item) == (b.line, b.item)
  }
}

/// Calls `body` with every item of every line of `lines`, in order, with
/// its position and the parser that read it; `body` returns false to stop.
/// Returns the number of a line over the length limit, where reading stopped.
@discardableResult
func forEachItemOfText(
  _ lines: inout TextLines,
  _ body: (TextPosition, consuming ParsedItem, inout LineParser, Line) -> Bool
) -> Int? {
  var tooLong: Int?
  lines.forEachLine { event in
    if case .tooLong(let number) = event {
      tooLong = number
      return false
    }
    guard case .line(let line) = event else { return true }
    var position = TextPosition(line: line.number, item: 0, offset: line.offset)
    return LineParser.forEachItem(in: line.bytes, knownASCII: line.isASCII) { item, parser in
      guard body(position, item, &parser, line) else { return false }
      position.item += 1
      return true
    }
  }
  return tooLong
}

/// Runs a text's commands while the text is still being checked, so that
/// a valid script is parsed once (a check pass, then a run pass, is
/// measurably slower: `scripts/bench`). All it
/// does can be taken back until the check ends: its output is held, and the
/// session it started from is kept. It pauses at the first command that
/// cannot be taken back (a save, a quit, a failure's diagnostic) or once
/// the held output is large; the run resumes there after the check.
struct RunAhead {
  /// The session before the first command, for `rollBack`.
  private let start: Session
  /// Where running stopped, to go on from after the check.
  private(set) var pausedAt: TextPosition?
  private var sink = HeldOutput()

  /// The most output held while a text is checked (bounds the memory). A
  /// hand line is held as the version it shows, 8 bytes, not as its text,
  /// so that the 1M-command script of `scripts/bench` runs ahead whole,
  /// parsed once, its hand lines held beside its versions.
  static let holdLimit = 8 << 20

  /// `journaling`: the lines of the changes run ahead are held too, and
  /// reach the journal only when the text has checked clean (`commit`);
  /// `journalStart` is the journal's `sessionStart`.
  init(from session: Session, enabled: Bool, journaling: Bool = false, journalStart: Int = 0) {
    start = session
    sink.journaling = journaling
    sink.journal.firstVersion = session.history.count
    sink.journal.sessionStart = journalStart
    if !enabled { pausedAt = TextPosition(line: 1, item: 0) }
  }

  /// Stops running ahead; the run resumes at `position` after the check.
  mutating func pause(at position: TextPosition) {
    if pausedAt == nil { pausedAt = position }
  }

  /// Runs the command at `position` now, if it can be taken back.
  mutating func runCommand(
    _ command: consuming Command, span: Range<Int>, parser: inout LineParser,
    at position: TextPosition,
    executor: inout LineExecutor
  ) {
    guard pausedAt == nil else { return }
    // The command table says which commands wait: a save or a quit cannot
    // be taken back, a source may do either, and a history can be long (it
    // streams when run, never held).
    if command.pausesRunAhead { return pause(at: position) }
    guard sink.heldBytes < RunAhead.holdLimit else { return pause(at: position) }
    let mark = (sink.out.count, sink.lines.count)
    sink.line = position.line
    if executor.runCommand(consume command, span: span, parser: &parser, sink: &sink) == .failed {
      // A failed command changed nothing; it runs again, and reports, later.
      sink.out.removeSubrange(mark.0...)
      sink.lines.removeSubrange(mark.1...)
      pause(at: position)
    }
  }

  /// The text checked clean: its held output goes out, each hand line
  /// written from the version it shows (`history` has every version made).
  /// Once a write has failed (a closed pipe), the rest is dropped, not
  /// gathered in memory.
  func commit(
    to output: inout Output, history: History, renderer: Renderer, source: String = ""
  ) {
    // Write-ahead: the lines of the changes go before their results.
    output.journal?.record(
      held: sink.journal,
      first: sink.firstChange.map {
        Journal.Place(source: source, line: $0.line, column: $0.column)
      }, history: history)
    for chunk in sink.held where output.failure == nil {
      chunk.write(to: &output, history: history, renderer: renderer)
    }
    guard output.failure == nil else { return }
    Chunk(bytes: sink.out, lines: sink.lines).write(
      to: &output, history: history, renderer: renderer)
  }

  /// The text has syntax errors: nothing ran, not the output, not the changes.
  func rollBack(_ executor: inout LineExecutor) {
    executor.session = start
  }
}
