/// A version as the store keeps it: 40 bytes of plain numbers.
struct Entry: Sendable, Equatable {
  var link: Link
  /// The deck's mask over the game's shuffled order; for the first version
  /// of a game, whose deck is full, the game's seed.
  let deck: UInt64
  /// A hand of up to ten cards as `Hand.word` packs it (at most 10 in the
  /// low four bits), or for a larger hand a `HandCode`.
  var hand: UInt64
  /// The number of the version that starts this version's game.
  let game: UInt32
  let step: Step
  let limit: UInt8
}

/// How an entry keeps a hand of more than ten cards, by the low four bits
/// of its word (which are at most 10 for a hand kept in the word itself).
enum HandCode {
  /// Not kept: the parent's hand with the version's step done to it.
  static let delta: UInt64 = 0xE
  /// Kept whole beside the store: the count in bits 4–9, and from bit 10
  /// on, the keyframe's place.
  static let keyframe: UInt64 = 0xF
}

extension Step {
  /// Does to `cards` what the step's command did to the hand; a step that
  /// does not change a hand (`limit`) leaves them as they are.
  func apply(to cards: inout [Card]) {
    switch self {
    case .add(let card): cards.insert(card, at: 0)
    case .delete(let position):
      let index = Int(position) - 1
      if cards.indices.contains(index) { cards.remove(at: index) }
    case .move(let from, let to):
      let (a, b) = (Int(from) - 1, Int(to) - 1)
      if cards.indices.contains(a), cards.indices.contains(b) {
        cards.insert(cards.remove(at: a), at: b)
      }
    case .start, .new, .limit: break
    }
  }
}

/// The versions of a history, in chunks of `chunkSize` that never move once
/// allocated, and the keyframes, 52 bytes each, in chunks of `keyChunkSize`.
/// A chunk holds its entries, then their times: 4 bytes each, seconds since
/// 1970 (UTC) as an unsigned 32-bit number, so 44 bytes a version.
/// Changed only by a history that holds the one reference to it (copy on
/// write), so it is as safe to send as the history.
final class Store: @unchecked Sendable {
  private static let chunkShift = 12
  static let chunkSize = 1 << chunkShift
  private static let keyChunkShift = 10
  private static let keyChunkSize = 1 << keyChunkShift
  private static let keyframeSize = 52

  private struct State {
    /// The chunks allocated, in order, in a table of `capacity` places.
    var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>
    var capacity: Int
    var count = 0
    /// The keyframes' chunks, in a table of `keyCapacity` places.
    var keyChunks: UnsafeMutablePointer<UnsafeMutablePointer<Card>>
    var keyCapacity: Int
    var keyCount = 0
  }

  /// Behind a pointer, not in stored properties: a class's stored `var` is
  /// checked for exclusive access at run time on every use. The table of
  /// chunks is a pointer too, not an array: every entry below `count` is
  /// in a chunk, so a lookup needs no bounds check of its own.
  private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

  init() {
    let capacity = 16
    state.initialize(
      to: State(
        chunks: .allocate(capacity: capacity), capacity: capacity,
        keyChunks: .allocate(capacity: capacity), keyCapacity: capacity))
  }

  deinit {
    // The entries and keyframes are plain numbers: nothing to release.
    let chunks = (state.pointee.count + Store.chunkSize - 1) >> Store.chunkShift
    for i in 0..<chunks { UnsafeMutableRawPointer(state.pointee.chunks[i]).deallocate() }
    state.pointee.chunks.deallocate()
    let keyChunks = (state.pointee.keyCount + Store.keyChunkSize - 1) >> Store.keyChunkShift
    for i in 0..<keyChunks { state.pointee.keyChunks[i].deallocate() }
    state.pointee.keyChunks.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  var count: Int { state.pointee.count }

  /// Entry `number`, 0 to `count - 1`; the caller checks the range.
  @inline(__always)
  func entry(_ number: Int) -> UnsafeMutablePointer<Entry> {
    state.pointee.chunks[number >> Store.chunkShift] + (number & (Store.chunkSize - 1))
  }

  /// Where the time of entry `number` is kept: after its chunk's entries.
  @inline(__always)
  func time(_ number: Int) -> UnsafeMutablePointer<UInt32> {
    UnsafeMutableRawPointer(state.pointee.chunks[number >> Store.chunkShift] + Store.chunkSize)
      .assumingMemoryBound(to: UInt32.self) + (number & (Store.chunkSize - 1))
  }

  @inline(__always)
  func append(_ entry: consuming Entry, time: UInt32) {
    let count = state.pointee.count
    let slot = count & (Store.chunkSize - 1)
    if slot == 0 { addChunk(count >> Store.chunkShift) }
    let chunk = state.pointee.chunks[count >> Store.chunkShift]
    (chunk + slot).initialize(to: entry)
    (UnsafeMutableRawPointer(chunk + Store.chunkSize).assumingMemoryBound(to: UInt32.self) + slot)
      .initialize(to: time)
    state.pointee.count = count + 1
  }

  /// The bytes of one chunk: its entries, then their times.
  private static let chunkBytes =
    chunkSize * (MemoryLayout<Entry>.stride + MemoryLayout<UInt32>.stride)

  /// Allocates chunk `index`, the first past those allocated.
  private func addChunk(_ index: Int) {
    Store.grow(&state.pointee.chunks, &state.pointee.capacity, toHold: index)
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: Store.chunkBytes, alignment: MemoryLayout<Entry>.alignment)
    let entries = raw.bindMemory(to: Entry.self, capacity: Store.chunkSize)
    UnsafeMutableRawPointer(entries + Store.chunkSize).bindMemory(
      to: UInt32.self, capacity: Store.chunkSize)
    (state.pointee.chunks + index).initialize(to: entries)
  }

  /// Makes `table` (of `capacity` places) hold place `index`, one past its
  /// last one used.
  private static func grow<T>(
    _ table: inout UnsafeMutablePointer<UnsafeMutablePointer<T>>, _ capacity: inout Int,
    toHold index: Int
  ) {
    guard index == capacity else { return }
    let larger = UnsafeMutablePointer<UnsafeMutablePointer<T>>.allocate(capacity: index * 2)
    larger.moveInitialize(from: table, count: index)
    table.deallocate()
    table = larger
    capacity = index * 2
  }

  /// Keyframe `index`'s first card.
  private func keyframeCards(_ index: Int) -> UnsafeMutablePointer<Card> {
    state.pointee.keyChunks[index >> Store.keyChunkShift]
      + (index & (Store.keyChunkSize - 1)) * Store.keyframeSize
  }

  /// Keeps `cards` (11 to 52 of them) whole; returns the code that finds them.
  func appendKeyframe(_ cards: [Card]) -> UInt64 {
    let index = state.pointee.keyCount
    if index & (Store.keyChunkSize - 1) == 0 {
      let chunk = index >> Store.keyChunkShift
      Store.grow(&state.pointee.keyChunks, &state.pointee.keyCapacity, toHold: chunk)
      (state.pointee.keyChunks + chunk).initialize(
        to: .allocate(capacity: Store.keyChunkSize * Store.keyframeSize))
    }
    let count = min(cards.count, Store.keyframeSize)
    let slot = keyframeCards(index)
    for i in 0..<Store.keyframeSize {
      (slot + i).initialize(to: i < count ? cards[i] : Card(unchecked: 0))
    }
    state.pointee.keyCount = index + 1
    return HandCode.keyframe | UInt64(count) << 4 | UInt64(index) << 10
  }

  /// The cards of the keyframe that `code` finds.
  func keyframe(_ code: UInt64) -> [Card] {
    let count = Int(truncatingIfNeeded: code >> 4 & 0x3F)
    let index = Int(truncatingIfNeeded: code >> 10)
    guard index < state.pointee.keyCount else { return [] }
    return Array(UnsafeBufferPointer(start: keyframeCards(index), count: count))
  }

  /// The one change to an entry's hand: kept whole from now on.
  func setHand(of number: Int, to code: UInt64) {
    entry(number).pointee.hand = code
  }

  /// The bytes of the tables of chunks and the chunks, each counted whole.
  var bytesHeld: Int {
    let chunks = (count + Store.chunkSize - 1) >> Store.chunkShift
    let keyChunks = (state.pointee.keyCount + Store.keyChunkSize - 1) >> Store.keyChunkShift
    let pointer = MemoryLayout<UnsafeMutablePointer<Entry>>.stride
    return (state.pointee.capacity + state.pointee.keyCapacity) * pointer
      + chunks * Store.chunkBytes
      + keyChunks * Store.keyChunkSize * Store.keyframeSize
  }

  /// A store of its own, with the same entries and keyframes.
  func copy() -> Store {
    let copy = Store()
    for number in 0..<count { copy.append(entry(number).pointee, time: time(number).pointee) }
    for index in 0..<state.pointee.keyCount {
      _ = copy.appendKeyframe(
        Array(UnsafeBufferPointer(start: keyframeCards(index), count: Store.keyframeSize)))
    }
    return copy
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
