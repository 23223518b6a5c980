import Testing

@testable import HandKit

@Suite struct CardTests {
  @Test func namesFollowTheManual() {
    #expect(Card.all.count == 52)
    #expect(Card.all.first?.name() == "A♥")
    #expect(Card.all.last?.name() == "K♠")
    #expect(Card(.two, of: .hearts).name() == "2♥")  // 2 is 2, not 1
    #expect(Card(.ten, of: .spades).name() == "10♠")
    #expect(Card(.queen, of: .diamonds).name(ascii: true) == "QD")
    #expect(Card(.ten, of: .spades).name(ascii: true) == "10S")
    #expect(Card(.king, of: .clubs).index == 2 * 13 + 12)
  }

  @Test(arguments: [
    ("qh", "Q♥"), ("Q♥", "Q♥"), ("Q♥\u{FE0F}", "Q♥"), ("10s", "10♠"), ("Ts", "10♠"),
    ("as", "A♠"), ("AS", "A♠"), ("2♡", "2♥"), ("3♢", "3♦"), ("4♧", "4♣"), ("5♤", "5♠"),
    ("jD", "J♦"), ("kc", "K♣"), ("9♣", "9♣"), ("t♦\u{FE0F}", "10♦"),
  ])
  func parsesEverySpelling(input: String, expected: String) {
    #expect(Card(parsing: Array(input.utf8))?.name() == expected)
  }

  @Test(arguments: [
    "", "q", "h", "1h", "11h", "0h", "10", "qx", "q♥x", "Q♥\u{FE0F}\u{FE0F}", "q\u{FE0F}",
    "qhh", "empty", "\u{12}h", "\u{11}0h", "♥q", "q♥\u{FE0E}", "Q\u{2668}",
  ])
  func rejectsWhatIsNotACard(input: String) {
    #expect(Card(parsing: Array(input.utf8)) == nil)
  }

  @Test func everyCardRoundTripsThroughItsNames() {
    for card in Card.all {
      #expect(Card(parsing: Array(card.name().utf8)) == card)
      #expect(Card(parsing: Array(card.name(ascii: true).utf8)) == card)
      #expect(Card(parsing: Array(card.name(ascii: true).lowercased().utf8)) == card)
    }
  }

  @Test func redSuits() {
    #expect(Suit.hearts.isRed && Suit.diamonds.isRed)
    #expect(!Suit.clubs.isRed && !Suit.spades.isRed)
  }
}
