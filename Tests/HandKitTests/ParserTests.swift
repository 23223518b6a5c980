import Testing

@testable import HandKit

@Suite struct ParserTests {
  private func commands(_ line: String) -> [Command] {
    LineParser.parse(line).compactMap {
      if case .command(let command, _) = $0 { return command }
      return nil
    }
  }

  private func errors(_ line: String) -> [SyntaxError] {
    LineParser.parse(line).compactMap {
      if case .error(let error) = $0 { return error }
      return nil
    }
  }

  private func error(_ line: String) -> String? {
    errors(line).first.map { "\($0.column): \($0.message)" }
  }

  /// The line parser packs a name's key from its first eight bytes as it
  /// scans the word, and NUL bytes add nothing to the key: only the length
  /// tells `history` from `history` and a NUL, so every name followed by
  /// NULs (up to eight bytes, and past them) is an unknown command, not
  /// the command.
  @Test func aNameFollowedByNULsInALineIsNoCommand() {
    for command in CommandName.allCases {
      let name = command.rawValue
      for count in Set([1, 8 - name.utf8.count, 9 - name.utf8.count, 12]) where count > 0 {
        let word = name + String(repeating: "\0", count: count)
        #expect(commands(word) == [], "\(name) and \(count) NULs ran")
        let shown = name + String(repeating: "\\x00", count: count)
        #expect(
          error(word)?.hasPrefix("1: unknown command '\(shown)'") == true,
          "\(name) and \(count) NULs")
      }
    }
  }

  @Test func everyCommandParses() {
    #expect(
      commands(
        "add; add qh; del 2; mv 3 1; undo; undo 4; redo; redo 2; new; new 42; limit; limit 7")
        == [
          .add(nil), .add(Card(.queen, of: .hearts)), .delete(2), .move(3, 1), .undo(1), .undo(4),
          .redo(1), .redo(2), .new(nil), .new(42), .limit(nil), .limit(7),
        ])
    #expect(
      commands(
        "expect KH 3c; expect empty; show; deck; history; save a.hand; help; help mv; quit; exit")
        == [
          .expect([Card(.king, of: .hearts), Card(.three, of: .clubs)]), .expect([]), .show, .deck,
          .history(tree: false), .save("a.hand"), .help(nil), .help(.mv), .quit, .quit,
        ])
    #expect(
      commands(#"goto 3; source a.hand; source "my setup.hand"; help goto; help source"#)
        == [.goto(3), .source("a.hand"), .source("my setup.hand"), .help(.goto), .help(.source)])
  }

  @Test func blanksCommentsAndSeparators() {
    #expect(commands("").isEmpty)
    #expect(commands(" \t ;;;; # add").isEmpty)
    #expect(commands("add#comment") == [.add(nil)])
    #expect(commands("\tadd\t;show ") == [.add(nil), .show])
    #expect(commands("#!/usr/bin/env handsh").isEmpty)
  }

  @Test func quotedFiles() {
    #expect(commands(#"save "my game.hand""#) == [.save("my game.hand")])
    #expect(commands(#"save "a;b#c""#) == [.save("a;b#c")])
    #expect(commands(#"save "q\"x\\y\z""#) == [.save(#"q"x\y\z"#)])
    #expect(commands(#"save """#) == [.save("")])
    #expect(error(#"save "a"b"#) == "9: unexpected argument 'b' (usage: save FILE)")
    #expect(error(#"save "abc"#) == "6: unterminated quote")
    #expect(error(#"save "abc; show"#) == "6: unterminated quote")
    #expect(commands(#"save a"b"#) == [.save(#"a"b"#)])
  }

  @Test func syntaxErrorsAndTheirColumns() {
    #expect(error("ad") == "1: unknown command 'ad' (did you mean 'add'?)")
    #expect(error("  hisotry") == "3: unknown command 'hisotry' (did you mean 'history'?)")
    #expect(error("ADD") == "1: unknown command 'ADD' (did you mean 'add'?)")
    #expect(error("xyz") == "1: unknown command 'xyz'")
    // The name's key is packed as the word is scanned: a NUL, a ninth
    // byte, or quotes make it no name.
    for word in ["add\0", "\0add", "mvmvmvmvmv", "historyx", "\"add\""] {
      #expect(error(word)?.hasPrefix("1: unknown command '") == true, "\(word)")
    }
    #expect(commands("mv 1 2; add") == [.move(1, 2), .add(nil)])
    // A number is read as its word is scanned: leading zeros past
    // nineteen digits, and the top, still count.
    let zeros = String(repeating: "0", count: 40)
    #expect(commands("mv \(zeros)1 2; undo \(zeros)3") == [.move(1, 2), .undo(3)])
    #expect(commands("goto 9223372036854775807") == [.goto(Int.max)])
    #expect(error("goto 9223372036854775808")?.hasSuffix("at most 9223372036854775807") == true)
    #expect(error("del 1x")?.hasPrefix("5: invalid position '1x'") == true)
    #expect(error("del") == "1: missing argument (usage: del P)")
    #expect(error("mv 1") == "1: missing argument (usage: mv A B)")
    #expect(error("save") == "1: missing argument (usage: save FILE)")
    #expect(error("expect") == "1: missing argument (usage: expect CARD…|empty)")
    #expect(error("goto") == "1: missing argument (usage: goto V)")
    #expect(error("source") == "1: missing argument (usage: source FILE)")
    #expect(error("del 0") == "5: invalid position '0': expected a whole number of 1 or more")
    #expect(error("mv 1 +2") == "6: invalid position '+2': expected a whole number of 1 or more")
    #expect(
      error("del 9223372036854775808")
        == "5: invalid position '9223372036854775808': at most 9223372036854775807")
    #expect(
      error("undo 99999999999999999999")
        == "6: invalid count '99999999999999999999': at most 9223372036854775807")
    #expect(
      error("mv 1 000099999999999999999999")
        == "6: invalid position '000099999999999999999999': at most 9223372036854775807")
    #expect(
      error("goto 9223372036854775808")
        == "6: invalid version '9223372036854775808': at most 9223372036854775807")
    #expect(commands("goto 0; goto 9223372036854775807") == [.goto(0), .goto(Int.max)])
    #expect(error("goto -1") == "6: invalid version '-1': expected a whole number of 0 or more")
    #expect(
      error(#"goto "1""#) == #"6: invalid version '"1"': expected a whole number of 0 or more"#)
    #expect(error("goto 1 2") == "8: unexpected argument '2' (usage: goto V)")
    #expect(commands("del 9223372036854775807") == [.delete(Int.max)])
    #expect(error("undo 0") == "6: invalid count '0': expected a whole number of 1 or more")
    #expect(error("redo x") == "6: invalid count 'x': expected a whole number of 1 or more")
    #expect(error("limit 0") == "7: invalid limit '0': expected a whole number from 1 to 52")
    #expect(error("limit 53") == "7: invalid limit '53': expected a whole number from 1 to 52")
    #expect(
      error("new 18446744073709551616")
        == "5: invalid seed '18446744073709551616': expected a whole number from 0 to 18446744073709551615"
    )
    #expect(commands("new 18446744073709551615") == [.new(.max)])
    #expect(error("add 1h") == "5: invalid card '1h'")
    #expect(error("expect QH empty") == "11: invalid card 'empty'")
    #expect(
      error("expect empty QH") == "14: unexpected argument 'QH' (usage: expect CARD…|empty)")
    #expect(error("expect EMPTY") == "8: invalid card 'EMPTY'")
    #expect(error("show x") == "6: unexpected argument 'x' (usage: show)")
    #expect(error("add qh 2") == "8: unexpected argument '2' (usage: add [CARD])")
    #expect(error("help foo") == "6: unknown command 'foo'")
    #expect(error("help hlep") == "6: unknown command 'hlep' (did you mean 'help'?)")
  }

  @Test func wordsAreCheckedLeftToRight() {
    // A bad argument is reported before a missing one, and only one per command.
    #expect(error("mv x") == "4: invalid position 'x': expected a whole number of 1 or more")
    #expect(errors("mv x y z").count == 1)
    #expect(errors("foo; bar; add").count == 2)
  }

  @Test func suggestionsUseOptimalStringAlignment() {
    #expect(suggestion(for: "ad") == .add)
    #expect(suggestion(for: "dle") == .del)  // a swap of neighbours
    #expect(suggestion(for: "mvv") == .mv)
    #expect(suggestion(for: "udno") == .undo)
    #expect(suggestion(for: "hstry") == .history)
    #expect(suggestion(for: "qiut") == .quit)
    #expect(suggestion(for: "xx") == nil)
    #expect(suggestion(for: "sh") == nil)  // two edits from show, too far for a short word
    #expect(suggestion(for: "dek") == .del)  // ties go to the earlier command (del before deck)
    #expect(suggestion(for: "goot") == .goto)
    #expect(suggestion(for: "sorce") == .source)
    #expect(editDistance(Array("ca"), Array("abc")) == 3)  // OSA, not Damerau
  }

  @Test func columnsCountUnicodeScalars() {
    #expect(
      error("add Q♥️; del x") == "14: invalid position 'x': expected a whole number of 1 or more")
    #expect(error("♥♥ x") == "1: unknown command '♥♥'")
  }

  @Test func unsafeTextIsEscaped() {
    #expect(error("a\u{1B}[31m") == "1: unknown command 'a\\x1B[31m'")
    #expect(error("x\u{7F}\u{85}") == "1: unknown command 'x\\x7F\\x85'")
    #expect(error("x\u{202E}y") == "1: unknown command 'x\\u{202E}y'")
    #expect(error("x\u{0}") == "1: unknown command 'x\\x00'")
    #expect(error("x\ty") == "1: unknown command 'x'")
  }

  @Test func invalidUTF8IsOneErrorAtItsWord() {
    var bytes: [UInt8] = Array("add; del ".utf8) + [0x41, 0xFF, 0x42] + Array("; show".utf8)
    let items = LineParser.parse(bytes: &bytes)
    #expect(items == [.error(SyntaxError("invalid UTF-8 in input", column: 10))])
    var comment: [UInt8] = Array("show # ".utf8) + [0xC0, 0x80]
    #expect(
      LineParser.parse(bytes: &comment) == [
        .error(SyntaxError("invalid UTF-8 in input", column: 6))
      ])
    #expect(safeText([0x61, 0xE2, 0x99, 0x62]) == "a\\xE2\\x99b")
  }

  @Test func nextItemEndsWithEndAndStaysThere() {
    let bytes = Array("add; ; show # x".utf8)
    bytes.withUnsafeBufferPointer { buffer in
      var parser = LineParser(buffer)
      #expect(parser.nextItem() == .command(.add(nil), span: 0..<3))
      #expect(parser.nextItem() == .command(.show, span: 7..<11))
      #expect(parser.nextItem() == .end)
      #expect(parser.nextItem() == .end)
      #expect(parser.next() == nil)
    }
  }

  @Test func echoWordsKeepQuotes() {
    let bytes = Array(#"  save   "a b"   # x"#.utf8)
    bytes.withUnsafeBufferPointer { buffer in
      var parser = LineParser(buffer)
      guard case .command(_, let span) = parser.next() else {
        Issue.record("expected a command")
        return
      }
      #expect(
        parser.words(in: span).map { String(decoding: $0, as: UTF8.self) } == ["save", #""a b""#])
    }
  }
}

/// `CommandName(spelling:)` matches each name by a packed numeric key: every
/// name of the table, and nothing else, must come back.
struct CommandNameSpellingTests {
  private func name(_ text: String) -> CommandName? {
    Array(text.utf8).withUnsafeBufferPointer { CommandName(spelling: $0) }
  }

  @Test func everyNameSpellsItself() {
    for command in CommandName.allCases {
      #expect(name(command.rawValue) == command, "\(command.rawValue)")
    }
  }

  @Test func nearMissesAreNotNames() {
    for command in CommandName.allCases {
      let text = command.rawValue
      #expect(name(text.uppercased()) == nil)
      #expect(name(String(text.dropLast())) == nil, "\(text) minus its last letter")
      #expect(name(text + "s") == nil || CommandName(rawValue: text + "s") != nil)
      #expect(name(text + "\0") == nil, "\(text) with a NUL")
      #expect(name("\0" + text) == nil, "NUL then \(text)")
    }
    for text in ["", "a", "historyx", "\u{FF}dd", "ad\u{80}"] {
      #expect(name(text) == nil, "'\(text)'")
    }
  }
}

/// `history tree`; any other word, or a quoted `tree`, is the usage error.
@Suite struct HistoryArgumentTests {
  @Test func historyTakesTreeAndNothingElse() {
    let parsed = LineParser.parse("history tree; history").compactMap { item -> Command? in
      if case .command(let command, _) = item { return command }
      return nil
    }
    #expect(parsed == [.history(tree: true), .history(tree: false)])
    for line in ["history trees", "history \"tree\"", "history tree tree", "history 1"] {
      guard case .error(let error)? = LineParser.parse(line).first else {
        Issue.record("\(line) parsed")
        continue
      }
      #expect(error.message.hasSuffix("(usage: history [tree])"), "\(line): \(error.message)")
    }
  }
}
