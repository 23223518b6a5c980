/// The rules of the table (the talk's `conditionForAdding`): what may be
/// added, and which positions a command may name. One place, on `Version`,
/// the only thing they apply to.
extension Version {
  /// Adding needs room in the hand.
  @inline(__always)
  public func checkRoom() throws(CommandError) {
    guard hand.count < limit else { throw .handFull(limit: limit) }
  }

  /// A position typed by a person, checked against the hand; its index.
  @inline(__always)
  public func index(of position: Int) throws(CommandError) -> Int {
    guard position >= 1, position <= hand.count else {
      throw .noCard(position: position, count: hand.count)
    }
    return position - 1
  }
}
