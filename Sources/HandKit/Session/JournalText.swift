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
  /// (`scripts/bench`). Returns the count of `out`'s bytes now.
  @discardableResult
  public static func appendLine(for move: CursorMove?, in history: History, to out: ByteBuffer)
    -> Int
  {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    switch move {
    case .undo(let steps): writer.put("undo ", UInt64(steps))
    case .redo(let steps): writer.put("redo ", UInt64(steps))
    case .goto(let version): writer.put("goto ", UInt64(version))
    case .walked: writer.put("goto ", UInt64(history.cursor))
    case nil:
      let version = history.current
      writer.put(version.step, seed: version.step.isNew ? history.seed(of: version) : 0)
    }
    writer.newLine()
    out.grow(by: writer.count)
    return out.count
  }

  /// The line of the change that made version `number` of `history`,
  /// with its line break, appended to `out`: the lines of changes held
  /// while a text was checked are made from their versions when they go
  /// out, not kept as text meanwhile.
  @inline(__always)
  public static func appendLine(version number: Int, in history: History, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    let step = history.step(of: number)
    writer.put(step, seed: step.isNew ? history.seed(ofVersion: number) : 0)
    writer.newLine()
    out.grow(by: writer.count)
  }

  /// The lines of the changes that made versions `numbers` of `history`,
  /// each after the time line that goes before it (`appendTimeLine`),
  /// appended to `out` until it holds `limit` bytes or more: the number of
  /// the first version not written. One loop over the store's entries and
  /// times as they lie, with the time of the version before carried along
  /// and room made for many lines at once, for the changes held while a
  /// text was checked, which are most of a journal's cost
  /// (`scripts/bench --journal`).
  public static func appendLines(
    versions numbers: Range<Int>, in history: History, sessionStart: Int, to out: ByteBuffer,
    limit: Int
  ) -> Int {
    var number = numbers.lowerBound
    guard number < numbers.upperBound else { return number }
    let store = history.store
    var previous = number > 0 ? history.time(of: number &- 1) : -1
    var count = out.count
    while number < numbers.upperBound, count < limit {
      // The next versions of `number`'s chunk, whose entries and times lie
      // one after another, as many as a batch's room holds.
      let end = min(
        numbers.upperBound, (number | (Store.chunkSize &- 1)) &+ 1, number &+ batchVersions)
      var writer = LineWriter(base: out.room((end &- number) &* bytesPerVersion))
      let (entries, times) = (store.entry(number), store.time(number))
      var index = 0
      while number &+ index < end, count &+ writer.count < limit {
        let time = Int(times[index])
        if number &+ index <= sessionStart || time != previous {
          if number &+ index == 1, history.time(of: 0) != time {
            writer.putTime(history.time(of: 0))
          }
          writer.putTime(time)
        }
        previous = time
        let entry = entries + index
        let step = entry.pointee.step
        writer.put(step, seed: step.isNew ? store.entry(Int(entry.pointee.game)).pointee.deck : 0)
        writer.newLine()
        index &+= 1
      }
      out.grow(by: writer.count)
      count &+= writer.count
      number &+= index
    }
    return number
  }

  /// How many versions' lines `appendLines` makes room for at once.
  private static let batchVersions = 256
  /// The most a version's lines take: two time lines (14 bytes each) and
  /// the longest line, `new` and a 20-digit seed (25).
  private static let bytesPerVersion = 64

  /// The line of a move of the cursor held as a word (`HeldJournal`):
  /// `undo N`, `redo N` or `goto V`, with its line break, appended to `out`.
  static func appendMoveLine(tag: UInt32, value: Int, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    switch tag {
    case HeldWord.undo: writer.put("undo ", UInt64(value))
    case HeldWord.redo: writer.put("redo ", UInt64(value))
    default: writer.put("goto ", UInt64(value))
    }
    writer.newLine()
    out.grow(by: writer.count)
  }

  /// Why a journal cannot be resumed: where, and the message.
  public typealias Failure = LineDiagnostic

  /// The session a whole text (whole lines) rebuilds, as `JournalReplay`
  /// rebuilds it line by line. `time` is when the versions were made that
  /// no time line comes before (a journal with no time lines): FILE's last modification
  /// before the resume.
  public static func replay(_ text: UnsafeBufferPointer<UInt8>, time: Int = 0) -> Result<
    Session, Failure
  > {
    var lines = SourcedLines(text)
    var replay = JournalReplay(time: time)
    let ascii = LineParser.isASCII(text)
    while let line = lines.next() {
      if let failure = replay.take(line.bytes, number: line.number, knownASCII: ascii) {
        return .failure(failure)
      }
    }
    return replay.finish()
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
    appendTimeLine(version: history.cursor, in: history, sessionStart: sessionStart, to: out)
  }

  /// The time line that goes before the line of the change that made
  /// version `number` of `history`, as `appendTimeLine(for:)` says: for
  /// the lines of changes held while a text was checked.
  @inline(__always)
  public static func appendTimeLine(
    version number: Int, in history: History, sessionStart: Int, to out: ByteBuffer
  ) {
    let time = history.time(of: number)
    guard number <= sessionStart || time != history.time(of: number &- 1) else { return }
    if number == 1, history.time(of: 0) != time { appendTimeLine(history.time(of: 0), to: out) }
    appendTimeLine(time, to: out)
  }

  /// `#@ SECONDS` and its line break, appended to `out`.
  static func appendTimeLine(_ seconds: Int, to out: ByteBuffer) {
    var writer = LineWriter(base: out.room(LineWriter.capacity))
    writer.putTime(seconds)
    out.grow(by: writer.count)
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
      let limit = Int(words[6]), String(limit) == words[6], Session.limits.contains(limit)
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
