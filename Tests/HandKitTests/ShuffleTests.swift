import Testing

@testable import HandKit

/// The expected orders were worked out from the definition in handsh(1), The
/// shuffle, with an independent implementation (arbitrary-precision integers
/// masked to 64 bits), not taken from handsh's output.
@Suite struct ShuffleTests {
  @Test func splitMixMatchesTheManualsVectors() {
    var random = SplitMix64(seed: 1_234_567)
    #expect(random.next() == 6_457_827_717_110_365_317)
    #expect(random.next() == 3_203_168_211_198_807_973)
    #expect(random.next() == 9_817_491_932_198_370_423)
  }

  @Test(arguments: [
    (
      UInt64(0),
      "8S JC 9H 2S 2D QD 6S 10H 3D AH JH 7H 9C 8H QS KC 5C 2H 3C 5H AC 6H 4S 10D 5D 8C 8D AD QC 10S QH JD 3S 4D 2C 9D 3H KD AS 7S 9S 7D JS 6C KS 4H 7C 5S 6D 4C KH 10C"
    ),
    (
      UInt64(1),
      "7D 9H 4D 8C 8D 5S JD 6D 9S JH 5D KD 3H 2D JC 5C 7C 4C 2H AD 6S KH KC 10C 10S JS 10D 8S QH 4S 6H 7H AS 5H AC KS 6C QS QC QD 9D 3D 3S AH 4H 2C 8H 10H 3C 2S 9C 7S"
    ),
    (
      UInt64(42),
      "7H 3C KH AS 2S AH AC KD 10D 5H 8S JC 2C 4S 6C 5D 2D 5S 6D AD 7D 2H 8C 8H 4D 7C KS 10S 4C 3D 10C JS 4H 6S 7S 3S 8D QD 9S KC 5C 6H QS 9D JD QH 3H 9C QC 9H JH 10H"
    ),
  ])
  func shuffleOrder(seed: UInt64, expected: String) {
    let order = Game(seed: seed).order.map { $0.name(ascii: true) }.joined(separator: " ")
    #expect(order == expected)
  }

  @Test func seed42DealsTheManualsFirstTen() {
    let first = Game(seed: 42).order.prefix(10).map { $0.name() }.joined(separator: " ")
    #expect(first == "7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥")
  }

  @Test func extremeSeedsShuffleAPermutation() {
    for seed in [UInt64.max, UInt64.max - 1, 1 << 63] {
      #expect(Set(Game(seed: seed).order).count == 52)
    }
  }
}
