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
      var items: [ParsedItem] = []
      forEachItem(in: buffer) { item, _ in
        items.append(item)
        return true
      }
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

  /// The words of the last command of `line` (after its last `;`), as the
  /// parser splits them, and whether the line ends inside a word that opens
  /// a quote (not among the words); nil when the line ends in a comment:
  /// what Tab completes after.
  package static func lastCommandWords(_ line: UnsafeBufferPointer<UInt8>) -> (
    words: [Range<Int>], openQuote: Bool
  )? {
    var parser = LineParser(line, knownASCII: true)
    var words: [Range<Int>] = []
    while true {
      if parser.atComment() { return nil }
      if let word = parser.nextWord() {
        if word.quoting == .unterminated { return (words, true) }
        words.append(word.start..<word.end)
        continue
      }
      guard parser.skipSeparator() else { return (words, false) }
      words = []
    }
  }

  /// Whether the next word would start a comment.
  private func atComment() -> Bool {
    var i = offset
    while i < line.count, isBlank(line[i]) { i += 1 }
    return i < line.count && line[i] == UInt8(ascii: "#")
  }

  /// The words of a command's span as written (quotes kept), for `--echo`.
  public func words(in span: Range<Int>) -> [[UInt8]] {
    let clamped = span.clamped(to: 0..<line.count)
    var parser = LineParser(UnsafeBufferPointer(rebasing: line[clamped]))
    var words: [[UInt8]] = []
    while let word = parser.nextWord() { words.append(Array(parser.bytes(of: word))) }
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
      guard let (first, key) = nextWord(.name) else {
        // An empty command: skip a `;`, or the line is done.
        if !skipSeparator() { finished = true }
        continue
      }
      return parseCommand(first, key: key)
    }
    return .end
  }

  // MARK: Words

  /// A word of the line: where it stands and how it is quoted. Plain
  /// numbers, so making and dropping words costs nothing; its bytes are
  /// `bytes(of:)`.
  struct Word {
    enum Quoting { case bare, quoted, unterminated }

    let start: Int
    let end: Int
    let quoting: Quoting

    var isQuoted: Bool { quoting != .bare }
  }

  /// The bytes of `word`, quotes and all.
  @inline(__always)
  func bytes(of word: Word) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: line[word.start..<word.end])
  }

  /// A word as a message quotes it.
  func text(of word: Word) -> String { safeWord(bytes(of: word)) }

  /// A quoted word's text without its quotes, `\"` and `\\` unescaped.
  private func unquoted(_ word: Word) -> String {
    let bytes = bytes(of: word)
    guard word.isQuoted, bytes.count >= 2 else {
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

  /// A syntax error before its message and column are known: what is
  /// wrong, the command, and the word it is about. Plain data of a few
  /// bytes, so a command that parses costs no message (one is written only
  /// for an error reported: `syntaxError`), and a throw fits in registers.
  struct Failure: Error {
    enum Kind: UInt8 {
      case unknownCommand, missingArgument, unexpectedArgument, invalidCard
      case invalidPosition, invalidCount, invalidVersion, invalidLimit, invalidSeed
      case invalidCountOrTime
      case unterminatedQuote
    }

    let kind: Kind
    let quoting: Word.Quoting
    /// The command, for its usage: read for a missing or an unexpected
    /// argument only (the others name none, and keep the default).
    let name: CommandName
    /// The word's offsets in the line (a line is at most 1 MiB).
    let start: UInt32
    let end: UInt32

    init(_ kind: Kind, _ word: Word, name: CommandName = .help) {
      self.kind = kind
      quoting = word.quoting
      self.name = name
      start = UInt32(truncatingIfNeeded: word.start)
      end = UInt32(truncatingIfNeeded: word.end)
    }

    var word: Word { Word(start: Int(start), end: Int(end), quoting: quoting) }

    static func unknownCommand(_ word: Word) -> Failure { Failure(.unknownCommand, word) }
    static func missingArgument(_ name: CommandName, at offset: Int) -> Failure {
      Failure(.missingArgument, Word(start: offset, end: offset, quoting: .bare), name: name)
    }
    static func unexpectedArgument(_ word: Word, of name: CommandName) -> Failure {
      Failure(.unexpectedArgument, word, name: name)
    }
    static func invalidCard(_ word: Word) -> Failure { Failure(.invalidCard, word) }
    static func invalidLimit(_ word: Word) -> Failure { Failure(.invalidLimit, word) }
    static func invalidSeed(_ word: Word) -> Failure { Failure(.invalidSeed, word) }
    static func unterminatedQuote(_ word: Word) -> Failure { Failure(.unterminatedQuote, word) }
  }

  private func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  /// The next word of the current command, or nil at `;`, `#` or the end.
  /// Inlined, as everything on the way from a line to its command is: a
  /// command costs one call, not one per word.
  @inline(__always)
  private mutating func nextWord() -> Word? { nextWord(.plain)?.word }

  /// What a scan works out from a word's bytes as it goes over them.
  private enum Scan {
    case plain
    /// The key of its first eight bytes, `CommandName(key:length:)`; 0 for
    /// a quoted word, which is no name.
    case name
    /// Its value, when it is digits that do not overflow; else
    /// `UInt64.max`, more than any position, count or version (the
    /// message reads the word again).
    case number
  }

  /// `nextWord`, and the value that `scan` asks for, worked out in the
  /// same pass over the word.
  @inline(__always)
  private mutating func nextWord(_ scan: Scan) -> (word: Word, value: UInt64)? {
    // A local index, stored back once: `offset` lives in memory.
    var i = offset
    while i < line.count, isBlank(line[i]) { i += 1 }
    offset = i
    guard i < line.count else { return nil }
    let start = i
    if line[i] == UInt8(ascii: "\"") {
      let word = LineParser.quotedWord(in: line, from: start)
      offset = word.end
      return (word, scan == .number ? .max : 0)
    }
    // A bare word, up to a blank, `;` or `#`: the scan's first byte may
    // end it at once (no word: a `;`, or a comment to the line's end).
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var digits = true
    while i < line.count {
      let byte = line[i]
      if isBlank(byte) || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "#") { break }
      switch scan {
      case .plain: break
      case .name:
        value |= UInt64(byte) &<< shift
        shift &+= 8
      case .number:
        let digit = byte &- UInt8(ascii: "0")
        digits = digits && digit <= 9
        value = value &* 10 &+ UInt64(digit)
      }
      i &+= 1
    }
    guard i != start else {
      if line[i] == UInt8(ascii: "#") { offset = line.count }
      return nil
    }
    offset = i
    if scan == .number, !digits || i &- start > 19 {
      value = digits ? LineParser.longNumber(line, start, i) : .max
    }
    return (Word(start: start, end: i, quoting: .bare), value)
  }

  /// The value of the digits `line[start..<end]`, more than nineteen of
  /// them (leading zeros too), read with overflow checks; `UInt64.max`
  /// when they overflow. Out of line: short numbers never need it.
  @inline(never)
  private static func longNumber(_ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
    -> UInt64
  {
    UInt64(decimalDigits: UnsafeBufferPointer(rebasing: line[start..<end])) ?? .max
  }

  /// The double-quoted word at `start` of `line`, in which `\"` and `\\`
  /// stand for `"` and `\`. Out of line, and touching no state, so the
  /// parser's own stays in registers.
  @inline(never)
  private static func quotedWord(in line: UnsafeBufferPointer<UInt8>, from start: Int) -> Word {
    var i = start + 1
    while i < line.count {
      let byte = line[i]
      if byte == UInt8(ascii: "\"") {
        return Word(start: start, end: i + 1, quoting: .quoted)
      }
      if byte == UInt8(ascii: "\\"), i + 1 < line.count,
        line[i + 1] == UInt8(ascii: "\"") || line[i + 1] == UInt8(ascii: "\\")
      {
        i += 1
      }
      i += 1
    }
    return Word(start: start, end: i, quoting: .unterminated)
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
  private mutating func parseCommand(_ first: Word, key: UInt64) -> ParsedItem {
    command = first.start..<first.end
    // One function, the arguments' switch and all: a command costs one
    // call, and its words' offsets stay in registers.
    do throws(Failure) {
      try checkQuote(first)
      guard let name = CommandName(key: key, length: first.end - first.start) else {
        throw .unknownCommand(first)
      }
      // The meaning: which `Command` the words make. The arguments it
      // reads are those of the command's table entry (`CommandName.entry`),
      // written out here rather than read from it: an entry is built, arrays
      // and all, each time it is read, which made every command dearer
      // (`scripts/bench --instructions`). CommandTableTests checks that the
      // two agree.
      let parsed: Command
      switch name {
      case .add:
        if let word = try optional() {
          parsed = .add(try card(word))
        } else {
          parsed = .add(nil)
        }
      case .del: parsed = .delete(try position(requiredNumber(by: name)))
      case .mv:
        let from = try position(requiredNumber(by: name))
        parsed = .move(from, try position(requiredNumber(by: name)))
      case .undo:
        if let number = try optional(.number) {
          parsed = .undo(try count(number))
        } else {
          parsed = .undo(1)
        }
      case .redo:
        if let number = try optional(.number) {
          parsed = .redo(try count(number))
        } else {
          parsed = .redo(1)
        }
      case .goto: parsed = .goto(try version(requiredNumber(by: name)))
      case .earlier: parsed = .earlier(try stride(optional()))
      case .later: parsed = .later(try stride(optional()))
      case .new:
        if let word = try optional() {
          parsed = .new(try seed(word))
        } else {
          parsed = .new(nil)
        }
      case .limit:
        if let word = try optional() {
          parsed = .limit(try limit(word))
        } else {
          parsed = .limit(nil)
        }
      case .expect: parsed = .expect(try expectedCards())
      case .show: parsed = .show
      case .deck: parsed = .deck
      case .history: parsed = .history(tree: try treeWord())
      case .save: parsed = .save(unquoted(try required(by: name)))
      case .source: parsed = .source(unquoted(try required(by: name)))
      case .help:
        if let word = try optional() {
          parsed = .help(try topic(word))
        } else {
          parsed = .help(nil)
        }
      case .quit, .exit: parsed = .quit
      }
      if let extra = try optional() { throw .unexpectedArgument(extra, of: name) }
      // Its arguments were read up to its end: no word of it is left.
      endCommand()
      return .command(parsed, span: command)
    } catch {
      let item = syntaxError(error)
      skipToEndOfCommand()
      return item
    }
  }

  /// The cards of `expect CARD…`, or none for `expect empty`.
  private mutating func expectedCards() throws(Failure) -> [Card] {
    let word = try required(by: .expect)
    if !word.isQuoted, bytes(of: word).elementsEqual("empty".utf8) { return [] }
    var cards = [try card(word)]
    while let word = try optional() { cards.append(try card(word)) }
    return cards
  }

  /// Whether `history` has its one word, `tree`.
  private mutating func treeWord() throws(Failure) -> Bool {
    guard let word = try optional() else { return false }
    guard !word.isQuoted, bytes(of: word).elementsEqual("tree".utf8) else {
      throw .unexpectedArgument(word, of: .history)
    }
    return true
  }

  /// The next word of a command `name` that needs one.
  @inline(__always)
  private mutating func required(by name: CommandName) throws(Failure) -> Word {
    guard let word = try optional() else {
      throw .missingArgument(name, at: command.lowerBound)
    }
    return word
  }

  /// The next word of a command `name` that needs a number there, with
  /// its value (`Scan.number`).
  @inline(__always)
  private mutating func requiredNumber(by name: CommandName) throws(Failure) -> (
    word: Word, value: UInt64
  ) {
    guard let number = try optional(.number) else {
      throw .missingArgument(name, at: command.lowerBound)
    }
    return number
  }

  /// The next word of the command, if any; the command's span grows to it.
  @inline(__always)
  private mutating func optional() throws(Failure) -> Word? { try optional(.plain)?.word }

  /// `optional`, with the value that `scan` asks for.
  @inline(__always)
  private mutating func optional(_ scan: Scan) throws(Failure) -> (word: Word, value: UInt64)? {
    guard let found = nextWord(scan) else { return nil }
    try checkQuote(found.word)
    // Words come left to right: the span's end never passes below its start.
    command = Range(uncheckedBounds: (command.lowerBound, found.word.end))
    return found
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

  /// Whether every byte is ASCII, thirty-two bytes at a time.
  public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let raw = UnsafeRawBufferPointer(bytes)
    var bits: UInt64 = 0
    var i = 0
    while i + 32 <= raw.count {
      bits |=
        raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
        | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
        | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
      i += 32
    }
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
