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

  public init(seed: UInt64, limit: Int = 5) {
    history = History(seed: seed, limit: min(max(limit, 1), 52))
    dealt = Game(seed: seed)
    dealtBefore = dealt
  }

  public var current: Version { history.current }

  /// Runs `command`; on failure nothing changes.
  package mutating func run(
    _ command: Command, freshSeed: () -> UInt64
  ) -> Result<Outcome, CommandError> {
    do throws(CommandError) {
      return .success(try apply(command, freshSeed: freshSeed))
    } catch {
      return .failure(error)
    }
  }

  /// Runs `command`, throwing its failure; on failure nothing changes.
  /// `written` is the command as typed, words joined by single spaces, when
  /// that differs from how `history` would write it (`del 02`).
  public mutating func apply(
    _ command: Command, written: String? = nil, freshSeed: () -> UInt64
  ) throws(CommandError) -> Outcome {
    let now = history.current
    switch command {
    case .add(let wanted):
      try now.checkRoom()
      let seed = history.seed(of: now)
      if dealt.seed != seed {
        swap(&dealt, &dealtBefore)
        if dealt.seed != seed { dealt = Game(seed: seed) }
      }
      let game = dealt
      let card: Card
      if let wanted {
        if now.hand.contains(wanted) { throw .inHand(wanted) }
        guard now.deck.contains(wanted, in: game) else { throw .discarded(wanted) }
        card = wanted
      } else {
        guard let top = now.deck.top(in: game) else { throw .deckEmpty }
        card = top
      }
      push(
        now, hand: now.hand.inserting(card, at: 0), deck: now.deck.removing(card, in: game),
        .add(card))
    case .delete(let position):
      let index = try now.index(of: position)
      push(now, hand: now.hand.removing(at: index), .delete(UInt8(position)), written: written)
    case .move(let from, let to):
      let (a, b) = (try now.index(of: from), try now.index(of: to))
      guard a != b else { return .nothing }
      push(
        now, hand: now.hand.moving(from: a, to: b), .move(UInt8(from), UInt8(to)),
        written: written)
    case .undo(let steps):
      let depth = history.undoDepth
      guard depth > 0 else { throw .nothingToUndo }
      guard steps <= depth else { throw .cannotUndo(steps, only: depth) }
      history.undo(steps)
    case .redo(let steps):
      // Walks at most `steps` redo children: when fewer, that is all of them.
      let reach = history.redoReach(upTo: steps)
      guard reach > 0 else { throw .nothingToRedo }
      guard steps <= reach else { throw .cannotRedo(steps, only: reach) }
      history.redo(steps)
    case .goto(let target):
      guard target >= 0, target < history.count else {
        throw .noVersion(target, last: history.count - 1)
      }
      guard target != history.cursor else { return .nothing }
      history.go(to: target)
    case .new(let seed):
      history.pushGame(seed: seed ?? freshSeed(), limit: now.limit)
    case .limit(nil):
      return .limit(now.limit)
    case .limit(let limit?):
      guard limit != now.limit else { return .nothing }
      guard now.hand.count <= limit else {
        throw .handTooLarge(count: now.hand.count, limit: limit)
      }
      history.push(
        Version(
          hand: now.hand, deck: now.deck, game: now.game, limit: limit, step: .limit(UInt8(limit))))
      if let written { history.spell(written) }
    case .expect(let cards):
      guard Hand(cards) == now.hand else {
        throw .unexpectedHand(expected: cards, actual: now.hand)
      }
      return .nothing
    case .show: return .show
    case .deck: return .deck
    case .history: return .history
    case .save(let file): return .save(file: file, script: saveScript())
    case .source(let file): return .source(file: file)
    case .help(let topic): return .help(topic)
    case .quit: return .quit
    }
    return .changed
  }

  /// Adds the version that `step` makes of `now`; `written` is how the
  /// command was typed, when `history` must show it so.
  private mutating func push(
    _ now: Version, hand: Hand, deck: Deck? = nil, _ step: Step, written: String? = nil
  ) {
    history.push(
      Version(hand: hand, deck: deck ?? now.deck, game: now.game, limit: now.limit, step: step))
    if let written { history.spell(written) }
  }

  /// A script that rebuilds the current version (handsh(1), COMMANDS, save): the game's seed,
  /// its starting limit, then the path from the game's start, cards in ASCII.
  public func saveScript() -> String {
    let now = history.current
    let start = history.start(of: now)
    let seed = history.seed(of: now)
    // The path up from the current version to the game's start, reversed.
    var steps: [String] = []
    var number = history.cursor
    while number != start, let parent = history.parent(of: number) {
      steps.append(history[number].step.text(seed: seed, ascii: true))
      number = parent
    }
    let lines =
      ["#!/usr/bin/env handsh", "new \(seed)", "limit \(history[start].limit)"] + steps.reversed()
    return lines.joined(separator: "\n") + "\n"
  }
}

extension Step {
  /// The step as a command, the way `history` and `save` write it.
  public func text(seed: UInt64, ascii: Bool) -> String {
    switch self {
    case .start: "start"
    case .add(let card): "add \(card.name(ascii: ascii))"
    case .delete(let position): "del \(position)"
    case .move(let from, let to): "mv \(from) \(to)"
    case .limit(let limit): "limit \(limit)"
    case .new: "new \(seed)"
    }
  }
}
