/// What the byte stream of a language client holds, message by message:
/// `Content-Length: N` headers, an empty line, then N bytes of JSON
/// (handsh(1), EDITORS).
enum Frame: Equatable {
  /// A message body.
  case body([UInt8])
  /// A header block that names no usable length: answered with a parse
  /// error, and reading goes on after its empty line.
  case badHeader(String)
  /// A body longer than the server takes: skipped whole, answered with a
  /// parse error.
  case tooLarge(Int)
}

/// Cuts the bytes read from the client into frames. Bytes are fed as they
/// arrive, in any chunks; a frame is handed out once it is whole, and the
/// same frames come whatever the chunks. Never fails: after a header that
/// names no usable length (none, a negative or a huge one), whose body's
/// end is unknown, reading starts again at the next `Content-Length:`
/// header, also one that follows that body with no line break, so one bad
/// message never costs the answers to the good ones after it.
struct FrameReader {
  /// The largest body kept: a longer one is answered with an error and
  /// passed over as a body of unknown length is.
  static let maximumBody = 256 << 20
  /// A header block longer than this is not a header.
  static let maximumHeader = 64 << 10

  private var buffer: [UInt8] = []
  private var start = 0
  /// Looking for the next `Content-Length:` header, after a bad one.
  private var hunting = false
  /// After a bad one: whether a header block starts right at `start`, not
  /// known until its name's colon (or a byte no name holds) has come.
  private var resuming = false

  /// The header name that reading starts again at, lowercased.
  private static let lengthName = Array("content-length".utf8)

  init() {}

  mutating func feed(_ bytes: UnsafeRawBufferPointer) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    buffer += bytes
  }

  mutating func feed(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { feed($0) }
  }

  /// The next whole frame, or nil until more bytes come.
  mutating func next() -> Frame? {
    guard findHeaderStart() else { return nil }
    guard let (headerEnd, bodyStart) = findHeaderEnd() else {
      if buffer.count - start > FrameReader.maximumHeader + 2 {
        start += 1
        hunting = true
        return .badHeader("header longer than \(FrameReader.maximumHeader) bytes")
      }
      return nil
    }
    let header = readHeader(upTo: headerEnd)
    // With no length at all, bytes before a header name that ends in
    // Content-Length (`xyzContent-Length:`) are such bytes too.
    let glueable = header.badLine ?? (header.length == nil && header.problem == nil ? start : nil)
    if let glueable, let glued = nextLengthHeader(from: glueable + 1, before: headerEnd) {
      // Bytes that start no message ran into a header: it starts there.
      start = glued
      return .badHeader(header.problem ?? "no Content-Length header")
    }
    guard let length = header.length else {
      // Where its body ends is unknown: start again at the next header.
      resume(after: bodyStart)
      return .badHeader(header.problem ?? "no Content-Length header")
    }
    guard length <= FrameReader.maximumBody else {
      resume(after: bodyStart)
      return .tooLarge(length)
    }
    guard buffer.count - bodyStart >= length else { return nil }
    start = bodyStart + length
    // The length is known: a bad header line costs its own message only.
    if let problem = header.problem { return .badHeader(problem) }
    return .body(Array(buffer[bodyStart..<(bodyStart + length)]))
  }

  /// Moves `start` to where the next header block may start: after a bad
  /// header, past bytes that start no header block, to the next
  /// `Content-Length:` header when one is hunted for; then past blank
  /// lines. False until more bytes come.
  private mutating func findHeaderStart() -> Bool {
    if resuming {
      var i = start
      while i < buffer.count, i - start <= FrameReader.maximumHeader,
        FrameReader.isTokenByte(buffer[i])
      {
        i += 1
      }
      if i == buffer.count, i - start <= FrameReader.maximumHeader { return false }
      resuming = false
      // Not a header: hunted for, wherever the next one is.
      hunting = !(i > start && i < buffer.count && buffer[i] == UInt8(ascii: ":"))
    }
    if hunting {
      guard let found = nextLengthHeader() else {
        // Keep what could be the start of a header cut by the chunk.
        start = max(start, buffer.count - FrameReader.lengthName.count - 64)
        return false
      }
      start = found
      hunting = false
    }
    // Blank lines between messages are tolerated.
    while start + 1 < buffer.count, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
      start += 2
    }
    while start < buffer.count, buffer[start] == 0x0A { start += 1 }
    return true
  }

  /// What the lines of a header block say.
  private struct HeaderFields {
    /// The last Content-Length given, if usable.
    var length: Int?
    /// The first problem met.
    var problem: String?
    /// Where the first line that is no header line starts: bytes that start
    /// no message, which may run into a header after them.
    var badLine: Int?
  }

  /// The header lines from `start` to `headerEnd`: a bad line is noted and
  /// passed over, an invalid Content-Length ends the reading.
  private func readHeader(upTo headerEnd: Int) -> HeaderFields {
    var header = HeaderFields()
    var lineStart = start
    while lineStart < headerEnd {
      let lineEnd = buffer[lineStart..<headerEnd].firstIndex(of: 0x0A) ?? headerEnd
      var line = buffer[lineStart..<lineEnd]
      lineStart = lineEnd + 1
      if line.last == 0x0D { line = line.dropLast() }
      if line.isEmpty { continue }
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
        header.problem = header.problem ?? "header line without ':'"
        header.badLine = header.badLine ?? line.startIndex
        continue
      }
      // The name is the whole of what comes before the colon, a token.
      let name = line[..<colon]
      guard !name.isEmpty, name.allSatisfy(FrameReader.isTokenByte) else {
        header.problem = header.problem ?? "invalid header name"
        header.badLine = header.badLine ?? line.startIndex
        continue
      }
      guard name.map(FrameReader.lowercased).elementsEqual(FrameReader.lengthName) else {
        continue
      }
      let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
      let digits = value.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
      if let number = Int(decimal: Array(digits)) {
        header.length = number
      } else {
        header.problem = "invalid Content-Length"
        header.length = nil
        header.badLine = nil
        break
      }
    }
    return header
  }

  /// After a header that gives no usable length: the next header block
  /// when one starts right there (a name and a colon), else the next
  /// `Content-Length:` header, wherever it is.
  private mutating func resume(after bodyStart: Int) {
    start = bodyStart
    resuming = true
  }

  /// Where the next `Content-Length` name followed by a colon (spaces
  /// between allowed) starts, from `start`.
  private func nextLengthHeader() -> Int? { nextLengthHeader(from: start, before: buffer.count) }

  private func nextLengthHeader(from first: Int, before end: Int) -> Int? {
    let name = FrameReader.lengthName
    var i = first
    while i + name.count < end {
      if FrameReader.lowercased(buffer[i]) == name[0] {
        var j = 0
        while j < name.count, FrameReader.lowercased(buffer[i + j]) == name[j] { j += 1 }
        if j == name.count {
          var k = i + j
          while k < buffer.count, buffer[k] == 0x20 || buffer[k] == 0x09 { k += 1 }
          if k < buffer.count, buffer[k] == UInt8(ascii: ":") { return i }
          if k == buffer.count { return nil }
        }
      }
      i += 1
    }
    return nil
  }

  /// The characters of a header name (RFC 9110's `tchar`).
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }

  private static func lowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
  }

  /// Where the header block ends (`\r\n\r\n`, or `\n\n` from a lax client):
  /// the end of its last line and the start of the body. Looked for in the
  /// first `maximumHeader` bytes only, so that chunks never change it.
  private func findHeaderEnd() -> (Int, Int)? {
    var i = start
    let last = min(buffer.count, start + FrameReader.maximumHeader)
    while i < last {
      if buffer[i] == 0x0A {
        if i + 1 < buffer.count, buffer[i + 1] == 0x0A { return (i, i + 2) }
        if i + 2 < buffer.count, buffer[i + 1] == 0x0D, buffer[i + 2] == 0x0A { return (i, i + 3) }
      }
      i += 1
    }
    return nil
  }

  /// Whether bytes of an unfinished frame are waiting.
  var isPending: Bool { start < buffer.count }
}

extension Int {
  /// Decimal digits only, at most 18 of them: never overflows.
  init?(decimal bytes: [UInt8]) {
    guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    self = bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
}
