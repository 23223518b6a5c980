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
  /// `out`: `undo N`, `redo N` or `goto V` for a move of the cursor (V the
  /// version it reached: `earlier` and `later` are the `goto` they did), else
  /// the command that made the current version of `history`, as `history`
  /// writes it (cards in ASCII). Written straight into the buffer's room,
  /// with no String and no copy, as this runs once per change of a session
  /// (`scripts/bench`).
  public static func appendLine(for move: CursorMove?, in history: History, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    switch move {
    case .undo(let steps): writer.put("undo ", UInt64(steps))
    case .redo(let steps): writer.put("redo ", UInt64(steps))
    case .goto: writer.put("goto ", UInt64(history.cursor))
    case nil:
      let version = history.current
      switch version.step {
      case .start: writer.put("start")
      case .add(let card):
        writer.put("add ")
        writer.put(card.rank.spelling)
        writer.put(card.suit.letterSpelling)
      case .delete(let position): writer.put("del ", UInt64(position))
      case .move(let from, let to):
        writer.put("mv ", UInt64(from))
        writer.put(" ", UInt64(to))
      case .limit(let limit): writer.put("limit ", UInt64(limit))
      case .new: writer.put("new ", history.seed(of: version))
      }
    }
    writer.base[writer.count] = 0x0A
    out.grow(by: writer.count &+ 1)
  }

  /// Why a journal cannot be resumed: where, and the message.
  public struct Failure: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String
  }

  /// The session `text` (whole lines) rebuilds: every command run in
  /// order; any line that is not blank, a comment or a journal command, and
  /// any command that fails, is the failure, at its line and column.
  /// `time` is when the versions were made that no time line comes before
  /// (a v6 journal): FILE's last modification before the resume.
  public static func replay(_ text: UnsafeBufferPointer<UInt8>, time: Int = 0) -> Result<
    Session, Failure
  > {
    var lines = SourcedLines(text)
    guard let first = lines.next(), let head = first.bytes,
      let (seed, limit) = settings(String(decoding: head, as: UTF8.self))
    else {
      return .failure(
        Failure(
          line: 1, column: 1,
          message: "line 1 is not '#!/usr/bin/env -S handsh --seed S --limit L'"))
    }
    var session = Session(seed: seed, limit: limit, clock: .fixed(time))
    var firstTime = true
    let renderer = Renderer(style: Style(ascii: true))
    let ascii = LineParser.isASCII(text)
    while let line = lines.next() {
      guard let bytes = line.bytes else {
        return .failure(Failure(line: line.number, column: 1, message: LineParser.tooLongMessage))
      }
      if let timed = timeLine(bytes, number: line.number) {
        guard case .success(let seconds) = timed else { return timed.map { _ in session } }
        setTime(seconds, of: &session, first: &firstTime)
        continue
      }
      var parser = LineParser(bytes, knownASCII: ascii)
      while true {
        // Consumed: the command goes to the session without a copy.
        let item = parser.nextItem()
        switch consume item {
        case .end: break
        case .error(let error):
          return .failure(Failure(line: line.number, column: error.column, message: error.message))
        case .command(let command, let span):
          let column = parser.column(at: span.lowerBound)
          guard command.isJournaled else {
            let name = safeText(parser.words(in: span).first ?? [])
            return .failure(
              Failure(
                line: line.number, column: column, message: "not a journal command '\(name)'"))
          }
          do throws(CommandError) {
            _ = try session.apply(consume command) { 0 }
          } catch {
            return .failure(
              Failure(line: line.number, column: column, message: renderer.message(for: error)))
          }
          continue
        }
        break
      }
    }
    return .success(session)
  }

  /// What a time line gives (handsh(1), JOURNAL): a line that starts `#@ `
  /// is one, and the rest is SECONDS, the time of the versions after it,
  /// 0 to `History.latestTime`; nil for any other line.
  public static func timeLine(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<
    Int, Failure
  >? {
    guard bytes.starts(with: timeLinePrefix.utf8) else { return nil }
    let digits = bytes.dropFirst(timeLinePrefix.utf8.count)
    if let value = UInt64(decimalDigits: digits), value <= UInt64(History.latestTime) {
      return .success(Int(value))
    }
    let word = safeText(Array(digits))
    return .failure(
      Failure(
        line: number, column: timeLinePrefix.utf8.count + 1,
        message: "invalid time '\(word)': expected a whole number from 0 to \(History.latestTime)"
      ))
  }

  /// How a time line starts.
  public static let timeLinePrefix = "#@ "

  /// A time line read while replaying: the time of the versions made after
  /// it; the first one, when no change comes before it, version 0's too
  /// (`appendTimeLine` writes version 0's time first when version 1 was
  /// made in another second).
  static func setTime(_ seconds: Int, of session: inout Session, first: inout Bool) {
    session.clock = .fixed(seconds)
    if first, session.history.count == 1 { session.setStartTime(seconds) }
    first = false
  }

  /// The time line that goes before the line of the change that made the
  /// current version of `history`, appended to `out` when one does: the
  /// version was made in another second than the version numbered before
  /// it, or it is the first change of the session (`sessionStart`, the
  /// number of the first version the session made). So every version's time
  /// is in FILE, a line per second at most while the clock goes forward.
  /// Before version 1, version 0's time comes first when it differs, so
  /// that the start is kept too.
  @inline(__always)
  public static func appendTimeLine(for history: History, sessionStart: Int, to out: ByteBuffer) {
    let number = history.cursor
    let time = history.time(of: number)
    guard number <= sessionStart || time != history.time(of: number &- 1) else { return }
    if number == 1, history.time(of: 0) != time { appendTimeLine(history.time(of: 0), to: out) }
    appendTimeLine(time, to: out)
  }

  /// `#@ SECONDS` and its line break, appended to `out`.
  private static func appendTimeLine(_ seconds: Int, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    writer.put("#@ ", UInt64(seconds))
    writer.base[writer.count] = 0x0A
    out.grow(by: writer.count &+ 1)
  }

  /// The seed and limit of line 1, `#!/usr/bin/env -S handsh --seed S
  /// --limit L`, exactly.
  static func settings(_ line: String) -> (UInt64, Int)? {
    let words = line.split(separator: " ", omittingEmptySubsequences: false)
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
  // runtime's checks weighed on every journal line (`scripts/bench
  // --journal`).
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
    // The version it reaches is known once it ran: the history's cursor.
    case .earlier, .later: self = .goto(-1)
    default: return nil
    }
  }
}
