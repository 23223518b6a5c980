/// Buffered standard output: renderers append bytes, and the buffer goes out
/// in large writes, before any read that may block, before a diagnostic, and
/// at the end.
struct Output {
  var buffer: [UInt8] = []
  private let fd: Int32
  static let flushThreshold = 1 << 16
  /// The errno of the first failed write (a full disk, a closed pipe).
  private(set) var failure: Int32?

  init(fd: Int32 = 1) {
    self.fd = fd
    buffer.reserveCapacity(Output.flushThreshold + 4096)
  }

  /// Writes the buffer out once it is large.
  mutating func flushIfFull() {
    guard buffer.count >= Output.flushThreshold else { return }
    flush()
  }

  /// Writes the buffer out.
  mutating func flush() {
    guard !buffer.isEmpty else { return }
    write(buffer)
    // Kept when it could not be written: the prompt shows it elsewhere.
    if failure == nil { buffer.removeAll(keepingCapacity: true) }
  }

  /// Writes out what the buffer holds, then `bytes` as they are (no copy).
  mutating func write(through bytes: [UInt8]) {
    flush()
    write(bytes)
  }

  /// Writes `bytes` out; after the first failure nothing more is written,
  /// and the loop stops at its next line (handsh(1), EXIT STATUS).
  private mutating func write(_ bytes: [UInt8]) {
    guard failure == nil else { return }
    failure = bytes.withUnsafeBytes { Platform.write(fd, $0) }
  }
}
