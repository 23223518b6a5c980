/// What a line would do, worked out on a copy of a session, with no side
/// effect: no file read or written, no seed drawn, nothing printed. The one
/// answer to "what would this line do" in the core: the prompt's preview
/// shows it under the line being typed (handsh(1), THE PROMPT), and an
/// editor's hover reads the hand before a command from it (`HandDocument`).
public struct LineForecast: Sendable, Equatable {
  /// Why a line has no forecast.
  public enum Unknown: Sendable, Equatable {
    /// A command reaches outside the session (`save`, `source`, `quit`,
    /// `exit`, `history`, a `new` with no seed when none may be drawn).
    case reachesOut
    /// `stop` said so: the work took too long.
    case stopped
  }

  /// The hand after the commands that ran (all of them, or those up to the
  /// first failure, the first that reaches outside, or `before`).
  public var hand: Hand
  /// Whether that hand differs from the one the line started with.
  public var changesHand: Bool
  /// The first problem Enter would report: a syntax error anywhere on the
  /// line, else the first failed command's message.
  public var problem: String?
  /// Set when the line cannot be foretold.
  public var unknown: Unknown?

  /// What the prompt shows under the line: `⇒ K♥ 3♣ 7♥` (`=> KH 3C 7D` in
  /// ASCII), `⇒ error: MESSAGE`, or nil when the line would change nothing
  /// or cannot be foretold.
  public func preview(ascii: Bool) -> String? {
    guard unknown == nil else { return nil }
    let arrow = ascii ? "=> " : "⇒ "
    if let problem { return arrow + "error: " + problem }
    guard changesHand else { return nil }
    return arrow + LineForecast.text(of: hand, ascii: ascii)
  }

  /// A hand as the forecasts and the editor's hints write it: `K♥ 3♣ 7♥`,
  /// or `(empty)`.
  public static func text(of hand: Hand, ascii: Bool) -> String {
    hand.isEmpty ? "(empty)" : hand.cards.map { $0.name(ascii: ascii) }.joined(separator: " ")
  }
}

extension Session {
  /// What `line` would do if run now, on a copy of this session: the
  /// commands run up to the first failure, or up to the byte offset
  /// `before` (the commands starting there or later do not run). A syntax
  /// error anywhere on the line runs none of it. `seed`: what a `new` with
  /// no seed draws; nil, and such a `new` makes the line `.reachesOut`.
  /// With `before` (a hover), `save` and `history` are passed over, as they
  /// change nothing; without it (the preview), they reach out.
  /// `stop` is asked after each command; true abandons the forecast.
  public func forecast(
    _ line: UnsafeBufferPointer<UInt8>, before: Int? = nil, seed: UInt64? = nil,
    stop: () -> Bool = { false }
  ) -> LineForecast {
    let start = history.current.hand
    var forecast = LineForecast(hand: start, changesHand: false)
    var sink = ForecastSink(seed: seed)
    var executor = LineExecutor(
      session: self, renderer: Renderer(style: Style(ascii: true, color: false, json: false)),
      quiet: true)
    // A syntax error anywhere runs none of the line, but only the part
    // before `before` matters to a hover.
    if before == nil, executor.check(line, sink: &sink) > 0 {
      forecast.problem = sink.problem
      return forecast
    }
    LineParser.forEachItem(in: line) { item, parser in
      guard case .command(let command, let span) = item else { return true }
      if let before {
        if span.lowerBound >= before { return false }
        // The hand before a later command: `save` and `history` leave the
        // session as it is, so a hover looks past them.
        switch command {
        case .save, .history: return true
        default: break
        }
      }
      if command.pausesRunAhead || (seed == nil && command.drawsSeed) {
        forecast.unknown = .reachesOut
        return false
      }
      let end = executor.runCommand(command, span: span, parser: &parser, sink: &sink)
      if sink.problem != nil || end != .finished { return false }
      if stop() {
        forecast.unknown = .stopped
        return false
      }
      return true
    }
    forecast.hand = executor.session.history.current.hand
    forecast.changesHand = forecast.hand != start
    forecast.problem = sink.problem
    return forecast
  }
}

extension Command {
  /// `new` with no seed: it draws one from outside the session.
  @inlinable var drawsSeed: Bool {
    if case .new(nil) = self { return true }
    return false
  }
}

/// Where a forecast's commands write: nothing is kept but the first
/// problem; a file is never read nor written (the forecast stops before
/// any command that would).
private struct ForecastSink: CommandSink {
  var out: [UInt8] = []
  var problem: String?
  var seeds: SplitMix64

  init(seed: UInt64?) { seeds = SplitMix64(seed: seed ?? 0) }

  mutating func diagnose(_ message: String, column: Int) {
    if problem == nil { problem = message }
  }

  mutating func diagnose(_ message: String, at location: SourceLocation) {
    if problem == nil { problem = message }
  }

  mutating func diagnose(_ message: String, in source: String) {
    if problem == nil { problem = message }
  }

  mutating func save(_ script: SavedScript, to file: String) -> String? {
    "not written by a forecast"
  }

  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    .failure(ReadFailure("not read by a forecast"))
  }

  mutating func freshSeed(sourced: Bool) -> UInt64 { seeds.next() }

  mutating func commandDone() -> Bool {
    out.removeAll(keepingCapacity: true)
    return true
  }
}
