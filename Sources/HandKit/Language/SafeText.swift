/// Text from input made safe to write into a diagnostic (SPEC §5): control
/// characters become `\xHH`, each byte of invalid UTF-8 becomes `\xHH`, and
/// bidirectional controls become `\u{HHHH}`, so input can never send escape
/// sequences to a terminal or reorder a message.
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

private func append(_ scalar: Unicode.Scalar, to out: inout String) {
  switch scalar.value {
  case 0x09: out.unicodeScalars.append(scalar)
  case 0x00...0x1F, 0x7F...0x9F: out += hex(UInt8(truncatingIfNeeded: scalar.value))
  case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
  default: out.unicodeScalars.append(scalar)
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
