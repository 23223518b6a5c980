/// Writes what the session shows, as bytes appended to an output buffer: the
/// one place that knows how a hand, a deck or a history looks (handsh(1), OUTPUT).
public struct Renderer: Sendable {
  public let style: Style
  /// Each card's name as text output writes it (coloured when colour is on).
  private let names: NameTable
  /// Each card's name without colour, for JSON and messages.
  private let plainNames: NameTable

  public init(style: Style) {
    self.style = style
    plainNames = NameTable(ascii: style.ascii, color: false)
    names = NameTable(ascii: style.ascii, color: style.color)
  }

  /// The card as messages write it: `Q♥`, or `QH` with `--ascii`.
  public func name(of card: Card) -> String { card.name(ascii: style.ascii) }

  // MARK: Hand lines

  /// The line written after a change: the hand, or its JSON object.
  public func writeHandLine(_ history: History, to out: inout [UInt8]) {
    writeHandLine(of: history.cursor, in: history, to: &out)
  }

  /// The hand line of version `number` (0 to `history.count - 1`): what
  /// `writeHandLine` wrote when it was current.
  public func writeHandLine(of number: Int, in history: History, to out: inout [UInt8]) {
    if style.json {
      writeJSONState(of: number, in: history, to: &out)
      out.append(newline)
    } else {
      writeHand(history[number].hand, colored: true, terminator: newline, to: &out)
    }
  }

  /// `show`: a numbered table, or the same JSON object as a hand line.
  public func writeShow(_ history: History, to out: inout [UInt8]) {
    let hand = history.current.hand
    guard !style.json, !hand.isEmpty else { return writeHandLine(history, to: &out) }
    let width = digits(hand.count)
    for index in 0..<hand.count {
      pad(index + 1, to: width, in: &out)
      out.append(contentsOf: "  ".utf8)
      names.append(hand[index], to: &out)
      out.append(newline)
    }
  }

  /// `deck`: how many cards are in the deck and discarded, and the seed.
  public func writeDeck(_ history: History, to out: inout [UInt8]) {
    let now = history.current
    let seed = history.seed(of: now)
    if style.json {
      out.append(
        contentsOf:
          "{\"deck\":\(now.deck.count),\"discarded\":\(now.discardCount),\"seed\":\(seed)}".utf8)
    } else {
      out.append(
        contentsOf: "\(now.deck.count) in deck, \(now.discardCount) discarded, seed \(seed)".utf8)
    }
    out.append(newline)
  }

  /// `history`: every version in the order made, the current one marked,
  /// and where a branch starts, the version it starts from.
  public func writeHistory(_ history: History, to out: inout [UInt8]) {
    var next: Int? = 0
    while let from = next { next = writeHistory(history, from: from, upTo: .max, to: &out) }
  }

  /// The least width of the command column of `history`, in characters.
  public static let historyCommandWidth = 8

  /// `history` in pieces, so that it can stream: the versions from `from`
  /// on, until `out` holds at least `size` bytes. Returns the version to
  /// go on from, or nil when the last one is written.
  public func writeHistory(
    _ history: History, from: Int, upTo size: Int, to out: inout [UInt8]
  ) -> Int? {
    let width = digits(history.count - 1)
    // The version before, whole: a large hand is made from its parent's
    // when that is the version before, as it most often is.
    var previous: (number: Int, hand: Hand)?
    for number in max(0, from)..<max(max(0, from), history.count) {
      if out.count >= size { return number }
      let version = history.version(number, after: previous)
      if version.hand.spills { previous = (number, version.hand) }
      let parent = history.parent(of: number)
      writeHistoryLine(
        number, version, in: history, width: width, from: parent == number - 1 ? nil : parent,
        to: &out)
    }
    return nil
  }

  /// `history tree` in pieces, so that it can stream: the lines of `walk`
  /// (over `history`) until `out` holds at least `size` bytes. False once
  /// the last is written. Each line is its drawing, at most
  /// `HistoryTree.drawnLevels` steps of three columns (`├─ `, `│  `, `└─ `;
  /// `|- `, `|  `, `` `- `` in ASCII), then the columns of `history`; a
  /// version whose branch lies deeper is drawn at the last level drawn,
  /// with `(from P)` when its parent is not the line above. In JSON, the
  /// objects of `history`, in the tree's order.
  public func writeHistoryTree(
    _ history: History, _ walk: inout HistoryTree, upTo size: Int, to out: inout [UInt8]
  ) -> Bool {
    let width = digits(history.count - 1)
    // A line's drawing is made in 112 bytes on the stack (16 segments of
    // at most 7 bytes) and appended at once: a segment a level costs a few
    // stores, not an array's append.
    let ascii = style.ascii
    var drawing:
      (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64
      ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    // The version before, whole, as `history` keeps it: in the tree's order
    // too, the line before is most often the parent.
    var previous: (number: Int, hand: Hand)?
    while out.count < size {
      guard let line = walk.nextLine() else { return false }
      let version = history.version(line.number, after: previous)
      if version.hand.spills { previous = (line.number, version.hand) }
      let folded = line.level > HistoryTree.drawnLevels
      if !style.json, line.level > 0 {
        let drawn = min(line.level, HistoryTree.drawnLevels)
        withUnsafeMutableBytes(of: &drawing) { raw in
          walk.lastAtLevel.withUnsafeBufferPointer { lastAtLevel in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var count = 0
            for level in 1...drawn {
              let isLast = level < lastAtLevel.count && lastAtLevel[level]
              let starts = level == line.level && line.startsBranch
              count += Renderer.writeSegment(
                starts: starts, last: isLast, ascii: ascii, to: base + count)
            }
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
          }
        }
      }
      let parent = history.parent(of: line.number)
      let shownParent = folded && parent != line.previous ? parent : nil
      writeHistoryLine(
        line.number, version, in: history, width: width, from: shownParent, to: &out)
    }
    return true
  }

  /// Writes one step of `history tree`'s drawing, three columns, at
  /// `base`; returns its bytes. `starts`: the level's branch starts on this
  /// line (`├─ `, or `└─ ` for the last); else the line down the side of a
  /// branch that goes on (`│  `), or three spaces once the last has begun.
  /// The third column keeps the marker of the current version off the
  /// drawing (`└─ *7`).
  @inline(__always)
  private static func writeSegment(
    starts: Bool, last: Bool, ascii: Bool, to base: UnsafeMutablePointer<UInt8>
  ) -> Int {
    if !starts && last {
      (base[0], base[1], base[2]) = (0x20, 0x20, 0x20)
      return 3
    }
    if ascii {
      base[0] = starts ? (last ? UInt8(ascii: "`") : UInt8(ascii: "|")) : UInt8(ascii: "|")
      base[1] = starts ? UInt8(ascii: "-") : 0x20
      base[2] = 0x20
      return 3
    }
    // U+251C ├, U+2514 └, U+2502 │, U+2500 ─: E2 94 xx each.
    (base[0], base[1]) = (0xE2, 0x94)
    if !starts {
      (base[2], base[3], base[4]) = (0x82, 0x20, 0x20)
      return 5
    }
    base[2] = last ? 0x94 : 0x9C
    (base[3], base[4], base[5], base[6]) = (0xE2, 0x94, 0x80, 0x20)
    return 7
  }

  /// One line of `history` for version `number`: the marker, the number
  /// padded to `width`, the canonical command padded to 8, the hand line,
  /// and `(from P)` when `from` is given; or its JSON object.
  private func writeHistoryLine(
    _ number: Int, _ version: Version, in history: History, width: Int, from: Int?,
    to out: inout [UInt8]
  ) {
    let command = history.commandText(of: number, ascii: style.ascii)
    if style.json {
      out.append(contentsOf: "{\"version\":".utf8)
      writeNumber(number, to: &out)
      out.append(contentsOf: ",\"parent\":".utf8)
      if let parent = history.parent(of: number) {
        writeNumber(parent, to: &out)
      } else {
        out.append(contentsOf: "null".utf8)
      }
      out.append(contentsOf: ",\"command\":".utf8)
      writeJSONString(command, to: &out)
      out.append(contentsOf: ",\"hand\":".utf8)
      writeJSONHand(version.hand, to: &out)
      out.append(contentsOf: ",\"current\":\(number == history.cursor)}".utf8)
    } else {
      out.append(number == history.cursor ? UInt8(ascii: "*") : UInt8(ascii: " "))
      pad(number, to: width, in: &out)
      out.append(contentsOf: "  ".utf8)
      if case .add(let card) = version.step {
        out.append(contentsOf: "add ".utf8)
        names.append(card, to: &out)
      } else {
        out.append(contentsOf: command.utf8)
      }
      let length = command.unicodeScalars.count
      if length < Renderer.historyCommandWidth {
        out.append(
          contentsOf: repeatElement(
            UInt8(ascii: " "), count: Renderer.historyCommandWidth - length))
      }
      out.append(contentsOf: "  ".utf8)
      writeHand(version.hand, colored: true, to: &out)
      if let from {
        out.append(contentsOf: "  (from ".utf8)
        writeNumber(from, to: &out)
        out.append(UInt8(ascii: ")"))
      }
    }
    out.append(newline)
  }

  /// `limit` without N: the bare number, in text and JSON alike.
  public func writeLimit(_ limit: Int, to out: inout [UInt8]) {
    out.append(contentsOf: String(limit).utf8)
    out.append(newline)
  }

  /// `--echo`: `> ` and the command's words, made safe, cards coloured like
  /// hand lines.
  public func writeEcho(_ words: [[UInt8]], to out: inout [UInt8]) {
    out.append(contentsOf: "> ".utf8)
    for (i, word) in words.enumerated() {
      if i > 0 { out.append(UInt8(ascii: " ")) }
      let text = Array(safeText(word).utf8)
      if style.color, let card = Card(parsing: word), card.suit.isRed {
        out.append(contentsOf: "\u{1B}[31m".utf8)
        out.append(contentsOf: text)
        out.append(contentsOf: "\u{1B}[0m".utf8)
      } else {
        out.append(contentsOf: text)
      }
    }
    out.append(newline)
  }

  // MARK: Messages

  /// A hand as messages write it: no colour.
  public func handText(_ hand: Hand) -> String {
    var out: [UInt8] = []
    writeHand(hand, colored: false, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The message for a failed command, exactly as handsh(1), COMMANDS, words it.
  public func message(for error: CommandError) -> String {
    switch error {
    case .handFull(let limit): "hand is full (\(cards(limit)))"
    case .deckEmpty: "deck is empty"
    case .inHand(let card): "\(name(of: card)) is in the hand"
    case .discarded(let card): "\(name(of: card)) was discarded"
    case .noCard(let position, let count):
      "no card at position \(position) (hand has \(cards(count)))"
    case .nothingToUndo: "nothing to undo"
    case .cannotUndo(let steps, let only): "cannot undo \(steps) steps (only \(only))"
    case .nothingToRedo: "nothing to redo"
    case .cannotRedo(let steps, let only): "cannot redo \(steps) steps (only \(only))"
    case .handTooLarge(let count, let limit): "hand has \(cards(count)), more than \(limit)"
    case .unexpectedHand(let expected, let actual):
      "expected \(handText(Hand(expected))), hand is \(handText(actual))"
    case .cannotWrite(let file, let reason):
      "cannot write \(safeWord(file.utf8, limit: quotedFileLimit)): \(reason)"
    case .noVersion(let number, let last): "no version \(number) (versions 0 to \(last))"
    case .noEarlierVersion: "no earlier version"
    case .noLaterVersion: "no later version"
    case .cannotRead(let file, let reason):
      "cannot read \(safeWord(file.utf8, limit: quotedFileLimit)): \(reason)"
    case .nestedTooDeeply(let file):
      "cannot source \(safeWord(file.utf8, limit: quotedFileLimit)): nested too deeply"
        + " (\(LineExecutor.sourceDepthLimit) files)"
    // Reported at the line of the file that failed; never shown.
    case .sourceFailed: "source failed"
    }
  }

  private func cards(_ count: Int) -> String { count == 1 ? "1 card" : "\(count) cards" }

  // MARK: Pieces

  private var newline: UInt8 { UInt8(ascii: "\n") }

  /// The hand's cards, separated by spaces, then `terminator` if any.
  private func writeHand(
    _ hand: Hand, colored: Bool, terminator: UInt8? = nil, to out: inout [UInt8]
  ) {
    guard !hand.isEmpty else {
      out.append(contentsOf: "(empty)".utf8)
      if let terminator { out.append(terminator) }
      return
    }
    if colored {
      names.appendLine(of: hand, terminator: terminator, to: &out)
    } else {
      plainNames.appendLine(of: hand, terminator: terminator, to: &out)
    }
  }

  private func writeJSONState(_ history: History, to out: inout [UInt8]) {
    writeJSONState(of: history.cursor, in: history, to: &out)
  }

  private func writeJSONState(of number: Int, in history: History, to out: inout [UInt8]) {
    let now = history[number]
    out.append(contentsOf: "{\"version\":".utf8)
    writeNumber(number, to: &out)
    out.append(contentsOf: ",\"hand\":".utf8)
    writeJSONHand(now.hand, to: &out)
    out.append(contentsOf: ",\"deck\":".utf8)
    writeNumber(now.deck.count, to: &out)
    out.append(contentsOf: ",\"discarded\":".utf8)
    writeNumber(now.discardCount, to: &out)
    out.append(UInt8(ascii: "}"))
  }

  private func writeJSONHand(_ hand: Hand, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "["))
    for index in 0..<hand.count {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out.append(UInt8(ascii: "\""))
      plainNames.append(hand[index], to: &out)
      out.append(UInt8(ascii: "\""))
    }
    out.append(UInt8(ascii: "]"))
  }

  private func writeJSONString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        out.append(UInt8(ascii: "\\"))
        out.append(byte)
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xF)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// Appends a number in decimal; a small String lives inline, unallocated.
  private func writeNumber(_ value: Int, to out: inout [UInt8]) {
    out.append(contentsOf: String(value).utf8)
  }

  private func digits(_ value: Int) -> Int { String(value).utf8.count }

  private func pad(_ value: Int, to width: Int, in out: inout [UInt8]) {
    let text = String(value)
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - text.utf8.count))
    out.append(contentsOf: text.utf8)
  }
}

/// The 52 card names, each in a slot of 16 bytes followed by the space
/// that separates it from the next card of a line: a hand line is one
/// 16-byte copy per card into a buffer on the stack, then one append to the
/// output. No array per card, no reference counting per card.
private struct NameTable: Sendable {
  private static let slot = 16
  /// Card `i`'s name, then a space, at `slot * i`; the rest of the slot is
  /// padding that later cards overwrite.
  private let slots: [UInt8]
  /// The length of each card's name, without the space.
  private let lengths: [UInt8]

  /// The names of the 52 cards as `Card.name(ascii:)` spells them, the
  /// red ones between `ESC[31m` and `ESC[0m` when `color` (the longest,
  /// `ESC[31m10♥ESC[0m`, is 14 bytes). Made from bytes, one name at a time
  /// in one buffer: a golden test makes a renderer per file, and building
  /// 104 Strings and arrays weighed on every run (`scripts/bench`).
  init(ascii: Bool, color: Bool) {
    var slots = [UInt8](repeating: UInt8(ascii: " "), count: NameTable.slot * 52)
    var lengths = [UInt8](repeating: 0, count: 52)
    slots.withUnsafeMutableBufferPointer { slots in
      for card in Card.all {
        let red = color && card.suit.isRed
        let start = NameTable.slot * Int(card.index)
        var end = start
        let limit = start + NameTable.slot - 1
        if red { NameTable.put("\u{1B}[31m", in: slots, at: &end, limit: limit) }
        NameTable.put(card.rank.spelling, in: slots, at: &end, limit: limit)
        NameTable.put(
          ascii ? card.suit.letterSpelling : card.suit.symbolSpelling, in: slots, at: &end,
          limit: limit)
        if red { NameTable.put("\u{1B}[0m", in: slots, at: &end, limit: limit) }
        lengths[Int(card.index)] = UInt8(end - start)
      }
    }
    self.slots = slots
    self.lengths = lengths
  }

  /// Copies `text` into `slots` at `end`, up to `limit`, and moves `end`.
  private static func put(
    _ text: StaticString, in slots: UnsafeMutableBufferPointer<UInt8>, at end: inout Int,
    limit: Int
  ) {
    text.withUTF8Buffer { bytes in
      for byte in bytes where end < limit {
        slots[end] = byte
        end += 1
      }
    }
  }

  func append(_ card: Card, to out: inout [UInt8]) {
    let i = Int(card.index)
    out.append(contentsOf: slots[NameTable.slot * i..<NameTable.slot * i + Int(lengths[i])])
  }

  /// The cards of `hand`, separated by single spaces, then `terminator` if
  /// any: written straight into `out`'s new capacity, one 16-byte copy per
  /// card (not an append per card, nor a line on the stack copied again).
  func appendLine(of hand: Hand, terminator: UInt8?, to out: inout [UInt8]) {
    let count = hand.count
    guard count > 0 else { return }
    slots.withUnsafeBytes { slots in
      lengths.withUnsafeBufferPointer { lengths in
        out.append(addingCapacity: NameTable.slot * count) { span in
          span.withUnsafeMutableBufferPointer { line, initialized in
            guard let start = UnsafeMutableRawPointer(line.baseAddress),
              let names = slots.baseAddress
            else { return }
            var end = 0
            hand.forEachCard { card in
              let i = Int(card.index)
              // The whole slot, space and padding too: the padding is
              // overwritten by the next card, or left past the line's end.
              (start + end).copyMemory(from: names + NameTable.slot * i, byteCount: NameTable.slot)
              end += Int(lengths[i]) + 1
            }
            // The last card's space becomes the terminator, or goes.
            if let terminator { line[end - 1] = terminator } else { end -= 1 }
            initialized = end
          }
        }
      }
    }
  }
}
