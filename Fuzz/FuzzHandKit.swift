// libFuzzer target for HandKit: arbitrary bytes run as a handsh script
// through the parser, the session and every renderer.
//
// Built by scripts/fuzz, compiled together with Sources/HandKit/**/*.swift
// into one module named HandKit, so this file does not `import HandKit` and
// sees its internal API. The shell's own line splitting,
// Sources/HandshCLI/Files/Lines.swift (`TextLines`, and `LineSplitter` for stdin,
// checked against each other in chunks at random boundaries), is compiled
// in too, with the Platform.swift it needs, so lines reach the parser
// exactly as they do in `handsh`.
//
// The bytes run the way `handsh -k -` runs stdin: each line is checked,
// a line with a syntax error runs none of its commands, a failed command does
// not stop the run, `quit` or `exit` ends it. The first bytes also choose the
// session: seed = FNV-1a (64-bit) of the first eight bytes, limit = 1 +
// (byte0 ^ byte1) % 52, and the first output style; `new` without a seed
// gets seed 7. So an input replays in the shell as
//   handsh -k --seed SEED --limit LIMIT - < INPUT
// (scripts/fuzz writes those arguments next to each crash it saves).
// A broken invariant calls abort(), which libFuzzer reports as a crash.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One renderer per style: every combination of ascii, colour and JSON.
private let renderers: [Renderer] = (0..<8).map { bits in
  Renderer(style: Style(ascii: bits & 1 != 0, color: bits & 2 != 0, json: bits & 4 != 0))
}

/// Fails the run with a message libFuzzer shows next to the crash.
private func broken(_ what: String) -> Never {
  var text = "handsh fuzz: invariant broken: \(what)\n"
  text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  abort()
}

/// What a line splitter hands on, kept.
private enum SplitEvent: Equatable {
  case line(Int, [UInt8])
  case tooLong(Int)
}

/// The stream splitter (stdin) against the whole-text splitter (a script):
/// fed the input in chunks whose sizes a generator seeded by the input
/// chooses (empty chunks included), with a line limit small enough to be
/// reached (1 to 64 bytes, chosen by the last byte), it must hand on the
/// same lines as the whole text, up to and including the first line over
/// the limit; after it, the stream goes on line by line, to the input's
/// last line.
private func checkSplitters(_ input: UnsafeBufferPointer<UInt8>) {
  let limit = 1 + Int(input.last ?? 0) % 64
  var whole: [SplitEvent] = []
  var text = TextLines(text: Array(input), limit: limit)
  text.forEachLine { event in
    switch event {
    case .line(let line): whole.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): whole.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  var streamed: [SplitEvent] = []
  var splitter = LineSplitter(limit: limit)
  var random = SplitMix64(seed: seed(of: input) ^ 0x5EED)
  var start = 0
  func collect(_ event: LineEvent) -> Bool {
    switch event {
    case .line(let line):
      guard !line.isASCII || line.bytes.allSatisfy({ $0 < 0x80 }) else {
        broken("stream line \(line.number) is marked ASCII but is not")
      }
      streamed.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): streamed.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  while start < input.count {
    let size = min(input.count - start, Int(random.next() % 20))
    let chunk = UnsafeBufferPointer(rebasing: input[start..<(start + size)])
    guard splitter.feed(chunk, final: false, collect) else { broken("the splitter stopped") }
    start += size
  }
  guard splitter.feed(UnsafeBufferPointer(rebasing: input[input.count...]), final: true, collect)
  else { broken("the splitter stopped at the end") }

  let cut = streamed.firstIndex { if case .tooLong = $0 { true } else { false } }
  let prefix = cut.map { Array(streamed[...$0]) } ?? streamed
  guard prefix == whole else {
    broken("stream lines \(prefix.count) differ from the whole text's \(whole.count)")
  }
  var lines = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  if let last = input.last, last != 0x0A { lines += 1 }
  for (index, event) in streamed.enumerated() {
    switch event {
    case .line(let number, let bytes):
      guard number == index + 1, bytes.count <= limit else { broken("stream line \(number)") }
    case .tooLong(let number):
      guard number == index + 1 else { broken("stream line \(number) too long out of order") }
    }
  }
  guard streamed.count == lines else { broken("stream gave \(streamed.count) of \(lines) lines") }
}

/// The session's seed: FNV-1a over the first eight bytes.
private func seed(of input: UnsafeBufferPointer<UInt8>) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in input.prefix(8) {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }
  return hash
}

/// The card-partition invariants of one version: the hand within the limit,
/// no card twice in the hand, no hand card still in the deck, and hand,
/// deck and discard pile adding up to exactly 52 cards.
private func check(_ version: Version, in history: History, _ context: String) {
  let limit = version.limit
  guard (1...52).contains(limit) else { broken("limit \(limit) out of 1...52 (\(context))") }
  let hand = version.hand
  guard hand.count <= limit else {
    broken("hand has \(hand.count) cards, limit \(limit) (\(context))")
  }
  let game = history.game(of: version)
  guard game.order.count == 52 else { broken("game order has \(game.order.count) cards") }
  guard version.deck.bits >> 52 == 0 else { broken("deck bits beyond 52 (\(context))") }
  var seen: UInt64 = 0
  for index in 0..<hand.count {
    let card = hand[index]
    guard card.index < 52 else { broken("hand holds card index \(card.index) (\(context))") }
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in the hand (\(context))") }
    seen |= bit
    guard !version.deck.contains(card, in: game) else {
      broken("\(card) in both hand and deck (\(context))")
    }
  }
  let deckCards = version.deck.cards(in: game)
  guard deckCards.count == version.deck.count else { broken("deck count disagrees") }
  for card in deckCards {
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in hand and deck (\(context))") }
    seen |= bit
  }
  let discarded = version.discardCount
  guard discarded >= 0, hand.count + deckCards.count + discarded == 52 else {
    broken(
      "hand \(hand.count) + deck \(deckCards.count) + discard \(discarded) != 52 (\(context))")
  }
}

/// Text that `history` or `save` writes must parse back to one command with
/// no syntax error.
private func checkParses(_ text: String, _ context: String) {
  var bytes = Array(text.utf8)
  let items = LineParser.parse(bytes: &bytes)
  for item in items {
    if case .error(let error) = item {
      broken("'\(safeText(text.utf8))' from \(context) does not parse: \(error.message)")
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: size)
  let first = size > 0 ? Int(data[0]) : 0
  let second = size > 1 ? Int(data[1]) : 0
  var session = Session(seed: seed(of: input), limit: 1 + (first ^ second) % 52)
  var out: [UInt8] = []
  out.reserveCapacity(1 << 12)
  var styleIndex = first
  var commands = 0

  check(session.current, in: session.history, "start")

  // As `handsh -k -` runs stdin (handsh(1), DESCRIPTION): each line is checked first; a
  // line with a syntax error runs none of its commands, and the run goes on.
  // Like the shell, a text found to be all ASCII skips the UTF-8 check.
  let ascii = LineParser.isASCII(input)
  #if FUZZ_SELFTEST
    // Lets scripts/fuzz check its own crash handling (FUZZ_SELFTEST=1).
    if size >= 9, input.prefix(9).elementsEqual("crash-me!".utf8) { broken("self-test") }
  #endif
  checkSplitters(input)
  var lines = TextLines(text: Array(input))
  lines.forEachLine { event in
    guard case .line(let shellLine) = event else { return true }
    let (number, line) = (shellLine.number, shellLine.bytes)
    guard shellLine.isASCII == ascii else { broken("line \(number): ASCII flag disagrees") }
    var checker = LineParser(line, knownASCII: ascii)
    var errors = 0
    var items: [ParsedItem] = []
    while let item = checker.next() {
      items.append(item)
      guard case .error(let error) = item else { continue }
      errors += 1
      guard error.column >= 1, error.column <= line.count + 1 else {
        broken("syntax error column \(error.column) on a line of \(line.count) bytes")
      }
      let text = diagnostic(
        error.message, at: SourceLocation(source: "<fuzz>", line: number, column: error.column))
      out.append(contentsOf: text.utf8)
    }
    if ascii {
      // Skipping the encoding check must not change what an ASCII line means.
      var full = LineParser(line)
      var index = 0
      while let item = full.next() {
        guard index < items.count, items[index] == item else {
          broken("line \(number) parses differently with knownASCII")
        }
        index += 1
      }
      guard index == items.count else { broken("line \(number) has more items with knownASCII") }
    }
    guard errors == 0 else { return true }

    var parser = LineParser(line, knownASCII: ascii)
    while let item = parser.next() {
      // Keep the output buffer small: it is written nowhere.
      if out.count > 1 << 16 { out.removeAll(keepingCapacity: true) }
      guard case .command(let command, let span) = item else {
        broken("line \(number) has a syntax error on the second parse only")
      }
      guard span.lowerBound >= 0, span.lowerBound < span.upperBound, span.upperBound <= line.count
      else { broken("span \(span) on a line of \(line.count) bytes") }

      let renderer = renderers[styleIndex & 7]
      styleIndex &+= 1
      commands += 1
      renderer.writeEcho(parser.words(in: span), to: &out)

      // Only what is needed: a copy of the whole history would make the
      // next push copy a chunk of versions.
      let before = (
        count: session.history.count, cursor: session.history.cursor,
        current: session.history.current
      )
      let result = session.run(command) { 7 }
      let history = session.history
      guard history.cursor >= 0, history.cursor < history.count else {
        broken("cursor \(history.cursor) outside 0..<\(history.count)")
      }
      check(history.current, in: history, "after command \(commands) on line \(number)")

      switch result {
      case .failure(let error):
        // A failed command changes nothing.
        guard history.count == before.count, history.cursor == before.cursor,
          history.current == before.current
        else { broken("failed command \(command) changed the history") }
        let message = renderer.message(for: error)
        let column = parser.column(at: span.lowerBound)
        guard column >= 1, column <= line.count + 1 else { broken("failure column \(column)") }
        out.append(contentsOf: renderer.name(of: Card.all[commands % 52]).utf8)
        out.append(
          contentsOf: diagnostic(
            message, at: SourceLocation(source: "<fuzz>", line: number, column: column)
          ).utf8)
      case .success(let outcome):
        switch outcome {
        case .changed:
          guard history.count != before.count || history.cursor != before.cursor else {
            broken("\(command) reported a change but the history did not move")
          }
          renderer.writeHandLine(history, to: &out)
        case .nothing:
          guard history.count == before.count, history.cursor == before.cursor else {
            broken("\(command) reported nothing but the history moved")
          }
        case .show: renderer.writeShow(history, to: &out)
        case .deck: renderer.writeDeck(history, to: &out)
        case .history: renderer.writeHistory(history, to: &out)
        case .limit(let limit):
          guard limit == history.current.limit else { broken("limit outcome \(limit)") }
          renderer.writeLimit(limit, to: &out)
        case .help(let topic):
          out.append(contentsOf: helpText(topic).utf8)
        case .source(let file):
          out.append(contentsOf: safeText(file.utf8).utf8)
        case .save(let file, let script):
          out.append(contentsOf: safeText(file.utf8).utf8)
          for scriptLine in script.split(separator: "\n") {
            checkParses(String(scriptLine), "save")
          }
        case .quit:
          // `quit` and `exit` end a script.
          return false
        }
        // Every renderer method, in the style of this command.
        renderer.writeShow(history, to: &out)
        renderer.writeDeck(history, to: &out)
        out.append(contentsOf: renderer.handText(history.current.hand).utf8)
      }
    }
    return true
  }

  // Once per input: the whole history in one style, then checked throughout.
  let history = session.history
  renderers[(first >> 3) & 7].writeHistory(history, to: &out)
  for number in 0..<history.count {
    let version = history[number]
    check(version, in: history, "version \(number) at the end")
    if number == 0 {
      guard case .start = version.step else { broken("version 0 is not start") }
      continue
    }
    // What `history` and `save` write parses back without a syntax error.
    let seed = history.game(of: version).seed
    checkParses(version.step.text(seed: seed, ascii: true), "history")
    checkParses(version.step.text(seed: seed, ascii: false), "history")
  }
  return 0
}
