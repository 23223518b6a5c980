import Testing

@testable import HandKit

/// Each version keeps the second it was made (handsh(1), Versions), told
/// by the clock the shell gives the session; `earlier TIME` and `later
/// TIME` look times up by bisection where the clock never went back.
@Suite struct VersionTimeTests {
  /// A session whose versions are made at `times`, one `add` or `new`
  /// each, after version 0 at `start`; every fifth change branches off
  /// after an `undo`, so the times belong to a tree, not a line.
  private func session(start: Int, times: [Int]) -> Session {
    var session = Session(seed: 5, limit: 52, clock: .fixed(start))
    for (index, time) in times.enumerated() {
      session.clock = .fixed(time)
      if index % 5 == 4, session.history.undoDepth > 0 { _ = session.run(.undo(1)) { 1 } }
      let command: Command = index % 7 == 6 ? .new(UInt64(index)) : .add(nil)
      _ = session.run(command) { 1 }
    }
    return session
  }

  @Test func aVersionKeepsTheSecondItWasMadeAndMovesMakeNone() {
    var session = Session(seed: 1, clock: .fixed(1_000))
    session.clock = .fixed(1_005)
    _ = session.run(.add(nil)) { 1 }
    session.clock = .fixed(1_009)
    _ = session.run(.undo(1)) { 1 }
    _ = session.run(.new(3)) { 1 }
    session.clock = .fixed(1_002)
    _ = session.run(.goto(1)) { 1 }
    _ = session.run(.limit(9)) { 1 }
    let history = session.history
    #expect((0..<history.count).map { history.time(of: $0) } == [1_000, 1_005, 1_009, 1_002])
    #expect(history.clockWentBack == 3)
    var copy = session
    copy.clock = .fixed(1_010)
    _ = copy.run(.add(nil)) { 1 }
    #expect(copy.history.time(of: 4) == 1_010)
    #expect(session.history.count == 4)
    #expect(copy.history != session.history)
  }

  @Test func timesOutsideTheStoredRangeAreClamped() {
    var session = Session(seed: 1, clock: .fixed(-7))
    session.clock = .fixed(History.latestTime + 99)
    _ = session.run(.add(nil)) { 1 }
    #expect(session.history.time(of: 0) == 0)
    #expect(session.history.time(of: 1) == History.latestTime)
  }

  @Test func theStartTimeCanBeSetAndTheClockGoingBackIsKnown() {
    var session = self.session(start: 50, times: [60, 70])
    session.setStartTime(65)
    #expect(session.history.time(of: 0) == 65)
    #expect(session.history.clockWentBack == 1)
    session.setStartTime(10)
    #expect(session.history.clockWentBack == 0)
    var longer = self.session(start: 50, times: [60, 40, 70])
    longer.setStartTime(99)
    #expect(longer.history.clockWentBack == 2)
  }

  /// The rules, looked at version by version.
  private func earlierByRule(_ history: History, _ current: Int, _ deadline: Int) -> Int {
    (0..<current).last { history.time(of: $0) <= deadline } ?? 0
  }

  private func laterByRule(_ history: History, _ current: Int, _ deadline: Int) -> Int {
    let found = (0..<history.count).last { history.time(of: $0) <= deadline } ?? 0
    return found > current ? found : current + 1
  }

  /// Random times that mostly go forward, or stay, and now and then go
  /// back (`backwards`), checked against the rules from every version.
  @Test(arguments: [false, true])
  func theSearchesFollowTheRules(backwards: Bool) {
    var random = SplitMix64(seed: backwards ? 3 : 4)
    for _ in 0..<40 {
      var time = 1_000 + Int(random.next() % 100)
      var times: [Int] = []
      for _ in 0..<(1 + Int(random.next() % 60)) {
        let jump = Int(random.next() % 4)
        time += backwards && random.next() % 6 == 0 ? -Int(random.next() % 30) : jump
        times.append(time)
      }
      let history = session(start: 1_000, times: times).history
      for current in 0..<history.count {
        for _ in 0..<6 {
          let deadline = 990 + Int(random.next() % UInt64(max(time - 980, 1)))
          #expect(
            history.latest(below: current, madeBy: deadline)
              == earlierByRule(history, current, deadline))
          if current + 1 < history.count {
            #expect(
              history.latest(above: current, madeBy: deadline)
                == laterByRule(history, current, deadline))
          }
        }
      }
    }
  }

  /// Where the clock never went back, a time is found in about log2 of the
  /// versions' looks, not one per version; where it went back, the look
  /// below that point goes one version at a time, and still finds it.
  @Test func theSearchBisectsWhereTheClockNeverWentBack() {
    let count = 1 << 16
    let history = session(start: 0, times: (1..<count).map { $0 / 3 }).history
    var steps = 0
    #expect(history.latest(in: 0..<count, madeBy: 1_000, steps: &steps) == 3_002)
    #expect(steps <= 17)
    var back = session(start: 0, times: (1..<count).map { $0 == 40_000 ? 0 : $0 })
    back.clock = .fixed(count)
    _ = back.run(.add(nil)) { 1 }
    #expect(back.history.clockWentBack == 40_000)
    steps = 0
    #expect(back.history.latest(in: 0..<count, madeBy: 50_000, steps: &steps) == 50_000)
    #expect(steps <= 17)
    #expect(back.history.latest(below: 40_001, madeBy: 39_999) == 40_000)
    #expect(back.history.latest(below: 40_000, madeBy: 39_990) == 39_990)
  }
}
