/// A `.hand` file as an editor holds it, run once as `handsh --test` runs it
/// (handsh(1), EDITORS): its lines, the state of the game before and after
/// each input line, the problems, and the blocks that differ. Everything an
/// editor asks (diagnostics, hints, hovers, completions, edits) is read from
/// it; nothing runs twice. Files are read only through `read`.
public struct HandDocument: Sendable {
  public let file: GoldenFile
  public let result: GoldenResult
  public let table: LineTable
  /// Every problem, in the order of the text.
  public let diagnostics: [DocumentDiagnostic]
  /// The history as the last line left it: versions are never dropped, so
  /// the versions at any line are its first ones.
  let history: History
  /// After each input line (by index into `file.inputs`): the current
  /// version and how many versions exist.
  let after: [State]
  /// Before the first input line.
  let initial: State
  let ascii: Bool
  /// How the run read a file that `source` names: a run again reads alike.
  let read: @Sendable (String) -> Result<[UInt8], ReadFailure>

  struct State: Sendable {
    var cursor: Int
    var count: Int
  }

  /// A problem at a stretch of the text.
  public struct DocumentDiagnostic: Sendable, Equatable {
    public enum Severity: Sendable, Equatable {
      case error, warning
    }

    /// Byte offsets in the text.
    public let range: Range<Int>
    public let severity: Severity
    public let message: String
  }

  /// False when `stop` ended the run early: then nothing of it is to be
  /// shown.
  public let complete: Bool

  /// How many input lines run between two questions to `stop`.
  static let stopInterval = 256

  /// Runs `text` with `defaults` and the shebang's options on top; `read`
  /// reads a file that `source` names and this document has not saved;
  /// `stop`, asked now and then, ends the run early when it says so.
  public init(
    text: [UInt8], defaults: GoldenSettings = GoldenSettings(),
    read: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure> = { _ in
      .failure(ReadFailure("No such file or directory"))
    },
    stop: () -> Bool = { false }
  ) {
    let file = GoldenFile(text: text, defaults: defaults)
    let table = LineTable(text)
    var after: [State] = []
    after.reserveCapacity(file.inputs.count)
    var history = Session(seed: file.settings.seed, limit: file.settings.limit).history
    var problems: [(input: Int, problem: LineProblem)] = []
    var complete = true
    // A file with no expectations shows no blocks: they are only counted.
    let expects = file.inputs.contains { !$0.expected.isEmpty }
    let result = file.run(effects: GoldenMemory(readFile: read), keepOutput: expects) {
      index, session, found in
      after.append(State(cursor: session.history.cursor, count: session.history.count))
      for problem in found { problems.append((index, problem)) }
      if index == file.inputs.count - 1 { history = session.history }
      if index % HandDocument.stopInterval == HandDocument.stopInterval - 1, stop() {
        complete = false
        history = session.history
        return false
      }
      return true
    }
    // States for the lines not run: as the last one left it.
    while after.count < file.inputs.count { after.append(after.last ?? State(cursor: 0, count: 1)) }
    self.complete = complete
    self.file = file
    self.result = result
    self.table = table
    self.history = history
    self.after = after
    initial = State(cursor: 0, count: 1)
    ascii = file.settings.ascii
    self.read = read
    diagnostics = HandDocument.diagnose(file, result, problems, table)
  }

  // MARK: Diagnostics

  private static func diagnose(
    _ file: GoldenFile, _ result: GoldenResult, _ problems: [(input: Int, problem: LineProblem)],
    _ table: LineTable
  ) -> [DocumentDiagnostic] {
    var found: [DocumentDiagnostic] = []
    guard file.diagnostics.isEmpty else {
      // Malformed: the file does not run, as with `--test`.
      for diagnostic in file.diagnostics {
        let line = diagnostic.line - 1
        guard line >= 0, line < file.lines.count else { continue }
        let content = file.lines[line].start..<file.lines[line].contentEnd
        let start = offset(ofColumn: diagnostic.column, in: content, file.text)
        found.append(
          DocumentDiagnostic(
            range: start..<wordEnd(from: start, in: content, file.text), severity: .error,
            message: diagnostic.message))
      }
      return found
    }
    // The line whose output passed the bound of a test, which stopped there.
    var overflowed: [DocumentDiagnostic] = []
    if let overflow = result.overflow, file.inputs.indices.contains(overflow) {
      overflowed.append(
        DocumentDiagnostic(
          range: file.content(of: file.inputs[overflow]), severity: .error,
          message: GoldenResult.overflowText))
    }
    let expects = file.inputs.contains { !$0.expected.isEmpty }
    if expects {
      for index in result.differing {
        let input = file.inputs[index]
        let actual = result.actual[index]
        let shown =
          actual.isEmpty
          ? "output differs: the line prints nothing"
          : "output differs; actual output:\n"
            + actual.map { String(decoding: $0.marked, as: UTF8.self) }.joined(separator: "\n")
        found.append(
          DocumentDiagnostic(range: file.content(of: input), severity: .error, message: shown))
      }
      return found + overflowed
    }
    // A line `handsh FILE` refuses, though a test does not run it: a
    // comment over the line limit.
    var inputLines = Set<Int>()
    for input in file.inputs { inputLines.insert(input.line) }
    for (number, line) in file.lines.enumerated()
    where line.length > LineParser.maximumLineLength && !inputLines.contains(number) {
      found.append(
        DocumentDiagnostic(
          range: line.start..<line.contentEnd, severity: .error,
          message: LineParser.tooLongMessage))
    }
    for (index, problem) in problems {
      let content = file.content(of: file.inputs[index])
      var range = content
      if let span = problem.span, span.upperBound <= content.count {
        range = (content.lowerBound + span.lowerBound)..<(content.lowerBound + span.upperBound)
      } else if let column = problem.column {
        let start = offset(ofColumn: column, in: content, file.text)
        range = start..<wordEnd(from: start, in: content, file.text)
      }
      found.append(
        DocumentDiagnostic(
          range: range, severity: problem.kind == .syntax ? .error : .warning,
          message: problem.message))
    }
    found += overflowed
    if found.count > problems.count {
      // In the order of the text.
      found = found.enumerated().sorted {
        ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
      }.map(\.element)
    }
    return found
  }

  /// The byte offset of 1-based column `column` (in Unicode scalars, each
  /// byte of invalid UTF-8 one) of the line `content`.
  static func offset(ofColumn column: Int, in content: Range<Int>, _ text: [UInt8]) -> Int {
    var offset = content.lowerBound
    var at = 1
    while at < column, offset < content.upperBound {
      offset += LineTable.character(at: offset, in: text, end: content.upperBound, .utf8).width
      at += 1
    }
    return offset
  }

  /// Where the word that starts at `start` ends: the parser's word when
  /// one starts there, else the next blank or the line's end.
  static func wordEnd(from start: Int, in content: Range<Int>, _ text: [UInt8]) -> Int {
    let words = commandWords(content, text).joined()
    if let word = words.first(where: { $0.contains(start) }) { return word.upperBound }
    var end = start
    while end < content.upperBound, text[end] != 0x20, text[end] != 0x09 { end += 1 }
    return end == start ? content.upperBound : end
  }

  /// The words of each command of the line `content`, as absolute offsets.
  static func commandWords(_ content: Range<Int>, _ text: [UInt8]) -> [[Range<Int>]] {
    text.withUnsafeBufferPointer { buffer in
      LineParser.commandWords(UnsafeBufferPointer(rebasing: buffer[content])).map { command in
        command.map { ($0.lowerBound + content.lowerBound)..<($0.upperBound + content.lowerBound) }
      }
    }
  }

  // MARK: Lines and states

  /// The index into `file.inputs` of the input line on physical line `line`.
  public func input(onLine line: Int) -> Int? {
    let index = inputsBefore(line: line)
    guard index < file.inputs.count, file.inputs[index].line == line else { return nil }
    return index
  }

  /// How many input lines come before physical line `line`.
  func inputsBefore(line: Int) -> Int {
    var low = 0
    var high = file.inputs.count
    while low < high {
      let middle = (low + high) / 2
      if file.inputs[middle].line < line { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// The state in which physical line `line` runs.
  func state(before line: Int) -> State {
    let index = inputsBefore(line: line)
    return index == 0 ? initial : after[index - 1]
  }

  func hand(_ state: State) -> Hand {
    state.cursor < history.count ? history[state.cursor].hand : .empty
  }

  /// A hand as the hints write it: `K♥ 3♣ 7♥`, or `(empty)`.
  func handText(_ hand: Hand) -> String { LineForecast.text(of: hand, ascii: ascii) }

  // MARK: Inlay hints

  /// After each input line that changes the hand and ends within the bytes
  /// `bytes`: the hand after it, `⇒ K♥ 3♣ 7♥`, at the end of the line.
  public func hints(in bytes: ClosedRange<Int>) -> [(offset: Int, label: String)] {
    var hints: [(offset: Int, label: String)] = []
    var index = inputsBefore(line: fileLine(of: bytes.lowerBound))
    while index < file.inputs.count,
      file.content(of: file.inputs[index]).upperBound <= bytes.upperBound
    {
      guard file.content(of: file.inputs[index]).upperBound >= bytes.lowerBound else {
        index += 1
        continue
      }
      let before = index == 0 ? initial : after[index - 1]
      let now = hand(after[index])
      if now != hand(before) {
        hints.append((file.content(of: file.inputs[index]).upperBound, "⇒ " + handText(now)))
      }
      index += 1
    }
    return hints
  }

  // MARK: Hover

  /// What to show for byte `offset`: on a command its help, on a card its
  /// name, on a word whose argument is a position (`del`, `mv`) the card
  /// there; then the hand
  /// before and after the line. Nil off the input lines.
  public func hover(at offset: Int) -> (text: String, range: Range<Int>)? {
    let line = fileLine(of: offset)
    guard let index = input(onLine: line) else { return nil }
    let content = file.content(of: file.inputs[index])
    let before = hand(index == 0 ? initial : after[index - 1])
    var parts: [String] = []
    var range = content
    if let (words, at) = word(at: offset, content) {
      range = words[at]
      let bytes = Array(file.text[words[at]])
      let name = bytes.withUnsafeBufferPointer { CommandName(spelling: $0) }
      if at == 0, let name {
        parts.append(helpText(name).trimmingLineBreak)
      } else if at > 0, let first = words.first,
        let command = Array(file.text[first]).withUnsafeBufferPointer({ CommandName(spelling: $0) }
        ),
        hoverKind(of: command, word: at) == .position, let position = Int(decimal: bytes)
      {
        // The hand just before this command, not before its line.
        let hand = self.hand(beforeCommand: words, index == 0 ? initial : after[index - 1], content)
        if position >= 1, position <= hand.count {
          let card = hand[position - 1]
          parts.append("position \(position): \(card.name(ascii: ascii)), \(card.spokenName)")
        } else {
          let cards = hand.count == 1 ? "1 card" : "\(hand.count) cards"
          parts.append("no card at position \(position) (hand has \(cards))")
        }
      } else if let card = Card(parsing: bytes) {
        parts.append(card.spokenName)
      }
    }
    parts.append(
      "hand before: \(handText(before))\nhand after:  \(handText(hand(after[index])))")
    return (parts.joined(separator: "\n\n"), range)
  }

  /// The kind of argument whose hover word `at` (after the name) of a
  /// command `name` gets: its argument's, or for a word past them (one
  /// too many) the last argument's, as the words of a command that
  /// failed still point at what they were meant to be.
  func hoverKind(of name: CommandName, word at: Int) -> ArgumentKind? {
    (name.argument(at: at - 1) ?? name.entry.arguments.last)?.kind
  }

  /// The hand just before the command whose words are `command`, on the
  /// input line `content` that starts in `state`: the line's forecast up
  /// to that command (`Session.forecast`, which the prompt's preview asks
  /// too), on a copy, reading no file and writing nothing.
  func hand(beforeCommand command: [Range<Int>], _ state: State, _ content: Range<Int>) -> Hand {
    guard let first = command.first, first.lowerBound > content.lowerBound else {
      return hand(state)
    }
    let session = Session(history: history, at: state.cursor)
    return file.text.withUnsafeBufferPointer { buffer in
      session.forecast(
        UnsafeBufferPointer(rebasing: buffer[content]),
        before: first.lowerBound - content.lowerBound, seed: 0
      ).hand
    }
  }

  /// The words of the command under `offset`, and which of them holds it.
  func word(at offset: Int, _ content: Range<Int>) -> ([Range<Int>], Int)? {
    for command in HandDocument.commandWords(content, file.text) {
      if let at = command.firstIndex(where: { $0.lowerBound <= offset && offset < $0.upperBound }) {
        return (command, at)
      }
    }
    return nil
  }

  // MARK: Definition

  /// The file that a `source` command at byte `offset` names.
  public func sourcedFile(at offset: Int) -> String? {
    let line = fileLine(of: offset)
    guard let index = input(onLine: line) else { return nil }
    let content = file.content(of: file.inputs[index])
    return file.text.withUnsafeBufferPointer { buffer in
      var parser = LineParser(UnsafeBufferPointer(rebasing: buffer[content]))
      while let item = parser.next() {
        guard case .command(.source(let name), let span) = item else { continue }
        let words = (span.lowerBound + content.lowerBound)...(span.upperBound + content.lowerBound)
        if words.contains(offset) { return name }
      }
      return nil
    }
  }

  // MARK: Completion

  /// What to offer at byte `offset`: the prompt's completions (handsh(1),
  /// THE PROMPT) for the game as it stands before that line, with the
  /// versions for `goto`; `folder` lists a folder relative to the
  /// document's. The range is the typed word that a choice replaces.
  package func completions(at offset: Int, folder: @escaping (String) -> [String])
    -> (range: Range<Int>, completions: Completions)
  {
    let line = fileLine(of: offset)
    let content = file.lines.indices.contains(line) ? file.lines[line].start : file.text.count
    let cursor = max(offset, content)
    var start = cursor
    while start > content {
      let byte = file.text[start - 1]
      if byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\"") {
        break
      }
      start -= 1
    }
    let before = String(decoding: file.text[content..<start], as: UTF8.self)
    let typed = String(decoding: file.text[start..<cursor], as: UTF8.self)
    let state = state(before: line)
    let version = history[min(state.cursor, history.count - 1)]
    var context = CompletionContext(
      deck: version.deck.cards(in: history.game(of: version)), hand: version.hand.cards,
      ascii: ascii, folder: folder)
    context.versions = (0..<min(state.count, history.count)).map { history[$0].hand.cards }
    return (start..<cursor, HandKit.completions(typed: typed, after: before, in: context))
  }

  // MARK: Code actions

  /// The indexes (into `file.inputs`) of the input lines whose block
  /// differs; none while the file is malformed.
  public var differing: [Int] { file.diagnostics.isEmpty ? result.differing : [] }

  /// The edit that accepts the actual block of input `index`, or of every
  /// differing input when nil: what `--update` writes, as the smallest
  /// change of whole lines.
  public func acceptEdit(_ index: Int?) -> (range: Range<Int>, text: [UInt8])? {
    guard file.diagnostics.isEmpty else { return nil }
    guard let index else { return lineEdit(from: file.text, to: result.updatedText) }
    // One block: its own lines only, so that the edits of every block of
    // a file cost one pass over the text, not one per block.
    guard file.inputs.indices.contains(index), result.actual.indices.contains(index) else {
      return nil
    }
    let input = file.inputs[index]
    let actual = result.actual[index]
    guard input.expected != actual else { return nil }
    let text = file.text
    let lines = file.lines
    let from = lines[input.line].end
    let to =
      input.block.upperBound < lines.count ? lines[input.block.upperBound].rawStart : text.count
    let eol: [UInt8] = file.crlf ? [0x0D, 0x0A] : [0x0A]
    var new: [UInt8] = []
    if text[..<from].last != 0x0A, !actual.isEmpty { new += eol }
    for output in actual { new += output.marked + eol }
    guard let edit = lineEdit(from: Array(text[from..<to]), to: new) else { return nil }
    return ((edit.range.lowerBound + from)..<(edit.range.upperBound + from), edit.text)
  }

  /// In a file with no expectations (which keeps no output), the edit
  /// that adds every block as `--update` writes it, making the file a
  /// golden test that passes: the file runs again, keeping its output.
  /// Nil when there is nothing to add, the file is malformed, or its output
  /// passed the bound of a test's.
  public func expectationsEdit() -> (range: Range<Int>, text: [UInt8])? {
    guard file.diagnostics.isEmpty, result.overflow == nil,
      !file.inputs.contains(where: { !$0.expected.isEmpty })
    else { return nil }
    let full = file.run(effects: GoldenMemory(readFile: read))
    guard full.overflow == nil else { return nil }
    return lineEdit(from: file.text, to: full.updatedText)
  }

  /// The bytes of input `index` and of its block, line breaks included.
  public func bytes(ofInput index: Int) -> ClosedRange<Int> {
    let input = file.inputs[index]
    let last = max(input.line, input.block.upperBound - 1)
    return file.lines[input.line].rawStart...file.lines[last].end
  }

  /// The line of the file (as handsh splits it, at `\n`) that holds byte
  /// `offset`; `file.lines.count` past the line break that ends the text.
  func fileLine(of offset: Int) -> Int {
    if let last = file.lines.last, offset >= last.end, file.text.last == 0x0A {
      return file.lines.count
    }
    var low = 0
    var high = max(0, file.lines.count - 1)
    while low < high {
      let middle = (low + high + 1) / 2
      if file.lines[middle].rawStart <= offset { low = middle } else { high = middle - 1 }
    }
    return low
  }
}

extension Card {
  /// The card in words: `queen of hearts`.
  public var spokenName: String {
    let ranks = [
      "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
      "queen", "king",
    ]
    let suits = ["hearts", "diamonds", "clubs", "spades"]
    return ranks[Int(rank.rawValue) % 13] + " of " + suits[Int(suit.rawValue) % 4]
  }
}

extension Int {
  /// A position as typed: decimal digits only, at most 9 of them.
  init?(decimal bytes: [UInt8]) {
    guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    self = bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
}

extension String {
  var trimmingLineBreak: String {
    var text = self
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}
