extension LineParser {
  /// The one walk over a line's items, for every reader of commands (the
  /// executor's check and run, run-ahead, the error counter, a journal's
  /// replay, a forecast, an editor's document): reads `line` left to right
  /// and hands each item, a command or a syntax error (never `.end`), to
  /// `body` with the parser that read it, which gives the item's columns
  /// and words. `body` returns false to stop. True when the line was read
  /// to its end. Inlined whole, closure and all, into each hot loop.
  @inlinable @inline(__always) @discardableResult
  public static func forEachItem(
    in line: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false,
    _ body: (consuming ParsedItem, inout LineParser) -> Bool
  ) -> Bool {
    var parser = LineParser(line, knownASCII: knownASCII)
    // Asking `finished` first saves a call per line.
    while !parser.finished {
      let item = parser.nextItem()
      if case .end = item { break }
      guard body(item, &parser) else { return false }
    }
    return true
  }
}
