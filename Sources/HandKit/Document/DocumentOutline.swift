/// The shape of a document as an editor outlines it (handsh(1), EDITORS):
/// what folds, its games and their lines, and the files it names. Read
/// from the text and the run, never from a file.
extension HandDocument {
  /// A stretch of lines that folds: 0-based, both included.
  public struct Fold: Sendable, Equatable {
    public let first: Int
    public let last: Int
    /// A run of comment lines (else an input line with its block).
    public let comment: Bool
  }

  /// Each input line with its expected block, and each run of two or more
  /// comment lines that are no block's.
  public func folds() -> [Fold] {
    var folds: [Fold] = []
    var taken = Set<Int>()
    for input in file.inputs {
      taken.insert(input.line)
      for line in input.block { taken.insert(line) }
      if input.block.count > 0 {
        folds.append(Fold(first: input.line, last: input.block.upperBound - 1, comment: false))
      }
    }
    var run: Int?
    for number in 0...file.lines.count {
      let comment =
        number < file.lines.count && !taken.contains(number)
        && file.text[file.lines[number].start..<file.lines[number].contentEnd].first
          == UInt8(ascii: "#")
      if comment, run == nil { run = number }
      if !comment, let first = run {
        if number - first >= 2 { folds.append(Fold(first: first, last: number - 1, comment: true)) }
        run = nil
      }
    }
    return folds.sorted { ($0.first, $0.last) < ($1.first, $1.last) }
  }

  /// A game of the document: from its start or a line with `new`, with its
  /// input lines (by index into `file.inputs`).
  public struct Game: Sendable, Equatable {
    /// The input line that started it with `new`; nil for the file's start.
    public let start: Int?
    public let inputs: [Int]
  }

  /// The games, in order: the first from the file's start (when any line
  /// comes before the first `new`), then one from each line with `new`.
  public func games() -> [Game] {
    var games: [Game] = []
    var start: Int?
    var inputs: [Int] = []
    for index in file.inputs.indices {
      if startsGame(index) {
        if !inputs.isEmpty || start != nil { games.append(Game(start: start, inputs: inputs)) }
        start = index
        inputs = []
      }
      inputs.append(index)
    }
    if !inputs.isEmpty { games.append(Game(start: start, inputs: inputs)) }
    return games
  }

  /// Whether input line `index` runs `new`.
  func startsGame(_ index: Int) -> Bool {
    commands(ofInput: index).contains { command, _ in
      if case .new = command { return true }
      return false
    }
  }

  /// The text of input line `index`, without its line break.
  public func inputText(_ index: Int) -> String {
    String(decoding: file.text[file.content(of: file.inputs[index])], as: UTF8.self)
  }

  /// Each `source` and `save` FILE of the text: the bytes of its word, and
  /// the name as the command reads it.
  public func links() -> [(range: Range<Int>, file: String)] {
    var links: [(range: Range<Int>, file: String)] = []
    for index in file.inputs.indices {
      let content = file.content(of: file.inputs[index])
      let words = HandDocument.commandWords(content, file.text)
      for (command, span) in commands(ofInput: index) {
        let name: String
        switch command {
        case .source(let file), .save(let file): name = file
        default: continue
        }
        let start = span.lowerBound + content.lowerBound
        guard let command = words.first(where: { $0.first?.lowerBound == start }),
          command.count > 1, let word = command.last, !name.isEmpty
        else { continue }
        links.append((word, name))
      }
    }
    return links
  }

  /// The commands of input line `index` that parse, with their spans in
  /// the line.
  func commands(ofInput index: Int) -> [(Command, Range<Int>)] {
    let content = file.content(of: file.inputs[index])
    return file.text.withUnsafeBufferPointer { buffer in
      var found: [(Command, Range<Int>)] = []
      LineParser.forEachItem(in: UnsafeBufferPointer(rebasing: buffer[content])) { item, _ in
        if case .command(let command, let span) = item { found.append((command, span)) }
        return true
      }
      return found
    }
  }
}
