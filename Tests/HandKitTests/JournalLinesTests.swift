import Testing

@testable import HandKit

/// The lines of the changes held while a text was checked go out in one
/// loop (`JournalText.appendLines`), made from the versions: byte for byte
/// what a line at a time writes (`appendTimeLine`, `appendLine`), for every
/// card and kind of change, with the clock going on and back, in pieces of
/// any size.
@Suite struct JournalLinesTests {
  private func text(_ buffer: ByteBuffer) -> String {
    buffer.withBytes { String(decoding: $0, as: UTF8.self) }
  }

  @Test(arguments: [1, 7, 64, 1 << 16])
  func theLoopWritesWhatALineAtATimeWrites(limit: Int) {
    var random = SplitMix64(seed: UInt64(limit))
    var now = 100
    var session = Session(seed: 3, limit: 52, clock: .fixed(now))
    // Every card once at least (ranks 10 and the faces among them), then
    // deletes, moves, limits and new games mixed in.
    let commands: [Command] = [
      .add(nil), .add(nil), .add(nil), .delete(1), .move(1, 2), .limit(40), .limit(52),
      .new(18_446_744_073_709_551_615), .new(nil),
    ]
    for number in 0..<400 {
      now += random.next() % 7 == 0 ? -Int(random.next() % 3) : Int(random.next() % 2)
      session.clock = .fixed(now)
      let command = number < 52 ? Command.add(nil) : commands[Int(random.next() % 9)]
      _ = session.run(command) { random.next() }
    }
    let history = session.history
    #expect(history.count > 300)
    for sessionStart in [1, 2, 150] {
      let one = ByteBuffer()
      for number in 1..<history.count {
        JournalText.appendTimeLine(
          version: number, in: history, sessionStart: sessionStart, to: one)
        JournalText.appendLine(version: number, in: history, to: one)
      }
      let loop = ByteBuffer()
      var pieces = ByteBuffer()
      var number = 1
      while number < history.count {
        number = JournalText.appendLines(
          versions: number..<history.count, in: history, sessionStart: sessionStart,
          to: pieces, limit: limit)
        loop.append(pieces)
        pieces = ByteBuffer()
      }
      #expect(text(loop) == text(one), "limit \(limit), session start \(sessionStart)")
    }
    // Every card's line, 10 and the faces too, as the cards are named.
    let all = text(
      {
        let lines = ByteBuffer()
        _ = JournalText.appendLines(
          versions: 1..<history.count, in: history, sessionStart: 1, to: lines, limit: .max)
        return lines
      }())
    for card in Card.all {
      #expect(all.contains("add \(card.name(ascii: true))\n"), "\(card.name(ascii: true))")
    }
  }
}
