import Testing

@testable import HandKit

/// The one escaping table (handsh(1), Diagnostics): every character it
/// lists is written `\u{HHHH}`, its neighbours are not, and control
/// characters and invalid UTF-8 are `\xHH`. Reports (TAP, JUnit) go
/// through the same function, so no character that XML forbids reaches one.
@Suite struct SafeTextTests {
  /// The set, exactly as the manual lists it.
  static let shownByNumber: [ClosedRange<UInt32>] =
    [
      0x00A0...0x00A0, 0x00AD...0x00AD, 0x034F...0x034F, 0x0600...0x0605, 0x061C...0x061C,
      0x06DD...0x06DD, 0x070F...0x070F, 0x0890...0x0891, 0x08E2...0x08E2, 0x115F...0x1160,
      0x1680...0x1680, 0x17B4...0x17B5, 0x180B...0x180F, 0x2000...0x200F, 0x2028...0x202F,
      0x205F...0x206F, 0x2800...0x2800, 0x3000...0x3000, 0x3164...0x3164, 0xFDD0...0xFDEF,
      0xFE00...0xFE0F, 0xFEFF...0xFEFF, 0xFFA0...0xFFA0, 0xFFF0...0xFFFB, 0xFFFE...0xFFFF,
      0x110BD...0x110BD, 0x110CD...0x110CD, 0x13430...0x1343F, 0x1BCA0...0x1BCA3,
      0x1D173...0x1D17A, 0xE0000...0xE0FFF,
    ] + (1...16).map { plane in (plane << 16 | 0xFFFE)...(plane << 16 | 0xFFFF) }

  private func shown(_ value: UInt32) -> String {
    safeText(Array(String(Unicode.Scalar(value)!).utf8))
  }

  private func number(_ value: UInt32) -> String {
    var digits = String(value, radix: 16, uppercase: true)
    while digits.count < 4 { digits = "0" + digits }
    return "\\u{" + digits + "}"
  }

  @Test func everyListedCharacterIsShownByNumber() {
    for range in Self.shownByNumber {
      for value in range { #expect(shown(value) == number(value)) }
    }
  }

  @Test func nothingElseAboveTheControlsIsTouched() {
    var listed = Set<UInt32>()
    for range in Self.shownByNumber { listed.formUnion(range) }
    for value in UInt32(0xA0)...0x10FFFF where !(0xD800...0xDFFF).contains(value) {
      guard !listed.contains(value) else { continue }
      let text = String(Unicode.Scalar(value)!)
      #expect(safeText(Array(text.utf8)) == text, "U+\(String(value, radix: 16))")
    }
  }

  @Test func controlsAndInvalidBytesAreHex() {
    #expect(safeText([0x1B, 0x09, 0x7F, 0xC2, 0x85, 0xFF]) == "\\x1B\t\\x7F\\x85\\xFF")
  }

  /// A tag character hidden in a word is shown: `ad\u{E0061}d`, not `add`.
  @Test func aHiddenTagCharacterShows() {
    let word: [UInt8] = Array("ad".utf8) + [0xF3, 0xA0, 0x81, 0xA1] + Array("d".utf8)
    #expect(safeText(word) == "ad\\u{E0061}d")
  }

  /// JUnit gets no U+FFFE or U+FFFF, which XML does not allow.
  @Test func junitHoldsNoCharacterXMLForbids() {
    let report = GoldenFileReport(
      path: safeText(Array("a\u{FFFE}.hand".utf8)),
      status: .error(["x \u{FFFF} \u{1} y"]), seconds: 0, name: Array("a\u{FFFE}.hand".utf8))
    let xml = String(decoding: junitReport([report], seconds: 0), as: UTF8.self)
    #expect(!xml.unicodeScalars.contains { $0.value == 0xFFFE || $0.value == 0xFFFF })
    #expect(xml.contains("a\\u{FFFE}.hand"))
    #expect(xml.contains("x \\u{FFFF} \\x01 y"))
  }
}
