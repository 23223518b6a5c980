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
  /// that starts a branch (`├─`, `└─`) hangs from the last line one level
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
      let segments = drawing.count / 2
      let last = drawing.suffix(2)
      let startsBranch = ["├─", "└─"].contains(String(String.UnicodeScalarView(last)))
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
        ├─ 2  add 3♣    3♣ 7♥
        │  3  add K♥    K♥ 3♣ 7♥
        └─*4  add 5♠    5♠ 7♥

        """)
    #expect(
      tree(history, ascii: true) == """
         0  start     (empty)
         1  add 7H    7H
        |- 2  add 3C    3C 7H
        |  3  add KH    KH 3C 7H
        `-*4  add 5S    5S 7H

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

  /// 40 levels of branches: the drawing stops at 24 levels (48 columns),
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
}
