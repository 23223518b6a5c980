/// How an editor counts the characters of a line: UTF-16 code units (what
/// the language server protocol requires by default) or UTF-8 bytes.
public enum PositionEncoding: Sendable, Equatable {
  case utf8, utf16
}

/// A place in a text as an editor names it: a 0-based line and a 0-based
/// character within it, counted in the document's position encoding.
public struct DocumentPosition: Sendable, Equatable, Comparable {
  public var line: Int
  public var character: Int

  public init(line: Int, character: Int) {
    self.line = line
    self.character = character
  }

  public static func < (a: DocumentPosition, b: DocumentPosition) -> Bool {
    (a.line, a.character) < (b.line, b.character)
  }
}

/// A stretch of a text between two positions.
public struct DocumentRange: Sendable, Equatable {
  public var start: DocumentPosition
  public var end: DocumentPosition

  public init(start: DocumentPosition, end: DocumentPosition) {
    self.start = start
    self.end = end
  }
}

/// Where the lines of a text start, as an editor counts them, for turning
/// byte offsets into editor positions and back. The protocol ends lines at
/// `\r\n`, `\n` and a lone `\r` (handsh itself only at `\n`); a text that
/// ends in a line break has an empty last line, as an editor shows it.
public struct LineTable: Sendable {
  public let text: [UInt8]
  /// The byte offset where each line starts.
  public let starts: [Int]

  public init(_ text: [UInt8]) {
    self.text = text
    var starts = [0]
    for (offset, byte) in text.enumerated() {
      if byte == 0x0A || (byte == 0x0D && (offset + 1 == text.count || text[offset + 1] != 0x0A)) {
        starts.append(offset + 1)
      }
    }
    self.starts = starts
  }

  /// Where line `line`'s content ends: before its line break.
  public func contentEnd(of line: Int) -> Int {
    guard line >= 0, line + 1 < starts.count else { return text.count }
    var end = starts[line + 1] - 1
    if text[end] == 0x0A, end > starts[line], text[end - 1] == 0x0D { end -= 1 }
    return end
  }

  /// The line that holds byte `offset`.
  public func line(of offset: Int) -> Int {
    var low = 0
    var high = starts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if starts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    return low
  }

  /// The position of byte `offset` (clamped to the text).
  public func position(of offset: Int, _ encoding: PositionEncoding) -> DocumentPosition {
    let offset = min(max(offset, 0), text.count)
    let line = line(of: offset)
    return DocumentPosition(line: line, character: units(from: starts[line], to: offset, encoding))
  }

  public func range(of bytes: Range<Int>, _ encoding: PositionEncoding) -> DocumentRange {
    DocumentRange(
      start: position(of: bytes.lowerBound, encoding), end: position(of: bytes.upperBound, encoding)
    )
  }

  /// The byte offset of `position`: a line past the end is the text's end,
  /// a character past the line's end (or inside a character) its nearest
  /// boundary before, as the protocol asks.
  public func offset(of position: DocumentPosition, _ encoding: PositionEncoding) -> Int {
    guard position.line >= 0 else { return 0 }
    guard position.line < starts.count else { return text.count }
    let end = contentEnd(of: position.line)
    var offset = starts[position.line]
    var counted = 0
    while offset < end {
      let (width, units) = LineTable.character(at: offset, in: text, end: end, encoding)
      if counted + units > position.character { break }
      counted += units
      offset += width
    }
    return offset
  }

  /// The editor's count of characters from byte `from` to byte `to`.
  func units(from: Int, to: Int, _ encoding: PositionEncoding) -> Int {
    if encoding == .utf8 { return to - from }
    var offset = from
    var count = 0
    while offset < to {
      let (width, units) = LineTable.character(at: offset, in: text, end: to, encoding)
      count += units
      offset += width
    }
    return count
  }

  /// The bytes of the character at `offset` (each byte of invalid UTF-8 on
  /// its own) and how many units the editor counts for it.
  static func character(
    at offset: Int, in text: [UInt8], end: Int, _ encoding: PositionEncoding
  ) -> (width: Int, units: Int) {
    let byte = text[offset]
    let width = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
    guard width > 1, offset + width <= end,
      text[(offset + 1)..<(offset + width)].allSatisfy({ $0 & 0xC0 == 0x80 })
    else { return (1, 1) }
    if encoding == .utf8 { return (width, width) }
    return (width, width == 4 ? 2 : 1)
  }
}

/// The smallest edit, in whole lines, that turns `old` into `new`: the
/// bytes of `old` to replace and what replaces them; nil when they are the
/// same.
public func lineEdit(from old: [UInt8], to new: [UInt8]) -> (range: Range<Int>, text: [UInt8])? {
  guard old != new else { return nil }
  var prefix = 0
  let shorter = min(old.count, new.count)
  while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
  while prefix > 0, old[prefix - 1] != 0x0A { prefix -= 1 }
  var suffix = 0
  while suffix < shorter - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
    suffix += 1
  }
  while suffix > 0, old.count - suffix > 0, old[old.count - suffix - 1] != 0x0A { suffix -= 1 }
  return (prefix..<(old.count - suffix), Array(new[prefix..<(new.count - suffix)]))
}
