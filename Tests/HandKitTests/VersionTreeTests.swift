import Testing

@testable import HandKit

/// The tree of versions (handsh(1), Versions): no version is
/// ever lost, `redo` follows the redo child, `goto` reaches any version.
@Suite struct VersionTreeTests {
  private let renderer = Renderer(style: Style(ascii: true))

  @discardableResult
  private func run(_ session: inout Session, _ text: String) -> [Result<Outcome, CommandError>] {
    var results: [Result<Outcome, CommandError>] = []
    for item in LineParser.parse(text) {
      guard case .command(let command, _) = item else {
        Issue.record("syntax error in \(text): \(item)")
        continue
      }
      results.append(session.run(command) { 99 })
    }
    return results
  }

  private func hand(_ session: Session) -> String { renderer.handText(session.current.hand) }

  private func historyText(_ session: Session, json: Bool = false) -> String {
    var out: [UInt8] = []
    Renderer(style: Style(ascii: true, json: json)).writeHistory(session.history, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  // MARK: Examples

  @Test func aVersionTakesAtMost48Bytes() {
    #expect(MemoryLayout<Version>.stride + MemoryLayout<Link>.stride <= 48)
  }

  @Test func aChangeAfterUndoStartsABranchAndLosesNothing() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; undo 2; add 5s")
    #expect(session.history.count == 5 && session.history.cursor == 4)
    #expect(session.history.parent(of: 4) == 1)
    #expect(hand(session) == "5S 7H")
    #expect(session.history[3].hand.cards.count == 3)  // still there
    #expect(
      historyText(session) == """
         0  start     (empty)
         1  add 7H    7H
         2  add 3C    3C 7H
         3  add KH    KH 3C 7H
        *4  add 5S    5S 7H  (from 1)

        """)
  }

  @Test func redoAfterUndoReturnsWhereTheUndoCameFrom() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; undo 2; add 5s; undo")
    run(&session, "redo")
    #expect(session.history.cursor == 4)
    run(&session, "goto 3; undo 2; redo 2")
    #expect(session.history.cursor == 3)
  }

  @Test func gotoThenUndoThenRedoReturnsToTheTarget() {
    var session = Session(seed: 42)
    run(&session, "add; add; undo; add; add; undo 3; add; goto 2")
    #expect(session.history.cursor == 2)
    run(&session, "undo; redo")
    #expect(session.history.cursor == 2)
    run(&session, "goto 4; undo 2; redo 2")
    #expect(session.history.cursor == 4)
  }

  @Test func gotoMessagesAndNoOps() {
    var session = Session(seed: 42)
    run(&session, "add; add")
    let before = session.history
    let results = run(&session, "goto 3; goto 2")
    #expect(results[0] == .failure(.noVersion(3, last: 2)))
    #expect(renderer.message(for: .noVersion(3, last: 2)) == "no version 3 (versions 0 to 2)")
    #expect(results[1] == .success(.nothing))
    #expect(session.history == before)
    #expect(run(&session, "goto 0") == [.success(.changed)])
    #expect(hand(session) == "(empty)")
  }

  @Test func undoAndRedoCountTheirReach() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; undo 3; add; add")
    // The path from 0 has two versions before the current one.
    #expect(run(&session, "undo 3") == [.failure(.cannotUndo(3, only: 2))])
    run(&session, "undo 2")
    #expect(run(&session, "redo 3") == [.failure(.cannotRedo(3, only: 2))])
    run(&session, "goto 3")
    #expect(run(&session, "redo") == [.failure(.nothingToRedo)])
    run(&session, "undo 3")
    #expect(run(&session, "redo 4") == [.failure(.cannotRedo(4, only: 3))])
  }

  @Test func saveWritesThePathOfTheCurrentBranchOnly() {
    var session = Session(seed: 42)
    run(&session, "add; add; add; undo 2; add 5s; goto 3; undo; del 1")
    #expect(
      session.saveScript() == """
        #!/usr/bin/env handsh
        new 42
        limit 5
        add 7H
        add 3C
        del 1

        """)
  }

  @Test func jsonHistoryNamesEachParent() {
    var session = Session(seed: 42)
    run(&session, "add; undo; add 2h")
    #expect(
      historyText(session, json: true) == """
        {"version":0,"parent":null,"command":"start","hand":[],"current":false}
        {"version":1,"parent":0,"command":"add 7H","hand":["7H"],"current":false}
        {"version":2,"parent":0,"command":"add 2H","hand":["2H"],"current":true}

        """)
  }

  @Test func theCommandColumnIsPaddedToEightCharacters() {
    var session = Session(seed: 42)
    run(&session, "add 10d; mv 1 1; limit 7; new 12345678901")
    let lines = historyText(session).split(separator: "\n")
    #expect(lines[1] == " 1  add 10D   10D")
    #expect(lines[2] == " 2  limit 7   10D")
    #expect(lines[3] == "*3  new 12345678901  (empty)")
  }

  // MARK: Against a naive model

  /// The tree as the manual words it, done the slow, obvious way: each
  /// version's parent; each version's redo child, set along the whole path
  /// from version 0 whenever the current version changes.
  private struct Model {
    var parents: [Int] = [-1]
    var redo: [Int?] = [nil]
    var cursor = 0

    func path(to target: Int) -> [Int] {
      var path = [target]
      while let last = path.last, parents[last] >= 0 { path.append(parents[last]) }
      return path.reversed()
    }

    mutating func become(_ target: Int) {
      cursor = target
      let path = path(to: target)
      for (parent, child) in zip(path, path.dropFirst()) { redo[parent] = child }
    }

    mutating func change() {
      parents.append(cursor)
      redo.append(nil)
      become(parents.count - 1)
    }

    /// Whether `undo steps` succeeds.
    mutating func undo(_ steps: Int) -> Bool {
      let path = path(to: cursor)
      guard steps <= path.count - 1 else { return false }
      become(path[path.count - 1 - steps])
      return true
    }

    mutating func redo(_ steps: Int) -> Bool {
      var target = cursor
      for _ in 0..<steps {
        guard let next = redo[target] else { return false }
        target = next
      }
      become(target)
      return true
    }

    mutating func goto(_ target: Int) -> Bool {
      guard target < parents.count else { return false }
      become(target)
      return true
    }
  }

  private func check(_ session: Session, against model: Model, _ step: String) {
    let history = session.history
    #expect(history.count == model.parents.count, "\(step)")
    #expect(history.cursor == model.cursor, "\(step)")
    for number in 0..<history.count {
      #expect(history.parent(of: number) == (number == 0 ? nil : model.parents[number]), "\(step)")
      #expect(history.redoChild(of: number) == model.redo[number], "\(step): redo of \(number)")
      #expect(history.depth(of: number) == model.path(to: number).count - 1, "\(step)")
    }
  }

  @Test func randomWalksFollowTheRedoChildRule() {
    var random = SplitMix64(seed: 17)
    for walk in 0..<200 {
      var session = Session(seed: UInt64(walk), limit: 52)
      var model = Model()
      // The hand each version holds, to check that moves land on them.
      var hands = [session.current.hand]
      for step in 0..<90 {
        // Mostly short moves, sometimes long ones (redo jumps back from the
        // end of the chain of redo children when it knows it).
        let small = 1 + Int(random.next() % (random.next() % 4 == 0 ? 24 : 4))
        let text: String
        switch random.next() % 8 {
        case 0, 1, 2: text = "add"
        case 3: text = "undo \(small)"
        case 4: text = "redo \(small)"
        case 5: text = "new \(random.next() % 3)"
        default: text = "goto \(Int(random.next() % UInt64(model.parents.count + 2)))"
        }
        let results = run(&session, text)
        let succeeded: Bool
        if text.hasPrefix("undo") {
          succeeded = model.undo(small)
        } else if text.hasPrefix("redo") {
          succeeded = model.redo(small)
        } else if let number = text.split(separator: " ").last.flatMap({ Int($0) }),
          text.hasPrefix("goto")
        {
          succeeded = model.goto(number)
        } else {
          // `add` fails only on a full deck or hand; then nothing changes.
          if case .success = results.first {
            model.change()
            hands.append(session.current.hand)
          }
          succeeded = true
        }
        if case .failure = results.first, !text.hasPrefix("add") {
          #expect(!succeeded, "walk \(walk) step \(step)")
        }
        if case .success = results.first { #expect(succeeded, "walk \(walk) step \(step)") }
        #expect(session.current.hand == hands[model.cursor], "walk \(walk) step \(step)")
        check(session, against: model, "walk \(walk) step \(step): \(text)")
      }
    }
  }

  @Test func ancestorsAtADepthMatchParentWalks() {
    var session = Session(seed: 3, limit: 52)
    var random = SplitMix64(seed: 8)
    // A tree of long chains: 3,000 changes, each after an undo of 0 to 9.
    for _ in 0..<3000 {
      let back = Int(random.next() % 10)
      if back > 0, back <= session.history.undoDepth { run(&session, "undo \(back)") }
      run(&session, "add; undo")
      run(&session, "redo")
    }
    let history = session.history
    for _ in 0..<2000 {
      let number = Int(random.next() % UInt64(history.count))
      let depth = Int(random.next() % UInt64(history.depth(of: number) + 1))
      var walked = number
      while history.depth(of: walked) > depth, let parent = history.parent(of: walked) {
        walked = parent
      }
      #expect(history.ancestor(of: number, atDepth: depth) == walked)
    }
    #expect(history.ancestor(of: history.count - 1, atDepth: -1) == 0)
    #expect(history.ancestor(of: 5, atDepth: 1_000) == 5)
  }

  /// The ancestor search follows few links, whatever the distance: at most
  /// 3·log₂ of the depth it starts from, on a chain of 200,000 versions and
  /// in a tree of branches. (Caught the mutant that swapped the two jumps of
  /// the skew-binary rule: every answer stayed right, but the search turned
  /// linear and a long `undo` on a long chain took 18 times as long.)
  @Test func theAncestorSearchTakesLogarithmicallyManySteps() {
    var chain = History(seed: 1, limit: 52)
    let versions = 200_000
    for _ in 1..<versions {
      chain.push(Version(hand: .empty, deck: .full, game: 0, limit: 52, step: .limit(52)), time: 0)
    }
    var random = SplitMix64(seed: 25)
    // Myers' bound: three times the bits of the depth the search starts
    // from (it takes about 2.3 times as many at worst here).
    func bits(_ depth: Int) -> Int { Int.bitWidth - depth.leadingZeroBitCount }
    func bound(_ depth: Int) -> Int { 3 * bits(depth) }
    var most = 0
    var queries: [(number: Int, depth: Int)] = (0..<3000).map { _ in
      let number = Int(random.next() % UInt64(versions))
      return (number, Int(random.next() % UInt64(number + 1)))
    }
    queries += [(versions - 1, 0), (versions - 1, 1), (versions - 1, versions - 2)]
    queries += (0..<18).map { (versions - 1, (versions - 1) >> $0) }
    for (number, depth) in queries {
      var steps = 0
      let found = chain.ancestor(of: number, atDepth: depth, steps: &steps)
      #expect(found == depth, "chain: ancestor of \(number) at depth \(depth)")
      #expect(steps <= bound(number), "\(steps) steps from \(number) up to depth \(depth)")
      most = max(most, steps)
    }
    // The bound is not loose: the search takes about as many steps.
    #expect(most >= bits(versions - 1), "at most \(most) steps: is anything searched?")

    // A tree: long chains with short branches off them.
    var session = Session(seed: 3, limit: 52)
    for _ in 0..<3000 {
      let back = Int(random.next() % 10)
      if back > 0, back <= session.history.undoDepth { run(&session, "undo \(back)") }
      run(&session, "add; undo; redo")
    }
    let tree = session.history
    for _ in 0..<2000 {
      let number = Int(random.next() % UInt64(tree.count))
      let depth = Int(random.next() % UInt64(tree.depth(of: number) + 1))
      var steps = 0
      _ = tree.ancestor(of: number, atDepth: depth, steps: &steps)
      #expect(steps <= bound(tree.depth(of: number)), "tree: \(steps) steps from \(number)")
    }
  }

  @Test func aChangeTakesConstantTimeEvenDeepInATree() {
    // 100,000 branches off version 0: the store never copies what it
    // holds, so this finishes quickly.
    var session = Session(seed: 1, limit: 52)
    for _ in 0..<100_000 { run(&session, "add; undo") }
    #expect(session.history.count == 100_001)
    #expect(session.history.undoDepth == 0)
    run(&session, "redo; goto 100000; undo")
    #expect(session.history.cursor == 0 && session.history.redoChild(of: 0) == 100_000)
  }
}
