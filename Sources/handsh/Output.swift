/// Buffered standard output: renderers append bytes, and the buffer goes out
/// in large writes, before any read that may block, and at the end.
struct Output {
  var buffer: [UInt8] = []
  private let fd: Int32
  private let flushThreshold = 1 << 16

  init(fd: Int32 = 1) {
    self.fd = fd
    buffer.reserveCapacity(flushThreshold + 4096)
  }

  /// Writes the buffer out when it has grown large.
  mutating func flushIfFull() {
    if buffer.count >= flushThreshold { flush() }
  }

  /// Writes the buffer out. A closed pipe ends handsh quietly, like `cat`;
  /// any other write error is reported and gives exit status 1.
  mutating func flush() {
    guard !buffer.isEmpty else { return }
    let failure = buffer.withUnsafeBytes { System.write(fd, $0) }
    buffer.removeAll(keepingCapacity: true)
    guard let failure else { return }
    if failure == EPIPE { System.exit(1) }
    System.printError("handsh: write error: \(System.describe(failure))")
    System.exit(1)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
