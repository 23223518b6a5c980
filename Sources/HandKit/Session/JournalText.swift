/// The text of a journal (handsh(1), JOURNAL): a canonical script that
/// keeps every version of a session. Line 1 gives version 0's seed and
/// limit; then one line per command that changed the state or the cursor,
/// in the order they ran, canonical, cards in ASCII. Replaying it rebuilds
/// the same tree: the same numbers, branches, redo children and cursor.
/// Pure: the shell reads and writes the file.
public enum JournalText {
  /// Line 1, exactly, with its line break: the shebang of a golden test
  /// that gives both the seed and the limit.
  public static func firstLine(seed: UInt64, limit: Int) -> String {
    ShebangOptions.line(seed: seed, limit: limit)
  }

  /// The line a change is recorded by, with its line break, appended to
  /// `out`: `undo N`, `redo N` or `goto V` for a move of the cursor, else
  /// the command that made the current version of `history`, as `history`
  /// writes it (cards in ASCII). Written straight into the buffer's room,
  /// with no String and no copy, as this runs once per change of a session
  /// (`scripts/bench`).
  public static func appendLine(for move: CursorMove?, in history: History, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    switch move {
    case .undo(let steps): writer.put("undo ", UInt64(steps))
    case .redo(let steps): writer.put("redo ", UInt64(steps))
    case .goto(let version): writer.put("goto ", UInt64(version))
    case nil:
      let version = history.current
      writer.put(version.step) { history.seed(of: version) }
    }
    writer.base[writer.count] = 0x0A
    out.grow(by: writer.count &+ 1)
  }

  /// The line of the change that made version `number` of `history`,
  /// with its line break, appended to `out`: the lines of changes held
  /// while a text was checked are made from their versions when they go
  /// out, not kept as text meanwhile.
  public static func appendLine(version number: Int, in history: History, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    writer.put(history.step(of: number)) { history.seed(ofVersion: number) }
    writer.base[writer.count] = 0x0A
    out.grow(by: writer.count &+ 1)
  }

  /// Why a journal cannot be resumed: where, and the message.
  public struct Failure: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String
    public init(line: Int, column: Int, message: String) {
      self.line = line
      self.column = column
      self.message = message
    }
  }

  /// The session a whole text (whole lines) rebuilds, as `JournalReplay`
  /// rebuilds it line by line.
  public static func replay(_ text: UnsafeBufferPointer<UInt8>) -> Result<Session, Failure> {
    var lines = SourcedLines(text)
    var replay = JournalReplay()
    let ascii = LineParser.isASCII(text)
    while let line = lines.next() {
      if let failure = replay.take(line.bytes, number: line.number, knownASCII: ascii) {
        return .failure(failure)
      }
    }
    return replay.finish()
  }

  /// The seed and limit of line 1, `#!/usr/bin/env -S handsh --seed S
  /// --limit L`, exactly: S a number as `--seed` takes it, written without
  /// leading zeros, L one of 1 to 52.
  static func settings(_ line: UnsafeBufferPointer<UInt8>) -> (UInt64, Int)? {
    // Longer than any line 1 (a 20-digit seed): not one, and never copied.
    guard line.count <= 80 else { return nil }
    let words = String(decoding: line, as: UTF8.self).split(
      separator: " ", omittingEmptySubsequences: false)
    guard words.count == 7, words[0] == "#!/usr/bin/env", words[1] == "-S",
      words[2] == "handsh", words[3] == "--seed", words[5] == "--limit",
      let seed = UInt64(words[4]), String(seed) == words[4],
      let limit = Int(words[6]), String(limit) == words[6], (1...52).contains(limit)
    else { return nil }
    return (seed, limit)
  }
}

/// Bytes that grow at their end, written in place: a journal's lines.
/// A class, so that appending costs no check of uniqueness (`ByteBuffer`
/// is never shared: its owner appends and empties it).
public final class ByteBuffer {
  // Unchecked: only its owner ever touches it, one call at a time, and the
  // runtime's checks cost a quarter of a journal's work per line.
  @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) public private(set) var count = 0
  @exclusivity(unchecked) private var capacity: Int

  public init(capacity: Int = 1 << 16) {
    self.capacity = max(capacity, 64)
    storage = .allocate(capacity: self.capacity)
  }

  deinit { storage.deallocate() }

  public var isEmpty: Bool { count == 0 }

  /// At least `size` bytes of room at the end, to write into and then
  /// count with `grow(by:)`.
  @inline(__always)
  public func room(_ size: Int) -> UnsafeMutablePointer<UInt8> {
    if count + size > capacity {
      capacity = max(capacity * 2, count + size)
      let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
      bigger.update(from: storage, count: count)
      storage.deallocate()
      storage = bigger
    }
    return storage + count
  }

  /// Counts `size` bytes written into the room.
  @inline(__always)
  public func grow(by size: Int) { count += size }

  /// Appends `other`'s bytes `from..<to`.
  public func append(_ other: ByteBuffer, from: Int, to: Int) {
    room(to - from).update(from: other.storage + from, count: to - from)
    count += to - from
  }

  public func append(_ other: ByteBuffer) {
    room(other.count).update(from: other.storage, count: other.count)
    count += other.count
  }

  public func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
    for byte in bytes {
      room(1).pointee = byte
      count += 1
    }
  }

  /// The bytes, for a write.
  public func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
    body(UnsafeRawBufferPointer(start: storage, count: count))
  }

  public func removeAll() { count = 0 }
}

/// Writes a journal line into 32 bytes: words and numbers (at most 20
/// digits), so that the longest line, `new` and a seed, fits.
private struct LineWriter {
  static let capacity = 32

  let base: UnsafeMutablePointer<UInt8>
  var count = 0

  init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

  mutating func put(_ text: StaticString) {
    let bytes = text.utf8Start
    for index in 0..<text.utf8CodeUnitCount {
      base[count] = bytes[index]
      count &+= 1
    }
  }

  /// The canonical command of `step`; `seed` is a new game's.
  mutating func put(_ step: Step, seed: () -> UInt64) {
    switch step {
    case .start: put("start")
    case .add(let card):
      put("add ")
      put(card.rank.spelling)
      put(card.suit.letterSpelling)
    case .delete(let position): put("del ", UInt64(position))
    case .move(let from, let to):
      put("mv ", UInt64(from))
      put(" ", UInt64(to))
    case .limit(let limit): put("limit ", UInt64(limit))
    case .new: put("new ", seed())
    }
  }

  mutating func put(_ text: StaticString, _ value: UInt64) {
    put(text)
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

/// A command that moves the cursor, as a journal records it.
public enum CursorMove: Sendable, Equatable {
  case undo(Int)
  case redo(Int)
  case goto(Int)

  /// The move `command` makes, if it is one.
  @inlinable public init?(_ command: borrowing Command) {
    switch command {
    case .undo(let steps): self = .undo(steps)
    case .redo(let steps): self = .redo(steps)
    case .goto(let version): self = .goto(version)
    default: return nil
    }
  }
}
