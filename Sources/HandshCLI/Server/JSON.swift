/// A JSON value, as the language server reads and writes messages
/// (handsh(1), EDITORS). Numbers keep their text, so an `id` goes back
/// exactly as it came; objects keep their members in order.
enum JSON: Equatable {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([JSON])
  case object([(String, JSON)])
  /// A value already written (a run's diagnostics, written on its thread).
  case raw([UInt8])

  static func == (a: JSON, b: JSON) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    // A value already written equals what writes the same bytes.
    case (.raw(let x), _): x == b.bytes
    case (_, .raw(let y)): a.bytes == y
    case (.object(let x), .object(let y)):
      x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  subscript(key: String) -> JSON? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.0 == key }?.1
  }

  var string: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }

  /// A whole number that fits in an Int (`3`, `3.0` and `3e0` included).
  var int: Int? {
    guard case .number(let text) = self else { return nil }
    if let value = Int(text) { return value }
    guard let value = Double(text), value.rounded() == value, abs(value) < 1e15 else {
      return nil
    }
    return Int(value)
  }

  var array: [JSON]? {
    guard case .array(let items) = self else { return nil }
    return items
  }

  var bool: Bool? {
    guard case .bool(let value) = self else { return nil }
    return value
  }

  // MARK: Writing

  /// The value as compact JSON, strings escaped so that any reader takes
  /// them back exactly.
  func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let text): out.append(contentsOf: text.utf8)
    case .string(let text): JSON.writeString(text, to: &out)
    case .raw(let bytes): out.append(contentsOf: bytes)
    case .array(let items):
      out.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        item.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSON.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  var bytes: [UInt8] {
    var out: [UInt8] = []
    write(to: &out)
    return out
  }

  static func writeString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    // Most strings need no escape: copied whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
      out.append(contentsOf: text.utf8)
      out.append(UInt8(ascii: "\""))
      return
    }
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0..<0x20, 0x7F:
        out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  static func int(_ value: Int) -> JSON { .number(String(value)) }
}

/// Why a message body is not JSON.
struct JSONError: Error, Equatable {
  let message: String
}

/// A strict JSON reader (RFC 8259) over bytes: any input gives a value or
/// an error, never a crash. Nesting deeper than `maximumDepth` is an error,
/// so no message can exhaust the stack; invalid UTF-8 and lone surrogates
/// in strings become U+FFFD.
struct JSONReader {
  static let maximumDepth = 256

  private let bytes: [UInt8]
  private var offset = 0

  static func parse(_ bytes: [UInt8]) -> Result<JSON, JSONError> {
    var reader = JSONReader(bytes: bytes)
    do throws(JSONError) {
      let value = try reader.value(depth: 0)
      reader.skipSpace()
      guard reader.offset == bytes.count else { throw reader.fail("text after the value") }
      return .success(value)
    } catch {
      return .failure(error)
    }
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func fail(_ what: String) -> JSONError {
    JSONError(message: "\(what) at byte \(offset)")
  }

  private mutating func skipSpace() {
    while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
  }

  private mutating func expect(_ word: String) throws(JSONError) {
    let word = Array(word.utf8)
    guard bytes[offset...].starts(with: word) else { throw fail("invalid literal") }
    offset += word.count
  }

  private mutating func value(depth: Int) throws(JSONError) -> JSON {
    guard depth < JSONReader.maximumDepth else { throw fail("nesting too deep") }
    skipSpace()
    guard offset < bytes.count else { throw fail("unexpected end") }
    switch bytes[offset] {
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "["):
      offset += 1
      var items: [JSON] = []
      skipSpace()
      if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
        offset += 1
        return .array(items)
      }
      while true {
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard offset < bytes.count else { throw fail("unterminated array") }
        let byte = bytes[offset]
        offset += 1
        if byte == UInt8(ascii: "]") { return .array(items) }
        guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
      }
    case UInt8(ascii: "{"):
      offset += 1
      var members: [(String, JSON)] = []
      skipSpace()
      if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
        offset += 1
        return .object(members)
      }
      while true {
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
          throw fail("expected a member name")
        }
        let key = try string()
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
          throw fail("expected ':'")
        }
        offset += 1
        members.append((key, try value(depth: depth + 1)))
        skipSpace()
        guard offset < bytes.count else { throw fail("unterminated object") }
        let byte = bytes[offset]
        offset += 1
        if byte == UInt8(ascii: "}") { return .object(members) }
        guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
      }
    default:
      return .number(try number())
    }
  }

  private func isDigit(_ at: Int) -> Bool {
    at < bytes.count && (0x30...0x39).contains(bytes[at])
  }

  private mutating func number() throws(JSONError) -> String {
    let start = offset
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    guard isDigit(offset) else { throw fail("invalid value") }
    if bytes[offset] == 0x30 {
      offset += 1
    } else {
      while isDigit(offset) { offset += 1 }
    }
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      offset += 1
      guard isDigit(offset) else { throw fail("invalid number") }
      while isDigit(offset) { offset += 1 }
    }
    if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
      offset += 1
      if offset < bytes.count,
        bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      guard isDigit(offset) else { throw fail("invalid number") }
      while isDigit(offset) { offset += 1 }
    }
    return String(decoding: bytes[start..<offset], as: UTF8.self)
  }

  private mutating func hex4() throws(JSONError) -> UInt32 {
    guard offset + 4 <= bytes.count else { throw fail("short \\u escape") }
    var value: UInt32 = 0
    for byte in bytes[offset..<(offset + 4)] {
      let digit: UInt8
      switch byte {
      case 0x30...0x39: digit = byte - 0x30
      case 0x41...0x46: digit = byte - 0x41 + 10
      case 0x61...0x66: digit = byte - 0x61 + 10
      default: throw fail("invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
    }
    offset += 4
    return value
  }

  private mutating func string() throws(JSONError) -> String {
    offset += 1
    var out: [UInt8] = []
    while true {
      guard offset < bytes.count else { throw fail("unterminated string") }
      let byte = bytes[offset]
      offset += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(decoding: out, as: UTF8.self)
      case 0..<0x20:
        throw fail("control character in a string")
      case UInt8(ascii: "\\"):
        guard offset < bytes.count else { throw fail("unterminated string") }
        let escape = bytes[offset]
        offset += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar), bytes[offset...].starts(with: [0x5C, 0x75]) {
            let mark = offset
            offset += 2
            let low = try hex4()
            if (0xDC00..<0xE000).contains(low) {
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else {
              offset = mark
            }
          }
          out += Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
        default:
          throw fail("invalid escape")
        }
      default:
        // The plain run up to the next quote, escape or control byte at once.
        var end = offset
        while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, bytes[end] >= 0x20 {
          end += 1
        }
        out.append(byte)
        out += bytes[offset..<end]
        offset = end
      }
    }
  }
}
