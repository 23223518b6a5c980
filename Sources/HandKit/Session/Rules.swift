/// The rules of the table, as requirements with default behaviour (the
/// talk's `conditionForAdding`): what may be added, where a card may go.
public protocol Rules {
  var hand: Hand { get }
  var limit: Int { get }
}

extension Rules {
  /// Adding needs room in the hand.
  public func checkRoom() throws(CommandError) {
    guard hand.count < limit else { throw .handFull(limit: limit) }
  }

  /// A position typed by a person, checked against the hand; its index.
  public func index(of position: Int) throws(CommandError) -> Int {
    guard position >= 1, position <= hand.count else {
      throw .noCard(position: position, count: hand.count)
    }
    return position - 1
  }
}

extension Version: Rules {}
