import HandKit

/// A hand line held: where it goes in its chunk's bytes, and the version
/// it shows.
struct HeldLine {
  let offset: UInt32
  let version: UInt32
}

/// A piece of held output: bytes, and the hand lines that go between them.
struct Chunk {
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
struct HeldOutput: CommandSink {
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

  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    // Never reached: a source pauses the run ahead.
    .failure(ReadFailure("not run while the text is checked"))
  }

  mutating func freshSeed(sourced: Bool) -> UInt64 { UInt64.random(in: .min ... .max) }

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
