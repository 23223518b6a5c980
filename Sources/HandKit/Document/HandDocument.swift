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
  /// In a file with no expectations, the edit that adds them.
  let expectations: (range: Range<Int>, text: [UInt8])?
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
    /// For a problem at a line of a `source`d file: that file's line.
    public var related: SourceLocation? = nil
  }

  /// False when `stop` ended the run early: then nothing of it is to be
  /// shown.
  public let complete: Bool
  /// False for a document read from its text alone, not run: no hands, no
  /// problems, no blocks (what a request gets before a first run is done).
  public let ran: Bool

  /// The most output kept of a file with no expectations.
  static let keptOutput = 1 << 20

  /// How many input lines run between two questions to `stop`.
  static let stopInterval = 256

  /// Runs `text` with `defaults` and the shebang's options on top; `read`
  /// reads a file that `source` names and this document has not saved;
  /// `stop`, asked every 256 commands and inside a `source`d file's check,
  /// ends the run early when it says so. At most `commands` commands run
  /// (`source`d ones counted). Unless `runs`, the text is only read.
  public init(
    text: [UInt8], defaults: GoldenSettings = GoldenSettings(),
    read: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure> = { _ in
      .failure(ReadFailure("No such file or directory"))
    },
    stop: @escaping () -> Bool = { false }, commands: Int = GoldenBounds.commandLimit,
    runs: Bool = true
  ) {
    let file = GoldenFile(text: text, defaults: defaults)
    let table = LineTable(text)
    var after: [State] = []
    after.reserveCapacity(file.inputs.count)
    var history = Session(seed: file.settings.seed, limit: file.settings.limit).history
    var problems: [(input: Int, problem: LineProblem)] = []
    var complete = true
    let result: GoldenResult
    if runs {
      // A file with no expectations keeps its output for the source action
      // while it is small: one that prints more gets no such action.
      let expects = file.inputs.contains { !$0.expected.isEmpty }
      result = file.run(
        effects: GoldenMemory(readFile: read), keepLimit: expects ? nil : HandDocument.keptOutput,
        bounds: GoldenBounds(commands: commands, stop: stop)
      ) { index, session, found in
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
      if result.abandoned { complete = false }
    } else {
      result = GoldenResult(file: file, actual: Array(repeating: [], count: file.inputs.count))
    }
    // States for the lines not run: as the last one left it.
    while after.count < file.inputs.count { after.append(after.last ?? State(cursor: 0, count: 1)) }
    self.complete = complete
    self.ran = runs
    self.file = file
    self.result = result
    self.table = table
    self.history = history
    self.after = after
    initial = State(cursor: 0, count: 1)
    ascii = file.settings.ascii
    self.read = read
    expectations = complete ? HandDocument.expectations(file, result, ran: runs) : nil
    diagnostics =
      runs ? HandDocument.bounded(HandDocument.diagnose(file, result, problems, table)) : []
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
      } else if ran, at > 0, let first = words.first,
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
    // Read from the text alone: no hand is known yet.
    if ran {
      parts.append(
        "hand before: \(handText(before))\nhand after:  \(handText(hand(after[index])))")
    }
    guard !parts.isEmpty else { return nil }
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
      var found: String?
      LineParser.forEachItem(in: UnsafeBufferPointer(rebasing: buffer[content])) { item, _ in
        guard case .command(.source(let name), let span) = item else { return true }
        let words = (span.lowerBound + content.lowerBound)...(span.upperBound + content.lowerBound)
        if words.contains(offset) { found = name }
        return found == nil
      }
      return found
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
  public var differing: [Int] {
    // A file with no expectations keeps its output for the source action,
    // yet has no block that differs.
    file.diagnostics.isEmpty && file.inputs.contains(where: { !$0.expected.isEmpty })
      ? result.differing : []
  }

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
    var new: [UInt8] = []
    file.writeBlock(actual, after: from, to: &new)
    guard let edit = lineEdit(from: Array(text[from..<to]), to: new) else { return nil }
    return ((edit.range.lowerBound + from)..<(edit.range.upperBound + from), edit.text)
  }

  /// In a file with no expectations, the edit that adds every block as
  /// `--update` writes it, making the file a golden test that passes: from
  /// the output the run kept, never a run again. Nil when there is nothing
  /// to add, the file is malformed, was not run whole, or its output passed
  /// the bound of a test's.
  public func expectationsEdit() -> (range: Range<Int>, text: [UInt8])? { expectations }

  /// The edit of `expectationsEdit`, made once, where the run is made.
  static func expectations(_ file: GoldenFile, _ result: GoldenResult, ran: Bool)
    -> (range: Range<Int>, text: [UInt8])?
  {
    guard ran, !result.abandoned, !result.dropped, file.diagnostics.isEmpty,
      result.overflow == nil, result.exhausted == nil,
      !file.inputs.contains(where: { !$0.expected.isEmpty })
    else { return nil }
    return lineEdit(from: file.text, to: result.updatedText)
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
