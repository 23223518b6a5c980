import Testing

@testable import HandKit

/// A journal keeps every version's time (handsh(1), JOURNAL): the time
/// lines written before the changes, over sessions that each resume the
/// last, read back give every version the time it was made, whatever the
/// clock did, and the same tree.
@Suite struct JournalTimeTests {
  private func replay(_ text: ByteBuffer, time: Int = 0) -> Result<Session, JournalText.Failure> {
    let bytes = text.withBytes { Array($0) }
    return bytes.withUnsafeBufferPointer { JournalText.replay($0, time: time) }
  }

  /// Random sessions (adds, moves, `earlier` and `later` of both kinds),
  /// the clock stepping on by 0 to 2 seconds and now and then back, each
  /// session resumed from the text of the ones before, as `Journal` keeps
  /// it: a time line where `appendTimeLine` says, then the change's line.
  @Test(arguments: [1, 2, 3, 4])
  func timesSurviveEveryResume(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let text = ByteBuffer()
    text.append(contentsOf: JournalText.firstLine(seed: 8, limit: 6).utf8)
    var now = 5_000
    var session = Session(seed: 8, limit: 6, clock: .fixed(now))
    let commands: [Command] = [
      .add(nil), .add(nil), .delete(1), .move(1, 2), .undo(1), .undo(2), .redo(1),
      .earlier(.versions(2)), .later(.versions(1)), .earlier(.seconds(3)), .later(.seconds(2)),
      .new(4),
    ]
    for round in 0..<8 {
      if round > 0 {
        guard case .success(var resumed) = replay(text) else {
          Issue.record("round \(round): the text does not resume")
          return
        }
        #expect(resumed.history == session.history, "round \(round)")
        resumed.clock = session.clock
        session = resumed
      }
      let sessionStart = session.history.count
      for _ in 0..<40 {
        now += random.next() % 9 == 0 ? -Int(random.next() % 5) : Int(random.next() % 3)
        session.clock = .fixed(now)
        let command = commands[Int(random.next() % UInt64(commands.count))]
        let move = CursorMove(command)
        guard case .success(.changed) = session.run(command, freshSeed: { 0 }) else { continue }
        if move == nil {
          JournalText.appendTimeLine(for: session.history, sessionStart: sessionStart, to: text)
        }
        JournalText.appendLine(for: move, in: session.history, to: text)
      }
    }
    guard case .success(let resumed) = replay(text) else {
      Issue.record("the text does not resume")
      return
    }
    #expect(resumed.history == session.history)
    #expect(session.history.count > 100)
    #expect(session.history.clockWentBack > 0)
  }

  /// The first change of a session gets a time line even in the second of
  /// the change before it; a later change only in another second; the
  /// start's time goes first when version 1 is made in another second.
  @Test func aTimeLineGoesWhereTheSecondChangesAndAtEachSessionsStart() {
    var session = Session(seed: 1, clock: .fixed(70))
    let text = ByteBuffer()
    func change(at time: Int, sessionStart: Int) {
      session.clock = .fixed(time)
      _ = session.run(.add(nil)) { 0 }
      JournalText.appendTimeLine(for: session.history, sessionStart: sessionStart, to: text)
      JournalText.appendLine(for: nil, in: session.history, to: text)
    }
    change(at: 70, sessionStart: 1)
    change(at: 70, sessionStart: 1)
    change(at: 72, sessionStart: 1)
    change(at: 72, sessionStart: 4)
    change(at: 71, sessionStart: 4)
    let written = text.withBytes { String(decoding: $0, as: UTF8.self) }
    #expect(
      written
        == "#@ 70\nadd 7D\nadd 9H\n#@ 72\nadd 4D\n#@ 72\nadd 8C\n#@ 71\nadd 8D\n",
      "\(written)")
    // Version 1 in another second than version 0: version 0's time first.
    var late = Session(seed: 1, clock: .fixed(60))
    late.clock = .fixed(65)
    _ = late.run(.add(nil)) { 0 }
    let lines = ByteBuffer()
    JournalText.appendTimeLine(for: late.history, sessionStart: 1, to: lines)
    #expect(lines.withBytes { String(decoding: $0, as: UTF8.self) } == "#@ 60\n#@ 65\n")
  }

  /// Versions before any time line (a journal with no time lines) take the time given, the
  /// file's modification time; version 0 takes the first time line's when
  /// no change comes before it.
  @Test func untimedVersionsTakeTheFilesTime() {
    let text = ByteBuffer()
    text.append(contentsOf: "#!/usr/bin/env -S handsh --seed 1 --limit 5\nadd\n#@ 30\nadd\n".utf8)
    guard case .success(let old) = replay(text, time: 900) else {
      Issue.record("v6")
      return
    }
    #expect((0..<3).map { old.history.time(of: $0) } == [900, 900, 30])
    let timed = ByteBuffer()
    timed.append(contentsOf: "#!/usr/bin/env -S handsh --seed 1 --limit 5\n#@ 30\nadd\n".utf8)
    guard case .success(let new) = replay(timed, time: 900) else {
      Issue.record("v7")
      return
    }
    #expect((0..<2).map { new.history.time(of: $0) } == [30, 30])
  }
}
