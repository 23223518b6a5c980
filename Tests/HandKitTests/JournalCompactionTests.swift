import Testing

@testable import HandKit

/// The compact form of a journal (`JournalText.compactForm`): for random
/// trees made by random commands (branches, gotos, undo and redo of any
/// length, new games, limits), replaying it rebuilds the same versions,
/// numbers, parents, steps, redo children and current version; it holds
/// one line a version plus the `goto`s it needs, so a session of cursor
/// moves alone compacts to a few lines; and a reader that stops it stops it.
@Suite struct JournalCompactionTests {
  private let head = "#!/usr/bin/env -S handsh --seed 42 --limit 5\n"

  /// The session of `lines` (after line 1), each line a journal command;
  /// those that fail change nothing and are skipped.
  private func session(_ lines: [String]) -> Session {
    var replay = JournalReplay()
    let all = [String(head.dropLast())] + lines
    for (index, line) in all.enumerated() {
      let bytes = Array(line.utf8)
      _ = bytes.withUnsafeBufferPointer { replay.take($0, number: index + 1) }
    }
    return replay.session
  }

  private func compact(_ history: History, chunkSize: Int = 1 << 16) -> [UInt8] {
    var bytes: [UInt8] = []
    JournalText.compactForm(of: history, chunkSize: chunkSize) { chunk in
      bytes += Array(chunk)
      return true
    }
    return bytes
  }

  /// Every version's parent, step, redo child and time, and the cursor.
  private func shape(_ history: History) -> [String] {
    (0..<history.count).map { number in
      "\(number): \(history.parent(of: number) ?? -1) \(history.commandText(of: number, ascii: true))"
        + " redo \(history.redoChild(of: number) ?? -1) at \(history.time(of: number))"
    } + ["cursor \(history.cursor)"]
  }

  @Test func randomTreesCompactToTheSameTree() throws {
    var generator = SystemRandomNumberGenerator()
    let choices = [
      "add", "add", "add", "del 1", "mv 1 2", "undo 1", "undo 3", "redo 1", "redo 2", "new 7",
      "limit 3", "limit 6",
    ]
    for round in 0..<200 {
      var lines: [String] = []
      for _ in 0..<Int.random(in: 1...80, using: &generator) {
        // Time lines: the clock mostly goes forward, now and then back.
        if Int.random(in: 0..<5, using: &generator) == 0 {
          lines.append("#@ \(Int.random(in: 0...50, using: &generator))")
        }
        if Int.random(in: 0..<6, using: &generator) == 0 {
          lines.append("goto \(Int.random(in: 0...max(lines.count, 1), using: &generator))")
        } else {
          lines.append(choices.randomElement(using: &generator) ?? "add")
        }
      }
      let original = session(lines).history
      let text = compact(original, chunkSize: Int.random(in: 1...200, using: &generator))
      let replayed = try text.withUnsafeBufferPointer { try JournalText.replay($0).get() }
      #expect(shape(replayed.history) == shape(original), "round \(round): \(lines)")
      // Compacting the compact form changes nothing.
      #expect(compact(replayed.history) == text)
    }
  }

  @Test func cursorMovesAloneCompactToAFewLines() throws {
    let lines =
      ["add", "add"] + Array(repeating: ["undo 1", "redo 1"], count: 5000).flatMap { $0 }
    let text = compact(session(lines).history)
    #expect(String(decoding: text, as: UTF8.self) == head + "#@ 0\nadd 7H\nadd 3C\n")
    let branched = session(["add", "add", "undo 1", "add", "goto 2", "undo 2"])
    #expect(
      String(decoding: compact(branched.history), as: UTF8.self)
        == head + "#@ 0\nadd 7H\nadd 3C\ngoto 1\nadd 3C\ngoto 2\ngoto 0\n")
    // A time line wherever the second changes from one version to the next.
    let timed = session(["#@ 5", "add", "add", "#@ 9", "add", "#@ 3", "undo 1", "add"])
    #expect(
      String(decoding: compact(timed.history), as: UTF8.self)
        == head + "#@ 5\nadd 7H\nadd 3C\n#@ 9\nadd KH\ngoto 2\n#@ 3\nadd KH\n")
  }

  @Test func aReaderThatStopsStopsIt() {
    let history = session(Array(repeating: "add", count: 5)).history
    var calls = 0
    let finished = JournalText.compactForm(of: history, chunkSize: 1) { _ in
      calls += 1
      return false
    }
    #expect(!finished)
    #expect(calls == 1)
  }
}
