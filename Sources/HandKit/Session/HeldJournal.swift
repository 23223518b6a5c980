/// The changes a text made while it was checked, held for the journal until
/// the check ends (handsh(1), JOURNAL: no line of a text reaches FILE before
/// the text has checked clean), in as little memory as they can take: the
/// versions they made are numbered one after another from `firstVersion`
/// and the history holds them, so a run of them is held as its count and
/// their lines are made from the versions when they go out; a move of the
/// cursor is held as one word. Nothing is held as text, nothing twice, and
/// what is held never moves as it grows (no page is touched twice:
/// `scripts/bench --journal`).
public struct HeldJournal {
  /// The number of the first version made.
  public var firstVersion: Int
  /// The journal's `sessionStart`: where time lines begin.
  public var sessionStart: Int
  /// The changes in order: runs of versions and moves (`HeldWord`).
  @usableFromInline let words = WordBuffer()
  /// The versions made since the last move, not yet in `words`: a change
  /// costs an increment.
  @usableFromInline var run = 0

  public init(firstVersion: Int = 0, sessionStart: Int = 0) {
    self.firstVersion = firstVersion
    self.sessionStart = sessionStart
  }

  /// Whether a change was held at all.
  public var isEmpty: Bool { run == 0 && words.isEmpty }

  /// A command made a version, the next one.
  @inlinable
  public mutating func made() { run &+= 1 }

  /// A command moved the cursor, which is now at `cursor`. Inlined: a
  /// quarter of a random script's commands are moves.
  @inlinable
  public mutating func moved(_ move: CursorMove, cursor: Int) {
    if run > 0 {
      words.append(HeldWord.versions, run)
      run = 0
    }
    switch move {
    case .undo(let steps): words.append(HeldWord.undo, steps)
    case .redo(let steps): words.append(HeldWord.redo, steps)
    case .goto(let version): words.append(HeldWord.goto, version)
    case .walked: words.append(HeldWord.goto, cursor)
    }
  }

  /// Hands `body` the held lines in order, in pieces of whole lines
  /// written into `out` (each about 64 KiB): the versions' made from
  /// `history`, the moves' from their words. `body` empties `out`, or
  /// answers false to stop. The last piece is left in `out`.
  public func write(from history: History, into out: ByteBuffer, _ body: () -> Bool) {
    let limit = 1 << 16
    var version = firstVersion
    // Writes the lines of the next `count` versions; false once stopped.
    func versions(_ count: Int) -> Bool {
      let end = version &+ count
      while version < end {
        version = JournalText.appendLines(
          versions: version..<end, in: history, sessionStart: sessionStart, to: out, limit: limit)
        if version < end, !body() { return false }
      }
      return true
    }
    let going = words.visit { tag, value in
      guard tag != HeldWord.versions else { return versions(value) }
      JournalText.appendMoveLine(tag: tag, value: value, to: out)
      return out.count < limit || body()
    }
    if going, run > 0 { _ = versions(run) }
  }
}

/// How `HeldJournal` keeps a change in a 32-bit word: a tag in the top two
/// bits, a number below it; a number too large for 30 bits is `escape`,
/// and the two words after it hold it.
@usableFromInline enum HeldWord {
  @usableFromInline static let versions: UInt32 = 0
  @usableFromInline static let undo: UInt32 = 1
  @usableFromInline static let redo: UInt32 = 2
  @usableFromInline static let goto: UInt32 = 3
  @usableFromInline static let escape: UInt32 = 0x3FFF_FFFF
  /// The largest number a word holds itself.
  @usableFromInline static let largest = Int(escape) - 1
}

/// 32-bit words that grow at their end, in chunks of 64 KiB that never
/// move: growing copies nothing, so each page is touched once. A class, so
/// that appending costs no check of uniqueness (only `HeldJournal`, its
/// one owner, touches it).
@usableFromInline final class WordBuffer {
  @usableFromInline static let chunkWords = 1 << 14
  @exclusivity(unchecked) private var chunks: [UnsafeMutablePointer<UInt32>] = []
  /// The last chunk and the number of words in it.
  @exclusivity(unchecked) @usableFromInline var last: UnsafeMutablePointer<UInt32>?
  @exclusivity(unchecked) @usableFromInline var used = WordBuffer.chunkWords

  @usableFromInline init() {}

  deinit { for chunk in chunks { chunk.deallocate() } }

  var isEmpty: Bool { chunks.isEmpty }

  /// Appends `tag` and `value` (at least 0): one word, or three.
  @inlinable
  func append(_ tag: UInt32, _ value: Int) {
    if value <= HeldWord.largest, used < WordBuffer.chunkWords, let last {
      last[used] = tag << 30 | UInt32(truncatingIfNeeded: value)
      used &+= 1
      return
    }
    appendSlowly(tag, value)
  }

  /// `append` at the end of a chunk, or of a number that takes three words
  /// (kept in one chunk: a chunk's end is padded with empty runs).
  @usableFromInline func appendSlowly(_ tag: UInt32, _ value: Int) {
    let size = value <= HeldWord.largest ? 1 : 3
    if used &+ size > WordBuffer.chunkWords {
      if let last {
        while used < WordBuffer.chunkWords {
          last[used] = HeldWord.versions << 30
          used &+= 1
        }
      }
      let chunk = UnsafeMutablePointer<UInt32>.allocate(capacity: WordBuffer.chunkWords)
      chunks.append(chunk)
      last = chunk
      used = 0
    }
    guard let last else { return }
    if size == 1 {
      last[used] = tag << 30 | UInt32(truncatingIfNeeded: value)
    } else {
      let wide = UInt64(value)
      last[used] = tag << 30 | HeldWord.escape
      last[used &+ 1] = UInt32(truncatingIfNeeded: wide)
      last[used &+ 2] = UInt32(truncatingIfNeeded: wide >> 32)
    }
    used &+= size
  }

  /// Calls `body` with each change's tag and number, in order, until it
  /// answers false; false when it did.
  func visit(_ body: (UInt32, Int) -> Bool) -> Bool {
    for (index, chunk) in chunks.enumerated() {
      let count = index == chunks.count &- 1 ? used : WordBuffer.chunkWords
      var at = 0
      while at < count {
        let word = chunk[at]
        var value = Int(word & HeldWord.escape)
        if value == Int(HeldWord.escape) {
          value = Int(chunk[at &+ 1]) | Int(chunk[at &+ 2]) << 32
          at &+= 2
        }
        at &+= 1
        guard body(word >> 30, value) else { return false }
      }
    }
    return true
  }
}
