import Testing

@testable import HandKit

/// The command table (`CommandName.entry`) against what is made from it: an
/// entry that lacks its help, what Tab offers for its arguments, what hover
/// says of them, its canonical form, or whose arguments are not what the
/// parser reads, fails here. Each command is tried with its help's example
/// (`Example: mv 3 1`), in a game of seed 42 where five cards were added
/// and two undone: the hand is K♥ 3♣ 7♥, versions 0 to 5, two to redo.
@Suite struct CommandTableTests {
  private let setup = ["add", "add", "add", "add", "add", "undo 2"]

  /// The commands of `name`'s example, each as its words; the bare name
  /// when the example spells none of it (`exit`'s is `quit`).
  private func examples(of name: CommandName) -> [[String]] {
    let example = name.details.last ?? ""
    let line = Array(example.dropFirst("Example: ".count).utf8)
    let commands = line.withUnsafeBufferPointer { LineParser.commandWords($0) }.map { words in
      words.map { String(decoding: line[$0], as: UTF8.self) }
    }
    let own = commands.filter { $0.first == name.rawValue }
    return own.isEmpty ? [[name.rawValue]] : own
  }

  private func command(_ text: String) -> Command? {
    guard case .command(let command, _)? = LineParser.parse(text).first else { return nil }
    return command
  }

  private func session() -> Session {
    var session = Session(seed: 42, limit: 5)
    for line in setup {
      if let command = command(line) { _ = session.run(command) { 0 } }
    }
    return session
  }

  @Test func everyEntryHasHelpWithAnExampleThatParses() {
    for name in CommandName.allCases {
      #expect(!name.summary.isEmpty, "\(name): no summary")
      #expect(name.details.last?.hasPrefix("Example: ") == true, "\(name): no example")
      let text = helpText(name)
      #expect(text.hasPrefix(name.usage + "\n  " + name.summary + "\n"), "\(text)")
      let example = String(name.details.last?.dropFirst("Example: ".count) ?? "")
      for item in LineParser.parse(example) {
        guard case .command = item else {
          Issue.record("\(name): its example '\(example)' gives \(item)")
          continue
        }
      }
    }
  }

  /// The usage comes from the arguments, and the parser reads exactly them:
  /// too few words is a missing argument, too many an unexpected one, both
  /// with the usage.
  @Test func theParserReadsTheArgumentsTheEntryDescribes() {
    for name in CommandName.allCases {
      let arguments = name.entry.arguments
      let usage =
        ([name.rawValue]
        + arguments.map { $0.presence == .optional ? "[\($0.placeholder)]" : $0.placeholder })
        .joined(separator: " ")
      #expect(name.usage == usage)
      let needed = arguments.filter { $0.presence != .optional }.count
      let repeated = arguments.last?.presence == .repeated
      for count in 0...(arguments.count + 2) {
        let words = (0..<count).map { name.argument(at: $0).map(sample) ?? "x" }
        let line = ([name.rawValue] + words).joined(separator: " ")
        let item = LineParser.parse(line).first
        if count < needed {
          #expect(
            item == .error(SyntaxError("missing argument (usage: \(usage))", column: 1)), "\(line)")
        } else if count > arguments.count, !repeated {
          let message = "unexpected argument 'x' (usage: \(usage))"
          if case .error(let error) = item {
            #expect(error.message == message, "\(line)")
          } else {
            Issue.record("\(line): \(String(describing: item))")
          }
        } else if case .command(let command, _) = item {
          #expect(command.name == (name == .exit ? .quit : name), "\(line)")
        } else {
          Issue.record("\(line): \(String(describing: item))")
        }
      }
    }
  }

  /// A word the parser takes as an argument of `argument`'s kind.
  private func sample(_ argument: Argument) -> String {
    switch argument.kind {
    case .card, .handCard: "qh"
    case .position, .count, .limit: "1"
    case .version: "0"
    case .seed: "42"
    case .file: "a.hand"
    case .topic: "mv"
    case .keyword: argument.placeholder
    }
  }

  /// After each word of the examples, Tab offers that word again (a card
  /// in any spelling), unless the entry says the argument is any number.
  @Test func tabOffersEachArgumentOfTheExamples() {
    let session = session()
    let history = session.history
    var context = CompletionContext(
      deck: session.current.deck.cards(in: history.game(of: session.current)),
      hand: session.current.hand.cards, folder: { _ in ["game.hand", "setup.hand"] })
    context.versions = (0..<history.count).map { history[$0].hand.cards }
    for name in CommandName.allCases {
      let names = completions(typed: String(name.rawValue.prefix(1)), after: "", in: context)
      #expect(names.candidates.contains(name.rawValue))
      for words in examples(of: name) {
        for at in words.indices.dropFirst() {
          guard let argument = name.argument(at: at - 1) else {
            Issue.record("\(name): the table has no argument for '\(words[at])'")
            continue
          }
          let before = words[..<at].joined(separator: " ") + " "
          let offered = completions(typed: "", after: before, in: context).candidates
          switch argument.kind {
          case .count, .seed, .limit:
            #expect(offered.isEmpty, "\(before)")
          case .card, .handCard:
            let card = Card(parsing: Array(words[at].utf8))
            #expect(
              offered.contains { Card(parsing: Array($0.utf8)) == card }, "\(before): \(offered)")
          case .position, .version, .file, .topic, .keyword:
            #expect(offered.contains(words[at]), "\(before): \(offered)")
          }
        }
      }
    }
  }

  /// Hover on the name is its help; on each argument, what its kind says.
  @Test func hoverExplainsEachWordOfTheExamples() {
    for name in CommandName.allCases {
      for words in examples(of: name) {
        let head = "#!/usr/bin/env -S handsh --seed 42\n" + setup.joined(separator: "\n") + "\n"
        let text = head + words.joined(separator: " ") + "\n"
        let document = HandDocument(text: Array(text.utf8))
        var offset = head.utf8.count
        for (at, word) in words.enumerated() {
          let hover = document.hover(at: offset)?.text ?? ""
          defer { offset += word.utf8.count + 1 }
          if at == 0 {
            #expect(hover.hasPrefix(helpText(name)), "\(name): \(hover)")
            continue
          }
          guard let kind = document.hoverKind(of: name, word: at) else {
            Issue.record("\(name): hover knows nothing of '\(word)'")
            continue
          }
          switch kind {
          case .position: #expect(hover.hasPrefix("position \(word): "), "\(hover)")
          case .card, .handCard:
            let card = Card(parsing: Array(word.utf8))
            #expect(card.map { hover.hasPrefix($0.spokenName) } == true, "\(hover)")
          case .count, .version, .seed, .limit, .file, .topic, .keyword:
            #expect(hover.hasPrefix("hand before: "), "\(hover)")
          }
        }
      }
    }
  }

  /// What each example does is what the entry's canonical form says: a new
  /// version written as its step, a moved cursor written as the command,
  /// or nothing; and the journal's line for it parses, may be journaled
  /// and, replayed, makes the same state. (It may be another command's
  /// line: a command that makes a known kind of change is written as the
  /// change it made.)
  @Test func theCanonicalFormIsWhatTheCommandDoes() {
    for name in CommandName.allCases {
      for words in examples(of: name) {
        let line = words.joined(separator: " ")
        guard let command = command(line) else {
          Issue.record("\(line) does not parse")
          continue
        }
        let before = session()
        var after = before
        _ = after.run(command) { 7 }
        let made = after.history.count > before.history.count
        let moved = !made && after.history.cursor != before.history.cursor
        let expected: Canonical = made ? .step : moved ? .move : .never
        #expect(name.entry.canonical == expected, "\(line)")
        if name.entry.canonical == .never {
          #expect(!command.isJournaled, "\(line): a journal may hold it")
        }
        guard made || moved else { continue }
        let buffer = ByteBuffer()
        JournalText.appendLine(
          for: moved ? CursorMove(command) : nil, in: after.history, to: buffer)
        let written = buffer.withBytes { String(decoding: $0.dropLast(), as: UTF8.self) }
        guard let again = self.command(written) else {
          Issue.record("\(line): the journal writes '\(written)', which does not parse")
          continue
        }
        #expect(again.isJournaled, "\(line): a journal may not hold '\(written)'")
        var replay = before
        _ = replay.run(again) { 0 }
        #expect(replay.current.hand == after.current.hand, "\(line): '\(written)'")
        #expect(replay.history.cursor == after.history.cursor, "\(line): '\(written)'")
        if made {
          // What `history` and `save` write is the journal's line.
          let seed = after.history.game(of: after.current).seed
          let text = after.current.step.text(seed: seed, ascii: false)
          #expect(self.command(text) == again, "\(line): history writes '\(text)'")
        }
      }
    }
  }
}

extension CommandTableTests {
  /// `Command.pausesRunAhead`, the run-ahead's fast copy, says what the
  /// entry says, for every command the examples make.
  @Test func runningAheadPausesWhereTheEntrySays() {
    for name in CommandName.allCases {
      for words in examples(of: name) {
        guard let command = command(words.joined(separator: " ")) else { continue }
        #expect(command.pausesRunAhead == (name.entry.runAhead == .pauses), "\(words)")
      }
    }
  }
}

extension CommandTableTests {
  /// Tab reads the words of a line with the parser's own tokenizer: a
  /// closing quote ends a word, as it does for the parser, so `mv "1"2` has
  /// both its positions and Tab offers no third.
  @Test func tabSplitsWordsAsTheParserDoes() {
    let context = CompletionContext(hand: Array(Card.all.prefix(3)))
    let line = Array(#"mv "1"2 "#.utf8)
    #expect(line.withUnsafeBufferPointer { LineParser.commandWords($0) }.first?.count == 3)
    #expect(completions(typed: "", after: #"mv "1"2 "#, in: context).candidates == [])
    #expect(completions(typed: "", after: #"mv "1" "#, in: context).candidates == ["1", "2", "3"])
    #expect(completions(typed: "", after: #"save "a"b" "#, in: context).candidates == [])
  }
}
