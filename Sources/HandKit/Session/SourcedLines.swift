/// The content of a line of a text, given where it lies without its `\n`:
/// a trailing `\r` dropped, and on line 1 (`number`) a byte-order mark
/// (handsh(1), DESCRIPTION). The one place that says what a line holds,
/// for every reader of lines: a SCRIPT, `-c`, stdin, the prompt, a sourced
/// FILE, a golden file.
@inlinable @inline(__always)
public func lineContent<Text: RandomAccessCollection<UInt8>>(
  _ line: Range<Int>, number: Int, in text: Text
) -> Range<Int> where Text.Index == Int {
  var (begin, end) = (line.lowerBound, line.upperBound)
  if end > begin, text[end - 1] == 0x0D { end -= 1 }
  if number == 1, end - begin >= 3, text[begin] == 0xEF, text[begin + 1] == 0xBB,
    text[begin + 2] == 0xBF
  {
    begin += 3
  }
  // `begin <= end` holds: checking it again costs every line of a script.
  return Range(uncheckedBounds: (begin, end))
}

/// The lines of a text, as a SCRIPT's are read (handsh(1), DESCRIPTION):
/// cut at `\n`, their content as `lineContent` says, the last line counted
/// without a final `\n`. The one cutter of lines in the core: a sourced
/// FILE and its check, a journal, a golden file. A line over the length
/// limit has no bytes and is the last one handed out, unless
/// `keepsLongLines`. A text still being read (`partial`) hands out only its
/// lines whose `\n` has come; `position` is where a later pass over more of
/// the text goes on.
@usableFromInline struct SourcedLines {
  @usableFromInline struct Line {
    @usableFromInline let number: Int
    /// Where the line lies in the text, up to its `\n` (not included): a
    /// `\r` and a byte-order mark included. Its `\n`, if any, is at
    /// `range.upperBound`.
    @usableFromInline let range: Range<Int>
    /// Where its content lies (`lineContent`).
    @usableFromInline let content: Range<Int>
    /// The content; nil for a line longer than `LineParser.maximumLineLength`.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>?
  }

  /// Where the next line starts, its number, and how far the search for
  /// its `\n` has gone (so a long line read in pieces is searched once).
  @usableFromInline struct Position: Sendable {
    var start = 0
    var number = 1
    var searched = 0
    @usableFromInline init() {}
  }

  private let text: UnsafeBufferPointer<UInt8>
  @usableFromInline private(set) var position: Position
  /// The text ends inside a line that may go on: it is not handed out.
  @usableFromInline var partial = false
  /// A line over the length limit does not end the text: it is handed out
  /// (with no bytes) and the lines after it too, for a reader that reports
  /// each such line itself (a golden file).
  @usableFromInline var keepsLongLines = false
  /// The whole text is known to be ASCII: so are its lines.
  @usableFromInline var ascii = false

  @usableFromInline init(_ text: UnsafeBufferPointer<UInt8>, from position: Position = Position()) {
    self.text = text
    self.position = position
  }

  @usableFromInline mutating func next() -> Line? {
    let start = position.start
    guard start < text.count else { return nil }
    var end = max(start, position.searched)
    while end < text.count, text[end] != 0x0A { end += 1 }
    position.searched = end
    guard end < text.count || !partial else { return nil }
    let number = position.number
    position.number += 1
    let content = lineContent(start..<end, number: number, in: text)
    guard end - start <= LineParser.maximumLineLength else {
      // Reading ends here, as a SCRIPT's does, unless long lines are kept.
      position.start = keepsLongLines ? end + 1 : text.count
      return Line(number: number, range: start..<end, content: content, bytes: nil)
    }
    position.start = end + 1
    return Line(
      number: number, range: start..<end, content: content,
      bytes: UnsafeBufferPointer(rebasing: text[content]))
  }
}
