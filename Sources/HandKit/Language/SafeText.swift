/// Text from input made safe to write into a diagnostic or a report
/// (handsh(1), Diagnostics): control characters become `\xHH`, each byte of
/// invalid UTF-8 becomes `\xHH`, and the characters `isShownByNumber` lists
/// (invisible, space-like, bidirectional, or not allowed in XML) become
/// `\u{HHHH}`, so input can never send escape sequences to a terminal,
/// reorder a message, hide a character in it, or break a JUnit report.
/// Every message and report goes through this one function and its table.
public func safeText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
  var out = ""
  var rest = Array(bytes)[...]
  while let first = rest.first {
    var decoder = UTF8()
    var iterator = rest.makeIterator()
    if case .scalarValue(let scalar) = decoder.decode(&iterator) {
      rest = rest.dropFirst(UTF8.width(scalar))
      append(scalar, to: &out)
    } else {
      // One byte at a time, so that every byte of a bad sequence is shown.
      out += hex(first)
      rest = rest.dropFirst()
    }
  }
  return out
}

/// The most bytes of a word a diagnostic quotes whole (handsh(1),
/// Diagnostics); a longer word is shortened to its start and its end.
public let quotedWordLimit = 128

/// The most bytes of a FILE a diagnostic quotes whole: the longest path.
public let quotedFileLimit = 4096

/// A word from input as a diagnostic quotes it: made safe, and, when longer
/// than `limit` bytes, shortened to its first 80 bytes, `…`, and its last
/// 32 (each cut moved to a character boundary), so a huge bad word cannot
/// flood the terminal and the message still shows which word it was.
public func safeWord<Bytes: Collection<UInt8>>(_ bytes: Bytes, limit: Int = quotedWordLimit)
  -> String
{
  let count = bytes.count
  guard count > limit else { return safeText(bytes) }
  var head = bytes.index(bytes.startIndex, offsetBy: 80)
  var tail = bytes.index(bytes.startIndex, offsetBy: count - 32)
  // At most three continuation bytes end a character.
  for _ in 0..<3 where bytes[head] & 0xC0 == 0x80 { head = bytes.index(head, offsetBy: -1) }
  for _ in 0..<3 where bytes[tail] & 0xC0 == 0x80 { tail = bytes.index(after: tail) }
  return safeText(bytes[..<head]) + "…" + safeText(bytes[tail...])
}

private func append(_ scalar: Unicode.Scalar, to out: inout String) {
  switch scalar.value {
  case 0x09: out.unicodeScalars.append(scalar)
  case 0x00...0x1F, 0x7F...0x9F: out += hex(UInt8(truncatingIfNeeded: scalar.value))
  case _ where isShownByNumber(scalar):
    var digits = String(scalar.value, radix: 16, uppercase: true)
    while digits.utf8.count < 4 { digits = "0" + digits }
    out += "\\u{" + digits + "}"
  default: out.unicodeScalars.append(scalar)
  }
}

/// The one table of characters a message shows by number (handsh(1),
/// Diagnostics): the format characters (Cf), the separators other than
/// U+0020 (Zs, Zl, Zp), the default-ignorable characters, the
/// noncharacters (which XML does not allow), and U+2800, blank in most
/// fonts. Fixed here rather than taken from the Unicode tables of the
/// Swift runtime, so the set is the same whatever runtime handsh runs on.
public func isShownByNumber(_ scalar: Unicode.Scalar) -> Bool {
  let value = scalar.value
  // The last two code points of every plane are noncharacters.
  if value & 0xFFFE == 0xFFFE { return true }
  switch value {
  case 0x00A0, 0x00AD, 0x034F, 0x0600...0x0605, 0x061C, 0x06DD, 0x070F, 0x0890...0x0891,
    0x08E2, 0x115F...0x1160, 0x1680, 0x17B4...0x17B5, 0x180B...0x180F, 0x2000...0x200F,
    0x2028...0x202F, 0x205F...0x206F, 0x2800, 0x3000, 0x3164, 0xFDD0...0xFDEF, 0xFE00...0xFE0F,
    0xFEFF, 0xFFA0, 0xFFF0...0xFFFB, 0x110BD, 0x110CD, 0x13430...0x1343F, 0x1BCA0...0x1BCA3,
    0x1D173...0x1D17A, 0xE0000...0xE0FFF:
    return true
  default:
    return false
  }
}

private func hex(_ byte: UInt8) -> String {
  let digits = Array("0123456789ABCDEF".utf8)
  return String(
    decoding: [
      UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)],
    ],
    as: UTF8.self)
}
