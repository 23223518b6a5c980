/// Rebuilds the session a journal keeps (handsh(1), JOURNAL), one line at
/// a time as the lines are read, so that resuming holds the versions and
/// one line, never the file. Line 1 must be a journal's
/// (`#!/usr/bin/env -S handsh --seed S --limit L`); every other line must be
/// blank, a comment, or a journal command that succeeds. Pure: the shell
/// reads the file and hands the lines in.
public struct JournalReplay: Sendable {
  /// The session so far: version 0 of line 1's seed and limit, and every
  /// command of the lines taken since.
  public private(set) var session = Session(seed: 0, limit: 1)
  /// Whether line 1 was taken: a journal's.
  public private(set) var started = false
  private let renderer = Renderer(style: Style(ascii: true))
  /// When the versions were made that no time line comes before (a journal
  /// with no time lines): FILE's last modification before the resume.
  private let untimed: Int
  /// No time line was taken yet: the first one gives version 0's time too.
  private var firstTime = true

  public static let notAJournal = "not a handsh journal"

  public init(time: Int = 0) { untimed = time }

  /// Takes line `number` (its content as `lineContent` says; nil for a
  /// line over the length limit) and runs its commands. The failure, at its
  /// line and column, when the line is not one a journal holds: then the
  /// session is that of the lines before it.
  public mutating func take(
    _ bytes: UnsafeBufferPointer<UInt8>?, number: Int, knownASCII: Bool = false
  ) -> JournalText.Failure? {
    guard started else { return start(bytes) }
    guard let bytes else {
      return JournalText.Failure(line: number, column: 1, message: LineParser.tooLongMessage)
    }
    if let timed = JournalText.timeLine(bytes, number: number) {
      switch timed {
      case .success(let seconds):
        JournalText.setTime(seconds, of: &session, first: &firstTime)
        return nil
      case .failure(let failure): return failure
      }
    }
    var failure: JournalText.Failure?
    LineParser.forEachItem(in: bytes, knownASCII: knownASCII) { item, parser in
      // Consumed: the command goes to the session without a copy.
      switch consume item {
      case .end: return true
      case .error(let error):
        failure = JournalText.Failure(line: number, column: error.column, message: error.message)
      case .command(let command, let span):
        let column = parser.column(at: span.lowerBound)
        guard command.isJournaled else {
          let name = safeText(parser.words(in: span).first ?? [])
          failure = JournalText.Failure(
            line: number, column: column, message: "not a journal command '\(name)'")
          return false
        }
        do throws(CommandError) {
          _ = try session.apply(consume command) { 0 }
        } catch {
          failure = JournalText.Failure(
            line: number, column: column, message: renderer.message(for: error))
        }
      }
      return failure == nil
    }
    return failure
  }

  /// Line 1: a journal's, or the text is not one.
  private mutating func start(_ bytes: UnsafeBufferPointer<UInt8>?) -> JournalText.Failure? {
    guard let bytes, let (seed, limit) = JournalText.settings(bytes) else {
      return JournalText.Failure(line: 1, column: 1, message: JournalReplay.notAJournal)
    }
    session = Session(seed: seed, limit: limit, clock: .fixed(untimed))
    started = true
    return nil
  }

  /// The session, once every line was taken; a text with no line 1 is not
  /// a journal.
  public func finish() -> Result<Session, JournalText.Failure> {
    guard started else {
      return .failure(JournalText.Failure(line: 1, column: 1, message: JournalReplay.notAJournal))
    }
    return .success(session)
  }
}
