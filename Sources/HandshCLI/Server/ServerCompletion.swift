import HandKit

/// Completion (handsh(1), EDITORS): what the prompt offers, as items that
/// clients which filter again by the label or the inserted text (Neovim
/// 0.7.2's omnifunc, eglot 1.9, vim-lsp) keep as typed: a card is inserted
/// in the spelling the user started (`kh` for `k`, `th` for `t`), which
/// the parser reads; commands are keywords with their help.
extension LanguageServer {
  /// LSP's CompletionItemKind: Text, Value, Keyword, File.
  enum ItemKind: Int {
    case text = 1
    case value = 12
    case keyword = 14
    case file = 17
  }

  mutating func completion(_ params: JSON) -> JSON? {
    guard let (uri, document, offset) = target(params, current: true) else { return nil }
    let folder = LanguageServer.folder(of: uri)
    let list = listFolder
    let (range, found) = document.completions(at: offset) { sub in
      list(LanguageServer.resolve(sub.isEmpty ? "." : sub, in: folder))
    }
    let replaced = json(document.table.range(of: range, encoding))
    // A quote the user opened before the word: file names close it.
    let opened = range.lowerBound > 0 && document.table.text[range.lowerBound - 1] == 0x22
    let typed = String(decoding: document.table.text[range], as: UTF8.self)
    var incomplete = false
    var items: [JSON] = []
    for (index, candidate) in found.candidates.enumerated() {
      let shown = found.labels.count == found.candidates.count ? found.labels[index] : candidate
      let filter = LanguageServer.filterText(candidate, typed: typed)
      if filter == nil { incomplete = true }
      var item = completionItem(
        candidate, shown: shown, typed: typed, spelled: filter,
        file: found.kind == .fileNames, opened: opened)
      var sort = String(index)
      while sort.utf8.count < 6 { sort = "0" + sort }
      item.append(("sortText", .string(sort)))
      item.append(("textEdit", .object([("range", replaced), ("newText", item.inserted)])))
      items.append(.object(item.fields))
    }
    // An item whose filter text is only what was typed is asked for again.
    return .object([("isIncomplete", .bool(incomplete)), ("items", .array(items))])
  }

  /// An item's fields, and the text it inserts.
  struct CompletionFields {
    var fields: [(String, JSON)]
    var inserted: JSON
    mutating func append(_ field: (String, JSON)) { fields.append(field) }
  }

  /// One candidate as an item: a card in the spelling the user started
  /// (label, filter and inserted text alike, the card itself as detail); a
  /// file name quoted as the prompt quotes it; a command with its help.
  func completionItem(
    _ candidate: String, shown: String, typed: String, spelled: String?, file: Bool,
    opened: Bool
  ) -> CompletionFields {
    let card = Card(parsing: Array(candidate.utf8))
    let command = Array(candidate.utf8).withUnsafeBufferPointer { CommandName(spelling: $0) }
    let inserted: String
    var label = shown
    var fields: [(String, JSON)] = []
    if file {
      inserted = LanguageServer.fileWord(candidate, opened: opened)
    } else if let card, let spelled, !typed.isEmpty {
      // What the user typed goes on as typed: `k` becomes `kh`.
      inserted = spelled
      label = spelled
      fields.append(("detail", .string("\(candidate) \(card.spokenName)")))
    } else {
      inserted = candidate
    }
    let kind: ItemKind =
      file ? .file : card != nil ? .value : command != nil ? .keyword : .value
    fields.insert(("label", .string(label)), at: 0)
    fields.append(("kind", .int(kind.rawValue)))
    if let card, !fields.contains(where: { $0.0 == "detail" }) {
      fields.append(("detail", .string(card.spokenName)))
    }
    if kind == .keyword, let command {
      fields.append(
        (
          "documentation",
          .object([
            ("kind", .string("plaintext")),
            ("value", .string(LanguageServer.trimmed(helpText(command)))),
          ])
        ))
    }
    fields.append(("filterText", .string(spelled ?? typed)))
    return CompletionFields(fields: fields, inserted: .string(inserted))
  }

  /// The text a client filters an item by, so that what the user typed
  /// matches it in clients that filter again (Neovim, eglot, vim-lsp): the
  /// item when it starts as typed; a card as `help add` teaches it to be
  /// spelled (`kh`, `10h`, `th`) when the typed word starts that spelling,
  /// in the case the user typed; else nil (the typed word itself is used).
  static func filterText(_ candidate: String, typed: String) -> String? {
    var spellings: [String] = []
    if let card = Card(parsing: Array(candidate.utf8)) {
      let ranks = card.rank.name == "10" ? ["10", "t"] : [card.rank.name.lowercased()]
      spellings += ranks.map { $0 + card.suit.letter.lowercased() }
      spellings += ranks.map { $0 + card.suit.symbol }
    }
    spellings.append(candidate)
    let word = Array(typed.unicodeScalars)
    for spelling in spellings {
      let letters = Array(spelling.unicodeScalars)
      guard letters.count >= word.count,
        zip(letters, word).allSatisfy({ lowered($0) == lowered($1) })
      else { continue }
      var text = typed
      text.unicodeScalars.append(contentsOf: letters[word.count...])
      return text
    }
    return nil
  }

  /// `text` without its final line breaks.
  static func trimmed(_ text: String) -> String {
    var text = text
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
  }
}
