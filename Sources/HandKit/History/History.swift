/// The tree of versions and the cursor that `undo`, `redo` and `goto` move
/// (handsh(1), Versions). Versions are numbered in the order
/// made and never dropped: a version's number is its index in one
/// append-only store. Each remembers its parent, its depth, a jump pointer
/// and its redo child; nothing else about a version ever changes once it is
/// made.
///
/// The store is fixed-size chunks, so it grows without ever copying what it
/// holds: each version's state (32 bytes) beside its place in the tree (16
/// bytes). A history shares its store with its copies until one of them
/// changes, as an array does; `push` is then a store to the next slot.
public struct History: Sendable {
  private var store: Store
  /// The seed of each game, in the order the versions start them. A game's
  /// shuffled order is not kept: it follows from the seed, and the session
  /// keeps the current one at hand, so a `new` costs a few bytes.
  private var seeds: [UInt64]
  /// For each game, the number of the version that starts it.
  private var gameStarts: [Int]
  /// Where the chain of redo children from the current version ends, when
  /// known: then `redo N` is a jump back from it, not N hops forward.
  private var tip: Int? = 0

  /// The number of versions, every branch included.
  public var count: Int { store.count }
  /// The number of the current version.
  public private(set) var cursor: Int

  /// A history whose version 0 is an empty hand and a full deck shuffled by
  /// `seed`.
  public init(seed: UInt64, limit: Int) {
    let start = Version(hand: .empty, deck: .full, game: 0, limit: limit, step: .start)
    store = Store()
    store.append(Entry(version: start, link: Link(parent: 0, depth: 0, jump: 0)))
    seeds = [seed]
    gameStarts = [0]
    cursor = 0
  }

  private func link(_ number: Int) -> Link { store.entry(number).pointee.link }

  /// Version `number`, 0 to `count - 1`. The caller checks the range.
  public subscript(number: Int) -> Version { store.entry(number).pointee.version }

  public var current: Version { self[cursor] }

  /// The version `number` was made from: nil for version 0.
  public func parent(of number: Int) -> Int? {
    number == 0 ? nil : Int(link(number).parent)
  }

  /// How many versions lie on the path from version 0 to `number`, `number`
  /// not counted: how far `undo` can go from it.
  public func depth(of number: Int) -> Int { Int(link(number).depth) }

  /// The child that `redo` moves to from `number`, if any.
  public func redoChild(of number: Int) -> Int? {
    let child = link(number).redo
    return child == 0 ? nil : Int(child)
  }

  /// The ancestor of `number` (or itself) at `depth`, 0 to its depth: jump
  /// pointers skip ahead where they do not overshoot, so this takes
  /// O(log n) steps, and never more than the levels it climbs.
  public func ancestor(of number: Int, atDepth depth: Int) -> Int {
    var steps = 0
    return ancestor(of: number, atDepth: depth, steps: &steps)
  }

  /// `ancestor(of:atDepth:)`, counting in `steps` the links it follows (the
  /// tests bound them: the jump pointers are what keeps them few).
  func ancestor(of number: Int, atDepth depth: Int, steps: inout Int) -> Int {
    // Below 0 is version 0, whose jump is itself.
    let depth = max(depth, 0)
    var number = number
    while self.depth(of: number) > depth {
      let here = link(number)
      number = Int(link(Int(here.jump)).depth) >= depth ? Int(here.jump) : Int(here.parent)
      steps += 1
    }
    return number
  }

  /// The seed of the game that `version` belongs to.
  public func seed(of version: Version) -> UInt64 { seeds[Int(version.game)] }

  /// The game that `version` belongs to, shuffled again from its seed.
  public func game(of version: Version) -> Game { Game(seed: seed(of: version)) }

  /// The number of the version that started `version`'s game.
  public func start(of version: Version) -> Int { gameStarts[Int(version.game)] }

  /// How many versions `undo` can reach: the current version's depth.
  public var undoDepth: Int { depth(of: cursor) }

  /// How many versions `redo` can reach, counting at most `limit` of them,
  /// by walking the chain of redo children (the session knows where it ends).
  public func redoDepth(upTo limit: Int = .max) -> Int { redoWalk(upTo: limit).steps }

  /// At most `limit` hops along the redo children from the current
  /// version: where they end, and how many there were.
  private func redoWalk(upTo limit: Int) -> (end: Int, steps: Int) {
    var (number, steps) = (cursor, 0)
    while steps < limit, let child = redoChild(of: number) {
      number = child
      steps += 1
    }
    return (number, steps)
  }

  /// The command that made version `number`, as `history` writes it: in
  /// canonical form, whatever was typed (`del 02` is `del 2`), `add` with
  /// its card, `new` with its seed. Only the step is kept, never the text.
  public func commandText(of number: Int, ascii: Bool) -> String {
    let version = self[number]
    return version.step.text(seed: seed(of: version), ascii: ascii)
  }

  /// Adds `version` as a child of the current one and makes it current; it
  /// becomes the current version's redo child. Constant time.
  @inline(__always)
  mutating func push(_ version: consuming Version) {
    let parent = cursor
    let number = count
    // The skew-binary jump pointer (Myers): twice the parent's jump when
    // the parent's two jumps are as long, else the parent.
    own()
    let entry = store.entry(parent)
    let up = entry.pointee.link
    let jump = link(Int(up.jump))
    let far = up.depth &- jump.depth == jump.depth &- link(Int(jump.jump)).depth
    entry.pointee.link.redo = UInt32(truncatingIfNeeded: number)
    store.append(
      Entry(
        version: version,
        link: Link(
          parent: UInt32(truncatingIfNeeded: parent), depth: up.depth &+ 1,
          jump: far ? jump.jump : UInt32(truncatingIfNeeded: parent))))
    cursor = number
    tip = number
  }

  /// Adds the first version of a new game shuffled by `seed`.
  mutating func pushGame(seed: UInt64, limit: Int) {
    let number = UInt32(truncatingIfNeeded: seeds.count)
    seeds.append(seed)
    gameStarts.append(count)
    push(Version(hand: .empty, deck: .full, game: number, limit: limit, step: .new))
  }

  /// `undo N`: makes the ancestor `steps` up current; the caller checks
  /// `steps <= undoDepth`. The redo children on the way already lead back.
  mutating func undo(_ steps: Int) {
    // A few steps are hops to the parent, which is usually in the cache; a
    // jump pointer can lead anywhere in the store.
    guard steps <= 8 else {
      cursor = ancestor(of: cursor, atDepth: max(depth(of: cursor) - steps, 0))
      return
    }
    for _ in 0..<max(steps, 0) {
      cursor = Int(link(cursor).parent)
    }
  }

  /// How many versions `redo` can reach, counting at most `limit` of them:
  /// at most `limit` hops along the redo children, or none when their end
  /// is known.
  mutating func redoReach(upTo limit: Int) -> Int {
    if let tip { return min(depth(of: tip) - depth(of: cursor), limit) }
    let (end, steps) = redoWalk(upTo: limit)
    if steps < limit { tip = end }
    return steps
  }

  /// `redo N`: `steps` hops along the redo children, or a jump back from
  /// where they end; the caller checks `steps <= redoReach(upTo: steps)`.
  mutating func redo(_ steps: Int) {
    if let tip, steps > 8 {
      cursor = ancestor(of: tip, atDepth: min(depth(of: cursor) + steps, depth(of: tip)))
      return
    }
    for _ in 0..<max(steps, 0) {
      guard let child = redoChild(of: cursor) else { return }
      cursor = child
    }
  }

  /// `goto V`: makes `target` (0 to `count - 1`) current. Both ends walk up
  /// to their common ancestor, depth first, as git finds a merge base; on
  /// the way up from `target` each version is made its parent's redo child,
  /// so the redo children lead from version 0 to the new current version.
  mutating func go(to target: Int) {
    var (from, to) = (cursor, target)
    while depth(of: from) > depth(of: to) { from = Int(link(from).parent) }
    while depth(of: to) > depth(of: from) { to = climb(to) }
    while from != to {
      from = Int(link(from).parent)
      to = climb(to)
    }
    // The chain of redo children still ends at `tip` when `target` is on it.
    if let tip,
      depth(of: target) > depth(of: tip) || ancestor(of: tip, atDepth: depth(of: target)) != target
    {
      self.tip = nil
    }
    cursor = target
  }

  /// One step up from `number` that marks it as its parent's redo child.
  private mutating func climb(_ number: Int) -> Int {
    let parent = Int(link(number).parent)
    setRedo(of: parent, to: number)
    return parent
  }

  /// The one write to a version already made: its redo child.
  private mutating func setRedo(of number: Int, to child: Int) {
    own()
    store.entry(number).pointee.link.redo = UInt32(truncatingIfNeeded: child)
  }

  /// Makes the store this history's own before it changes.
  @inline(__always)
  private mutating func own() {
    if !isKnownUniquelyReferenced(&store) { store = store.copy() }
  }
}

/// A version and its place in the tree, side by side: 48 bytes.
private struct Entry: Sendable, Equatable {
  let version: Version
  var link: Link
}

/// The versions of a history, in chunks of `chunkSize` that never move once
/// allocated. Changed only by a history that holds the one reference to it
/// (copy on write), so it is as safe to send as the history.
private final class Store: @unchecked Sendable {
  private static let chunkShift = 12
  private static let chunkSize = 1 << chunkShift

  private struct State {
    /// The chunks allocated, in order, in a table of `capacity` places.
    var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>
    var capacity: Int
    var count = 0
    /// Whether an entry holds a hand of more than ten cards, the one part
    /// of an entry that is a reference.
    var holdsArrays = false
  }

  /// Behind a pointer, not in stored properties: a class's stored `var` is
  /// checked for exclusive access at run time on every use. The table of
  /// chunks is a pointer too, not an array: every entry below `count` is
  /// in a chunk, so a lookup needs no bounds check of its own.
  private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

  init() {
    let capacity = 16
    state.initialize(to: State(chunks: .allocate(capacity: capacity), capacity: capacity))
  }

  deinit {
    let count = state.pointee.count
    let chunks = (count + Store.chunkSize - 1) >> Store.chunkShift
    for i in 0..<chunks {
      let chunk = state.pointee.chunks[i]
      // Only a hand of more than ten cards holds a reference: the other
      // entries are plain numbers, with nothing to release, and when there
      // is no such hand, the entries need not be read at all.
      if state.pointee.holdsArrays {
        for j in 0..<min(count - i * Store.chunkSize, Store.chunkSize)
        where chunk[j].version.hand.spills {
          (chunk + j).deinitialize(count: 1)
        }
      }
      chunk.deallocate()
    }
    state.pointee.chunks.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  var count: Int { state.pointee.count }

  /// Entry `number`, 0 to `count - 1`; the caller checks the range.
  @inline(__always)
  func entry(_ number: Int) -> UnsafeMutablePointer<Entry> {
    state.pointee.chunks[number >> Store.chunkShift] + (number & (Store.chunkSize - 1))
  }

  @inline(__always)
  func append(_ entry: consuming Entry) {
    let count = state.pointee.count
    let slot = count & (Store.chunkSize - 1)
    if slot == 0 { addChunk(count >> Store.chunkShift) }
    if entry.version.hand.spills { state.pointee.holdsArrays = true }
    (state.pointee.chunks[count >> Store.chunkShift] + slot).initialize(to: entry)
    state.pointee.count = count + 1
  }

  /// Allocates chunk `index`, the first past those allocated.
  private func addChunk(_ index: Int) {
    if index == state.pointee.capacity {
      let capacity = index * 2
      let chunks = UnsafeMutablePointer<UnsafeMutablePointer<Entry>>.allocate(capacity: capacity)
      chunks.moveInitialize(from: state.pointee.chunks, count: index)
      state.pointee.chunks.deallocate()
      state.pointee.chunks = chunks
      state.pointee.capacity = capacity
    }
    (state.pointee.chunks + index).initialize(to: .allocate(capacity: Store.chunkSize))
  }

  /// A store of its own, with the same entries.
  func copy() -> Store {
    let copy = Store()
    for number in 0..<count { copy.append(entry(number).pointee) }
    return copy
  }

  func equals(_ other: Store) -> Bool {
    count == other.count && (0..<count).allSatisfy { entry($0).pointee == other.entry($0).pointee }
  }
}

/// A version's place in the tree: plain numbers, 16 bytes.
struct Link: Sendable, Equatable {
  /// The version this one was made from (0 for version 0 itself).
  let parent: UInt32
  /// Versions on the path from version 0, this one not counted.
  let depth: UInt32
  /// An ancestor further up, for finding the ancestor at a depth in
  /// O(log n) steps (Myers' skew-binary jump pointers).
  let jump: UInt32
  /// The child `redo` moves to; 0 (never a child) for none.
  var redo: UInt32 = 0

  init(parent: UInt32, depth: UInt32, jump: UInt32) {
    self.parent = parent
    self.depth = depth
    self.jump = jump
  }
}

extension History: Equatable {
  public static func == (a: History, b: History) -> Bool {
    // `tip` is a cache of what the links say.
    a.cursor == b.cursor && a.store.equals(b.store)
      && a.seeds == b.seeds
      && a.gameStarts == b.gameStarts
  }
}
