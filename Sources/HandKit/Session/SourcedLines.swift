/// The lines of a sourced file, as a SCRIPT's are read (handsh(1),
/// DESCRIPTION): cut at `\n`, a trailing `\r` and the byte-order mark of
/// line 1 dropped, the last line counted without a final `\n`. A line over
/// the length limit has no bytes and is the last one handed out.
@usableFromInline struct SourcedLines {
  @usableFromInline struct Line {
    @usableFromInline let number: Int
    /// Nil for a line longer than `LineParser.maximumLineLength`.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>?
  }

  private let text: UnsafeBufferPointer<UInt8>
  private var start = 0
  private var number = 0

  @usableFromInline init(_ text: UnsafeBufferPointer<UInt8>) { self.text = text }

  @usableFromInline mutating func next() -> Line? {
    guard start < text.count else { return nil }
    var end = start
    while end < text.count, text[end] != 0x0A { end += 1 }
    number += 1
    defer { start = end + 1 }
    guard end - start <= LineParser.maximumLineLength else {
      // Reading ends here, as a SCRIPT's does.
      end = text.count
      return Line(number: number, bytes: nil)
    }
    var (begin, stop) = (start, end)
    if stop > begin, text[stop - 1] == 0x0D { stop -= 1 }
    if number == 1, stop - begin >= 3, text[begin] == 0xEF, text[begin + 1] == 0xBB,
      text[begin + 2] == 0xBF
    {
      begin += 3
    }
    return Line(number: number, bytes: UnsafeBufferPointer(rebasing: text[begin..<stop]))
  }
}
