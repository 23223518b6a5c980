import HandKit

/// What editors outline (handsh(1), EDITORS): folding ranges, document
/// symbols and document links, read from the last finished run of a
/// document, or from its text alone.
extension LanguageServer {
  /// LSP's SymbolKind: Namespace for a game, Event for an input line.
  enum SymbolKind: Int {
    case namespace = 3
    case event = 24
  }

  mutating func foldingRanges(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri) else {
      return nil
    }
    return .array(
      document.folds().map { fold in
        var fields: [(String, JSON)] = [
          ("startLine", .int(fold.first)), ("endLine", .int(fold.last)),
        ]
        if fold.comment { fields.append(("kind", .string("comment"))) }
        return .object(fields)
      })
  }

  mutating func documentSymbols(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri) else {
      return nil
    }
    let table = document.table
    let differing = Set(document.differing)
    var symbols: [JSON] = []
    for (number, game) in document.games().enumerated() {
      guard let first = game.inputs.first, let last = game.inputs.last else { continue }
      var children: [JSON] = []
      for index in game.inputs {
        let bytes = document.bytes(ofInput: index)
        let line = json(
          table.range(of: document.file.content(of: document.file.inputs[index]), encoding))
        children.append(
          symbol(
            document.inputText(index).isEmpty ? " " : document.inputText(index),
            detail: differing.contains(index) ? "output differs" : "",
            kind: .event,
            range: json(table.range(of: bytes.lowerBound..<bytes.upperBound, encoding)),
            selection: line, children: []))
      }
      let from = document.bytes(ofInput: first).lowerBound
      let to = document.bytes(ofInput: last).upperBound
      let bad = game.inputs.filter { differing.contains($0) }.count
      let start = game.start.map { document.inputText($0) } ?? "from the start"
      symbols.append(
        symbol(
          "game \(number + 1): \(start)",
          detail: bad == 0 ? "" : bad == 1 ? "1 block differs" : "\(bad) blocks differ",
          kind: .namespace, range: json(table.range(of: from..<to, encoding)),
          selection: json(
            table.range(of: document.file.content(of: document.file.inputs[first]), encoding)),
          children: children))
    }
    return .array(symbols)
  }

  func symbol(
    _ name: String, detail: String, kind: SymbolKind, range: JSON, selection: JSON,
    children: [JSON]
  ) -> JSON {
    var fields: [(String, JSON)] = [("name", .string(name))]
    if !detail.isEmpty { fields.append(("detail", .string(detail))) }
    fields += [
      ("kind", .int(kind.rawValue)), ("range", range), ("selectionRange", selection),
      ("children", .array(children)),
    ]
    return .object(fields)
  }

  mutating func documentLinks(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri) else {
      return nil
    }
    let folder = LanguageServer.folder(of: uri)
    return .array(
      document.links().map { link in
        let named = LanguageServer.resolve(link.file, in: folder)
        // As `source` reads it when it is there; as named when not (a
        // `save` may make it).
        let path = LanguageServer.absolute(locate(named) ?? named, from: workingFolder)
        return .object([
          ("range", json(document.table.range(of: link.range, encoding))),
          ("target", .string(LanguageServer.fileURI(path))),
        ])
      })
  }
}

extension LanguageServer {
  /// The legend of semantic tokens: only LSP's predefined types, which
  /// editors colour with no configuration, one per kind of word (an
  /// expected line is a comment marked `documentation`; a red card is
  /// marked `static`).
  static let tokenTypes = ["keyword", "enumMember", "number", "string", "comment"]
  static let tokenModifiers = ["documentation", "static"]

  static var tokenLegend: JSON {
    .object([
      ("tokenTypes", .array(tokenTypes.map { .string($0) })),
      ("tokenModifiers", .array(tokenModifiers.map { .string($0) })),
    ])
  }

  mutating func semanticTokens(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri) else {
      return nil
    }
    var data: [JSON] = []
    var line = 0
    var character = 0
    for token in document.tokens() {
      let range = document.table.range(of: token.range, encoding)
      guard range.start.line == range.end.line, range.end.character > range.start.character
      else { continue }
      let type: Int
      var modifiers = 0
      switch token.kind {
      case .command: type = 0
      case .card: type = 1
      case .number: type = 2
      case .file: type = 3
      case .comment: type = 4
      case .expected:
        type = 4
        modifiers |= 1
      }
      if token.red { modifiers |= 2 }
      let deltaLine = range.start.line - line
      let deltaStart = deltaLine == 0 ? range.start.character - character : range.start.character
      data += [
        .int(deltaLine), .int(deltaStart), .int(range.end.character - range.start.character),
        .int(type), .int(modifiers),
      ]
      line = range.start.line
      character = range.start.character
    }
    return .object([("data", .array(data))])
  }
}

extension LanguageServer {
  /// `textDocument/formatting`: the latest text in its canonical form.
  mutating func formatting(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = current(uri) else {
      return nil
    }
    return .array(
      document.formatting().map { edit in
        .object([
          ("range", json(document.table.range(of: edit.range, encoding))),
          ("newText", .string(String(decoding: edit.text, as: UTF8.self))),
        ])
      })
  }
}
