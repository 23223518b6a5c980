import Testing

@testable import HandKit

/// `history tree` (handsh(1), COMMANDS, history): every version once, depth
/// first, children in the order made; the drawing shows every version's
/// parent, is at most 48 columns wide whatever the shape, and a history
/// that never branched prints exactly what `history` prints.
@Suite struct HistoryTreeTests {
  private func session(_ text: String, seed: UInt64 = 42) -> Session {
    var session = Session(seed: seed)
    for item in LineParser.parse(text) {
      guard case .command(let command, _) = item else {
        Issue.record("syntax error in \(text): \(item)")
        continue
      }
      _ = session.run(command) { 99 }
    }
    return session
  }

  private func tree(_ history: History, ascii: Bool = false, json: Bool = false) -> String {
    var walk = HistoryTree(history)
    var out: [UInt8] = []
    let renderer = Renderer(style: Style(ascii: ascii, json: json))
    // Small pieces, as the shell streams them.
    while renderer.writeHistoryTree(history, &walk, upTo: out.count + 100, to: &out) {}
    return String(decoding: out, as: UTF8.self)
  }

  private func list(_ history: History, json: Bool = false) -> String {
    var out: [UInt8] = []
    Renderer(style: Style(json: json)).writeHistory(history, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The parents the drawing shows, read back as a reader would: a line
  /// that starts a branch (`├─ `, `└─ `) hangs from the last line one level
  /// up; any other line from the line above; `(from P)` says it outright.
  private func parentsDrawn(_ text: String, width: Int) -> [Int: Int] {
    read(text, width: width).parents
  }

  /// `parentsDrawn`, and the widest drawing in columns. `width`: the
  /// width of the number column.
  private func read(_ text: String, width: Int) -> (parents: [Int: Int], widest: Int) {
    var widest = 0
    var parents: [Int: Int] = [:]
    var lastAtLevel: [Int: Int] = [:]
    var previous: Int?
    for line in text.split(separator: "\n") {
      // The drawing ends where the marker column does: one column before
      // the number, right-aligned to `width`.
      let scalars = Array(line.unicodeScalars)
      guard let first = scalars.firstIndex(where: { $0.properties.numericType != nil }) else {
        continue
      }
      let digits = scalars[first...].prefix { $0.properties.numericType != nil }
      let number = Int(String(String.UnicodeScalarView(digits))) ?? -1
      let drawing = scalars[..<(first - (width - digits.count) - 1)]
      let segments = drawing.count / 3
      let last = drawing.suffix(3)
      let startsBranch = ["├─ ", "└─ "].contains(String(String.UnicodeScalarView(last)))
      widest = max(widest, drawing.count)
      let rest = String(String.UnicodeScalarView(scalars[first...]))
      if let range = rest.firstRange(of: "(from ") {
        parents[number] = Int(rest[range.upperBound...].prefix { $0 != ")" })
      } else if startsBranch {
        parents[number] = lastAtLevel[segments - 1]
      } else if let previous {
        parents[number] = previous
      }
      lastAtLevel[segments] = number
      previous = number
    }
    return (parents, widest)
  }

  /// A branch at every version, each `levels` deep: a `limit` made, taken
  /// back, another made, and the path goes on from that one.
  private func comb(_ levels: Int) -> String {
    Array(repeating: "limit 4; undo; limit 3; limit 5", count: levels).joined(separator: "; ")
  }

  @Test func theBranchOfTheManPageIsDrawn() {
    let history = session("add; add; add; undo 2; add 5s").history
    #expect(
      tree(history) == """
         0  start     (empty)
         1  add 7♥    7♥
        ├─  2  add 3♣    3♣ 7♥
        │   3  add K♥    K♥ 3♣ 7♥
        └─ *4  add 5♠    5♠ 7♥

        """)
    #expect(
      tree(history, ascii: true) == """
         0  start     (empty)
         1  add 7H    7H
        |-  2  add 3C    3C 7H
        |   3  add KH    KH 3C 7H
        `- *4  add 5S    5S 7H

        """)
  }

  @Test func aHistoryThatNeverBranchedIsExactlyHistory() {
    for text in ["", "add", "add; add; mv 1 2; del 1; limit 3; new 7; add", "add; undo; redo"] {
      let history = session(text).history
      #expect(tree(history) == list(history), "\(text)")
    }
  }

  @Test func nestedBranchesHangFromTheirParents() {
    let history = session("add; add; undo; add; add; undo; add; goto 1; add; goto 0; add").history
    let drawn = tree(history)
    #expect(drawn.split(separator: "\n").count == history.count)
    let parents = parentsDrawn(drawn, width: String(history.count - 1).count)
    for number in 1..<history.count {
      #expect(parents[number] == history.parent(of: number), "\(number) in\n\(drawn)")
    }
  }

  /// 40 levels of branches: the drawing stops at 16 levels (48 columns),
  /// the deeper lines say `(from P)` where their parent is not the line
  /// above, and every parent can still be read back.
  @Test func deepBranchesAreFoldedAt48Columns() {
    let history = session(comb(40)).history
    let drawn = tree(history)
    #expect(drawn.split(separator: "\n").count == history.count)
    let (parents, widest) = read(drawn, width: String(history.count - 1).count)
    #expect(widest == 48)
    #expect(drawn.contains("(from "))
    for number in 1..<history.count {
      #expect(parents[number] == history.parent(of: number), "version \(number)")
    }
  }

  /// Random sessions (branches, gotos, news, limits): every version once,
  /// every parent readable from the drawing, and the JSON objects those of
  /// `history` in the tree's order.
  @Test func randomTreesDrawEveryVersionOnceWithItsParent() {
    var generator = SplitMix64(seed: 7)
    let commands = ["add", "add", "add", "undo", "undo 2", "redo", "del 1", "new 3", "limit 4"]
    for _ in 0..<40 {
      var words: [String] = []
      for _ in 0..<60 {
        let pick = Int(generator.next() % UInt64(commands.count + 1))
        words.append(pick == commands.count ? "goto \(generator.next() % 8)" : commands[pick])
      }
      var session = Session(seed: 1)
      for item in LineParser.parse(words.joined(separator: "; ")) {
        if case .command(let command, _) = item { _ = session.run(command) { 5 } }
      }
      let history = session.history
      let drawn = tree(history)
      let parents = parentsDrawn(drawn, width: String(history.count - 1).count)
      #expect(Set(parents.keys).union([0]) == Set(0..<history.count))
      for number in 1..<history.count {
        #expect(parents[number] == history.parent(of: number))
      }
      let json = tree(history, json: true).split(separator: "\n")
      #expect(json.sorted() == list(history, json: true).split(separator: "\n").sorted())
      #expect(json.first?.hasPrefix("{\"version\":0,") == true)
    }
  }

  /// The output grows with the number of versions, not with the depth of
  /// their branches: a comb of 3,000 versions whose branches nest 1,000
  /// deep costs at most 48 columns a line more than `history`.
  @Test func theOutputIsLinearInTheVersions() {
    let history = session(comb(1000)).history
    #expect(history.count == 3001)
    let drawn = tree(history)
    #expect(drawn.unicodeScalars.count <= list(history).unicodeScalars.count + 48 * history.count)
    #expect(read(drawn, width: 4).widest == 48)
  }

  /// The drawing of a version's line by the rule, from the tree alone (a
  /// model to hold the renderer to, not its walk): children in the order
  /// made, a version with one child followed by it at the same step, each
  /// child of a branching one step further in; three columns a step,
  /// `├─ ` or `└─ ` where a branch starts, `│  ` beside a branch whose
  /// parent has another to come, else spaces; past 16 steps drawn at the
  /// 16th, with `(from P)` when the parent is not the line above.
  private func modelTree(_ history: History, ascii: Bool = false) -> String {
    var children = [[Int]](repeating: [], count: history.count)
    for number in 1..<max(history.count, 1) {
      if let parent = history.parent(of: number) { children[parent].append(number) }
    }
    // The columns of `history`, without its own `(from P)`.
    var columns: [String] = []
    var out: [UInt8] = []
    Renderer(style: Style(ascii: ascii)).writeHistory(history, to: &out)
    for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
      columns.append(String(line.split(separator: "  (from ").first ?? line))
    }
    let (branch, last, side) = ascii ? ("|- ", "`- ", "|  ") : ("├─ ", "└─ ", "│  ")
    var text = ""
    var previous = -1
    // (version, its level, whether it starts a branch, the branches on its
    // path: whether each is its parent's last), depth first.
    var stack: [(Int, Int, Bool, [Bool])] = [(0, 0, false, [])]
    while let (number, level, starts, lasts) = stack.popLast() {
      for step in 1..<(min(level, 16) + 1) {
        let isLast = lasts[step - 1]
        text += step == level && starts ? (isLast ? last : branch) : (isLast ? "   " : side)
      }
      text += columns[number]
      if level > 16, let parent = history.parent(of: number), parent != previous {
        text += "  (from \(parent))"
      }
      text += "\n"
      previous = number
      let kids = children[number]
      if kids.count == 1 {
        stack.append((kids[0], level, false, lasts))
      } else {
        for (index, kid) in kids.enumerated().reversed() {
          stack.append((kid, level + 1, true, lasts + [index == kids.count - 1]))
        }
      }
    }
    return text
  }

  /// The drawing, exactly: three columns a step, so the
  /// marker of the current version never touches the drawing.
  @Test func theDrawingIsThreeColumnsAStep() {
    let history = session("add; add; add; undo 2; add; add; undo; add; goto 2; add").history
    let expected = """
       0  start     (empty)
       1  add 7♥    7♥
      ├─  2  add 3♣    3♣ 7♥
      │  ├─  3  add K♥    K♥ 3♣ 7♥
      │  └─ *7  add K♥    K♥ 3♣ 7♥
      └─  4  add 3♣    3♣ 7♥
         ├─  5  add K♥    K♥ 3♣ 7♥
         └─  6  add K♥    K♥ 3♣ 7♥

      """
    #expect(tree(history) == expected)
    #expect(tree(history) == modelTree(history))
    #expect(tree(history, ascii: true) == modelTree(history, ascii: true))
    #expect(
      tree(history, ascii: true).split(separator: "\n")[4] == "|  `- *7  add KH    KH 3C 7H")
  }

  /// A tree that branches exactly at the fold: the last branch of the
  /// 16th step is drawn there, `└─ ` at columns 46 to 48, with no `(from
  /// P)`, though its parent is not the line above; the same at the 17th
  /// step is folded onto the 16th and says `(from P)`. (Folding one level
  /// early gave the 16th step's line a `(from P)`.)
  @Test func aBranchExactlyAtTheFoldIsDrawnAndTheNextIsFolded() {
    for levels in [15, 16, 17, 18] {
      let history = session(comb(levels)).history
      let drawn = tree(history)
      #expect(drawn == modelTree(history), "\(levels) levels")
      let lines = drawn.split(separator: "\n").map(String.init)
      // Each level's branching: `limit 4` (a leaf), then `limit 3` (the
      // last branch, its parent not the line above), then `limit 5`.
      for level in 1...levels {
        let last = 3 * level - 1
        let line = lines[last]
        if level <= 16 {
          let drawing = String(repeating: "   ", count: level - 1) + "└─ "
          #expect(line.hasPrefix(drawing), "level \(level): \(line)")
          #expect(!line.contains("(from"), "level \(level): \(line)")
        } else {
          #expect(line.hasPrefix(String(repeating: "   ", count: 16) + " "), "\(line)")
          #expect(line.hasSuffix("(from \(last - 2))"), "level \(level): \(line)")
        }
      }
    }
  }

  /// Random trees, shallow and deep (a branch made at most changes, so
  /// that paths pass 16 steps and fold), drawn exactly as the model draws
  /// them, in Unicode and in ASCII.
  @Test func randomTreesAreDrawnByTheRule() {
    var generator = SplitMix64(seed: 17)
    for round in 0..<60 {
      let deep = round % 2 == 1
      var session = Session(seed: 1, limit: 52)
      for _ in 0..<(deep ? 300 : 60) {
        let count = UInt64(session.history.count)
        let text: String
        switch generator.next() % (deep ? 40 : 10) {
        case 0: text = "goto \(generator.next() % count)"
        case 1: text = "undo \(1 + generator.next() % 3)"
        case 2, 3, 4: text = "add"
        case 10..<40: text = "limit 9; undo; limit 8"
        case 5: text = "new 3"
        default: text = deep ? "limit \(5 + generator.next() % 48)" : "add; undo; add"
        }
        for item in LineParser.parse(text) {
          if case .command(let command, _) = item { _ = session.run(command) { 5 } }
        }
      }
      let history = session.history
      #expect(tree(history) == modelTree(history), "round \(round)")
      #expect(tree(history, ascii: true) == modelTree(history, ascii: true), "round \(round)")
      if deep { #expect(tree(history).contains("(from "), "round \(round): no fold") }
    }
  }
}
