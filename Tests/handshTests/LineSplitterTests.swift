import HandKit
import HandshCLI
import XCTest

/// The stream splitter (stdin) against the whole-text splitter (scripts):
/// fed in chunks of every size, split at every boundary, it must hand on
/// the same lines, and report a line over the limit at the same number
/// (handsh(1), DESCRIPTION). Random inputs come from a fixed seed.
final class LineSplitterTests: XCTestCase {
  enum Event: Equatable {
    case line(Int, [UInt8], ascii: Bool)
    case tooLong(Int)
  }

  static func events(_ event: LineEvent, into list: inout [Event]) {
    switch event {
    case .line(let line):
      list.append(.line(line.number, Array(line.bytes), ascii: line.isASCII))
    case .tooLong(let number): list.append(.tooLong(number))
    case .waiting: break
    }
  }

  /// The whole-text splitter's events; it stops at a line over the limit.
  static func whole(_ text: [UInt8], limit: Int) -> [Event] {
    var list: [Event] = []
    var lines = TextLines(text: text, limit: limit)
    lines.forEachLine { event in
      events(event, into: &list)
      return true
    }
    return list
  }

  /// The stream splitter's events for `text` cut at `cuts`.
  static func streamed(_ text: [UInt8], cuts: [Int], limit: Int) -> [Event] {
    var list: [Event] = []
    var splitter = LineSplitter(limit: limit)
    var start = 0
    for end in cuts + [text.count] {
      text[start..<end].withUnsafeBufferPointer { chunk in
        _ = splitter.feed(chunk, final: false) {
          events($0, into: &list)
          return true
        }
      }
      start = end
    }
    _ = [UInt8]().withUnsafeBufferPointer { empty in
      splitter.feed(empty, final: true) {
        events($0, into: &list)
        return true
      }
    }
    return list
  }

  /// The lines as a plain reading of handsh(1) gives them: split at `\n`,
  /// a trailing `\r` and line 1's byte-order mark dropped, a line over the
  /// limit reported and skipped.
  static func reference(_ text: [UInt8], limit: Int) -> [Event] {
    var pieces = text.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    if text.last == 0x0A || text.isEmpty { pieces.removeLast() }
    let ascii = text.allSatisfy { $0 < 0x80 }
    return pieces.enumerated().map { index, piece in
      guard piece.count <= limit else { return .tooLong(index + 1) }
      var bytes = piece[...]
      if bytes.last == 0x0D { bytes = bytes.dropLast() }
      if index == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
      return .line(index + 1, Array(bytes), ascii: ascii)
    }
  }

  /// Lines as the stream gives them, ignoring the ASCII hint (a stream
  /// knows it per chunk, a text for all of it; both only ever say true for
  /// ASCII bytes).
  static func plain(_ list: [Event]) -> [Event] {
    list.map {
      if case .line(let number, let bytes, _) = $0 { return .line(number, bytes, ascii: false) }
      return $0
    }
  }

  /// Up to and including the first line over the limit.
  static func untilTooLong(_ list: [Event]) -> [Event] {
    guard let index = list.firstIndex(where: { if case .tooLong = $0 { true } else { false } })
    else { return list }
    return Array(list[...index])
  }

  func check(_ text: [UInt8], limit: Int, file: StaticString = #filePath, line: UInt = #line) {
    let expected = Self.reference(text, limit: limit)
    XCTAssertEqual(
      Self.whole(text, limit: limit), Self.untilTooLong(expected), "whole text", file: file,
      line: line)
    // One cut at every boundary, and chunks of every size up to 9.
    var cutsList: [[Int]] = (0...text.count).map { [$0] }
    for size in 1...9 { cutsList.append(Array(stride(from: size, to: text.count, by: size))) }
    for cuts in cutsList {
      let got = Self.streamed(text, cuts: cuts, limit: limit)
      XCTAssertEqual(
        Self.plain(got), Self.plain(expected), "cut at \(cuts)", file: file, line: line)
      for event in got {
        if case .line(_, let bytes, ascii: true) = event {
          XCTAssertTrue(bytes.allSatisfy { $0 < 0x80 }, "ASCII hint on non-ASCII bytes")
        }
      }
    }
  }

  func testExamplesAtEveryBoundary() {
    let examples: [String] = [
      "", "\n", "add", "add\n", "add\nshow", "add\r\nshow\r\n", "\u{FEFF}add\n\u{FEFF}add\n",
      "\r", "\r\n\r\n", "a\n\nb\n", "12345678\n123456789\n1234567890\nok\n",
      "1234567890123\nx", "x\n1234567890123", "♥♥♥♥\n♥\n", "\u{FEFF}12345678\n",
    ]
    for example in examples { check(Array(example.utf8), limit: 8) }
  }

  func testRandomTextsAtEveryBoundary() {
    var state: UInt64 = 0x1234_5678
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    let alphabet: [UInt8] = [0x0A, 0x0A, 0x0D, 0x61, 0x62, 0xEF, 0xBB, 0xBF, 0xE2, 0x99, 0xA5]
    for _ in 0..<300 {
      let count = Int(next() % 40)
      let text = (0..<count).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
      check(text, limit: Int(next() % 12))
    }
  }

  /// A line of exactly the limit is a line; one byte more is not.
  func testTheRealLimit() {
    let fits = [UInt8](repeating: 0x61, count: lineLimit)
    XCTAssertEqual(Self.whole(fits + [0x0A], limit: lineLimit).count, 1)
    XCTAssertEqual(
      Self.whole(fits + [0x61, 0x0A, 0x62], limit: lineLimit), [.tooLong(1)])
    XCTAssertEqual(
      Self.plain(
        Self.streamed(fits + [0x61, 0x0A, 0x62], cuts: [65536, 1 << 20], limit: lineLimit)),
      [.tooLong(1), .line(2, [0x62], ascii: false)])
  }
}
