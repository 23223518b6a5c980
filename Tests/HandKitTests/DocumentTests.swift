import Testing

@testable import HandKit

/// The document model behind `handsh --lsp` (handsh(1), EDITORS): one run
/// of the text, and everything an editor asks read from it.
@Suite struct DocumentTests {
  private func document(
    _ text: String, ascii: Bool = false,
    read: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure> = { _ in
      .failure(ReadFailure("No such file or directory"))
    }
  ) -> HandDocument {
    HandDocument(text: Array(text.utf8), defaults: GoldenSettings(ascii: ascii), read: read)
  }

  private let seed42 = "#!/usr/bin/env -S handsh --seed 42\n"

  /// The byte offset of the `n`th (from 0) `needle` in `text`.
  private func offset(of needle: String, in text: String, _ n: Int = 0) -> Int {
    let bytes = Array(text.utf8)
    let key = Array(needle.utf8)
    var found = 0
    for start in 0...(bytes.count - key.count)
    where Array(bytes[start..<(start + key.count)]) == key {
      if found == n { return start }
      found += 1
    }
    return -1
  }

  @Test func passingFileHasNoDiagnostics() {
    let doc = document(seed42 + "add; add\n#> 7♥\n#> 3♣ 7♥\n")
    #expect(doc.diagnostics.isEmpty)
    #expect(doc.differing.isEmpty)
  }

  @Test func differingBlockIsOneErrorOnItsInputLineWithTheActualBlock() {
    let text = seed42 + "add\n#> 9♠\nshow\n#> 1  7♥\n"
    let doc = document(text)
    #expect(doc.diagnostics.count == 1)
    let only = doc.diagnostics.first
    #expect(only?.severity == .error)
    #expect(only?.range == offset(of: "add", in: text)..<(offset(of: "add", in: text) + 3))
    #expect(only?.message == "output differs; actual output:\n#> 7♥")
    #expect(doc.differing == [0])
  }

  @Test func lineThatPrintsNothingButExpectsSomethingSaysSo() {
    let doc = document("expect empty\n#> x\n")
    #expect(doc.diagnostics.map(\.message) == ["output differs: the line prints nothing"])
  }

  @Test func malformedFileShowsOnlyItsMalformedLinesAtTheirColumns() {
    let text = "add\n#>x\n#> 8♠\n"
    let doc = document(text)
    #expect(doc.diagnostics.map(\.range) == [(6..<7)])
    #expect(doc.differing.isEmpty)
    #expect(doc.acceptEdit(nil) == nil)
  }

  /// A shebang option a test file cannot take: an error at its word, as
  /// `--test` reports it.
  @Test func badShebangOptionIsAnErrorAtItsWord() {
    let text = "#!/usr/bin/env -S handsh --seed 1 --bogus\nadd\n"
    let doc = document(text)
    #expect(doc.diagnostics.count == 1)
    #expect(
      doc.diagnostics.first?.range == offset(
        of: "--bogus", in: text)..<offset(of: "\nadd", in: text))
  }

  @Test func scriptWithoutExpectationsShowsSyntaxErrorsAndFailedCommands() {
    let text = "add; add QQ\nadd\ndel 7; add\nsource nowhere.hand\n"
    let doc = document(text)
    let found = doc.diagnostics.map {
      ($0.severity, String(decoding: Array(text.utf8)[$0.range], as: UTF8.self))
    }
    #expect(found.count == 3)
    #expect(found.first?.0 == .error)
    #expect(found.first?.1 == "QQ")
    #expect(found.dropFirst().first?.0 == .warning)
    #expect(found.dropFirst().first?.1 == "del 7")
    #expect(found.last?.1 == "source nowhere.hand")
  }

  @Test func anErrorThatItsBlockExpectsIsAPass() {
    let doc = document("del 1\n#2> error: no card at position 1 (hand has 0 cards)\n")
    #expect(doc.diagnostics.isEmpty)
  }

  @Test func hintsAfterLinesThatChangeTheHandOnly() {
    let text = seed42 + "add\nshow\n\nadd; mv 1 2\nexpect 7♥ 3♣\n"
    let doc = document(text)
    let hints = doc.hints(in: 0...999)
    #expect(hints.map(\.label) == ["⇒ 7♥", "⇒ 7♥ 3♣"])
    #expect(
      hints.map(\.offset) == [
        offset(of: "add\n", in: text) + 3, offset(of: "mv 1 2", in: text) + 6,
      ])
    #expect(
      doc.hints(in: offset(of: "add;", in: text)...(offset(of: "add;", in: text) + 11)).map(\.label)
        == ["⇒ 7♥ 3♣"])
    #expect(document(seed42 + "add\n", ascii: true).hints(in: 0...999).map(\.label) == ["⇒ 7H"])
    // The shebang's --ascii applies too.
    #expect(
      document("#!/usr/bin/env -S handsh --seed 42 --ascii\nadd\n").hints(in: 0...999).map(\.label)
        == ["⇒ 7H"])
  }

  @Test func hoverOnCommandsCardsPositionsAndLines() {
    let text = seed42 + "add; add\ndel 2; add q♥\n"
    let doc = document(text)
    #expect(doc.hover(at: offset(of: "del", in: text))?.text.hasPrefix("del P\n") == true)
    #expect(
      doc.hover(at: offset(of: "2;", in: text))?.text.hasPrefix("position 2: 7♥, seven of hearts")
        == true)
    let card = doc.hover(at: offset(of: "q♥", in: text))
    #expect(
      card?.text.hasPrefix("queen of hearts\n\nhand before: 3♣ 7♥\nhand after:  Q♥ 3♣") == true)
    #expect(card?.range == offset(of: "q♥", in: text)..<(offset(of: "q♥", in: text) + 4))
    #expect(doc.hover(at: 3) == nil)
  }

  /// A hover speaks of the hand just before its command: `save` and
  /// `history` change nothing, so the commands after them on the line
  /// still count (the document's run saves in memory; a hover writes nothing).
  @Test func hoverLooksPastSaveAndHistoryOnItsLine() {
    for between in ["save x.hand", "history", "history tree"] {
      let text = seed42 + "add; \(between); add; del 2\n"
      let hover = document(text).hover(at: offset(of: "del 2", in: text) + 4)
      #expect(hover?.text.hasPrefix("position 2: 7♥, seven of hearts") == true, "\(between)")
    }
  }

  @Test func completionsUseTheStateBeforeTheLine() {
    let text = seed42 + "add; add\ngoto \ndel \nadd 7\n"
    let doc = document(text)
    let versions = doc.completions(at: offset(of: "goto ", in: text) + 5) { _ in [] }
    #expect(versions.completions.candidates == ["0", "1", "2"])
    #expect(versions.completions.labels == ["0 (empty)", "1 7♥", "2 3♣ 7♥"])
    let positions = doc.completions(at: offset(of: "del ", in: text) + 4) { _ in [] }
    #expect(positions.completions.labels == ["1 3♣", "2 7♥"])
    let cards = doc.completions(at: offset(of: "add 7", in: text) + 5) { _ in [] }
    #expect(cards.completions.candidates == ["7♦", "7♣", "7♠"])
    #expect(
      cards.range == (offset(of: "add 7", in: text) + 4)..<(offset(of: "add 7", in: text) + 5))
  }

  @Test func completionOfFilesAsksTheFolderGiven() {
    let doc = document("source s")
    let found = doc.completions(at: 8) { folder in folder == "" ? ["saved.hand", "x"] : [] }
    #expect(found.completions.candidates == ["saved.hand"])
    #expect(found.completions.kind == .fileNames)
  }

  @Test func acceptingOneBlockOrEveryBlockMakesTheFilePass() {
    let text = seed42 + "add\n#> 9♠\nshow\nadd\n#> 1\n"
    let doc = document(text)
    #expect(doc.differing == [0, 1, 2])
    for index: Int? in [0, nil] {
      guard let edit = doc.acceptEdit(index) else {
        Issue.record("no edit")
        continue
      }
      var bytes = Array(text.utf8)
      bytes.replaceSubrange(edit.range, with: edit.text)
      let after = HandDocument(text: bytes)
      #expect(after.differing.count == (index == nil ? 0 : 2))
      // What --update writes, byte for byte.
      if index == nil { #expect(bytes == doc.result.updatedText) }
    }
  }

  @Test func sourceReadsThroughTheReaderAndSavesStayInMemory() {
    let doc = document(
      "source deal.hand\n#> 8♠\nsave s.hand\nsource s.hand\n#> (empty)\n#> 8♠\n",
      read: { name in
        name == "deal.hand"
          ? .success(Array("add\n".utf8)) : .failure(ReadFailure("No such file or directory"))
      })
    #expect(doc.diagnostics.isEmpty)
    #expect(doc.sourcedFile(at: 8) == "deal.hand")
    #expect(doc.sourcedFile(at: 30) == nil)
  }

  @Test func positionsInUTF16AndUTF8() {
    let text = "a🂡b\r\nxyz\n"
    let table = LineTable(Array(text.utf8))
    // 🂡: four bytes, two UTF-16 units.
    #expect(table.position(of: 5, .utf16) == DocumentPosition(line: 0, character: 3))
    #expect(table.position(of: 5, .utf8) == DocumentPosition(line: 0, character: 5))
    #expect(table.offset(of: DocumentPosition(line: 0, character: 3), .utf16) == 5)
    // Inside a surrogate pair: the boundary before.
    #expect(table.offset(of: DocumentPosition(line: 0, character: 2), .utf16) == 1)
    // Past the line's end: before its \r\n.
    #expect(table.offset(of: DocumentPosition(line: 0, character: 99), .utf16) == 6)
    #expect(table.offset(of: DocumentPosition(line: 1, character: 1), .utf8) == 9)
    #expect(table.offset(of: DocumentPosition(line: 7, character: 0), .utf8) == text.utf8.count)
    #expect(table.position(of: text.utf8.count, .utf16) == DocumentPosition(line: 2, character: 0))
  }

  /// Lines as the protocol counts them: `\r\n`, `\n` and a lone `\r`.
  @Test func aLoneCarriageReturnEndsALineForTheEditor() {
    let table = LineTable(Array("a\rb\r\nc\r".utf8))
    #expect(table.starts == [0, 2, 5, 7])
    #expect((0..<4).map(table.contentEnd) == [1, 3, 6, 7])
    #expect(table.position(of: 5, .utf16) == DocumentPosition(line: 2, character: 0))
  }

  @Test func lineEditsAreWholeLinesAndExact() {
    let old = Array("a\nb\nc\n".utf8)
    let new = Array("a\nB\nc\n".utf8)
    let edit = lineEdit(from: old, to: new)
    #expect(edit?.range == 2..<4)
    #expect(edit?.text == Array("B\n".utf8))
    #expect(lineEdit(from: old, to: old) == nil)
    for (a, b) in [("", "x"), ("x", ""), ("ab", "abab"), ("a\n", "a\n#> b\n"), ("q\nq", "q")] {
      var bytes = Array(a.utf8)
      if let edit = lineEdit(from: bytes, to: Array(b.utf8)) {
        bytes.replaceSubrange(edit.range, with: edit.text)
      }
      #expect(bytes == Array(b.utf8))
    }
  }

  @Test func aQuitEndsTheRunAndLaterLinesShowNothing() {
    let doc = document("add\nquit\nadd ZZ\n")
    // The syntax error after quit is still checked as the prompt would not
    // see it: the file ended.
    #expect(doc.diagnostics.isEmpty)
    #expect(doc.hints(in: 0...999).count == 1)
  }
}
