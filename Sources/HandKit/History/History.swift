/// The persistent stack of versions and the cursor that `undo` and `redo`
/// move. Versions live in fixed-size chunks, so the stack grows without ever
/// copying what it holds, and each version is a few dozen bytes.
public struct History: Sendable {
  private static let chunkShift = 12
  private static let chunkSize = 1 << chunkShift

  private var chunks: [[Version]]
  /// The seed of each game, in the order the versions start them. A game's
  /// shuffled order is not kept: it follows from the seed, and the session
  /// keeps the current one at hand, so a `new` costs a few bytes.
  private var seeds: [UInt64]
  /// For each game, the number of the version that starts it.
  private var gameStarts: [Int]
  /// The few commands written otherwise than `history` would write them
  /// (`del 02`), by version number, in increasing order.
  private var spellings: [(version: Int, text: String)] = []

  /// The number of versions, the redo branch included.
  public private(set) var count: Int
  /// The number of the current version.
  public private(set) var cursor: Int

  /// A history whose version 0 is an empty hand and a full deck shuffled by
  /// `seed`.
  public init(seed: UInt64, limit: Int) {
    let start = Version(hand: .empty, deck: .full, game: 0, limit: limit, step: .start)
    var first: [Version] = []
    first.reserveCapacity(History.chunkSize)
    first.append(start)
    chunks = [first]
    seeds = [seed]
    gameStarts = [0]
    count = 1
    cursor = 0
  }

  /// Version `number`, 0 to `count - 1`. The caller checks the range.
  public subscript(number: Int) -> Version {
    chunks[number >> History.chunkShift][number & (History.chunkSize - 1)]
  }

  public var current: Version { self[cursor] }

  /// The game that `version` belongs to.
  /// The seed of the game that `version` belongs to.
  public func seed(of version: Version) -> UInt64 { seeds[Int(version.game)] }

  /// The game that `version` belongs to, shuffled again from its seed.
  public func game(of version: Version) -> Game { Game(seed: seed(of: version)) }

  /// The number of the version that started `version`'s game.
  public func start(of version: Version) -> Int { gameStarts[Int(version.game)] }

  /// How many versions `undo` and `redo` can reach.
  public var undoDepth: Int { cursor }
  public var redoDepth: Int { count - 1 - cursor }

  /// The command that made version `number`, as `history` writes it: as
  /// written with single spaces, `add` with its card, `new` with its seed.
  public func commandText(of number: Int, ascii: Bool) -> String {
    let version = self[number]
    if case .add = version.step {
    } else if let spelled = spelling(of: number) {
      return spelled
    }
    return version.step.text(seed: seed(of: version), ascii: ascii)
  }

  private func spelling(of number: Int) -> String? {
    guard let last = spellings.last, last.version >= number else { return nil }
    var (low, high) = (0, spellings.count)
    while low < high {
      let middle = (low + high) / 2
      if spellings[middle].version < number { low = middle + 1 } else { high = middle }
    }
    return low < spellings.count && spellings[low].version == number ? spellings[low].text : nil
  }

  /// Records how the current version's command was written, when that
  /// differs from how `history` would write it.
  mutating func spell(_ text: String) {
    spellings.append((cursor, text))
  }

  /// Adds `version` after the current one, dropping the redo branch.
  mutating func push(_ version: Version) {
    truncate(to: cursor + 1)
    let (chunk, slot) = (count >> History.chunkShift, count & (History.chunkSize - 1))
    if slot == 0 {
      var fresh: [Version] = []
      fresh.reserveCapacity(History.chunkSize)
      chunks.append(fresh)
    }
    chunks[chunk].append(version)
    count += 1
    cursor = count - 1
  }

  /// Adds the first version of a new game shuffled by `seed`.
  mutating func pushGame(seed: UInt64, limit: Int) {
    truncate(to: cursor + 1)
    let number = UInt32(truncatingIfNeeded: seeds.count)
    seeds.append(seed)
    gameStarts.append(count)
    push(Version(hand: .empty, deck: .full, game: number, limit: limit, step: .new))
  }

  /// Moves the cursor by `offset`; the caller checks the range.
  mutating func moveCursor(by offset: Int) { cursor += offset }

  private mutating func truncate(to newCount: Int) {
    guard newCount < count else { return }
    count = newCount
    let chunksNeeded = (newCount + History.chunkSize - 1) >> History.chunkShift
    if chunks.count > chunksNeeded { chunks.removeLast(chunks.count - chunksNeeded) }
    let slot = newCount & (History.chunkSize - 1)
    if slot != 0 {
      let excess = chunks[chunks.count - 1].count - slot
      if excess > 0 { chunks[chunks.count - 1].removeLast(excess) }
    }
    while let last = spellings.last, last.version >= newCount { spellings.removeLast() }
    let gamesNeeded = Int(self[newCount - 1].game) + 1
    if seeds.count > gamesNeeded {
      seeds.removeLast(seeds.count - gamesNeeded)
      gameStarts.removeLast(gameStarts.count - gamesNeeded)
    }
  }

}

extension History: Equatable {
  public static func == (a: History, b: History) -> Bool {
    a.count == b.count && a.cursor == b.cursor && a.chunks == b.chunks && a.seeds == b.seeds
      && a.gameStarts == b.gameStarts && a.spellings.elementsEqual(b.spellings, by: ==)
  }
}
