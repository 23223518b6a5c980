/// One line of input, without its line break, a trailing `\r`, or the
/// byte-order mark of the first line (`lineContent`).
public struct Line {
  public let number: Int
  public let bytes: UnsafeBufferPointer<UInt8>
  /// Known to be all ASCII, so the parser need not check its encoding.
  public var isASCII = false
  /// Where the line starts in a whole text, byte-order mark and all, for
  /// reading on from it; 0 for lines of a stream.
  public var offset = 0

  @inlinable public init(
    number: Int, bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool = false, offset: Int = 0
  ) {
    self.number = number
    self.bytes = bytes
    self.isASCII = isASCII
    self.offset = offset
  }
}

/// What a line source hands the loop.
public enum LineEvent {
  case line(Line)
  /// Line `number` is longer than the line limit; its bytes are dropped.
  case tooLong(number: Int)
  /// The source is about to wait for more input: a moment to flush output.
  case waiting
}

/// Where lines come from: a whole text (a script, `-c`, a sourced FILE),
/// a stream read as it arrives (stdin), the prompt, a golden file's input
/// lines. The body returns false to stop early.
public protocol LineSource {
  mutating func forEachLine(_ body: (LineEvent) -> Bool)
}
