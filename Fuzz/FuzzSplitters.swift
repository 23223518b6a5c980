// The fuzzer's check of the two line splitters against each other.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a line splitter hands on, kept.
enum SplitEvent: Equatable {
  case line(Int, [UInt8])
  case tooLong(Int)
}

/// The stream splitter (stdin) against the whole-text splitter (a script):
/// fed the input in chunks whose sizes a generator seeded by the input
/// chooses (empty chunks included), with a line limit small enough to be
/// reached (1 to 64 bytes, chosen by the last byte), it must hand on the
/// same lines as the whole text, up to and including the first line over
/// the limit; after it, the stream goes on line by line, to the input's
/// last line.
func checkSplitters(_ input: UnsafeBufferPointer<UInt8>) {
  let limit = 1 + Int(input.last ?? 0) % 64
  var whole: [SplitEvent] = []
  var text = TextLines(text: Array(input), limit: limit)
  text.forEachLine { event in
    switch event {
    case .line(let line): whole.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): whole.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  var streamed: [SplitEvent] = []
  var splitter = LineSplitter(limit: limit)
  var random = SplitMix64(seed: seed(of: input) ^ 0x5EED)
  var start = 0
  func collect(_ event: LineEvent) -> Bool {
    switch event {
    case .line(let line):
      guard !line.isASCII || line.bytes.allSatisfy({ $0 < 0x80 }) else {
        broken("stream line \(line.number) is marked ASCII but is not")
      }
      streamed.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): streamed.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  while start < input.count {
    let size = min(input.count - start, Int(random.next() % 20))
    let chunk = UnsafeBufferPointer(rebasing: input[start..<(start + size)])
    guard splitter.feed(chunk, final: false, collect) else { broken("the splitter stopped") }
    start += size
  }
  guard splitter.feed(UnsafeBufferPointer(rebasing: input[input.count...]), final: true, collect)
  else { broken("the splitter stopped at the end") }

  let cut = streamed.firstIndex { if case .tooLong = $0 { true } else { false } }
  let prefix = cut.map { Array(streamed[...$0]) } ?? streamed
  guard prefix == whole else {
    broken("stream lines \(prefix.count) differ from the whole text's \(whole.count)")
  }
  var lines = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  if let last = input.last, last != 0x0A { lines += 1 }
  for (index, event) in streamed.enumerated() {
    switch event {
    case .line(let number, let bytes):
      guard number == index + 1, bytes.count <= limit else { broken("stream line \(number)") }
    case .tooLong(let number):
      guard number == index + 1 else { broken("stream line \(number) too long out of order") }
    }
  }
  guard streamed.count == lines else { broken("stream gave \(streamed.count) of \(lines) lines") }
}
