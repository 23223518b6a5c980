/// The versions of a history in the order `history tree` draws them
/// (handsh(1), COMMANDS, history): depth first from version 0, a version's
/// children in the order they were made, each with what its line draws.
/// A walk keeps two numbers a version (each version's first child and next
/// sibling) and a frame for each branching on the path it is on, never a
/// frame a version: a chain of a million versions takes no stack.
public struct HistoryTree: Sendable {
  /// The most levels of branches drawn: each takes three columns, so the
  /// drawing is at most 48 columns wide whatever the tree's shape. A line
  /// deeper than that is folded: drawn at the last level, as if it went on
  /// the branch there, with `(from P)` when its parent is not the line above.
  public static let drawnLevels = 16

  /// One line of the drawing: the version, how deep its branch lies, and
  /// the segments to draw before it.
  public struct Line: Sendable, Equatable {
    public var number: Int
    /// How many branchings lie on the path from version 0 (0: the trunk).
    public var level: Int
    /// The version starts a branch (its parent has more than one child).
    public var startsBranch: Bool
    /// The branch is the last child of the version it starts from.
    public var lastBranch: Bool
    /// The version on the line before, if any.
    public var previous: Int?
  }

  private let firstChild: [Int32]
  private let nextSibling: [Int32]
  /// The branches not yet walked, for each branching on the path: the
  /// next sibling to walk, and its level.
  private var pending: [(next: Int32, level: Int32)] = []
  /// For each level on the path, whether its branch is the last child
  /// (its line does not go on below it).
  public private(set) var lastAtLevel: [Bool] = [false]
  private var next: Line?
  private var previous: Int?

  public init(_ history: History) {
    var first = [Int32](repeating: -1, count: history.count)
    var sibling = [Int32](repeating: -1, count: history.count)
    // Backwards, so that each list of children is in the order made.
    for number in stride(from: history.count - 1, through: 1, by: -1) {
      guard let parent = history.parent(of: number), parent >= 0, parent < history.count else {
        continue
      }
      sibling[number] = first[parent]
      first[parent] = Int32(number)
    }
    firstChild = first
    nextSibling = sibling
    next =
      history.count > 0
      ? Line(number: 0, level: 0, startsBranch: false, lastBranch: true) : nil
  }

  /// The next line, or nil after the last version.
  public mutating func nextLine() -> Line? {
    guard var line = next else { return nil }
    line.previous = previous
    previous = line.number
    if line.startsBranch {
      if lastAtLevel.count <= line.level { lastAtLevel.append(line.lastBranch) }
      lastAtLevel[line.level] = line.lastBranch
    }
    lastAtLevel.removeSubrange(min(lastAtLevel.count, line.level + 1)...)
    let child = firstChild[line.number]
    if child >= 0 {
      let sibling = nextSibling[Int(child)]
      if sibling < 0 {
        // One child: the same branch goes on.
        next = Line(
          number: Int(child), level: line.level, startsBranch: false, lastBranch: false)
      } else {
        let level = line.level + 1
        pending.append((sibling, Int32(level)))
        next = Line(number: Int(child), level: level, startsBranch: true, lastBranch: false)
      }
    } else if let frame = pending.popLast() {
      let after = nextSibling[Int(frame.next)]
      if after >= 0 { pending.append((after, frame.level)) }
      next = Line(
        number: Int(frame.next), level: Int(frame.level), startsBranch: true,
        lastBranch: after < 0)
    } else {
      next = nil
    }
    return line
  }
}
