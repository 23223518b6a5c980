/// What Tab can offer at the prompt, and an editor at a line of a `.hand`
/// file: a view of the session, taken before the line (handsh(1), THE
/// PROMPT, Completion; EDITORS).
package struct CompletionContext {
  /// The cards still in the deck, in any order.
  package var deck: [Card]
  /// The cards in the hand, top first.
  package var hand: [Card]
  /// The versions `goto` can go to, each with its hand; empty: `goto`
  /// offers nothing (the prompt).
  package var versions: [[Card]] = []
  package var ascii: Bool
  /// Command names, `empty` and file names match in any case (readline's
  /// `completion-ignore-case`); cards always do.
  package var ignoresCase = false
  /// The names in a folder (`""` is the current folder, else a path that
  /// ends in `/`); empty when it cannot be read.
  package var folder: (String) -> [String]

  package init(
    deck: [Card] = [], hand: [Card] = [], ascii: Bool = false,
    folder: @escaping (String) -> [String] = { _ in [] }
  ) {
    self.deck = deck
    self.hand = hand
    self.ascii = ascii
    self.folder = folder
  }
}

/// The answer to Tab.
package struct Completions: Equatable {
  package enum Kind: Equatable {
    case words
    /// File names, which readline quotes when they need it and marks with
    /// `/` when they name a folder.
    case fileNames
  }

  package var kind: Kind
  package var candidates: [String]
  /// What a list of the candidates shows for each, in the same order (the
  /// positions of the hand with their cards, `1 K♥`); empty: the candidates.
  package var labels: [String]

  package init(_ kind: Kind = .words, _ candidates: [String] = [], labels: [String] = []) {
    self.kind = kind
    self.candidates = candidates
    self.labels = labels
  }

  /// What replaces the typed word: the longest start that all candidates
  /// share, in whole characters, so no character is ever inserted in part.
  package var common: String {
    guard var common = candidates.first.map(Array.init) else { return "" }
    for candidate in candidates.dropFirst() {
      let shared = zip(common, candidate).prefix { $0 == $1 }.count
      common.removeSubrange(shared...)
    }
    return String(common)
  }
}

/// What Tab offers for the word `typed`, given the line before it (`before`
/// ends where that word starts; a `"` that opens it is part of `before`):
/// command names at the start of a command, and after that what the
/// argument's kind in the command table offers (`offers`). Nothing inside
/// a comment.
package func completions(typed: String, after before: String, in context: CompletionContext)
  -> Completions
{
  let line = Array(before.utf8)
  guard
    let (words, quoted) = line.withUnsafeBufferPointer({ LineParser.lastCommandWords($0) })
  else { return Completions() }
  guard let first = words.first else {
    if quoted { return Completions() }
    return Completions(.words, commandNames(startingWith: typed, context))
  }
  guard
    let name = line[first].withUnsafeBufferPointer({ CommandName(spelling: $0) }),
    let argument = name.argument(at: words.count - 1)
  else { return Completions() }
  if quoted {
    // A quoted word is a FILE, never a card, a number or a name.
    guard argument.kind == .file else { return Completions() }
    return fileNames(startingWith: unescaped(typed), in: context)
  }
  let earlier = words.dropFirst().map { String(decoding: line[$0], as: UTF8.self) }
  return offers(argument, typed: typed, after: earlier, in: context)
}

/// What Tab offers for an argument of the kind of `argument`, `earlier`
/// being the command's words before it (its name left out).
private func offers(
  _ argument: Argument, typed: String, after earlier: [String], in context: CompletionContext
) -> Completions {
  switch argument.kind {
  case .topic:
    return Completions(.words, commandNames(startingWith: typed, context))
  case .card:
    let deck = context.deck.sorted()
    return Completions(.words, names(of: deck, spelledBy: typed, ascii: context.ascii))
  case .position:
    // Listed with their cards (`1 K♥`); the position alone is inserted.
    let offered = context.hand.enumerated().map { (String($0.offset + 1), $0.element) }
      .filter { $0.0.utf8.starts(with: typed.utf8) }
    return Completions(
      .words, offered.map(\.0),
      labels: offered.map { "\($0.0) \($0.1.name(ascii: context.ascii))" })
  case .handCard:
    if context.hand.isEmpty {
      let empty = earlier.isEmpty && starts(ArgumentKind.emptyWord, with: typed, context)
      return Completions(.words, empty ? [ArgumentKind.emptyWord] : [])
    }
    let named = earlier.compactMap { Card(parsing: Array($0.utf8)) }
    let left = context.hand.filter { !named.contains($0) }
    return Completions(.words, names(of: left, spelledBy: typed, ascii: context.ascii))
  case .file:
    return fileNames(startingWith: typed, in: context)
  case .keyword:
    let word = argument.placeholder
    return Completions(.words, starts(word, with: typed, context) ? [word] : [])
  case .version:
    let offered = context.versions.indices.map { (String($0), context.versions[$0]) }
      .filter { $0.0.utf8.starts(with: typed.utf8) }
    return Completions(
      .words, offered.map(\.0),
      labels: offered.map { number, hand in
        number + " "
          + (hand.isEmpty
            ? "(empty)" : hand.map { $0.name(ascii: context.ascii) }.joined(separator: " "))
      })
  case .count, .seed, .limit:
    // Any number: nothing to offer.
    return Completions()
  }
}

private func commandNames(startingWith typed: String, _ context: CompletionContext) -> [String] {
  CommandName.allCases.map(\.rawValue).filter { starts($0, with: typed, context) }
}

/// Whether `name` starts with `typed`, byte for byte, or in any ASCII case
/// when the context ignores case.
private func starts(_ name: String, with typed: String, _ context: CompletionContext) -> Bool {
  guard context.ignoresCase else { return name.utf8.starts(with: typed.utf8) }
  return name.unicodeScalars.map(lowercased).starts(with: typed.unicodeScalars.map(lowercased))
}

/// `text` typed inside double quotes, with `\"` and `\\` read as `"` and `\`.
private func unescaped(_ text: String) -> String {
  var out = String.UnicodeScalarView()
  var escaped = false
  for scalar in text.unicodeScalars {
    if !escaped, scalar == "\\" {
      escaped = true
      continue
    }
    if escaped, scalar != "\"", scalar != "\\" { out.append("\\") }
    escaped = false
    out.append(scalar)
  }
  if escaped { out.append("\\") }
  return String(out)
}

// MARK: Cards

/// The names of `cards`, in their order, that `typed` is the start of some
/// spelling of (handsh(1), Cards): any case, `T` for ten, suit letters and
/// the symbols `♥♦♣♠` or `♡♢♧♤`, each optionally followed by U+FE0F.
private func names(of cards: [Card], spelledBy typed: String, ascii: Bool) -> [String] {
  let typed = Array(typed.unicodeScalars).map(lowercased)
  return cards.filter { card in
    spellings(of: card).contains { $0.starts(with: typed) }
  }.map { $0.name(ascii: ascii) }
}

private func spellings(of card: Card) -> [[Unicode.Scalar]] {
  var ranks = [card.rank.name]
  if card.rank == .ten { ranks.append("T") }
  let suits = [card.suit.symbol, card.suit.letter, outline(card.suit)]
  var all: [[Unicode.Scalar]] = []
  for rank in ranks {
    for suit in suits {
      all.append((rank + suit + "\u{FE0F}").unicodeScalars.map(lowercased))
    }
  }
  return all
}

private func outline(_ suit: Suit) -> String {
  switch suit {
  case .hearts: "♡"
  case .diamonds: "♢"
  case .clubs: "♧"
  case .spades: "♤"
  }
}

private func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
  guard ("A"..."Z").contains(scalar), let lower = Unicode.Scalar(scalar.value + 32) else {
    return scalar
  }
  return lower
}

// MARK: File names

/// The names in the folder that `typed` points into that start like it,
/// in byte order; hidden ones only when `typed`'s name starts with `.`.
/// `~` is not a home folder to `save`, so a name that would start with it is
/// offered as `./~…`.
private func fileNames(startingWith typed: String, in context: CompletionContext)
  -> Completions
{
  let bytes = Array(typed.utf8)
  let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
  let folder = slash.map { String(decoding: bytes[...$0], as: UTF8.self) } ?? ""
  let prefix = slash.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) } ?? typed
  let hidden = prefix.hasPrefix(".")
  let names = context.folder(folder).filter { name in
    name != "." && name != ".." && starts(name, with: prefix, context)
      && (hidden || !name.hasPrefix("."))
  }
  let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  return Completions(
    .fileNames,
    sorted.map { name in
      let path = folder + name
      return path.hasPrefix("~") ? "./" + path : path
    })
}
