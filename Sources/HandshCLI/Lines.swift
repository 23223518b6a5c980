import HandKit

/// One line of input, without its line break, a trailing `\r`, or the
/// byte-order mark of the first line.
struct Line {
  let number: Int
  let bytes: UnsafeBufferPointer<UInt8>
  /// Known to be all ASCII, so the parser need not check its encoding.
  var isASCII = false
}

/// What a line source hands the loop.
enum LineEvent {
  case line(Line)
  /// The source is about to wait for more input: a moment to flush output.
  case waiting
}

/// Where lines come from: a whole text (a script, `-c`), a stream read as it
/// arrives (stdin), or the prompt. The body returns false to stop early.
protocol LineSource {
  mutating func forEachLine(_ body: (LineEvent) -> Bool)
}

/// Calls `body` for each complete line of `text[start...]`; the last line
/// counts even without a final newline when `final` is set. Returns where the
/// unread rest starts, or nil when `body` asked to stop.
private func splitLines(
  _ text: UnsafeBufferPointer<UInt8>, from start: Int, final: Bool, number: inout Int,
  _ body: (LineEvent) -> Bool
) -> Int? {
  var start = start
  let ascii = LineParser.isASCII(UnsafeBufferPointer(rebasing: text[start...]))
  while start < text.count {
    guard let base = text.baseAddress else { break }
    let from = UnsafeRawPointer(base + start)
    let newline = memchr(from, 0x0A, text.count - start)
    guard newline != nil || final else { break }
    let length = newline.map { from.distance(to: UnsafeRawPointer($0)) } ?? (text.count - start)
    var end = start + length
    if end > start, text[end - 1] == 0x0D { end -= 1 }
    var begin = start
    if number == 0, end - begin >= 3, text[begin] == 0xEF, text[begin + 1] == 0xBB,
      text[begin + 2] == 0xBF
    {
      begin += 3
    }
    number += 1
    start += length + 1
    let bytes = UnsafeBufferPointer(rebasing: text[begin..<end])
    guard body(.line(Line(number: number, bytes: bytes, isASCII: ascii))) else { return nil }
  }
  return min(start, text.count)
}

/// A whole text in memory: a script file or the `-c` text.
struct TextLines: LineSource {
  let text: [UInt8]

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    var number = 0
    text.withUnsafeBufferPointer { _ = splitLines($0, from: 0, final: true, number: &number, body) }
  }
}

/// A stream read as lines arrive, each line handed on before the next read.
struct StreamLines: LineSource {
  let fd: Int32

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    var buffer: [UInt8] = []
    var number = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      guard body(.waiting) else { return }
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      let atEnd = count <= 0
      if count > 0 { buffer.append(contentsOf: chunk[..<count]) }
      let consumed = buffer.withUnsafeBufferPointer {
        splitLines($0, from: 0, final: atEnd, number: &number, body)
      }
      guard let consumed, !atEnd else { return }
      buffer.removeFirst(consumed)
    }
  }
}

/// Reads a whole file, a FIFO included, or says why it cannot.
func readFile(_ path: [UInt8]) -> Result<[UInt8], ReadError> {
  let fd = (path + [0]).withUnsafeBufferPointer { buffer in
    buffer.withMemoryRebound(to: CChar.self) { chars in
      chars.baseAddress.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1
    }
  }
  guard fd >= 0 else { return .failure(ReadError(code: errno)) }
  defer { close(fd) }
  var status = stat()
  if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
    return .failure(ReadError(code: EISDIR))
  }
  var text: [UInt8] = []
  // A regular file says its size: one allocation, no regrowing copies.
  if status.st_mode & S_IFMT == S_IFREG { text.reserveCapacity(Int(status.st_size) + 1) }
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 {
      if errno == EINTR { continue }
      return .failure(ReadError(code: errno))
    }
    if count == 0 { return .success(text) }
    text.append(contentsOf: chunk[..<count])
  }
}

struct ReadError: Error {
  let code: Int32
}
