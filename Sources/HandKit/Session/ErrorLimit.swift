/// The error limit of a whole text, a SCRIPT, `-c` text or sourced FILE
/// (handsh(1), LIMITS): its check reports at most `count` syntax errors (a
/// line too long counts as one); at the next one it says `message`, as
/// `SOURCE: error: too many errors, stopping`, and reads no further. So an
/// endless input of noise ends at once, and memory holds no more than the
/// text read up to there.
public enum ErrorLimit {
  /// The most syntax errors reported of one text.
  public static let count = 20
  /// What the first error over the limit is reported as.
  public static let message = "too many errors, stopping"
}

/// A diagnostic about a whole text, with no line: `SOURCE: error: MESSAGE`.
public func diagnostic(_ message: String, in source: String) -> String {
  "\(source): error: \(message)"
}

/// Counts the syntax errors of a text as it is read, so that the reader
/// can stop once the check would (`ErrorLimit`): each `count` call looks at
/// the lines completed since the last one, never again at earlier ones.
/// Lines are cut as a sourced file's are (`SourcedLines`).
public struct ErrorCounter: Sendable {
  /// The syntax errors found so far; counting stops past the limit.
  public private(set) var errors = 0
  /// A line too long was found: the check ends there.
  private var ended = false
  /// Where the first line not yet looked at starts, and its number.
  private var start = 0
  private var number = 1
  /// How far the search for the `\n` of the line at `start` has gone.
  private var searched = 0

  public init() {}

  /// Whether the check is over the limit, or has ended at a line too long:
  /// reading may stop.
  public var isDone: Bool { ended || errors > ErrorLimit.count }

  /// Counts the errors of the lines of `text` (all of the text read so
  /// far) that end with a `\n`, and with `final` the last line too. False
  /// when reading may stop: past the error limit, or at a line too long
  /// (the check ends there).
  public mutating func count(_ text: UnsafeBufferPointer<UInt8>, final: Bool) -> Bool {
    while !isDone, start < text.count {
      // A line that earlier reads began is searched on from where they
      // ended, so a long line costs its length once.
      var end = max(start, searched)
      while end < text.count, text[end] != 0x0A { end += 1 }
      searched = end
      guard end < text.count || final else { return true }
      if end - start > LineParser.maximumLineLength {
        errors += 1
        ended = true
        return false
      }
      var (begin, stop) = (start, end)
      if stop > begin, text[stop - 1] == 0x0D { stop -= 1 }
      if number == 1, stop - begin >= 3, text[begin] == 0xEF, text[begin + 1] == 0xBB,
        text[begin + 2] == 0xBF
      {
        begin += 3
      }
      var parser = LineParser(UnsafeBufferPointer(rebasing: text[begin..<stop]))
      while errors <= ErrorLimit.count {
        let item = parser.nextItem()
        if case .end = item { break }
        if case .error = item { errors += 1 }
      }
      start = end + 1
      number += 1
    }
    return !isDone
  }
}
