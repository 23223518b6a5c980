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
/// arrive, in any chunks; a frame is handed out once it is whole. Never
/// fails: whatever the bytes, it goes on to the next header.
struct FrameReader {
  /// The largest body kept: bigger ones are skipped as they stream by.
  static let maximumBody = 256 << 20
  /// A header block longer than this is not a header.
  static let maximumHeader = 64 << 10

  private var buffer: [UInt8] = []
  private var start = 0
  /// Bytes of a too-large body still to skip.
  private var skipping = 0

  init() {}

  mutating func feed(_ bytes: UnsafeRawBufferPointer) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    if skipping > 0 {
      let dropped = min(skipping, bytes.count)
      skipping -= dropped
      buffer += bytes[dropped...]
    } else {
      buffer += bytes
    }
  }

  mutating func feed(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { feed($0) }
  }

  /// The next whole frame, or nil until more bytes come.
  mutating func next() -> Frame? {
    if skipping > 0 {
      let dropped = min(skipping, buffer.count - start)
      skipping -= dropped
      start += dropped
      if skipping > 0 { return nil }
    }
    // Blank lines between messages are tolerated.
    while start + 1 < buffer.count, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
      start += 2
    }
    while start < buffer.count, buffer[start] == 0x0A { start += 1 }
    guard let (headerEnd, bodyStart) = findHeaderEnd() else {
      if buffer.count - start > FrameReader.maximumHeader {
        start = buffer.count
        return .badHeader("header longer than \(FrameReader.maximumHeader) bytes")
      }
      return nil
    }
    let header = buffer[start..<headerEnd]
    var length: Int?
    var problem: String?
    for line in header.split(separator: 0x0A, omittingEmptySubsequences: true) {
      var line = line
      if line.last == 0x0D { line = line.dropLast() }
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
        problem = "header line without ':'"
        continue
      }
      let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
      // A name that ends in it: what a broken message left before a header
      // runs into it, and reading gets back in step.
      guard name.hasSuffix("content-length") else { continue }
      let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
      let digits = value.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
      if let number = Int(decimal: Array(digits)) {
        length = number
      } else {
        problem = "invalid Content-Length"
      }
    }
    guard let length else {
      start = bodyStart
      return .badHeader(problem ?? "no Content-Length header")
    }
    if let problem {
      // The length is known: skip the body with the header.
      let available = min(length, buffer.count - bodyStart)
      start = bodyStart + available
      skipping = length - available
      return .badHeader(problem)
    }
    guard length <= FrameReader.maximumBody else {
      let available = min(length, buffer.count - bodyStart)
      start = bodyStart + available
      skipping = length - available
      return .tooLarge(length)
    }
    guard buffer.count - bodyStart >= length else { return nil }
    let body = Array(buffer[bodyStart..<(bodyStart + length)])
    start = bodyStart + length
    return .body(body)
  }

  /// Where the header block ends (`\r\n\r\n`, or `\n\n` from a lax client):
  /// the end of its last line and the start of the body.
  private func findHeaderEnd() -> (Int, Int)? {
    var i = start
    while i < buffer.count {
      if buffer[i] == 0x0A {
        if i + 1 < buffer.count, buffer[i + 1] == 0x0A { return (i, i + 2) }
        if i + 2 < buffer.count, buffer[i + 1] == 0x0D, buffer[i + 2] == 0x0A { return (i, i + 3) }
      }
      i += 1
    }
    return nil
  }

  /// Whether bytes of an unfinished frame are waiting.
  var isPending: Bool { start < buffer.count || skipping > 0 }
}

extension Int {
  /// Decimal digits only, at most 18 of them: never overflows.
  init?(decimal bytes: [UInt8]) {
    guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    self = bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
}
