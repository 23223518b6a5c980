import Testing

@testable import HandKit

/// The changes a text made while it was checked are held as words
/// (`HeldJournal`) and their lines made when the check ends: byte for byte
/// what `Journal` writes a change at a time (a time line where
/// `appendTimeLine` says, then the change's line), in pieces of whole
/// lines, over runs long and short, moves of every kind, numbers too large
/// for a word, and more words than a chunk holds.
@Suite struct HeldJournalTests {
  private func text(_ buffer: ByteBuffer) -> String {
    buffer.withBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// What `held` writes, every piece `body` is handed put together.
  private func written(_ held: HeldJournal, _ history: History) -> (String, pieces: Int) {
    let (out, all) = (ByteBuffer(), ByteBuffer())
    var pieces = 0
    held.write(from: history, into: out) {
      all.append(out)
      out.removeAll()
      pieces += 1
      return true
    }
    all.append(out)
    return (text(all), pieces)
  }

  @Test(arguments: [1, 2, 3])
  func theHeldLinesAreTheLinesOfEachChange(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var now = 1_000
    var session = Session(seed: seed, limit: 8, clock: .fixed(now))
    let commands: [Command] = [
      .add(nil), .add(nil), .add(nil), .delete(1), .move(1, 2), .undo(1), .undo(2), .redo(1),
      .goto(3), .earlier(.versions(2)), .later(.versions(1)), .earlier(.seconds(3)),
      .later(.seconds(2)), .new(18_446_744_073_709_551_615), .new(nil), .limit(6), .limit(8),
    ]
    // Version 0 and 1 to 40 came before: the held changes start after them.
    for _ in 0..<40 { _ = session.run(.add(nil)) { 0 } }
    let sessionStart = 20
    var held = HeldJournal(firstVersion: session.history.count, sessionStart: sessionStart)
    let one = ByteBuffer()
    // Long enough for many 64 KiB pieces, and a run of 5,000 adds and
    // deletes with no move between.
    for number in 0..<60_000 {
      now += random.next() % 9 == 0 ? -Int(random.next() % 5) : Int(random.next() % 2)
      session.clock = .fixed(now)
      let command =
        (20_000..<25_000).contains(number)
        ? (number % 2 == 0 ? Command.add(nil) : .delete(1))
        : commands[Int(random.next() % UInt64(commands.count))]
      let move = CursorMove(command)
      guard case .success(.changed) = session.run(command, freshSeed: { random.next() }) else {
        continue
      }
      if let move {
        held.moved(move, cursor: session.history.cursor)
      } else {
        held.made()
        JournalText.appendTimeLine(for: session.history, sessionStart: sessionStart, to: one)
      }
      JournalText.appendLine(for: move, in: session.history, to: one)
    }
    let (lines, pieces) = written(held, session.history)
    #expect(pieces > 3)
    #expect(lines == text(one))
    #expect(lines.contains("goto "))
    #expect(lines.contains("#@ "))
  }

  /// Moves whose numbers take three words, a chunk's worth and more of
  /// one-word moves, then versions: in order, none lost at a chunk's end.
  @Test func wideNumbersAndFullChunks() {
    var session = Session(seed: 1)
    _ = session.run(.add(nil)) { 0 }
    var held = HeldJournal(firstVersion: 1, sessionStart: 1)
    held.made()
    let one = ByteBuffer()
    JournalText.appendTimeLine(for: session.history, sessionStart: 1, to: one)
    JournalText.appendLine(for: nil, in: session.history, to: one)
    let moves: [CursorMove] =
      (0..<40_000).map { $0 % 3 == 0 ? .undo($0) : $0 % 3 == 1 ? .redo($0) : .goto($0) }
      + [.goto(1 << 40), .undo(0x3FFF_FFFE), .redo(0x3FFF_FFFF), .goto(Int.max)]
      + (0..<16_383).map { .undo($0 + 1) } + [.goto(1 << 33), .walked]
    for move in moves {
      held.moved(move, cursor: session.history.cursor)
      JournalText.appendLine(for: move, in: session.history, to: one)
    }
    #expect(written(held, session.history).0 == text(one))
    #expect(text(one).contains("goto 9223372036854775807\n"))
  }

  @Test func nothingHeldIsEmpty() {
    var held = HeldJournal(firstVersion: 1)
    #expect(held.isEmpty)
    held.made()
    #expect(!held.isEmpty)
  }
}
