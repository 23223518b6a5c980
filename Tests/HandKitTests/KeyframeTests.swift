import Testing

@testable import HandKit

/// A large hand is rebuilt from the nearest version up its path whose hand
/// is kept whole, never more than `2 * keyframeSpacing - 1` steps away
/// (handsh(1), Versions), however the tree branches and wherever `undo`,
/// `redo` and `goto` leave the cursor: the rebuild's steps bounded, as the
/// ancestor search's are. Hands stay right whatever the keyframes do, so
/// only a count sees keyframes twice as sparse, placed one too far up, or
/// a distance left stale after a move.
@Suite struct KeyframeTests {
  private let bound = 2 * History.keyframeSpacing - 1

  /// Runs TEXT; the most steps the current version's rebuild took after
  /// any of its commands (the newest version is where a keyframe placed
  /// too far up shows, before the next one hides it).
  @discardableResult
  private func run(_ session: inout Session, _ text: String) -> Int {
    var most = 0
    for item in LineParser.parse(text) {
      guard case .command(let command, _) = item else {
        Issue.record("syntax error in \(text): \(item)")
        continue
      }
      _ = session.run(command) { 7 }
      most = max(most, session.history.rebuildSteps(of: session.history.cursor))
    }
    return most
  }

  /// The most steps any version's rebuild takes, and the versions that pass
  /// the bound.
  private func steps(_ history: History) -> (most: Int, over: [Int]) {
    var most = 0
    var over: [Int] = []
    for number in 0..<history.count {
      let steps = history.rebuildSteps(of: number)
      most = max(most, steps)
      if steps > bound { over.append(number) }
    }
    return (most, over)
  }

  /// One long path of large hands: the newest version within the bound
  /// after every change, and the bound reached there (keyframes are not
  /// denser than they need be); once the path is made, every version on it
  /// is less than a spacing from its keyframe.
  @Test func aLongPathOfLargeHandsIsRebuiltInBoundedSteps() {
    var session = Session(seed: 5, limit: 52)
    var newest = run(&session, Array(repeating: "add", count: 20).joined(separator: ";"))
    for index in 0..<400 {
      newest = max(newest, run(&session, index % 2 == 0 ? "mv 1 20" : "mv 20 1"))
    }
    #expect(newest == bound, "the newest version took \(newest) steps at most")
    let (most, over) = steps(session.history)
    #expect(over.isEmpty, "versions past \(bound) steps: \(over.prefix(10))")
    #expect(most >= History.keyframeSpacing - 1, "at most \(most) steps: are hands rebuilt?")
  }

  /// Branches made after `undo`, `goto` and `redo` to versions at every
  /// distance from their keyframe: the distance the next change counts
  /// from is the one the move found, never the one before it.
  @Test func branchesAfterMovesKeepTheBound() {
    var session = Session(seed: 9, limit: 52)
    var random = SplitMix64(seed: 47)
    var newest = run(&session, Array(repeating: "add", count: 15).joined(separator: ";"))
    for _ in 0..<1500 {
      switch random.next() % 12 {
      case 0:
        let back = 1 + Int(random.next() % 20)
        if back <= session.history.undoDepth { run(&session, "undo \(back)") }
      case 1:
        run(&session, "goto \(Int(random.next() % UInt64(session.history.count)))")
      case 2: run(&session, "undo; redo")
      case 3:
        // Down to a hand kept in its entry, now and then.
        if session.current.hand.count > 9 { newest = max(newest, run(&session, "del 1")) }
      default:
        let from = 1 + Int(random.next() % UInt64(max(1, session.current.hand.count)))
        let text = session.current.hand.count > 11 ? "mv \(from) 1" : "add"
        newest = max(newest, run(&session, text))
      }
    }
    #expect(session.history.count > 900, "\(session.history.count) versions")
    #expect(newest <= bound, "a new version took \(newest) steps")
    let (most, over) = steps(session.history)
    #expect(over.isEmpty, "versions past \(bound) steps: \(over.prefix(10)) (most \(most))")
    #expect(most >= History.keyframeSpacing, "at most \(most) steps")
  }
}
