/// The error limit of a whole text, a SCRIPT, `-c` text or sourced FILE
/// (handsh(1), LIMITS): its check reports at most `count` syntax errors (a
/// line too long counts as one); at the next one it says `message`, as
/// `SOURCE: error: too many errors, stopping`, and reads no further. So an
/// endless input of noise ends at once, and memory holds no more than the
/// text read up to there. Each check of a text keeps one, and asks it about
/// each error it finds (`admit`): the rule is written here only.
public struct ErrorLimit: Sendable {
  /// The most syntax errors reported of one text.
  public static let count = 20
  /// What the first error over the limit is reported as.
  public static let message = "too many errors, stopping"

  /// The syntax errors found so far; one more than `count` once passed.
  public private(set) var errors = 0

  public init() {}

  /// Counts one more syntax error: true when it is to be reported, false
  /// when it passes the limit, and the check stops there with `message`.
  /// Out of line: errors are rare, and the loops over a text's lines that
  /// ask keep their registers for the lines (`scripts/bench`).
  @inline(never)
  public mutating func admit() -> Bool {
    guard !passed else { return false }
    errors += 1
    return !passed
  }

  /// Whether an error passed the limit.
  @inlinable public var passed: Bool { errors > ErrorLimit.count }
}

/// A diagnostic about a whole text, with no line: `SOURCE: error: MESSAGE`.
public func diagnostic(_ message: String, in source: String) -> String {
  "\(source): error: \(message)"
}

/// The check of a whole text by the error limit (`ErrorLimit`), made as
/// the text is read: each `count` call looks at the lines completed since
/// the last one, never again at earlier ones, so the reader can stop once
/// the check would. Lines are cut as a sourced file's are (`SourcedLines`).
/// A sourced FILE is checked by it before it runs; a SCRIPT's check runs
/// its commands ahead as well, and is the runner's.
public struct ErrorCounter: Sendable {
  private var limit = ErrorLimit()
  /// A line too long was found: the check ends there.
  private var ended = false
  /// Where the first line not yet looked at is.
  private var position = SourcedLines.Position()

  public init() {}

  /// The syntax errors found so far; counting stops past the limit.
  public var errors: Int { limit.errors }

  /// Whether an error passed the limit: the check ends with
  /// `ErrorLimit.message`.
  public var passed: Bool { limit.passed }

  /// Whether the check is over the limit, or has ended at a line too long:
  /// reading may stop.
  public var isDone: Bool { ended || limit.passed }

  /// Counts the errors of the lines of `text` (all of the text read so
  /// far) that end with a `\n`, and with `final` the last line too, and
  /// hands each one that is within the limit to `report` (its message,
  /// line and column). False when reading may stop: past the error limit,
  /// or at a line too long (the check ends there). `knownASCII`: all of
  /// `text` is known to be ASCII.
  public mutating func count(
    _ text: UnsafeBufferPointer<UInt8>, final: Bool, knownASCII: Bool = false,
    report: (_ message: String, _ line: Int, _ column: Int) -> Void = { _, _, _ in }
  ) -> Bool {
    var lines = SourcedLines(text, from: position)
    lines.partial = !final
    defer { position = lines.position }
    while !isDone, let line = lines.next() {
      guard let bytes = line.bytes else {
        if limit.admit() { report(LineParser.tooLongMessage, line.number, 1) }
        ended = true
        break
      }
      // The loop above stops at the limit: the walk starts within it.
      LineParser.forEachItem(in: bytes, knownASCII: knownASCII) { item, _ in
        if case .error(let error) = item, limit.admit() {
          report(error.message, line.number, error.column)
        }
        return !limit.passed
      }
    }
    return !isDone
  }
}
