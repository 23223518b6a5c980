import HandKit

extension LanguageServer {
  // MARK: Requests

  mutating func initialize(_ params: JSON) -> JSON {
    let offered = params["capabilities"]?["general"]?["positionEncodings"]?.array ?? []
    encoding = offered.contains(.string("utf-8")) ? .utf8 : .utf16
    watches =
      params["capabilities"]?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]?
      .bool == true
    return .object([
      (
        "capabilities",
        .object([
          ("positionEncoding", .string(encoding == .utf8 ? "utf-8" : "utf-16")),
          (
            "textDocumentSync",
            .object([("openClose", .bool(true)), ("change", .int(2)), ("save", .object([]))])
          ),
          ("hoverProvider", .bool(true)),
          (
            "completionProvider",
            .object([("triggerCharacters", .array([.string(" "), .string("\"")]))])
          ),
          ("definitionProvider", .bool(true)),
          (
            "codeActionProvider",
            .object([("codeActionKinds", .array([.string("quickfix"), .string("source")]))])
          ),
          ("inlayHintProvider", .bool(true)),
          ("foldingRangeProvider", .bool(true)),
          ("documentFormattingProvider", .bool(true)),
          ("documentSymbolProvider", .bool(true)),
          ("documentLinkProvider", .object([("resolveProvider", .bool(false))])),
          (
            "semanticTokensProvider",
            .object([("legend", LanguageServer.tokenLegend), ("full", .bool(true))])
          ),
        ])
      ),
      ("serverInfo", .object([("name", .string("handsh")), ("version", .string(handshVersion))])),
    ])
  }

  /// After `initialized`, when the client can: files on disk are watched
  /// (`.hand` files: what documents source), so a
  /// change there runs again the documents that read it.
  func registrations() -> [JSON] {
    guard watches else { return [] }
    let watcher = JSON.object([("globPattern", .string("**/*.hand"))])
    let registration = JSON.object([
      ("id", .string("handsh-watched-files")),
      ("method", .string("workspace/didChangeWatchedFiles")),
      ("registerOptions", .object([("watchers", .array([watcher]))])),
    ])
    return [
      .object([
        ("jsonrpc", .string("2.0")), ("id", .string("handsh-register-1")),
        ("method", .string("client/registerCapability")),
        ("params", .object([("registrations", .array([registration]))])),
      ])
    ]
  }

  /// The document and the byte offset a request's `textDocument` and
  /// `position` name; nil when they are missing or the document is not open.
  /// With `current`, never from an older text (completion).
  mutating func target(_ params: JSON, current: Bool = false) -> (String, HandDocument, Int)? {
    guard let uri = params["textDocument"]?["uri"]?.string, let at = position(params["position"]),
      let document = current ? self.current(uri) : answering(uri)
    else { return nil }
    return (uri, document, document.table.offset(of: at, encoding))
  }

  func position(_ value: JSON?) -> DocumentPosition? {
    // The protocol's uinteger: 0 to 2^31 - 1.
    let range = 0...Int(Int32.max)
    guard let line = value?["line"]?.int, let character = value?["character"]?.int,
      range.contains(line), range.contains(character)
    else { return nil }
    return DocumentPosition(line: line, character: character)
  }

  func json(_ position: DocumentPosition) -> JSON { ReplyWriter.json(position) }

  func json(_ range: DocumentRange) -> JSON { ReplyWriter.json(range) }

  mutating func inlayHints(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri) else {
      return nil
    }
    var first = 0
    var last = document.table.text.count
    if let range = params["range"] {
      guard let start = position(range["start"]), let end = position(range["end"]) else {
        return nil
      }
      first = document.table.offset(of: start, encoding)
      last = document.table.offset(of: end, encoding)
    }
    guard first <= last else { return .array([]) }
    let hints = document.hints(in: first...last)
    return .array(
      hints.map { hint in
        .object([
          ("position", json(document.table.position(of: hint.offset, encoding))),
          ("label", .string(hint.label)),
          ("paddingLeft", .bool(true)),
        ])
      })
  }

  mutating func hover(_ params: JSON) -> JSON? {
    guard let (_, document, offset) = target(params) else { return nil }
    guard let (text, range) = document.hover(at: offset) else { return .null }
    return .object([
      ("contents", .object([("kind", .string("plaintext")), ("value", .string(text))])),
      ("range", json(document.table.range(of: range, encoding))),
    ])
  }

  /// What replies are written with: this server's encoding and folder.
  var writer: ReplyWriter { ReplyWriter(encoding: encoding, workingFolder: workingFolder) }

  func diagnosticJSON(
    _ diagnostic: HandDocument.DocumentDiagnostic, _ table: LineTable, uri: String
  ) -> JSON {
    writer.diagnostic(diagnostic, table, uri: uri)
  }

  mutating func definition(_ params: JSON) -> JSON? {
    guard let (uri, document, offset) = target(params) else { return nil }
    guard let file = document.sourcedFile(at: offset), !file.isEmpty else { return .null }
    // As `source` reads it: through links, then `..`; no file, no location.
    guard let found = locate(LanguageServer.resolve(file, in: LanguageServer.folder(of: uri)))
    else { return .null }
    let path = LanguageServer.absolute(found, from: workingFolder)
    let start = json(DocumentPosition(line: 0, character: 0))
    return .object([
      ("uri", .string(LanguageServer.fileURI(path))),
      ("range", .object([("start", start), ("end", start)])),
    ])
  }
}
