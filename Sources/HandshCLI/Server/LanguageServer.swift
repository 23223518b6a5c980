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
  /// The regular file that a path names as `source` reads it (links
  /// followed, then `..`), as an absolute path; nil when there is none.
  /// Without it (tests, the fuzzer), the path itself.
  var locate: (String) -> String? = { $0 }

  /// The server's working folder, an absolute path: where a document that
  /// is not a file (`untitled:`) reads, and what a definition's URI is
  /// made absolute from.
  var workingFolder = "/"

  /// Whether newer input is waiting: a run for diagnostics asks it now and
  /// then, and stops when it is, since that input may replace its text.
  var interrupted: () -> Bool = { false }

  var encoding = PositionEncoding.utf16
  private(set) var initialized = false
  /// The client registers file watchers when asked.
  var watches = false
  private(set) var shutDown = false
  /// Set by `exit`: 0 after `shutdown`, else 1.
  private(set) var exitStatus: Int32?
  var documents: [String: OpenDocument] = [:]
  /// Ids of requests the client cancelled before they were answered.
  private var cancelled: [JSON] = []
  /// Documents closed since the last `publish`: their diagnostics are cleared.
  var closed: [String] = []
  /// Counts the changes of every document: the latest runs first.
  var changes = 0

  struct OpenDocument {
    var text: [UInt8]
    var version: JSON
    /// When it last changed (`changes`).
    var stamp = 0
    /// The run of `text`; nil until it is done.
    var analysis: HandDocument?
    /// Whether the diagnostics of the latest text are still to be sent.
    var unpublished = true
    /// The last finished run of an older text: what a request is answered
    /// from while the run of `text` goes on.
    var previous: HandDocument?
    /// `text` read alone, not run: what a request is answered from before
    /// any run of the document is done.
    var unrun: HandDocument?
    /// The run of `text`, queued or going on in the pool.
    var job: AnalysisJob?
    /// Whether a request already waited for that run and gave up.
    var waited = false
    /// The files the last finished run read, as `source` resolved them.
    var read: [String] = []
    /// The diagnostics of that run, written by it.
    var diagnostics: [UInt8]?
  }

  /// The runs, at most one per core; nil runs every document on the
  /// caller's thread, at once (tests, the fuzzer).
  var pool: RunPool?
  /// Called, from the thread of a run, when that run has finished: the
  /// process then sends what `publish` gives.
  var finished: @Sendable () -> Void = {}
  /// How long a request waits, once per run, for the run of the latest
  /// text before it is answered from the last finished run.
  static let patience = 0.05
  /// How long `shutdown` and the end of stdin wait, in all, for the runs
  /// going on, so that what the client changed last is still shown.
  static let closing = 0.05

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
      return method == "initialized" && initialized && !shutDown ? registrations() : []
    }
    if cancelled.contains(id) { return [error(id, .requestCancelled, "cancelled")] }
    // What is done of what the client changed before it asked to shut
    // down is still shown; runs going on are not waited for.
    let pending =
      method == "shutdown" && initialized && !shutDown
      ? publish(interruptible: false, within: LanguageServer.closing) : []
    return pending + [request(id, method, params)]
  }

  func error(_ id: JSON?, _ code: ErrorCode, _ message: String) -> JSON {
    .object([
      ("jsonrpc", .string("2.0")), ("id", id ?? .null),
      ("error", .object([("code", .int(code.rawValue)), ("message", .string(message))])),
    ])
  }

  func reply(_ id: JSON, _ result: JSON) -> JSON {
    .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
  }

  mutating func request(_ id: JSON, _ method: String, _ params: JSON) -> JSON {
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
    case "textDocument/foldingRange": result = foldingRanges(params)
    case "textDocument/documentSymbol": result = documentSymbols(params)
    case "textDocument/documentLink": result = documentLinks(params)
    case "textDocument/semanticTokens/full": result = semanticTokens(params)
    case "textDocument/formatting": result = formatting(params)
    default:
      return error(id, .methodNotFound, "unknown method '\(method)'")
    }
    guard let result else { return error(id, .invalidParams, "invalid params for '\(method)'") }
    return reply(id, result)
  }

  mutating func notify(_ method: String, _ params: JSON) {
    if method == "exit" {
      exitStatus = shutDown ? 0 : 1
      return
    }
    guard initialized, !shutDown else { return }
    switch method {
    case "textDocument/didOpen": open(params)
    case "textDocument/didChange": change(params)
    case "textDocument/didClose": close(params)
    case "textDocument/didSave": saved(params)
    case "workspace/didChangeWatchedFiles": watched(params)
    default: break
    }
  }
}
