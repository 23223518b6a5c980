/// The words of a document by what they are (handsh(1), EDITORS), for
/// editors that colour a file with no grammar of it: command names, cards
/// (red ones marked), numbers, file names, comments and expected lines.
/// What fails to parse is never given the kind of a valid card or command.
extension HandDocument {
  public struct Token: Sendable, Equatable {
    public enum Kind: Int, Sendable, CaseIterable {
      case command, card, number, file, comment, expected
    }

    public let range: Range<Int>
    public let kind: Kind
    /// A card of a red suit.
    public let red: Bool
  }

  /// Every token, in the order of the text, none across a line's end.
  public func tokens() -> [Token] {
    var tokens: [Token] = []
    var blocks = Set<Int>()
    var inputs: [Int: Int] = [:]
    for (index, input) in file.inputs.enumerated() {
      inputs[input.line] = index
      for line in input.block { blocks.insert(line) }
    }
    for (number, line) in file.lines.enumerated() {
      let content = line.start..<line.contentEnd
      if let index = inputs[number] {
        tokens += words(ofInput: index)
      } else if file.text[content].first == UInt8(ascii: "#"), !content.isEmpty {
        let kind: Token.Kind = blocks.contains(number) ? .expected : .comment
        tokens.append(Token(range: content, kind: kind, red: false))
      }
    }
    return tokens
  }

  /// The tokens of input line `index`: a command's first word when it names
  /// a command; after it, each card, number, or the FILE of `save` and
  /// `source`; a comment after the commands.
  func words(ofInput index: Int) -> [Token] {
    let content = file.content(of: file.inputs[index])
    var tokens: [Token] = []
    for command in HandDocument.commandWords(content, file.text) {
      guard let first = command.first else { continue }
      let spelled = Array(file.text[first])
      guard spelled.withUnsafeBufferPointer({ CommandName(spelling: $0) }) != nil else { continue }
      tokens.append(Token(range: first, kind: .command, red: false))
      let takesFile = spelled == Array("save".utf8) || spelled == Array("source".utf8)
      for word in command.dropFirst() {
        let bytes = Array(file.text[word])
        if takesFile {
          tokens.append(Token(range: word, kind: .file, red: false))
        } else if let card = Card(parsing: bytes) {
          tokens.append(Token(range: word, kind: .card, red: card.suit.isRed))
        } else if !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) {
          tokens.append(Token(range: word, kind: .number, red: false))
        }
      }
    }
    // A comment that ends the line.
    if let last = tokens.last?.range.upperBound ?? Optional(content.lowerBound),
      let hash = file.text[last..<content.upperBound].firstIndex(of: UInt8(ascii: "#")),
      file.text[content.lowerBound..<hash].filter({ $0 == 0x22 }).count % 2 == 0
    {
      tokens.append(Token(range: hash..<content.upperBound, kind: .comment, red: false))
    }
    return tokens
  }
}
