import HandKit

/// `handsh --lsp` (handsh(1), EDITORS): a language server for `.hand` files.
/// This is its logic, free of I/O but for the two closures that read a file
/// and list a folder: frames in, messages out, so that tests and the fuzzer
/// drive it exactly as the process does. Each open document runs as
/// `handsh --test` runs it, through `HandDocument`; nothing is ever written.
struct LanguageServer {
  /// JSON-RPC's and the protocol's error codes.
  enum ErrorCode: Int {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case serverNotInitialized = -32002
    case requestCancelled = -32800
  }

  /// `--ascii`: hints and completions write suits as letters.
  let ascii: Bool
  /// Reads a file by its path (for `source`); never waits on a FIFO.
  let readFile: @Sendable (String) -> Result<[UInt8], ReadFailure>
  /// The names in a folder, by its path.
  let listFolder: (String) -> [String]

  /// The server's working folder, an absolute path: where a document that
  /// is not a file (`untitled:`) reads, and what a definition's URI is
  /// made absolute from.
  var workingFolder = "/"

  /// Whether newer input is waiting: a run for diagnostics asks it now and
  /// then, and stops when it is, since that input may replace its text.
  var interrupted: () -> Bool = { false }

  private(set) var encoding = PositionEncoding.utf16
  private(set) var initialized = false
  private(set) var shutDown = false
  /// Set by `exit`: 0 after `shutdown`, else 1.
  private(set) var exitStatus: Int32?
  private var documents: [String: OpenDocument] = [:]
  /// Ids of requests the client cancelled before they were answered.
  private var cancelled: [JSON] = []

  struct OpenDocument {
    var text: [UInt8]
    var version: JSON
    /// The run of `text`; nil until asked for after a change.
    var analysis: HandDocument?
    /// Whether the diagnostics of the latest text are still to be sent.
    var unpublished = true
    /// The last finished run of an older text: what a request is answered
    /// from while the run of `text` goes on.
    var previous: HandDocument?
    /// The run of `text` going on on a thread of its own.
    var job: AnalysisJob?
    /// Whether a request already waited for that run and gave up.
    var waited = false
  }

  /// Starts `work` on a thread of its own; nil runs every document on the
  /// caller's thread, at once (tests, the fuzzer).
  var spawn: ((@escaping @Sendable () -> Void) -> Void)?
  /// Called, from the thread of a run, when that run has finished: the
  /// process then sends what `publish` gives.
  var finished: @Sendable () -> Void = {}
  /// How long a request waits for the run of the latest text before it is
  /// answered from the last finished run.
  static let patience = 0.05

  init(
    ascii: Bool, readFile: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure>,
    listFolder: @escaping (String) -> [String]
  ) {
    self.ascii = ascii
    self.readFile = readFile
    self.listFolder = listFolder
  }

  // MARK: Frames and messages

  /// Handles the frames that arrived together: a request cancelled among
  /// them is answered as cancelled, not worked on. Returns the messages to
  /// send, in order.
  mutating func handle(_ frames: [Frame]) -> [JSON] {
    var parsed: [Result<JSON, JSONError>?] = []
    for frame in frames {
      guard case .body(let body) = frame else {
        parsed.append(nil)
        continue
      }
      let message = JSONReader.parse(body)
      if case .success(let value) = message, value["method"]?.string == "$/cancelRequest",
        let id = value["params"]?["id"]
      {
        cancelled.append(id)
      }
      parsed.append(message)
    }
    var out: [JSON] = []
    for (frame, message) in zip(frames, parsed) {
      switch frame {
      case .badHeader(let problem):
        out.append(error(nil, .parseError, "invalid header: \(problem)"))
      case .tooLarge(let length):
        out.append(error(nil, .parseError, "message of \(length) bytes is too large"))
      case .body:
        switch message {
        case .success(let value): out += handle(value)
        case .failure(let problem): out.append(error(nil, .parseError, problem.message))
        case nil: break
        }
      }
    }
    cancelled.removeAll()
    return out
  }

  mutating func handle(_ frame: Frame) -> [JSON] { handle([frame]) }

  /// One message: a request gets exactly one response, a notification none
  /// (but the diagnostics that `publish` sends later).
  mutating func handle(_ message: JSON) -> [JSON] {
    guard case .object = message else {
      return [error(nil, .invalidRequest, "a message must be a JSON object")]
    }
    let id = message["id"]
    if let id {
      switch id {
      case .number, .string, .null: break
      default: return [error(nil, .invalidRequest, "invalid id")]
      }
    }
    guard let methodValue = message["method"] else {
      // A response to a request of ours: the server sends none, so ignore it.
      if id != nil, message["result"] != nil || message["error"] != nil { return [] }
      return [error(id, .invalidRequest, "no method")]
    }
    guard let method = methodValue.string else {
      return [error(id, .invalidRequest, "method must be a string")]
    }
    let params = message["params"] ?? .null
    switch params {
    case .object, .array, .null: break
    default: return [error(id, .invalidRequest, "params must be an object or an array")]
    }
    guard let id else {
      notify(method, params)
      return []
    }
    if cancelled.contains(id) { return [error(id, .requestCancelled, "cancelled")] }
    // What the client changed before it asked to shut down is still shown.
    let pending =
      method == "shutdown" && initialized && !shutDown ? publish(interruptible: false) : []
    return pending + [request(id, method, params)]
  }

  private func error(_ id: JSON?, _ code: ErrorCode, _ message: String) -> JSON {
    .object([
      ("jsonrpc", .string("2.0")), ("id", id ?? .null),
      ("error", .object([("code", .int(code.rawValue)), ("message", .string(message))])),
    ])
  }

  private func reply(_ id: JSON, _ result: JSON) -> JSON {
    .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
  }

  private mutating func request(_ id: JSON, _ method: String, _ params: JSON) -> JSON {
    if method == "initialize" {
      guard !initialized else { return error(id, .invalidRequest, "initialize was already sent") }
      initialized = true
      return reply(id, initialize(params))
    }
    guard initialized else { return error(id, .serverNotInitialized, "initialize first") }
    guard !shutDown else { return error(id, .invalidRequest, "the server is shut down") }
    let result: JSON?
    switch method {
    case "shutdown":
      shutDown = true
      result = .null
    case "textDocument/inlayHint": result = inlayHints(params)
    case "textDocument/hover": result = hover(params)
    case "textDocument/completion": result = completion(params)
    case "textDocument/codeAction": result = codeActions(params)
    case "textDocument/definition": result = definition(params)
    default:
      return error(id, .methodNotFound, "unknown method '\(method)'")
    }
    guard let result else { return error(id, .invalidParams, "invalid params for '\(method)'") }
    return reply(id, result)
  }

  private mutating func notify(_ method: String, _ params: JSON) {
    if method == "exit" {
      exitStatus = shutDown ? 0 : 1
      return
    }
    guard initialized, !shutDown else { return }
    switch method {
    case "textDocument/didOpen":
      guard let item = params["textDocument"], let uri = item["uri"]?.string,
        let text = item["text"]?.string
      else { return }
      documents[uri]?.job?.cancel()
      documents[uri] = OpenDocument(text: Array(text.utf8), version: item["version"] ?? .null)
    case "textDocument/didChange":
      guard let uri = params["textDocument"]?["uri"]?.string, var document = documents[uri],
        let changes = params["contentChanges"]?.array
      else { return }
      for change in changes {
        guard let text = change["text"]?.string else { continue }
        if let range = change["range"] {
          let table = LineTable(document.text)
          guard let start = position(range["start"]), let end = position(range["end"]) else {
            continue
          }
          let from = table.offset(of: start, encoding)
          let to = max(from, table.offset(of: end, encoding))
          document.text.replaceSubrange(from..<to, with: Array(text.utf8))
        } else {
          document.text = Array(text.utf8)
        }
      }
      document.version = params["textDocument"]?["version"] ?? .null
      // The run of the replaced text is abandoned; its last finished run
      // answers until the new one is done.
      document.previous = document.analysis ?? document.previous
      document.job?.cancel()
      document.job = nil
      document.waited = false
      document.analysis = nil
      document.unpublished = true
      documents[uri] = document
    case "textDocument/didClose":
      guard let uri = params["textDocument"]?["uri"]?.string else { return }
      documents[uri]?.job?.cancel()
      documents[uri] = nil
      closed.append(uri)
    default:
      break
    }
  }

  /// Documents closed since the last `publish`: their diagnostics are cleared.
  private var closed: [String] = []

  /// The diagnostics of every document changed since they were last sent,
  /// each with its version: the latest text only, so work for a change that
  /// a newer one replaced is never done.
  mutating func publish(interruptible: Bool = true) -> [JSON] {
    var out: [JSON] = []
    for uri in closed where documents[uri] == nil {
      out.append(diagnosticsMessage(uri, version: nil, []))
    }
    closed.removeAll()
    for uri in documents.keys.sorted() where documents[uri]?.unpublished == true {
      // Abandoned when newer input came: sent after that input is read. On
      // a thread: sent once that run has finished.
      let document =
        spawn == nil
        ? analysis(uri, interruptible: interruptible)
        : latest(uri, waiting: interruptible ? 0 : nil)
      guard let document else { continue }
      let table = document.table
      let diagnostics = document.diagnostics.map { diagnosticJSON($0, table) }
      out.append(diagnosticsMessage(uri, version: documents[uri]?.version, diagnostics))
      documents[uri]?.unpublished = false
    }
    return out
  }

  private func diagnosticsMessage(_ uri: String, version: JSON?, _ diagnostics: [JSON]) -> JSON {
    var params: [(String, JSON)] = [("uri", .string(uri))]
    if let version, version != .null { params.append(("version", version)) }
    params.append(("diagnostics", .array(diagnostics)))
    return .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/publishDiagnostics")),
      ("params", .object(params)),
    ])
  }

  /// What a request about document `uri` is answered from: the run of its
  /// latest text when it is done (or within `patience`), else the last
  /// finished run of an older text while the new one goes on; the first
  /// run of a document is waited for.
  private mutating func answering(_ uri: String) -> HandDocument? {
    guard spawn != nil else { return analysis(uri) }
    // Waited for once per run: the requests after it are answered at once.
    let patience = documents[uri]?.waited == true ? 0 : LanguageServer.patience
    if let done = latest(uri, waiting: patience) { return done }
    documents[uri]?.waited = true
    if let previous = documents[uri]?.previous { return previous }
    return latest(uri, waiting: nil)
  }

  /// The run of the latest text of `uri`, started on a thread when none
  /// is going on; nil when it is not done within `waiting` seconds (nil:
  /// waited for until it is).
  private mutating func latest(_ uri: String, waiting: Double?) -> HandDocument? {
    guard let document = documents[uri] else { return nil }
    if let analysis = document.analysis { return analysis }
    guard let spawn else { return analysis(uri) }
    let job: AnalysisJob
    if let running = document.job {
      job = running
    } else {
      job = AnalysisJob()
      documents[uri]?.job = job
      let text = document.text
      let defaults = GoldenSettings(ascii: ascii)
      let folder = LanguageServer.folder(of: uri)
      let read = readFile
      let finished = finished
      spawn {
        let analysis = HandDocument(
          text: text, defaults: defaults,
          read: { file in read(LanguageServer.resolve(file, in: folder)) },
          stop: { job.isCancelled })
        job.finish(analysis.complete ? analysis : nil)
        finished()
      }
    }
    guard let result = job.result(waiting: waiting) else { return nil }
    documents[uri]?.analysis = result
    documents[uri]?.previous = nil
    documents[uri]?.job = nil
    return result
  }

  /// The run of document `uri`, made once per change, on this thread; nil
  /// when `interruptible` and `interrupted` stopped it.
  private mutating func analysis(_ uri: String, interruptible: Bool = false) -> HandDocument? {
    guard let document = documents[uri] else { return nil }
    if let analysis = document.analysis { return analysis }
    let folder = LanguageServer.folder(of: uri)
    let read = readFile
    let analysis = HandDocument(
      text: document.text, defaults: GoldenSettings(ascii: ascii),
      read: { file in read(LanguageServer.resolve(file, in: folder)) },
      stop: interruptible ? interrupted : { false })
    guard analysis.complete else { return nil }
    documents[uri]?.analysis = analysis
    return analysis
  }

  // MARK: Requests

  private mutating func initialize(_ params: JSON) -> JSON {
    let offered = params["capabilities"]?["general"]?["positionEncodings"]?.array ?? []
    encoding = offered.contains(.string("utf-8")) ? .utf8 : .utf16
    return .object([
      (
        "capabilities",
        .object([
          ("positionEncoding", .string(encoding == .utf8 ? "utf-8" : "utf-16")),
          ("textDocumentSync", .object([("openClose", .bool(true)), ("change", .int(2))])),
          ("hoverProvider", .bool(true)),
          ("completionProvider", .object([("triggerCharacters", .array([.string(" ")]))])),
          ("definitionProvider", .bool(true)),
          (
            "codeActionProvider",
            .object([("codeActionKinds", .array([.string("quickfix"), .string("source")]))])
          ),
          ("inlayHintProvider", .bool(true)),
        ])
      ),
      ("serverInfo", .object([("name", .string("handsh")), ("version", .string(handshVersion))])),
    ])
  }

  /// The document and the byte offset a request's `textDocument` and
  /// `position` name; nil when they are missing or the document is not open.
  private mutating func target(_ params: JSON) -> (String, HandDocument, Int)? {
    guard let uri = params["textDocument"]?["uri"]?.string, let at = position(params["position"]),
      let document = answering(uri)
    else { return nil }
    return (uri, document, document.table.offset(of: at, encoding))
  }

  private func position(_ value: JSON?) -> DocumentPosition? {
    // The protocol's uinteger: 0 to 2^31 - 1.
    let range = 0...Int(Int32.max)
    guard let line = value?["line"]?.int, let character = value?["character"]?.int,
      range.contains(line), range.contains(character)
    else { return nil }
    return DocumentPosition(line: line, character: character)
  }

  private func json(_ position: DocumentPosition) -> JSON {
    .object([("line", .int(position.line)), ("character", .int(position.character))])
  }

  private func json(_ range: DocumentRange) -> JSON {
    .object([("start", json(range.start)), ("end", json(range.end))])
  }

  private mutating func inlayHints(_ params: JSON) -> JSON? {
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

  private mutating func hover(_ params: JSON) -> JSON? {
    guard let (_, document, offset) = target(params) else { return nil }
    guard let (text, range) = document.hover(at: offset) else { return .null }
    return .object([
      ("contents", .object([("kind", .string("plaintext")), ("value", .string(text))])),
      ("range", json(document.table.range(of: range, encoding))),
    ])
  }

  private mutating func completion(_ params: JSON) -> JSON? {
    guard let (uri, document, offset) = target(params) else { return nil }
    let folder = LanguageServer.folder(of: uri)
    let list = listFolder
    let (range, found) = document.completions(at: offset) { sub in
      list(LanguageServer.resolve(sub.isEmpty ? "." : sub, in: folder))
    }
    let replaced = json(document.table.range(of: range, encoding))
    // A quote the user opened before the word: file names close it.
    let opened = range.lowerBound > 0 && document.table.text[range.lowerBound - 1] == 0x22
    let typed = String(decoding: document.table.text[range], as: UTF8.self)
    var incomplete = false
    var items: [JSON] = []
    for (index, candidate) in found.candidates.enumerated() {
      let inserted =
        found.kind == .fileNames
        ? LanguageServer.fileWord(candidate, opened: opened) : candidate
      // What the client filters against what was typed: the item as the
      // user may spell it, starting exactly as typed.
      let filter = LanguageServer.filterText(candidate, typed: typed)
      if filter == nil { incomplete = true }
      let label = found.labels.count == found.candidates.count ? found.labels[index] : candidate
      var sort = String(index)
      while sort.utf8.count < 6 { sort = "0" + sort }
      items.append(
        .object([
          ("label", .string(label)),
          ("kind", .int(found.kind == .fileNames ? 17 : 12)),
          ("sortText", .string(sort)),
          ("filterText", .string(filter ?? typed)),
          ("textEdit", .object([("range", replaced), ("newText", .string(inserted))])),
        ]))
    }
    // An item whose filter text is only what was typed is asked for again.
    return .object([("isIncomplete", .bool(incomplete)), ("items", .array(items))])
  }

  /// The text a client filters an item by, so that what the user typed
  /// matches it in clients that filter again (Neovim, eglot, vim-lsp): the
  /// item when it starts as typed; a card as `help add` teaches it to be
  /// spelled (`kh`, `10h`, `th`) when the typed word starts that spelling,
  /// in the case the user typed; else nil (the typed word itself is used).
  static func filterText(_ candidate: String, typed: String) -> String? {
    var spellings: [String] = []
    if let card = Card(parsing: Array(candidate.utf8)) {
      let ranks = card.rank.name == "10" ? ["10", "t"] : [card.rank.name.lowercased()]
      spellings += ranks.map { $0 + card.suit.letter.lowercased() }
      spellings += ranks.map { $0 + card.suit.symbol }
    }
    spellings.append(candidate)
    let word = Array(typed.unicodeScalars)
    for spelling in spellings {
      let letters = Array(spelling.unicodeScalars)
      guard letters.count >= word.count,
        zip(letters, word).allSatisfy({ lowered($0) == lowered($1) })
      else { continue }
      var text = typed
      text.unicodeScalars.append(contentsOf: letters[word.count...])
      return text
    }
    return nil
  }

  private static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
  }

  private mutating func codeActions(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri),
      let start = position(params["range"]?["start"]), let end = position(params["range"]?["end"])
    else { return nil }
    let table = document.table
    let from = table.offset(of: start, encoding)
    let to = max(from, table.offset(of: end, encoding))
    // The blocks whose input line or expected lines the range overlaps, its
    // end excluded: a range from column 0 of the line after a block does
    // not touch it. A cursor (an empty range) touches the block it is in.
    let text = table.text
    func touches(_ bytes: Range<Int>) -> Bool {
      if from < to { return bytes.overlaps(from..<to) }
      return bytes.contains(from)
        || from == bytes.upperBound && from == text.count && text.last != 0x0A
    }
    var differing = document.differing.filter { index in
      let bytes = document.bytes(ofInput: index)
      return touches(bytes.lowerBound..<bytes.upperBound)
    }
    // The block of the diagnostic the range touches comes first, preferred.
    if let touched = differing.firstIndex(where: {
      touches(document.file.content(of: document.file.inputs[$0]))
    }) {
      differing.insert(differing.remove(at: touched), at: 0)
    }
    let only = params["context"]?["only"]?.array?.compactMap(\.string)
    func wanted(_ kind: String) -> Bool {
      guard let only else { return true }
      return only.contains { kind == $0 || kind.hasPrefix($0 + ".") }
    }
    var actions: [JSON] = []
    func action(
      _ title: String, kind: String, _ edit: (range: Range<Int>, text: [UInt8])?,
      preferred: HandDocument.DocumentDiagnostic? = nil
    ) {
      guard let edit else { return }
      let change = JSON.object([
        ("range", json(table.range(of: edit.range, encoding))),
        ("newText", .string(String(decoding: edit.text, as: UTF8.self))),
      ])
      var fields: [(String, JSON)] = [("title", .string(title)), ("kind", .string(kind))]
      if let preferred {
        fields.append(("diagnostics", .array([diagnosticJSON(preferred, table)])))
        fields.append(("isPreferred", .bool(true)))
      }
      fields.append(("edit", .object([("changes", .object([(uri, .array([change]))]))])))
      actions.append(.object(fields))
    }
    if wanted("quickfix") {
      for (order, index) in differing.enumerated() {
        let content = document.file.content(of: document.file.inputs[index])
        let diagnostic =
          order == 0 ? document.diagnostics.first { $0.range == content } : nil
        action(
          "Accept the actual output (line \(document.file.inputs[index].number))",
          kind: "quickfix", document.acceptEdit(index), preferred: diagnostic)
      }
      if !differing.isEmpty {
        action("Accept every block in this file", kind: "quickfix", document.acceptEdit(nil))
      }
    }
    if wanted("source") {
      // A file with no expectations: one action for the whole file.
      if sourceEdit?.uri != uri || sourceEdit?.text != document.file.text {
        sourceEdit = (uri, document.file.text, document.expectationsEdit())
      }
      action(
        "Add the output as expectations (make this a golden test)", kind: "source",
        sourceEdit?.edit)
    }
    return .array(actions)
  }

  /// The edit of the last source action, with the document and the text
  /// it was made for.
  private var sourceEdit: (uri: String, text: [UInt8], edit: (range: Range<Int>, text: [UInt8])?)?

  private func diagnosticJSON(_ diagnostic: HandDocument.DocumentDiagnostic, _ table: LineTable)
    -> JSON
  {
    .object([
      ("range", json(table.range(of: diagnostic.range, encoding))),
      ("severity", .int(diagnostic.severity == .error ? 1 : 2)),
      ("source", .string("handsh")),
      ("message", .string(diagnostic.message)),
    ])
  }

  private mutating func definition(_ params: JSON) -> JSON? {
    guard let (uri, document, offset) = target(params) else { return nil }
    guard let file = document.sourcedFile(at: offset), !file.isEmpty else { return .null }
    let path = LanguageServer.absolute(
      LanguageServer.resolve(file, in: LanguageServer.folder(of: uri)), from: workingFolder)
    let start = json(DocumentPosition(line: 0, character: 0))
    return .object([
      ("uri", .string(LanguageServer.fileURI(path))),
      ("range", .object([("start", start), ("end", start)])),
    ])
  }

  // MARK: Paths and URIs

  /// A file name as a FILE word, as the prompt completes it: in double
  /// quotes (`"` and `\\` escaped) when it holds a space, a tab, `;`, `#`
  /// or `"`, or when the user opened a quote (`opened`: the opening quote
  /// is already typed), and the quote closed.
  static func fileWord(_ name: String, opened: Bool) -> String {
    let special = Set(" \t;#\"".utf8)
    guard opened || name.utf8.contains(where: special.contains) else { return name }
    var word = opened ? "" : "\""
    for character in name {
      if character == "\"" || character == "\\" { word.append("\\") }
      word.append(character)
    }
    word.append("\"")
    return word
  }

  /// The folder of the file a `file:` URI names, where its `source` and
  /// `save` names start; `.` for any other URI.
  static func folder(of uri: String) -> String {
    guard let path = filePath(uri) else { return "." }
    let bytes = Array(path.utf8)
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    return slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
  }

  /// The path of a `file:` URI, percent escapes decoded: `file:///x`,
  /// `file://HOST/x` and `file:/x` alike.
  static func filePath(_ uri: String) -> String? {
    var bytes = Array(uri.utf8)
    let scheme = Array("file:".utf8)
    guard bytes.count > scheme.count,
      String(decoding: bytes[..<scheme.count], as: UTF8.self).lowercased() == "file:"
    else { return nil }
    bytes.removeFirst(scheme.count)
    if bytes.starts(with: Array("//".utf8)) {
      // An authority (`localhost`, or none) before the path.
      bytes.removeFirst(2)
      guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
      bytes.removeFirst(slash)
    }
    guard bytes.first == UInt8(ascii: "/") else { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
        let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
      {
        out.append(high << 4 | low)
        i += 3
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `path` made absolute from `folder` (an absolute path), without `.`
  /// and `..` segments or doubled slashes: what a URI names.
  static func absolute(_ path: String, from folder: String) -> String {
    let whole = path.hasPrefix("/") ? path : folder + "/" + path
    var segments: [Substring] = []
    for segment in whole.split(separator: "/", omittingEmptySubsequences: true) {
      switch segment {
      case ".": continue
      case "..": if !segments.isEmpty { segments.removeLast() }
      default: segments.append(segment)
      }
    }
    return "/" + segments.joined(separator: "/")
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  /// A `file:` URI for `path`, every byte but the unreserved ones and `/`
  /// percent-escaped.
  static func fileURI(_ path: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out = Array("file://".utf8)
    for byte in path.utf8 {
      switch byte {
      case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
        out.append(byte)
      default:
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `file` as `source` in a document of `folder` reads it.
  static func resolve(_ file: String, in folder: String) -> String {
    // An empty name names no file, here as anywhere.
    if file.isEmpty || file.hasPrefix("/") { return file }
    return folder.hasSuffix("/") ? folder + file : folder + "/" + file
  }
}
