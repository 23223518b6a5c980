import Testing

@testable import HandKit

/// The pieces of the reader and of `save` that keep memory bounded
/// (handsh(1), LIMITS): the script `save` makes a chunk at a time, and the
/// error counter that lets the reader stop at the error limit.
@Suite struct ReaderMemoryUnitTests {
  /// A session whose path from its game's start is `count` versions of
  /// varied steps (adds, moves both ways, limits), after a branch and a
  /// first game.
  private func longSession(_ count: Int) -> Session {
    var session = Session(seed: 7, limit: 5)
    _ = session.run(.add(nil)) { 0 }
    _ = session.run(.undo(1)) { 0 }
    _ = session.run(.new(nil)) { 101 }
    for _ in 0..<5 { _ = session.run(.add(nil)) { 0 } }
    let cycle: [Command] = [
      .move(1, 5), .move(2, 3), .limit(6), .move(5, 1), .limit(5), .move(4, 2),
    ]
    var step = 0
    let history = { (session: Session) in
      session.history.depth(of: session.history.cursor)
        - session.history.depth(of: session.history.start(of: session.current))
    }
    while history(session) < count {
      _ = session.run(cycle[step % cycle.count]) { 0 }
      step += 1
    }
    return session
  }

  /// The path from the game's start to the current version, walked the
  /// plain way: up the parents, then reversed.
  private func plainScript(_ session: Session) -> String {
    let history = session.history
    let start = history.start(of: history.current)
    let seed = history.seed(of: history.current)
    var steps: [String] = []
    var number = history.cursor
    while number != start, let parent = history.parent(of: number) {
      steps.append(history[number].step.text(seed: seed, ascii: true))
      number = parent
    }
    let lines =
      ["#!/usr/bin/env handsh", "new \(seed)", "limit \(history[start].limit)"] + steps.reversed()
    return lines.joined(separator: "\n") + "\n"
  }

  /// Over several blocks of the path (4096 versions each), the chunks make
  /// exactly the plain script, whatever the chunk size, and rebuild the
  /// current version.
  @Test func theChunksMakeThePlainScript() {
    let session = longSession(10_000)
    let plain = plainScript(session)
    #expect(plain.split(separator: "\n").count > 10_000)
    let script = SavedScript(session.history)
    #expect(script.text == plain)
    for size in [1, 10, 4096] {
      var bytes: [UInt8] = []
      var chunks = 0
      script.write(chunkSize: size) { chunk in
        bytes += chunk
        chunks += 1
        return true
      }
      #expect(String(decoding: bytes, as: UTF8.self) == plain, "chunks of \(size)")
      #expect(chunks > 1)
    }
    // A body that answers false stops the writing.
    var calls = 0
    let finished = script.write(chunkSize: 10) { _ in
      calls += 1
      return calls < 3
    }
    #expect(!finished)
    #expect(calls == 3)
    // The script rebuilds the current version.
    var rebuilt = Session(seed: 1)
    for line in plain.split(separator: "\n") {
      for item in LineParser.parse(String(line)) {
        guard case .command(let command, _) = item else { continue }
        _ = rebuilt.run(command) { 0 }
      }
    }
    #expect(rebuilt.current.hand == session.current.hand)
    #expect(rebuilt.current.deck == session.current.deck)
    #expect(rebuilt.current.limit == session.current.limit)
  }

  /// `history` writes the canonical form: the typed spelling is not kept.
  @Test func historyKeepsNoSpelling() {
    var session = Session(seed: 42)
    var bytes = Array("add; add; mv 0000000001 00002; del 000001; limit 0007".utf8)
    for item in LineParser.parse(bytes: &bytes) {
      guard case .command(let command, _) = item else { continue }
      _ = session.run(command) { 0 }
    }
    let history = session.history
    #expect(
      (3..<history.count).map { history.commandText(of: $0, ascii: true) } == [
        "mv 1 2", "del 1", "limit 7",
      ])
  }

  private func count(_ text: String, pieces: Int) -> (errors: Int, going: Bool) {
    let bytes = Array(text.utf8)
    var counter = ErrorCounter()
    var going = true
    bytes.withUnsafeBufferPointer { all in
      let step = max(1, (all.count + pieces - 1) / pieces)
      var end = 0
      while going, end < all.count {
        end = min(end + step, all.count)
        going = counter.count(UnsafeBufferPointer(rebasing: all[..<end]), final: end == all.count)
      }
    }
    return (counter.errors, going)
  }

  /// The counter finds what the check finds, read whole or in pieces cut
  /// anywhere, and says stop past the error limit or at a line too long.
  @Test func theCounterCountsAsTheCheck() {
    let few = "add\r\n\u{FEFF}add\nbogus; del 0\nshow x\nadd"
    for pieces in [1, 3, 7, 40] {
      #expect(count(few, pieces: pieces) == (errors: 4, going: true), "\(pieces) pieces")
    }
    // A byte-order mark on line 1 is no error; a last line without a
    // newline counts only once the text is all there.
    #expect(count("\u{FEFF}add\nx", pieces: 1) == (errors: 1, going: true))
    var counter = ErrorCounter()
    Array("add\nx".utf8).withUnsafeBufferPointer { _ = counter.count($0, final: false) }
    #expect(counter.errors == 0)

    let many = String(repeating: "x\n", count: 30)
    for pieces in [1, 5, 60] {
      let result = count(many, pieces: pieces)
      #expect(result.errors == ErrorLimit.count + 1)
      #expect(!result.going)
    }
    let twenty = String(repeating: "x\n", count: 20)
    #expect(count(twenty, pieces: 4) == (errors: 20, going: true))
    let long = "x\n" + String(repeating: "#", count: LineParser.maximumLineLength + 1) + "\nx\n"
    #expect(count(long, pieces: 9) == (errors: 2, going: false))
  }
}
