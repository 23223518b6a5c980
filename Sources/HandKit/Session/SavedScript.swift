/// A script that rebuilds a version (handsh(1), COMMANDS, save): the game's
/// seed, its starting limit, then the path from the game's start, cards in
/// ASCII. It is made as it is written, a chunk at a time, so a path of a
/// million versions costs no more memory than a short one: the path is
/// walked in blocks, each found from the end with the jump pointers.
public struct SavedScript: Sendable, Equatable {
  private let history: History
  /// The version the script rebuilds.
  private let target: Int

  /// The script of the current version of `history`.
  public init(_ history: History) {
    self.history = history
    target = history.cursor
  }

  /// How many versions' steps go into one block of the path.
  private static let block = 4096

  /// Hands `body` the script in order, in chunks of about `size` bytes
  /// (each whole lines); stops as soon as `body` answers false. False when
  /// it stopped so.
  @discardableResult
  public func write(chunkSize size: Int = 1 << 16, _ body: ([UInt8]) -> Bool) -> Bool {
    let version = history[target]
    let start = history.start(of: version)
    let seed = history.seed(of: version)
    var chunk: [UInt8] = []
    chunk.reserveCapacity(size + 64)
    chunk.append(
      contentsOf: "#!/usr/bin/env handsh\nnew \(seed)\nlimit \(history.limit(of: start))\n".utf8)
    let first = history.depth(of: start) + 1
    let last = history.depth(of: target)
    var numbers: [Int] = []
    numbers.reserveCapacity(SavedScript.block)
    var depth = first
    while depth <= last {
      let end = min(depth + SavedScript.block - 1, last)
      // The versions at depths `depth...end` on the path, found from the
      // one at `end`, then put in order.
      numbers.removeAll(keepingCapacity: true)
      var number = history.ancestor(of: target, atDepth: end)
      for _ in depth...end {
        numbers.append(number)
        number = history.parent(of: number) ?? 0
      }
      for number in numbers.reversed() {
        chunk.append(contentsOf: history.step(of: number).text(seed: seed, ascii: true).utf8)
        chunk.append(0x0A)
        if chunk.count >= size {
          guard body(chunk) else { return false }
          chunk.removeAll(keepingCapacity: true)
        }
      }
      depth = end + 1
    }
    return chunk.isEmpty || body(chunk)
  }

  /// The whole script at once (a golden test keeps it in memory).
  public var text: String {
    var bytes: [UInt8] = []
    write { chunk in
      bytes += chunk
      return true
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
