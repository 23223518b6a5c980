import HandKit

/// How replies about a document are written (handsh(1), EDITORS): its
/// positions in the encoding the client chose, its diagnostics. A value, so
/// that a run writes its own diagnostics on its thread, not the server's.
struct ReplyWriter: Sendable {
  let encoding: PositionEncoding
  let workingFolder: String

  static func json(_ position: DocumentPosition) -> JSON {
    .object([("line", .int(position.line)), ("character", .int(position.character))])
  }

  static func json(_ range: DocumentRange) -> JSON {
    .object([("start", json(range.start)), ("end", json(range.end))])
  }

  /// The diagnostics of a run, written: the array of a
  /// `publishDiagnostics`.
  func diagnostics(_ document: HandDocument, uri: String) -> [UInt8] {
    let table = document.table
    return JSON.array(document.diagnostics.map { diagnostic($0, table, uri: uri) }).bytes
  }

  /// A diagnostic of document `uri`; one from a `source`d file carries
  /// `relatedInformation` at that file's line.
  func diagnostic(
    _ diagnostic: HandDocument.DocumentDiagnostic, _ table: LineTable, uri: String
  ) -> JSON {
    var fields: [(String, JSON)] = [
      ("range", ReplyWriter.json(table.range(of: diagnostic.range, encoding))),
      ("severity", .int(diagnostic.severity == .error ? 1 : 2)),
      ("source", .string("handsh")),
      ("message", .string(diagnostic.message)),
    ]
    if let related = diagnostic.related {
      let path = LanguageServer.absolute(
        LanguageServer.resolve(related.source, in: LanguageServer.folder(of: uri)),
        from: workingFolder)
      // The column counts characters; for ASCII lines, UTF-16 units too.
      let at = ReplyWriter.json(
        DocumentPosition(line: max(0, related.line - 1), character: max(0, related.column - 1)))
      let location = JSON.object([
        ("uri", .string(LanguageServer.fileURI(path))),
        ("range", .object([("start", at), ("end", at)])),
      ])
      fields.append(
        (
          "relatedInformation",
          .array([
            .object([("location", location), ("message", .string("the line of \(related.source)"))])
          ])
        ))
    }
    return .object(fields)
  }
}
