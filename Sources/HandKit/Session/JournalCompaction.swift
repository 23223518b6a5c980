/// The compact form of a journal (handsh(1), JOURNAL): a pure function of
/// the versions, so that FILE grows with the versions, not with the
/// commands. Line 1; then each version's change once, in the order of its
/// number, after a `goto` to its parent where the cursor is elsewhere and
/// a time line (`#@ SECONDS`) where its second is not the one before's;
/// then the `goto`s that leave every redo child where it was, and last the
/// one to the current version. Replayed, it rebuilds the same versions,
/// numbers, parents, redo children and current version.
extension JournalText {
  /// Hands `body` the compact form of `history` in chunks of whole lines
  /// of about `size` bytes, as `save`'s writer does; stops as soon as
  /// `body` answers false. False when it stopped so.
  @discardableResult
  public static func compactForm(
    of history: History, chunkSize size: Int = 1 << 16,
    _ body: (UnsafeRawBufferPointer) -> Bool
  ) -> Bool {
    // Written with the journal's own line writer, straight into a buffer:
    // the form is measured at every bound FILE passes (`scripts/bench`).
    let chunk = ByteBuffer(capacity: size + 64)
    let start = history[0]
    chunk.append(contentsOf: firstLine(seed: history.seed(of: start), limit: start.limit).utf8)
    // Every version's time: version 0's first, then a time line wherever
    // the second changes from one version to the next.
    appendTimeLine(history.time(of: 0), to: chunk)
    var cursor = 0
    func goOn() -> Bool {
      guard chunk.count >= size else { return true }
      defer { chunk.removeAll() }
      return chunk.withBytes(body)
    }
    for number in 1..<max(history.count, 1) {
      let parent = history.parent(of: number) ?? 0
      if parent != cursor {
        appendLine(for: .goto(parent), in: history, to: chunk)
        guard goOn() else { return false }
      }
      let time = history.time(of: number)
      if time != history.time(of: number - 1) { appendTimeLine(time, to: chunk) }
      appendLine(version: number, in: history, to: chunk)
      guard goOn() else { return false }
      cursor = number
    }
    for end in redoEnds(of: history) + [history.cursor] where end != cursor {
      appendLine(for: .goto(end), in: history, to: chunk)
      guard goOn() else { return false }
      cursor = end
    }
    return chunk.isEmpty || chunk.withBytes(body)
  }

  /// The versions whose `goto`s set every redo child as `history` has it.
  /// The versions fall into chains of redo children; a `goto` to a chain's
  /// end sets the redo child of each version on the chain, and of each
  /// version above it (on the way). So the chains' ends are gone to from
  /// the deepest chain's head to the shallowest: each version's last
  /// `goto` through it is then its own chain's, and leaves its redo child
  /// as it was. A chain of one version has no redo child to set.
  static func redoEnds(of history: History) -> [Int] {
    var heads: [(depth: Int, end: Int)] = []
    for number in 0..<history.count {
      // A head: version 0, or one that is not its parent's redo child.
      if let parent = history.parent(of: number), history.redoChild(of: parent) == number {
        continue
      }
      guard var end = history.redoChild(of: number) else { continue }
      while let next = history.redoChild(of: end) { end = next }
      heads.append((history.depth(of: number), end))
    }
    heads.sort { $0.depth > $1.depth }
    return heads.map(\.end)
  }
}
