// The values of a command's arguments, read from their words, and the
// messages of the words that are not one (handsh(1), THE LANGUAGE, Syntax
// errors).

extension LineParser {
  /// The syntax error that `failure` describes, with its message and
  /// column: out of line, as only a command that fails needs them.
  @inline(never)
  mutating func syntaxError(_ failure: Failure) -> ParsedItem {
    let word = failure.word
    let message: String
    switch failure.kind {
    case .unknownCommand: message = unknownCommandMessage(word)
    case .missingArgument: message = "missing argument (usage: \(failure.name.usage))"
    case .unexpectedArgument:
      message = "unexpected argument '\(text(of: word))' (usage: \(failure.name.usage))"
    case .invalidCard: message = "invalid card '\(text(of: word))'"
    case .invalidPosition: message = invalidNumberMessage(word, naming: "position", least: 1)
    case .invalidCount: message = invalidNumberMessage(word, naming: "count", least: 1)
    case .invalidVersion: message = invalidNumberMessage(word, naming: "version", least: 0)
    case .invalidCountOrTime:
      message =
        "invalid count or time '\(text(of: word))': expected a whole number of 1 or more, or one"
        + " followed by s, m, h or d"
    case .invalidLimit: message = Session.invalidLimitMessage(text(of: word))
    case .invalidSeed: message = Session.invalidSeedMessage(text(of: word))
    case .unterminatedQuote: message = "unterminated quote"
    }
    return .error(SyntaxError(message, column: column(at: word.start)))
  }

  @inline(__always)
  func card(_ word: Word) throws(Failure) -> Card {
    guard !word.isQuoted, let card = Card(parsing: bytes(of: word)) else {
      throw .invalidCard(word)
    }
    return card
  }

  @inline(__always)
  func position(_ number: (word: Word, value: UInt64)) throws(Failure) -> Int {
    try wholeNumber(number, least: 1, else: .invalidPosition)
  }

  @inline(__always)
  func count(_ number: (word: Word, value: UInt64)) throws(Failure) -> Int {
    try wholeNumber(number, least: 1, else: .invalidCount)
  }

  /// How far `earlier` or `later` goes: 1 version when `word` is nil, N
  /// versions for digits, a time for digits and a unit (`s`, `m`, `h`,
  /// `d`), each a whole number from 1 to 9223372036854775807; a time too
  /// long to count in seconds counts as the longest.
  func stride(_ word: Word?) throws(Failure) -> VersionStride {
    guard let word else { return .versions(1) }
    let bytes = bytes(of: word)
    let unit: Int? =
      switch bytes.last {
      case UInt8(ascii: "s"): 1
      case UInt8(ascii: "m"): 60
      case UInt8(ascii: "h"): 3600
      case UInt8(ascii: "d"): 86400
      default: nil
      }
    let digits = unit == nil ? bytes : UnsafeBufferPointer(rebasing: bytes.dropLast())
    guard !word.isQuoted, let value = UInt64(decimalDigits: digits), value >= 1,
      value <= UInt64(Int.max)
    else { throw Failure(.invalidCountOrTime, word) }
    guard let unit else { return .versions(Int(value)) }
    let (seconds, overflow) = Int(value).multipliedReportingOverflow(by: unit)
    return .seconds(overflow ? Int.max : seconds)
  }

  @inline(__always)
  func version(_ number: (word: Word, value: UInt64)) throws(Failure) -> Int {
    try wholeNumber(number, least: 0, else: .invalidVersion)
  }

  /// A position or a count (1 to 9223372036854775807), or a version (0 to
  /// that), from a word scanned as a number.
  @inline(__always)
  func wholeNumber(
    _ number: (word: Word, value: UInt64), least: UInt64, else failure: Failure.Kind
  ) throws(Failure) -> Int {
    if number.value >= least, number.value <= UInt64(Int.max) { return Int(number.value) }
    throw Failure(failure, number.word)
  }

  /// Digits past the top say so, not that a number was expected.
  func invalidNumberMessage(_ word: Word, naming what: StaticString, least: UInt64)
    -> String
  {
    let value = number(word)
    let bytes = bytes(of: word)
    let allDigits =
      !word.isQuoted && !bytes.isEmpty
      && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    // Digits that overflow, or a value over the top (not under the bottom).
    let tooLarge = allDigits && (value.map { $0 >= least } ?? true)
    let expected =
      tooLarge
      ? "at most \(Int.max)" : "expected a whole number of \(least) or more"
    return "invalid \(what) '\(text(of: word))': \(expected)"
  }

  func limit(_ word: Word) throws(Failure) -> Int {
    guard let value = number(word).flatMap(Int.init(exactly:)), Session.limits.contains(value)
    else { throw .invalidLimit(word) }
    return value
  }

  func seed(_ word: Word) throws(Failure) -> UInt64 {
    guard let value = number(word) else { throw .invalidSeed(word) }
    return value
  }

  func topic(_ word: Word) throws(Failure) -> CommandName {
    guard !word.isQuoted, let name = CommandName(spelling: bytes(of: word)) else {
      throw .unknownCommand(word)
    }
    return name
  }

  /// Decimal digits only, no sign; nil when empty, not digits, or over 2^64-1.
  @inline(__always)
  func number(_ word: Word) -> UInt64? {
    guard !word.isQuoted else { return nil }
    return UInt64(decimalDigits: bytes(of: word))
  }

  func unknownCommandMessage(_ word: Word) -> String {
    var message = "unknown command '\(text(of: word))'"
    if let name = suggestion(for: String(decoding: bytes(of: word), as: UTF8.self)) {
      message += " (did you mean '\(name.rawValue)'?)"
    }
    return message
  }

  @inline(__always)
  func checkQuote(_ word: Word) throws(Failure) {
    if word.quoting == .unterminated { throw .unterminatedQuote(word) }
  }
}

extension UInt64 {
  /// A number as the language writes one (handsh(1), THE LANGUAGE): decimal
  /// digits only, no sign, no spaces, no other base; nil when it overflows.
  /// Options take their numbers the same way.
  @inline(__always)
  package init?<Digits: Collection<UInt8>>(decimalDigits digits: Digits) {
    guard !digits.isEmpty else { return nil }
    var value: UInt64 = 0
    // Nineteen digits never overflow: a usual number takes no checks.
    if digits.count <= 19 {
      for byte in digits {
        let digit = byte &- UInt8(ascii: "0")
        guard digit <= 9 else { return nil }
        value = value &* 10 &+ UInt64(digit)
      }
      self = value
      return
    }
    for byte in digits {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflow1, !overflow2 else { return nil }
      value = sum
    }
    self = value
  }
}
