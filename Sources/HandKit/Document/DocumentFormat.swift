/// A document in its canonical form (handsh(1), EDITORS): one space
/// between the words of a command, `; ` between commands, no blanks at the
/// end of an input line; comments, expected blocks and every word kept
/// byte for byte. What `handsh --test` reports for the file never changes:
/// a file that echoes its commands (`--echo`), is malformed, or a line
/// that does not parse whole, is left as it is.
extension HandDocument {
  /// The edits, one per input line that changes: the bytes of its content
  /// and what replaces them.
  public func formatting() -> [(range: Range<Int>, text: [UInt8])] {
    guard file.diagnostics.isEmpty, !file.settings.echo else { return [] }
    var edits: [(range: Range<Int>, text: [UInt8])] = []
    for index in file.inputs.indices where !file.isTooLong(file.inputs[index]) {
      let content = file.content(of: file.inputs[index])
      guard let text = canonical(ofInput: index, content), text != Array(file.text[content])
      else { continue }
      edits.append((content, text))
    }
    return edits
  }

  /// Input line `index` (its `content`) in its canonical form; nil when it
  /// does not parse whole.
  func canonical(ofInput index: Int, _ content: Range<Int>) -> [UInt8]? {
    let words = HandDocument.commandWords(content, file.text).filter { !$0.isEmpty }
    guard !words.isEmpty, commands(ofInput: index).count == words.count,
      problems(ofInput: index) == 0
    else { return nil }
    var out: [UInt8] = []
    for (number, command) in words.enumerated() {
      if number > 0 { out += Array("; ".utf8) }
      for (at, word) in command.enumerated() {
        if at > 0 { out.append(0x20) }
        out += file.text[word]
      }
    }
    // A comment after the commands, kept as it is.
    let last = words.last?.last?.upperBound ?? content.lowerBound
    if let hash = file.text[last..<content.upperBound].firstIndex(of: UInt8(ascii: "#")) {
      let between = file.text[last..<hash]
      guard between.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ";") }) else {
        return nil
      }
      out.append(0x20)
      out += file.text[hash..<content.upperBound]
    } else {
      guard
        file.text[last..<content.upperBound].allSatisfy({
          $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ";")
        })
      else { return nil }
    }
    return out
  }

  /// How many syntax errors input line `index` has.
  func problems(ofInput index: Int) -> Int {
    let content = file.content(of: file.inputs[index])
    return file.text.withUnsafeBufferPointer { buffer in
      var counter = ErrorCounter()
      _ = counter.count(
        UnsafeBufferPointer(rebasing: buffer[content]), final: true, knownASCII: false
      ) { _, _, _ in }
      return counter.errors
    }
  }
}
