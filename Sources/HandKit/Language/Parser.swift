/// What the parser finds on a line: a command, or the one syntax error of a
/// command.
public enum ParsedItem: Sendable, Equatable {
  /// A command, with the byte offsets of its first word's start and its
  /// last word's end (for `--echo` and for locating a failure).
  case command(Command, span: Range<Int>)
  case error(SyntaxError)
  /// No more commands on the line.
  case end
}

/// Reads the commands of one line (handsh(1), THE LANGUAGE), left to right, without
/// allocating for the common case. The line holds no line break; the caller
/// has removed a trailing `\r` and a byte-order mark.
public struct LineParser: IteratorProtocol {
  /// The longest line handsh reads, in bytes before the `\n` (a `\r` or a
  /// byte-order mark included): handsh(1), DESCRIPTION.
  public static let maximumLineLength = 1 << 20
  /// What a longer line is reported as.
  public static let tooLongMessage = "line is longer than \(maximumLineLength) bytes"

  private let line: UnsafeBufferPointer<UInt8>
  private var offset = 0
  /// Whether the line is read to its end: the next item is `.end`. A loop
  /// that asks saves a call per line.
  public private(set) var finished = false
  private var checkedEncoding = false
  /// The last offset whose column is known, for counting columns in one pass.
  private var counted = (offset: 0, column: 1)
  /// The span of the command being read: its first word's start to its
  /// last word's end.
  private var command = 0..<0

  /// `knownASCII` skips the UTF-8 check for a line the caller has already
  /// seen to be ASCII (a whole file is checked at once, far faster).
  public init(_ line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false) {
    self.line = line
    checkedEncoding = knownASCII
  }

  /// Parses every command of `line`: a convenience for tests and tools.
  package static func parse(_ line: String) -> [ParsedItem] {
    var bytes = Array(line.utf8)
    return parse(bytes: &bytes)
  }

  package static func parse(bytes: inout [UInt8]) -> [ParsedItem] {
    bytes.withUnsafeBufferPointer { buffer in
      var parser = LineParser(buffer)
      var items: [ParsedItem] = []
      while let item = parser.next() { items.append(item) }
      return items
    }
  }

  /// The 1-based column, in Unicode scalars, of byte `target`; each byte of
  /// invalid UTF-8 counts as one. Cheap when asked in increasing order.
  public mutating func column(at target: Int) -> Int {
    if target < counted.offset { counted = (0, 1) }
    var (i, column) = counted
    while i < target, i < line.count {
      let byte = line[i]
      let width =
        byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
      i = min(i + width, target)
      column += 1
    }
    counted = (i, column)
    return column
  }

  /// The byte ranges of the words of each command of `line`, as the parser
  /// splits them (quoted words whole, a comment ending the line), one list
  /// per command that is not empty: what an editor points into.
  package static func commandWords(_ line: UnsafeBufferPointer<UInt8>) -> [[Range<Int>]] {
    var parser = LineParser(line, knownASCII: true)
    var commands: [[Range<Int>]] = []
    var current: [Range<Int>] = []
    while true {
      if let word = parser.nextWord() {
        current.append(word.start..<word.end)
        continue
      }
      if !current.isEmpty { commands.append(current) }
      current = []
      if !parser.skipSeparator() { break }
    }
    return commands
  }

  /// The words of a command's span as written (quotes kept), for `--echo`.
  public func words(in span: Range<Int>) -> [[UInt8]] {
    let clamped = span.clamped(to: 0..<line.count)
    var parser = LineParser(UnsafeBufferPointer(rebasing: line[clamped]))
    var words: [[UInt8]] = []
    while let word = parser.nextWord() { words.append(Array(word.bytes)) }
    return words
  }

  /// The next command or syntax error of the line, or nil at its end.
  public mutating func next() -> ParsedItem? {
    let item = nextItem()
    if case .end = item { return nil }
    return item
  }

  /// The next command or syntax error of the line, or `.end`: the form for
  /// hot loops, as it spares them an optional around a large enum.
  public mutating func nextItem() -> ParsedItem {
    if !checkedEncoding {
      checkedEncoding = true
      if let bad = firstInvalidByte() {
        finished = true
        return .error(
          SyntaxError("invalid UTF-8 in input", column: column(at: wordStart(holding: bad))))
      }
    }
    while !finished {
      guard let first = nextWord() else {
        // An empty command: skip a `;`, or the line is done.
        if !skipSeparator() { finished = true }
        continue
      }
      return parseCommand(first)
    }
    return .end
  }

  // MARK: Words

  /// A word of the line: where it stands, and its bytes. A plain value with
  /// no references, so making and dropping words costs nothing.
  private struct Word {
    enum Quoting { case bare, quoted, unterminated }

    let start: Int
    let end: Int
    let bytes: UnsafeBufferPointer<UInt8>
    let quoting: Quoting

    var isQuoted: Bool { quoting != .bare }
    var text: String { safeWord(bytes) }

    /// A quoted word's text without its quotes, `\"` and `\\` unescaped.
    var unquoted: String {
      guard quoting != .bare, bytes.count >= 2 else {
        return String(decoding: bytes, as: UTF8.self)
      }
      var text: [UInt8] = []
      var i = 1
      while i < bytes.count - 1 {
        if bytes[i] == UInt8(ascii: "\\"), i + 2 < bytes.count,
          bytes[i + 1] == UInt8(ascii: "\"") || bytes[i + 1] == UInt8(ascii: "\\")
        {
          i += 1
        }
        text.append(bytes[i])
        i += 1
      }
      return String(decoding: text, as: UTF8.self)
    }
  }

  /// A syntax error before its column is known: the message and the byte
  /// offset of the word it is about.
  private struct Failure: Error {
    let message: String
    let offset: Int
  }

  private func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  private func word(_ start: Int, _ end: Int, _ quoting: Word.Quoting = .bare) -> Word {
    Word(
      start: start, end: end, bytes: UnsafeBufferPointer(rebasing: line[start..<end]),
      quoting: quoting)
  }

  /// The next word of the current command, or nil at `;`, `#` or the end.
  /// Inlined, as everything on the way from a line to its command is: a
  /// command costs one call, not one per word.
  @inline(__always)
  private mutating func nextWord() -> Word? {
    // A local index, stored back once: `offset` lives in memory.
    var i = offset
    while i < line.count, isBlank(line[i]) { i += 1 }
    offset = i
    guard i < line.count else { return nil }
    let start = i
    switch line[i] {
    case UInt8(ascii: ";"): return nil
    case UInt8(ascii: "#"):
      offset = line.count
      return nil
    case UInt8(ascii: "\""):
      return quotedWord(from: start)
    default:
      while i < line.count {
        let byte = line[i]
        if isBlank(byte) || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "#") { break }
        i += 1
      }
      offset = i
      return word(start, i)
    }
  }

  /// A double-quoted word, in which `\"` and `\\` stand for `"` and `\`.
  @inline(never)
  private mutating func quotedWord(from start: Int) -> Word {
    offset = start + 1
    while offset < line.count {
      let byte = line[offset]
      if byte == UInt8(ascii: "\"") {
        offset += 1
        return word(start, offset, .quoted)
      }
      if byte == UInt8(ascii: "\\"), offset + 1 < line.count,
        line[offset + 1] == UInt8(ascii: "\"") || line[offset + 1] == UInt8(ascii: "\\")
      {
        offset += 1
      }
      offset += 1
    }
    return word(start, offset, .unterminated)
  }

  @inline(__always)
  private mutating func skipSeparator() -> Bool {
    guard offset < line.count, line[offset] == UInt8(ascii: ";") else { return false }
    offset += 1
    return true
  }

  /// Past the rest of a command with a syntax error, then as `endCommand`.
  @inline(__always)
  private mutating func skipToEndOfCommand() {
    while nextWord() != nil {}
    endCommand()
  }

  /// At a command's end (no word of it left): past its `;`, or the line
  /// is finished.
  @inline(__always)
  private mutating func endCommand() {
    if !skipSeparator() { finished = true }
  }

  // MARK: Commands

  @inline(__always)
  /// The command that starts with `first`; the parser moves past its end.
  private mutating func parseCommand(_ first: Word) -> ParsedItem {
    command = first.start..<first.end
    do throws(Failure) {
      let parsed = try parseArguments(of: try name(first))
      // Its arguments were read up to its end: no word of it is left.
      endCommand()
      return .command(parsed, span: command)
    } catch {
      let item = syntaxError(error)
      skipToEndOfCommand()
      return item
    }
  }

  @inline(never)
  private mutating func syntaxError(_ failure: Failure) -> ParsedItem {
    .error(SyntaxError(failure.message, column: column(at: failure.offset)))
  }

  @inline(__always)
  private func name(_ word: Word) throws(Failure) -> CommandName {
    try LineParser.checkQuote(word)
    guard let name = CommandName(spelling: word.bytes) else { throw LineParser.unknown(word) }
    return name
  }

  /// The next word of a command `name` that needs one.
  @inline(__always)
  private mutating func required(by name: CommandName) throws(Failure) -> Word {
    guard let word = try optional() else {
      throw LineParser.missingArgument(name, at: command.lowerBound)
    }
    return word
  }

  /// The next word of the command, if any; the command's span grows to it.
  @inline(__always)
  private mutating func optional() throws(Failure) -> Word? {
    guard let word = nextWord() else { return nil }
    try LineParser.checkQuote(word)
    command = command.lowerBound..<word.end
    return word
  }

  @inline(__always)
  private mutating func parseArguments(of name: CommandName) throws(Failure) -> Command {
    let command: Command
    switch name {
    case .add:
      if let word = try optional() {
        command = .add(try LineParser.card(word))
      } else {
        command = .add(nil)
      }
    case .del: command = .delete(try LineParser.position(required(by: name)))
    case .mv:
      let from = try LineParser.position(required(by: name))
      command = .move(from, try LineParser.position(required(by: name)))
    case .undo:
      if let word = try optional() {
        command = .undo(try LineParser.count(word))
      } else {
        command = .undo(1)
      }
    case .redo:
      if let word = try optional() {
        command = .redo(try LineParser.count(word))
      } else {
        command = .redo(1)
      }
    case .goto: command = .goto(try LineParser.version(required(by: name)))
    case .new:
      if let word = try optional() {
        command = .new(try LineParser.seed(word))
      } else {
        command = .new(nil)
      }
    case .limit:
      if let word = try optional() {
        command = .limit(try LineParser.limit(word))
      } else {
        command = .limit(nil)
      }
    case .expect:
      let word = try required(by: name)
      if !word.isQuoted, word.bytes.elementsEqual("empty".utf8) {
        command = .expect([])
      } else {
        var cards = [try LineParser.card(word)]
        while let word = try optional() { cards.append(try LineParser.card(word)) }
        command = .expect(cards)
      }
    case .show: command = .show
    case .deck: command = .deck
    case .history: command = .history
    case .save: command = .save(LineParser.file(try required(by: name)))
    case .source: command = .source(LineParser.file(try required(by: name)))
    case .help:
      if let word = try optional() {
        command = .help(try LineParser.topic(word))
      } else {
        command = .help(nil)
      }
    case .quit, .exit: command = .quit
    }
    if let extra = try optional() { throw LineParser.unexpected(extra, by: name) }
    return command
  }

  @inline(never)
  private static func missingArgument(_ name: CommandName, at offset: Int) -> Failure {
    Failure(message: "missing argument (usage: \(name.usage))", offset: offset)
  }

  @inline(never)
  private static func unexpected(_ extra: Word, by name: CommandName) -> Failure {
    Failure(
      message: "unexpected argument '\(extra.text)' (usage: \(name.usage))", offset: extra.start)
  }

  // MARK: Argument values

  @inline(__always)
  private static func card(_ word: Word) throws(Failure) -> Card {
    guard !word.isQuoted, let card = Card(parsing: word.bytes) else { throw invalidCard(word) }
    return card
  }

  @inline(never)
  private static func invalidCard(_ word: Word) -> Failure {
    Failure(message: "invalid card '\(word.text)'", offset: word.start)
  }

  @inline(__always)
  private static func position(_ word: Word) throws(Failure) -> Int {
    try wholeNumber(word, naming: "position")
  }

  @inline(__always)
  private static func count(_ word: Word) throws(Failure) -> Int {
    try wholeNumber(word, naming: "count")
  }

  @inline(__always)
  private static func version(_ word: Word) throws(Failure) -> Int {
    try wholeNumber(word, naming: "version", from: 0)
  }

  /// A position or a count (1 to 9223372036854775807), or a version (0 to
  /// that).
  @inline(__always)
  private static func wholeNumber(_ word: Word, naming what: StaticString, from least: UInt64 = 1)
    throws(Failure) -> Int
  {
    let value = number(word)
    if let value, value >= least, value <= UInt64(Int.max) { return Int(value) }
    throw invalidNumber(word, value, naming: what, from: least)
  }

  /// Digits past the top say so, not that a number was expected.
  @inline(never)
  private static func invalidNumber(
    _ word: Word, _ value: UInt64?, naming what: StaticString, from least: UInt64
  ) -> Failure {
    let allDigits =
      !word.isQuoted && !word.bytes.isEmpty
      && word.bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    // Digits that overflow, or a value over the top (not under the bottom).
    let tooLarge = allDigits && (value.map { $0 >= least } ?? true)
    let expected =
      tooLarge
      ? "at most \(Int.max)" : "expected a whole number of \(least) or more"
    return Failure(message: "invalid \(what) '\(word.text)': \(expected)", offset: word.start)
  }

  private static func limit(_ word: Word) throws(Failure) -> Int {
    guard let value = number(word), (1...52).contains(value) else {
      throw Failure(
        message: "invalid limit '\(word.text)': expected a whole number from 1 to 52",
        offset: word.start)
    }
    return Int(value)
  }

  private static func seed(_ word: Word) throws(Failure) -> UInt64 {
    guard let value = number(word) else {
      throw Failure(
        message:
          "invalid seed '\(word.text)': expected a whole number from 0 to 18446744073709551615",
        offset: word.start)
    }
    return value
  }

  private static func file(_ word: Word) -> String {
    word.unquoted
  }

  private static func topic(_ word: Word) throws(Failure) -> CommandName {
    guard !word.isQuoted, let name = CommandName(spelling: word.bytes) else {
      throw unknown(word)
    }
    return name
  }

  /// Decimal digits only, no sign; nil when empty, not digits, or over 2^64-1.
  @inline(__always)
  private static func number(_ word: Word) -> UInt64? {
    guard !word.isQuoted else { return nil }
    return UInt64(decimalDigits: word.bytes)
  }

  @inline(never)
  private static func unknown(_ word: Word) -> Failure {
    var message = "unknown command '\(word.text)'"
    if let name = suggestion(for: String(decoding: word.bytes, as: UTF8.self)) {
      message += " (did you mean '\(name.rawValue)'?)"
    }
    return Failure(message: message, offset: word.start)
  }

  @inline(__always)
  private static func checkQuote(_ word: Word) throws(Failure) {
    if word.quoting == .unterminated { throw unterminated(word) }
  }

  @inline(never)
  private static func unterminated(_ word: Word) -> Failure {
    Failure(message: "unterminated quote", offset: word.start)
  }

  // MARK: Encoding

  /// The offset of the first byte that is not valid UTF-8, if any.
  private func firstInvalidByte() -> Int? {
    guard !isASCII() else { return nil }
    var i = 0
    while i < line.count {
      var decoder = UTF8()
      var iterator = line[i...].makeIterator()
      guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return i }
      i += UTF8.width(scalar)
    }
    return nil
  }

  private func isASCII() -> Bool { LineParser.isASCII(line) }

  /// Whether every byte is ASCII, eight bytes at a time.
  public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let raw = UnsafeRawBufferPointer(bytes)
    var bits: UInt64 = 0
    var i = 0
    while i + 8 <= raw.count {
      bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      i += 8
    }
    while i < raw.count {
      bits |= UInt64(raw[i])
      i += 1
    }
    return bits & 0x8080_8080_8080_8080 == 0
  }

  /// The start of the word (or comment) that holds byte `target`.
  private func wordStart(holding target: Int) -> Int {
    var start = 0
    var inQuote = false
    var i = 0
    while i < target {
      let byte = line[i]
      if inQuote {
        if byte == UInt8(ascii: "\\"), i + 1 < target {
          i += 1
        } else if byte == UInt8(ascii: "\"") {
          inQuote = false
        }
      } else if byte == UInt8(ascii: "#") {
        return i
      } else if isBlank(byte) || byte == UInt8(ascii: ";") {
        start = i + 1
      } else if byte == UInt8(ascii: "\"") && start == i {
        inQuote = true
      }
      i += 1
    }
    return start
  }
}

extension UInt64 {
  /// A number as the language writes one (handsh(1), THE LANGUAGE): decimal
  /// digits only, no sign, no spaces, no other base; nil when it overflows.
  /// Options take their numbers the same way.
  package init?<Digits: Collection<UInt8>>(decimalDigits digits: Digits) {
    guard !digits.isEmpty else { return nil }
    var value: UInt64 = 0
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
