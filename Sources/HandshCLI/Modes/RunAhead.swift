import HandKit

/// Where a command stands in a text: its line, and its place among the
/// items (commands and syntax errors) of that line, counted from 0. Both
/// passes over a text count with `forEachItem`, so they agree.
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
func forEachItem(
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
    var parser = LineParser(line.bytes, knownASCII: line.isASCII)
    var position = TextPosition(line: line.number, item: 0, offset: line.offset)
    while !parser.finished {
      let item = parser.nextItem()
      if case .end = item { return true }
      guard body(position, item, &parser, line) else { return false }
      position.item += 1
    }
    return true
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
  mutating func run(
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
    if executor.run(consume command, span: span, parser: &parser, sink: &sink) == .failed {
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

/// A hand line held: where it goes in its chunk's bytes, and the version
/// it shows.
private struct HeldLine {
  let offset: UInt32
  let version: UInt32
}

/// A piece of held output: bytes, and the hand lines that go between them.
private struct Chunk {
  let bytes: [UInt8]
  let lines: [HeldLine]

  func write(to output: inout Output, history: History, renderer: Renderer) {
    // Written into a buffer of this function's own, handed back to
    // `output` to flush each time it fills: appending to `output.buffer`
    // through `output` costs a retain and a check of uniqueness a line.
    var buffer: [UInt8] = []
    swap(&buffer, &output.buffer)
    defer { swap(&buffer, &output.buffer) }
    bytes.withUnsafeBufferPointer { bytes in
      var from = 0
      for line in lines {
        let offset = Int(line.offset)
        // Hand lines usually follow one another, with no bytes between.
        if offset > from {
          buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<offset]))
        }
        renderer.writeHandLine(of: Int(line.version), in: history, to: &buffer)
        from = offset
        Chunk.flushIfFull(&buffer, &output)
        if output.failure != nil { return }
      }
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
      Chunk.flushIfFull(&buffer, &output)
    }
  }

  /// Hands `buffer` to `output` to flush once it is full.
  private static func flushIfFull(_ buffer: inout [UInt8], _ output: inout Output) {
    guard buffer.count >= Output.flushThreshold else { return }
    swap(&buffer, &output.buffer)
    output.flush()
    swap(&buffer, &output.buffer)
  }

}

/// What runs ahead writes: held in memory, in chunks that are never copied
/// again until they go out, with each hand line kept as its version's
/// number. A failure is only noted; it is reported when the command runs
/// again.
private struct HeldOutput: CommandSink {
  var out: [UInt8] = []
  /// The hand lines that go between the bytes of `out`.
  var lines: [HeldLine] = []
  var held: [Chunk] = []
  /// The bytes that `held` takes.
  var heldBytes = 0
  /// With a journal: the changes run ahead, held as their versions and
  /// moves (`HeldJournal`), not as their lines.
  var journaling = false
  var journal = HeldJournal()

  var keepsJournal: Bool { journaling }
  /// The line of the command running ahead, and where the first change
  /// stands, for a journal that cannot write its lines.
  var line = 0
  var firstChange: (line: Int, column: Int)?

  /// A chunk is held once it has 64 KiB of text (as much as `Output` writes
  /// at once) or 8,192 hand lines: few enough allocations while running
  /// ahead, and each chunk goes out in about one write.
  static let chunkBytes = 1 << 16
  static let chunkLines = 1 << 13

  mutating func changed(_ move: CursorMove?, history: History) {
    changed(move, history: history) { 1 }
  }

  mutating func changed(_ move: CursorMove?, history: History, column: () -> Int) {
    if firstChange == nil { firstChange = (line, column()) }
    if let move {
      journal.moved(move, cursor: history.cursor)
    } else {
      journal.made()
    }
  }

  mutating func diagnose(_ message: String, column: Int) {}

  mutating func diagnose(_ message: String, at location: SourceLocation) {}

  mutating func diagnose(_ message: String, in source: String) {}

  mutating func save(_ script: SavedScript, to file: String) -> String? {
    // Never reached: a save pauses the run ahead.
    "not run while the text is checked"
  }

  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    // Never reached: a source pauses the run ahead.
    .failure(ReadFailure("not run while the text is checked"))
  }

  mutating func freshSeed() -> UInt64 { UInt64.random(in: .min ... .max) }

  mutating func writeHandLine(_ history: History, renderer: Renderer) {
    lines.append(
      HeldLine(
        offset: UInt32(truncatingIfNeeded: out.count),
        version: UInt32(truncatingIfNeeded: history.cursor)))
  }

  mutating func commandDone() -> Bool {
    if out.count >= HeldOutput.chunkBytes || lines.count >= HeldOutput.chunkLines {
      heldBytes += out.count + lines.count * MemoryLayout<HeldLine>.stride
      held.append(Chunk(bytes: out, lines: lines))
      out = []
      out.reserveCapacity(HeldOutput.chunkBytes + 4096)
      lines = []
      lines.reserveCapacity(HeldOutput.chunkLines)
    }
    return true
  }
}
