/// The persistent stack of versions and the cursor that `undo` and `redo`
/// move. Versions live in fixed-size chunks, so the stack grows without ever
/// copying what it holds, and each version is a few dozen bytes.
public struct History: Sendable, Equatable {
  private static let chunkShift = 12
  private static let chunkSize = 1 << chunkShift

  private var chunks: [[Version]]
  /// The games, in the order the versions start them.
  private var games: [Game]
  /// For each game, the number of the version that starts it.
  private var gameStarts: [Int]

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
    games = [Game(seed: seed)]
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
  public func game(of version: Version) -> Game { games[Int(version.game)] }

  /// The number of the version that started `version`'s game.
  public func start(of version: Version) -> Int { gameStarts[Int(version.game)] }

  /// How many versions `undo` and `redo` can reach.
  public var undoDepth: Int { cursor }
  public var redoDepth: Int { count - 1 - cursor }

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
    let number = UInt32(truncatingIfNeeded: games.count)
    games.append(Game(seed: seed))
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
    let gamesNeeded = Int(self[newCount - 1].game) + 1
    if games.count > gamesNeeded {
      games.removeLast(games.count - gamesNeeded)
      gameStarts.removeLast(gameStarts.count - gamesNeeded)
    }
  }

}
