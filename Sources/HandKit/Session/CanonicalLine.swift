/// The one writer of a command's canonical line (handsh(1), COMMANDS): what
/// `history` and `save` write of a step (`Step.text`) and what a journal
/// writes of a change (`JournalText`), words and numbers (at most 20
/// digits) written straight into 32 bytes, so that the longest line, `new`
/// and a seed, fits; no String, as a journal writes one a change
/// (`scripts/bench --journal`).
struct LineWriter {
  static let capacity = 32

  let base: UnsafeMutablePointer<UInt8>
  var count = 0

  init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

  @inline(__always)
  mutating func put(_ text: StaticString) {
    let bytes = text.utf8Start
    for index in 0..<text.utf8CodeUnitCount {
      base[count] = bytes[index]
      count &+= 1
    }
  }

  @inline(__always)
  mutating func newLine() {
    base[count] = 0x0A
    count &+= 1
  }

  /// A time line, `#@ SECONDS`, with its line break.
  @inline(__always)
  mutating func putTime(_ seconds: Int) {
    put("#@ ", UInt64(seconds))
    newLine()
  }

  /// The canonical command of `step`, cards in ASCII (`QH`); `seed` is a
  /// new game's (read only for `new`: `Step.isNew`). No closure and no
  /// choice of spelling: in a journal's loop this is inlined whole.
  @inline(__always)
  mutating func put(_ step: Step, seed: UInt64) {
    switch step {
    case .start: put("start")
    case .add(let card): put(add: card)
    case .delete(let position):
      put(word: 0x206C_6564, count: 4)  // "del "
      put(small: position)
    case .move(let from, let to):
      put(word: 0x2020_766D, count: 3)  // "mv "
      put(small: from)
      put(word: 0x20, count: 1)
      put(small: to)
    case .limit(let limit): put("limit ", UInt64(limit))
    case .new: put("new ", seed)
    }
  }

  /// The first `count` bytes of `word`, little-endian, in one store.
  @inline(__always)
  mutating func put(word: UInt32, count size: Int) {
    UnsafeMutableRawPointer(base + count).storeBytes(of: word.littleEndian, as: UInt32.self)
    count &+= size
  }

  /// A place or a limit, with no loop when below 100 (always, after a
  /// change that succeeded).
  @inline(__always)
  mutating func put(small value: UInt8) {
    guard value < 100 else { return put("", UInt64(value)) }
    let (tens, ones) = (value / 10, value % 10)
    let two = tens > 0
    base[count] = 0x30 &+ (two ? tens : ones)
    base[count &+ 1] = 0x30 &+ ones
    count &+= two ? 2 : 1
  }

  /// `put(_:seed:)`, or with the suits' symbols (`Q♥`) when `ascii` is
  /// false (`history` without `--ascii`).
  mutating func put(_ step: Step, seed: UInt64, ascii: Bool) {
    if !ascii, case .add(let card) = step {
      put(add: card)
      count &-= 1
      put(card.suit.symbolSpelling)
    } else {
      put(step, seed: seed)
    }
  }

  /// `add` and the card in ASCII, in one store of 8 bytes with no branch
  /// on the card (the rank's spelling and the suit's letter shifted out of
  /// words): most of a journal's lines are these, their cards at random.
  @inline(__always)
  mutating func put(add card: Card) {
    let index = UInt64(card.index)
    let (rank, suit) = (index % 13, index / 13)
    // The ranks' spellings by rank, "A23456789JQK" with 10's "1", in two
    // little-endian words; 10 is then followed by a "0".
    let spelling = rank < 8 ? 0x3837_3635_3433_3241 as UInt64 : 0x4B_514A_3139 as UInt64
    let ten: UInt64 = rank == 9 ? 1 : 0
    let letter = (0x5343_4448 as UInt64) >> (suit &* 8) & 0xFF  // H D C S
    let tail = letter << (ten &* 8) | ten &* 0x30
    let word = 0x2064_6461 | (spelling >> ((rank & 7) &* 8) & 0xFF) << 32 | tail << 40
    UnsafeMutableRawPointer(base + count).storeBytes(of: word.littleEndian, as: UInt64.self)
    count &+= 6 &+ Int(ten)
  }

  @inline(__always)
  mutating func put(_ text: StaticString, _ value: UInt64) {
    put(text)
    // One digit, the usual count or place: no reversal.
    if value < 10 {
      base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
      count &+= 1
      return
    }
    var value = value
    let start = count
    repeat {
      base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
      value /= 10
      count &+= 1
    } while value > 0
    var (low, high) = (start, count &- 1)
    while low < high {
      (base[low], base[high]) = (base[high], base[low])
      low &+= 1
      high &-= 1
    }
  }
}

extension Step {
  /// Whether the step is a `new`, whose line holds its game's seed.
  @inline(__always)
  var isNew: Bool {
    if case .new = self { true } else { false }
  }

  /// The step as a command, the way `history` and `save` write it, and a
  /// journal too (`LineWriter`).
  public func text(seed: UInt64, ascii: Bool) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: LineWriter.capacity) { buffer in
      guard let base = buffer.baseAddress else { return "" }
      var writer = LineWriter(base: base)
      writer.put(self, seed: seed, ascii: ascii)
      return String(decoding: UnsafeBufferPointer(start: base, count: writer.count), as: UTF8.self)
    }
  }
}

/// A command that moves the cursor, as a journal records it.
public enum CursorMove: Sendable, Equatable {
  case undo(Int)
  case redo(Int)
  case goto(Int)
  /// `earlier` or `later`: the `goto` they did, to the version they
  /// reached, known only once they ran (the history's cursor).
  case walked

  /// The move `command` makes, if it is one.
  @inlinable public init?(_ command: borrowing Command) {
    switch command {
    case .undo(let steps): self = .undo(steps)
    case .redo(let steps): self = .redo(steps)
    case .goto(let version): self = .goto(version)
    case .earlier, .later: self = .walked
    default: return nil
    }
  }
}
