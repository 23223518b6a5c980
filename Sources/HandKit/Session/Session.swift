/// The pure heart of handsh: applies one command to the history of versions.
/// No I/O and no randomness of its own: `new` without a seed asks the caller.
public struct Session: Sendable {
  public private(set) var history: History
  /// The game last drawn from, shuffled: the history keeps only seeds, and
  /// shuffling again per `add` would be slow. Known by its seed: moving
  /// between branches moves between games.
  private var dealt: Game
  /// The game dealt before it: `undo` back over a `new` and `redo` again
  /// moves between two games, which need not be shuffled again each time.
  private var dealtBefore: Game

  /// When the versions made next are made: asked once per change.
  /// Version 0's time is what it said when the session started.
  public var clock: TimeSource

  /// The hand limit a session starts with, unless told another
  /// (handsh(1), OPTIONS, --limit): the one place it is written.
  public static let defaultLimit = 5

  /// The limits a hand may have, 1 to 52 (handsh(1), OPTIONS, --limit):
  /// the one place they are written, for `--limit`, `limit`, a journal's
  /// line 1 and the help.
  public static let limits: ClosedRange<Int> = 1...52

  /// What a limit that is not a whole number within `limits` is told, by
  /// `--limit` and by `limit` alike; `shown` is the word as it is shown.
  package static func invalidLimitMessage(_ shown: String) -> String {
    "invalid limit '\(shown)': expected a whole number from \(limits.lowerBound) to"
      + " \(limits.upperBound)"
  }

  /// What a seed that is not a whole number of 64 bits is told, by
  /// `--seed` and by `new` alike.
  package static func invalidSeedMessage(_ shown: String) -> String {
    "invalid seed '\(shown)': expected a whole number from 0 to \(UInt64.max)"
  }

  public init(seed: UInt64, limit: Int = Session.defaultLimit, clock: TimeSource = .fixed(0)) {
    history = History(
      seed: seed, limit: min(max(limit, Session.limits.lowerBound), Session.limits.upperBound),
      time: clock.now())
    dealt = Game(seed: seed)
    dealtBefore = dealt
    self.clock = clock
  }

  /// Sets when version 0 was made: for a resumed journal, whose first time
  /// line says when its session started.
  public mutating func setStartTime(_ seconds: Int) { history.setStartTime(seconds) }

  /// A session whose history is `history`, at its version `version`: where
  /// a line that ran there started (an editor's hover replays the commands
  /// of a line before the one it is on).
  init(history: History, at version: Int) {
    var history = history
    if version < history.count { history.go(to: version) }
    self.history = history
    dealt = Game(seed: history.seed(of: history.current))
    dealtBefore = dealt
    clock = .fixed(history.time(of: history.count - 1))
  }

  public var current: Version { history.current }

  /// Runs `command`, throwing its failure; on failure nothing changes.
  public mutating func apply(
    _ command: consuming Command, freshSeed: () -> UInt64
  ) throws(CommandError) -> Outcome {
    let now = history.current
    // The version a change makes: every change ends in the one `push`.
    let next: Version
    switch consume command {
    case .add(let wanted):
      try now.checkRoom()
      let game = deal(now)
      let card: Card
      if let wanted {
        if now.hand.contains(wanted) { throw .inHand(wanted) }
        guard now.deck.contains(wanted, in: game) else { throw .discarded(wanted) }
        card = wanted
      } else {
        guard let top = now.deck.top(in: game) else { throw .deckEmpty }
        card = top
      }
      next = now.making(
        hand: now.hand.inserting(card, at: 0), deck: now.deck.removing(card, in: game),
        .add(card))
    case .delete(let position):
      let index = try now.index(of: position)
      next = now.making(hand: now.hand.removing(at: index), .delete(UInt8(position)))
    case .move(let from, let to):
      let (a, b) = (try now.index(of: from), try now.index(of: to))
      guard a != b else { return .nothing }
      next = now.making(hand: now.hand.moving(from: a, to: b), .move(UInt8(from), UInt8(to)))
    case .undo(let steps):
      let depth = history.undoDepth
      guard depth > 0 else { throw .nothingToUndo }
      guard steps <= depth else { throw .cannotUndo(steps, only: depth) }
      history.undo(steps)
      return .changed
    case .redo(let steps):
      // Walks at most `steps` redo children: when fewer, that is all of them.
      let reach = history.redoReach(upTo: steps)
      guard reach > 0 else { throw .nothingToRedo }
      guard steps <= reach else { throw .cannotRedo(steps, only: reach) }
      history.redo(steps)
      return .changed
    case .goto(let target):
      guard target >= 0, target < history.count else {
        throw .noVersion(target, last: history.count - 1)
      }
      guard target != history.cursor else { return .nothing }
      history.go(to: target)
      return .changed
    case .earlier(let stride): return go(to: try earlier(stride))
    case .later(let stride): return go(to: try later(stride))
    case .new(let seed):
      history.pushGame(seed: seed ?? freshSeed(), limit: now.limit, time: clock.now())
      return .changed
    case .limit(nil):
      return .limit(now.limit)
    case .limit(let limit?):
      guard limit != now.limit else { return .nothing }
      guard now.hand.count <= limit else {
        throw .handTooLarge(count: now.hand.count, limit: limit)
      }
      next = Version(
        hand: now.hand, deck: now.deck, game: now.game, limit: limit, step: .limit(UInt8(limit)))
    case .expect(let cards):
      guard Hand(cards) == now.hand else {
        throw .unexpectedHand(expected: cards, actual: now.hand)
      }
      return .nothing
    case .show: return .show
    case .deck: return .deck
    case .history(let tree): return .history(tree: tree)
    // They reach outside the session: `LineExecutor` does them, and never
    // hands them here.
    case .save, .source: return .nothing
    case .help(let topic): return .help(topic)
    case .quit: return .quit
    }
    history.push(next, time: clock.now())
    return .changed
  }

  /// The game `version` belongs to, shuffled: the one last dealt, or the
  /// one before it, or shuffled now.
  @inline(__always)
  private mutating func deal(_ version: Version) -> Game {
    let seed = history.seed(of: version)
    if dealt.seed != seed {
      swap(&dealt, &dealtBefore)
      if dealt.seed != seed { dealt = Game(seed: seed) }
    }
    return dealt
  }

  /// `earlier` and `later`: the `goto` they do, to another version.
  private mutating func go(to target: Int) -> Outcome {
    history.go(to: target)
    return .changed
  }

  /// Where `earlier` goes (handsh(1), Versions): with C the current version,
  /// C-N (at least 0), or the highest-numbered version below C made at or
  /// before C's time less TIME (0 when none was).
  private func earlier(_ stride: VersionStride) throws(CommandError) -> Int {
    let current = history.cursor
    guard current > 0 else { throw .noEarlierVersion }
    switch stride {
    case .versions(let count): return current - min(count, current)
    case .seconds(let span):
      // Times are 0 to 2^32-1: the difference cannot overflow.
      return history.latest(below: current, madeBy: history.time(of: current) - span)
    }
  }

  /// Where `later` goes: C+N (at most the newest), or the highest-numbered
  /// version made at or before C's time plus TIME, and when that is not
  /// above C, C+1.
  private func later(_ stride: VersionStride) throws(CommandError) -> Int {
    let (current, last) = (history.cursor, history.count - 1)
    guard current < last else { throw .noLaterVersion }
    switch stride {
    case .versions(let count): return current + min(count, last - current)
    case .seconds(let span):
      let time = history.time(of: current)
      let deadline = span > Int.max - time ? Int.max : time + span
      return history.latest(above: current, madeBy: deadline)
    }
  }

  /// A script that rebuilds the current version (handsh(1), COMMANDS,
  /// save), whole: for tests.
  public func saveScript() -> String { SavedScript(history).text }
}
