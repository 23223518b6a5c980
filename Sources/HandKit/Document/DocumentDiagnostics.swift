/// The problems of a document as an editor shows them (handsh(1),
/// EDITORS): malformed lines, differing blocks, syntax errors and failed
/// commands, within the bounds of a reply.
extension HandDocument {
  // MARK: Diagnostics

  static func diagnose(
    _ file: GoldenFile, _ result: GoldenResult, _ problems: [(input: Int, problem: LineProblem)],
    _ table: LineTable
  ) -> [DocumentDiagnostic] {
    var found: [DocumentDiagnostic] = []
    guard file.diagnostics.isEmpty else {
      // Malformed: the file does not run, as with `--test`.
      for diagnostic in file.diagnostics {
        let line = diagnostic.line - 1
        guard line >= 0, line < file.lines.count else { continue }
        let content = file.lines[line].start..<file.lines[line].contentEnd
        let start = offset(ofColumn: diagnostic.column, in: content, file.text)
        found.append(
          DocumentDiagnostic(
            range: start..<wordEnd(from: start, in: content, file.text), severity: .error,
            message: diagnostic.message))
      }
      return found
    }
    // The line whose output passed the bound of a test, which stopped there,
    // or on which the run passed its commands.
    var overflowed: [DocumentDiagnostic] = []
    if let exhausted = result.exhausted, file.inputs.indices.contains(exhausted) {
      overflowed.append(
        DocumentDiagnostic(
          range: file.content(of: file.inputs[exhausted]), severity: .error,
          message: GoldenBounds.exhaustedText))
    }
    if let overflow = result.overflow, file.inputs.indices.contains(overflow) {
      overflowed.append(
        DocumentDiagnostic(
          range: file.content(of: file.inputs[overflow]), severity: .error,
          message: GoldenResult.overflowText))
    }
    let expects = file.inputs.contains { !$0.expected.isEmpty }
    if expects {
      for index in result.differing {
        let input = file.inputs[index]
        let actual = result.actual[index]
        let shown =
          actual.isEmpty
          ? "output differs: the line prints nothing"
          : "output differs; actual output:\n"
            + actual.map { String(decoding: $0.marked, as: UTF8.self) }.joined(separator: "\n")
        found.append(
          DocumentDiagnostic(range: file.content(of: input), severity: .error, message: shown))
      }
      return found + overflowed
    }
    return scriptProblems(file, problems, overflowed)
  }

  /// In a file with no expectations: every line `handsh FILE` refuses,
  /// every syntax error and every failed command, in the order of the text.
  static func scriptProblems(
    _ file: GoldenFile, _ problems: [(input: Int, problem: LineProblem)],
    _ overflowed: [DocumentDiagnostic]
  ) -> [DocumentDiagnostic] {
    var found: [DocumentDiagnostic] = []
    // A line `handsh FILE` refuses, though a test does not run it: a
    // comment over the line limit.
    var inputLines = Set<Int>()
    for input in file.inputs { inputLines.insert(input.line) }
    for (number, line) in file.lines.enumerated()
    where line.length > LineParser.maximumLineLength && !inputLines.contains(number) {
      found.append(
        DocumentDiagnostic(
          range: line.start..<line.contentEnd, severity: .error,
          message: LineParser.tooLongMessage))
    }
    for (index, problem) in problems {
      let content = file.content(of: file.inputs[index])
      var range = content
      if let span = problem.span, span.upperBound <= content.count {
        range = (content.lowerBound + span.lowerBound)..<(content.lowerBound + span.upperBound)
      } else if let column = problem.column {
        let start = offset(ofColumn: column, in: content, file.text)
        range = start..<wordEnd(from: start, in: content, file.text)
      }
      found.append(
        DocumentDiagnostic(
          range: range, severity: problem.kind == .syntax ? .error : .warning,
          message: problem.message, related: problem.location))
    }
    found += overflowed
    if found.count > problems.count {
      // In the order of the text.
      found = found.enumerated().sorted {
        ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
      }.map(\.element)
    }
    return found
  }

  /// The most diagnostics a document gets, and the most bytes of one's
  /// message (handsh(1), EDITORS).
  public static let diagnosticLimit = 10_000
  public static let messageLimit = 64 << 10

  /// `found` within the bounds of a reply: each message cut at a line's
  /// end, then `[N more lines]`; after `diagnosticLimit` of them, one that
  /// says how many were left out.
  static func bounded(_ found: [DocumentDiagnostic]) -> [DocumentDiagnostic] {
    var kept = found.prefix(diagnosticLimit).map { diagnostic in
      diagnostic.message.utf8.count <= messageLimit
        ? diagnostic
        : DocumentDiagnostic(
          range: diagnostic.range, severity: diagnostic.severity,
          message: cut(diagnostic.message), related: diagnostic.related)
    }
    if found.count > diagnosticLimit {
      let left = found.count - diagnosticLimit
      kept.append(
        DocumentDiagnostic(
          range: found[diagnosticLimit].range, severity: .error,
          message: "[\(left) more \(left == 1 ? "problem" : "problems") not shown]"))
    }
    return kept
  }

  /// A message of over `messageLimit` bytes cut at a line's end (within a
  /// line, at a character's, when its first line is that long), then
  /// `[N more lines]`: the whole within `messageLimit`.
  static func cut(_ message: String) -> String {
    let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
    // Room for the note, whatever N is.
    let room = messageLimit - 32
    var kept: [Substring] = []
    var size = 0
    for line in lines {
      let cost = line.utf8.count + (kept.isEmpty ? 0 : 1)
      guard size + cost <= room else { break }
      kept.append(line)
      size += cost
    }
    if kept.isEmpty, let first = lines.first {
      var piece = ""
      for scalar in first.unicodeScalars {
        guard piece.utf8.count + String(scalar).utf8.count <= room else { break }
        piece.unicodeScalars.append(scalar)
      }
      kept.append(Substring(piece))
    }
    // A line cut within counts as one more.
    let left = max(lines.count - kept.count, 1)
    let note = left == 1 ? "[1 more line]" : "[\(left) more lines]"
    return kept.joined(separator: "\n") + "\n" + note
  }

  /// The byte offset of 1-based column `column` (in Unicode scalars, each
  /// byte of invalid UTF-8 one) of the line `content`.
  static func offset(ofColumn column: Int, in content: Range<Int>, _ text: [UInt8]) -> Int {
    var offset = content.lowerBound
    var at = 1
    while at < column, offset < content.upperBound {
      offset += LineTable.character(at: offset, in: text, end: content.upperBound, .utf8).width
      at += 1
    }
    return offset
  }

  /// Where the word that starts at `start` ends: the parser's word when
  /// one starts there, else the next blank or the line's end.
  static func wordEnd(from start: Int, in content: Range<Int>, _ text: [UInt8]) -> Int {
    let words = commandWords(content, text).joined()
    if let word = words.first(where: { $0.contains(start) }) { return word.upperBound }
    var end = start
    while end < content.upperBound, text[end] != 0x20, text[end] != 0x09 { end += 1 }
    return end == start ? content.upperBound : end
  }

  /// The words of each command of the line `content`, as absolute offsets.
  static func commandWords(_ content: Range<Int>, _ text: [UInt8]) -> [[Range<Int>]] {
    text.withUnsafeBufferPointer { buffer in
      LineParser.commandWords(UnsafeBufferPointer(rebasing: buffer[content])).map { command in
        command.map { ($0.lowerBound + content.lowerBound)..<($0.upperBound + content.lowerBound) }
      }
    }
  }
}
