/// Buffered standard output: renderers append bytes, and the buffer goes out
/// in large writes, before any read that may block, and at the end.
///
/// Output can also be held back (while a script is still being checked):
/// full buffers are then set aside in order, never copied again, and written
/// out together when released, or dropped.
struct Output {
  var buffer: [UInt8] = []
  private let fd: Int32
  static let flushThreshold = 1 << 16
  private var flushThreshold: Int { Output.flushThreshold }
  /// Buffers set aside while holding, oldest first.
  private var held: [[UInt8]] = []
  private(set) var heldBytes = 0
  private(set) var isHolding = false
  /// The errno of the first failed write (a full disk, a closed pipe).
  private(set) var failure: Int32?

  init(fd: Int32 = 1) {
    self.fd = fd
    buffer.reserveCapacity(flushThreshold + 4096)
  }

  /// Writes the buffer out (or sets it aside, when holding) once it is large.
  mutating func flushIfFull() {
    guard buffer.count >= flushThreshold else { return }
    if isHolding {
      heldBytes += buffer.count
      held.append(buffer)
      buffer = []
      buffer.reserveCapacity(flushThreshold + 4096)
    } else {
      flush()
    }
  }

  /// From now on, keep what is written until `release` or `discard`.
  mutating func hold() { isHolding = true }

  /// Writes out everything held, and stops holding.
  mutating func release() {
    isHolding = false
    for chunk in held { write(chunk) }
    held = []
    heldBytes = 0
    flush()
  }

  /// Drops everything held and buffered, and stops holding.
  mutating func discard() {
    isHolding = false
    held = []
    heldBytes = 0
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes the buffer out, unless holding.
  mutating func flush() {
    guard !isHolding, !buffer.isEmpty else { return }
    write(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes `bytes` out; after the first failure nothing more is written,
  /// and the loop stops at its next line (handsh(1), EXIT STATUS).
  private mutating func write(_ bytes: [UInt8]) {
    guard failure == nil else { return }
    failure = bytes.withUnsafeBytes { Platform.write(fd, $0) }
  }
}
