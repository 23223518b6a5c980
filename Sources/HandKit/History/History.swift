/// The tree of versions and the cursor that `undo`, `redo` and `goto` move
/// (handsh(1), Versions). Versions are numbered in the order
/// made and never dropped: a version's number is its index in one
/// append-only store. Each remembers its parent, its depth, a jump pointer
/// and its redo child; nothing else about a version ever changes once it is
/// made.
///
/// The store is fixed-size chunks, so it grows without ever copying what it
/// holds: 44 bytes a version, whatever its command and its hand. A version
/// keeps what its command changed: its place in the tree (16 bytes), its
/// step, limit and game, its deck (a mask of 52 bits; the first version of
/// a game, whose deck is full, keeps the game's seed there instead), a
/// hand of up to ten cards packed in one word, and the second it was made
/// (4 bytes). A larger hand is not kept:
/// it is its parent's hand with the version's step done to it, and is
/// rebuilt from the nearest version up the path whose hand is kept whole.
/// That is never more than `2 * keyframeSpacing - 1` versions up: when a
/// change would make it so, the version `keyframeSpacing` up from the new
/// one gets its hand kept whole (a keyframe, 52 bytes beside the store).
/// A keyframe so placed brings the `keyframeSpacing` versions below it on
/// the path (the new one included) from further than `keyframeSpacing` to
/// at most that, and nothing takes them further again: so each keyframe
/// has versions of its own to pay for it, and there are at most
/// `count / keyframeSpacing` of them, however the tree branches: 3.25 bytes
/// a version at most, 47.25 in all. The current version is kept whole beside the store,
/// so a command reads it without rebuilding anything; `undo`, `redo` and
/// `goto` make whole the version they reach, a large hand in a bounded
/// number of steps. A history shares its store with its copies until one
/// of them changes, as an array does; `push` is then a store to the next
/// slot.
public struct History: Sendable {
  var store: Store
  /// Where the chain of redo children from the current version ends, when
  /// known: then `redo N` is a jump back from it, not N hops forward.
  private var tip: Int? = 0

  /// The number of versions, every branch included.
  public var count: Int { store.count }
  /// The number of the current version.
  public private(set) var cursor: Int
  /// The current version, whole: kept beside the store, so that a command
  /// reads it as it is, its hand not rebuilt.
  public private(set) var current: Version
  /// How many versions up from the current one lies the nearest version
  /// whose hand is kept whole (0: the current one's).
  private var distance = 0
  /// The highest-numbered version made in an earlier second than the
  /// version numbered before it (0 when the clock never went back): from
  /// it on, times never decrease, so a time is found there by bisection.
  var clockWentBack = 0
  /// The time of the newest version, as the store keeps it: what a new
  /// one's is compared with, without a look in the store.
  var newestTime: UInt32 = 0

  /// How far apart, at least, keyframes are on a path (handsh(1), Versions):
  /// a hand is rebuilt in at most twice as many steps.
  static let keyframeSpacing = 16

  /// A history whose version 0 is an empty hand and a full deck shuffled by
  /// `seed`, made at `time` (seconds since 1970, UTC).
  public init(seed: UInt64, limit: Int, time: Int = 0) {
    let start = Version(hand: .empty, deck: .full, game: 0, limit: limit, step: .start)
    current = start
    store = Store()
    store.append(
      Entry(
        link: Link(parent: 0, depth: 0, jump: 0), deck: seed, hand: 0, game: 0,
        step: .start, limit: start.storedLimit), time: History.storedTime(time))
    newestTime = History.storedTime(time)
    cursor = 0
  }

  private func link(_ number: Int) -> Link { store.entry(number).pointee.link }

  /// Version `number`, 0 to `count - 1`. The caller checks the range.
  @inline(__always)
  public subscript(number: Int) -> Version {
    let entry = store.entry(number)
    let code = entry.pointee.hand
    let game = entry.pointee.game
    return Version(
      hand: code & 0xF <= 10 ? Hand(word: code) : largeHand(of: number),
      // A game's first version keeps its game's seed in place of its deck.
      deck: Int(game) == number ? .full : Deck(bits: entry.pointee.deck), game: game,
      limit: Int(entry.pointee.limit), step: entry.pointee.step)
  }

  /// Version `number`, as the subscript gives it, made from `previous` (a
  /// version and its hand) when that is its parent: so a list of versions
  /// in order, as `history` writes it, makes each large hand in one step.
  @inline(__always)
  public func version(_ number: Int, after previous: (number: Int, hand: Hand)?) -> Version {
    guard store.entry(number).pointee.hand & 0xF == HandCode.delta, number != cursor else {
      return self[number]
    }
    return version(rebuilding: number, after: previous)
  }

  /// `version(_:after:)` for a version whose hand its entry does not keep.
  @inline(never)
  private func version(rebuilding number: Int, after previous: (number: Int, hand: Hand)?)
    -> Version
  {
    let entry = store.entry(number)
    guard let previous, previous.number == Int(entry.pointee.link.parent) else {
      return self[number]
    }
    var cards = previous.hand.cards
    entry.pointee.step.apply(to: &cards)
    return Version(
      hand: Hand(cards), deck: Deck(bits: entry.pointee.deck), game: entry.pointee.game,
      limit: Int(entry.pointee.limit), step: entry.pointee.step)
  }

  /// The hand of version `number`, which has more than ten cards.
  @inline(never)
  private func largeHand(of number: Int) -> Hand {
    number == cursor ? current.hand : rebuild(number).hand
  }

  /// The hand of version `number`, which is not kept whole: up the parents
  /// to the nearest version whose hand is, then down again, each step done
  /// to the cards as its command did it. Also how many steps that took.
  @inline(never)
  private func rebuild(_ number: Int) -> (hand: Hand, distance: Int) {
    var steps: [Step] = []
    steps.reserveCapacity(2 * History.keyframeSpacing)
    var number = number
    var entry = store.entry(number)
    while entry.pointee.hand & 0xF == HandCode.delta {
      steps.append(entry.pointee.step)
      number = Int(entry.pointee.link.parent)
      entry = store.entry(number)
    }
    let code = entry.pointee.hand
    var cards = code & 0xF == HandCode.keyframe ? store.keyframe(code) : Hand(word: code).cards
    cards.reserveCapacity(52)
    for step in steps.reversed() { step.apply(to: &cards) }
    return (Hand(cards), steps.count)
  }

  /// The command that made version `number`.
  public func step(of number: Int) -> Step { store.entry(number).pointee.step }

  /// The limit of version `number`.
  public func limit(of number: Int) -> Int { Int(store.entry(number).pointee.limit) }

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

  /// The seed of the game that `version` belongs to: kept by the game's
  /// first version.
  public func seed(of version: Version) -> UInt64 {
    store.entry(Int(version.game)).pointee.deck
  }

  /// The seed of the game that version `number` belongs to, read without
  /// making the version whole.
  public func seed(ofVersion number: Int) -> UInt64 {
    store.entry(Int(store.entry(number).pointee.game)).pointee.deck
  }

  /// The game that `version` belongs to, shuffled again from its seed.
  public func game(of version: Version) -> Game { Game(seed: seed(of: version)) }

  /// The number of the version that started `version`'s game.
  public func start(of version: Version) -> Int { Int(version.game) }

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
    let entry = store.entry(number).pointee
    return entry.step.text(seed: store.entry(Int(entry.game)).pointee.deck, ascii: ascii)
  }

  /// Adds `version`, made at `time`, as a child of the current one and
  /// makes it current; it becomes the current version's redo child.
  /// Constant time.
  @inline(__always)
  mutating func push(_ version: consuming Version, time: Int) {
    let deck = version.deck.bits
    push(version, deck: deck, time: time)
  }

  /// `push`, with what the entry keeps in its deck's place.
  @inline(__always)
  private mutating func push(_ version: consuming Version, deck: UInt64, time: Int) {
    let stored = History.storedTime(time)
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
    var hand = HandCode.delta
    if let word = version.hand.word {
      hand = word
      distance = 0
    } else {
      distance &+= 1
      if distance == 2 * History.keyframeSpacing { placeKeyframe() }
    }
    store.append(
      Entry(
        link: Link(
          parent: UInt32(truncatingIfNeeded: parent), depth: up.depth &+ 1,
          jump: far ? jump.jump : UInt32(truncatingIfNeeded: parent)),
        deck: deck, hand: hand, game: version.game, step: version.step,
        limit: version.storedLimit), time: stored)
    if stored < newestTime { clockWentBack = number }
    newestTime = stored
    setCurrent(version)
    cursor = number
    tip = number
  }

  /// Makes `version` the current one.
  @inline(__always)
  private mutating func setCurrent(_ version: __owned Version) {
    // A hand of up to ten cards holds no reference: nothing to release.
    if current.hand.spills {
      current = version
    } else {
      withUnsafeMutablePointer(to: &current) { $0.initialize(to: version) }
    }
  }

  /// Keeps whole the hand of the version `keyframeSpacing` up from the one
  /// being pushed, whose hand would otherwise be rebuilt from
  /// `2 * keyframeSpacing` versions up; it is then `keyframeSpacing` from it.
  private mutating func placeKeyframe() {
    var number = cursor
    for _ in 1..<History.keyframeSpacing { number = Int(link(number).parent) }
    let (hand, _) = rebuild(number)
    store.setHand(of: number, to: store.appendKeyframe(hand.cards))
    distance = History.keyframeSpacing
  }

  /// Adds the first version of a new game shuffled by `seed`, made at
  /// `time`.
  mutating func pushGame(seed: UInt64, limit: Int, time: Int) {
    let number = UInt32(truncatingIfNeeded: count)
    push(
      Version(hand: .empty, deck: .full, game: number, limit: limit, step: .new), deck: seed,
      time: time)
  }

  /// Makes the version the cursor has moved to current, whole: its hand
  /// rebuilt when its entry does not keep it.
  @inline(__always)
  private mutating func refresh() {
    let entry = store.entry(cursor)
    let code = entry.pointee.hand
    guard code & 0xF <= 10 else { return refreshLarge() }
    distance = 0
    let game = entry.pointee.game
    setCurrent(
      Version(
        hand: Hand(word: code), deck: Int(game) == cursor ? .full : Deck(bits: entry.pointee.deck),
        game: game, limit: Int(entry.pointee.limit), step: entry.pointee.step))
  }

  /// `refresh` for a hand of more than ten cards.
  @inline(never)
  private mutating func refreshLarge() {
    let (hand, distance) = rebuild(cursor)
    self.distance = distance
    let entry = store.entry(cursor).pointee
    setCurrent(
      Version(
        hand: hand, deck: Deck(bits: entry.deck), game: entry.game, limit: Int(entry.limit),
        step: entry.step))
  }

  /// `undo N`: makes the ancestor `steps` up current; the caller checks
  /// `steps <= undoDepth`. The redo children on the way already lead back.
  mutating func undo(_ steps: Int) {
    // A few steps are hops to the parent, which is usually in the cache; a
    // jump pointer can lead anywhere in the store.
    if steps <= 8 {
      for _ in 0..<max(steps, 0) {
        cursor = Int(link(cursor).parent)
      }
    } else {
      cursor = ancestor(of: cursor, atDepth: max(depth(of: cursor) - steps, 0))
    }
    refresh()
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
    } else {
      for _ in 0..<max(steps, 0) {
        guard let child = redoChild(of: cursor) else { break }
        cursor = child
      }
    }
    refresh()
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
    refresh()
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

  /// The bytes this history holds for its versions, all of them: what the
  /// tests hold to the bound of 48 bytes a version.
  var bytesHeld: Int {
    store.bytesHeld
  }

  /// Makes the store this history's own before it changes.
  @inline(__always)
  mutating func own() {
    if !isKnownUniquelyReferenced(&store) { store = store.copy() }
  }
}

extension History: Equatable {
  public static func == (a: History, b: History) -> Bool {
    // `tip` is a cache of what the links say, `cursorHand` and `distance`
    // of what the entries say; a hand is compared whole, however it is kept.
    guard a.cursor == b.cursor, a.count == b.count else { return false }
    if a.store === b.store { return true }
    return (0..<a.count).allSatisfy { number in
      let (x, y) = (a.store.entry(number).pointee, b.store.entry(number).pointee)
      return x.link == y.link && x.deck == y.deck && x.game == y.game && x.step == y.step
        && x.limit == y.limit && a[number].hand == b[number].hand
        && a.time(of: number) == b.time(of: number)
    }
  }
}

// The tests' hook for the rebuild bound (a keyframe at most
// `2 * keyframeSpacing - 1` versions up): how many steps rebuilding
// version `number`'s hand takes, 0 when its entry keeps it whole.
extension History { func rebuildSteps(of number: Int) -> Int { rebuild(number).distance } }
