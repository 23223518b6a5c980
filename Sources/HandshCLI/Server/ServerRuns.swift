import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The documents and their runs (handsh(1), EDITORS): what a change does,
/// what a request is answered from, and when diagnostics go out. Runs go
/// to the pool, the latest change first, and a run whose document changed
/// or closed is cancelled; a request never waits for a run longer than a
/// moment.
extension LanguageServer {
  // MARK: Changes

  mutating func open(_ params: JSON) {
    guard let item = params["textDocument"], let uri = item["uri"]?.string,
      let text = item["text"]?.string
    else { return }
    documents[uri]?.job?.cancel()
    changes += 1
    documents[uri] = OpenDocument(
      text: Array(text.utf8), version: item["version"] ?? .null, stamp: changes)
  }

  mutating func change(_ params: JSON) {
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
    documents[uri] = document
    rerun(uri)
  }

  /// The run of `uri`'s text is abandoned and made again: its last finished
  /// run answers until the new one is done.
  mutating func rerun(_ uri: String) {
    guard var document = documents[uri] else { return }
    document.previous = document.analysis ?? document.previous
    document.job?.cancel()
    document.job = nil
    document.waited = false
    document.analysis = nil
    document.unrun = nil
    document.unpublished = true
    changes += 1
    document.stamp = changes
    documents[uri] = document
  }

  mutating func close(_ params: JSON) {
    guard let uri = params["textDocument"]?["uri"]?.string else { return }
    documents[uri]?.job?.cancel()
    documents[uri] = nil
    closed.append(uri)
  }

  /// A file saved in the editor: every open document that read it runs
  /// again.
  mutating func saved(_ params: JSON) {
    guard let uri = params["textDocument"]?["uri"]?.string,
      let path = LanguageServer.filePath(uri)
    else { return }
    dependents(of: [path])
  }

  /// Files changed on disk: as when saved.
  mutating func watched(_ params: JSON) {
    let paths = (params["changes"]?.array ?? []).compactMap {
      $0["uri"]?.string.flatMap(LanguageServer.filePath)
    }
    dependents(of: paths)
  }

  /// Runs again every open document whose last run read one of `paths`.
  mutating func dependents(of paths: [String]) {
    let changed = Set(paths.map { LanguageServer.absolute($0, from: workingFolder) })
    guard !changed.isEmpty else { return }
    for uri in documents.keys.sorted() {
      guard let document = documents[uri] else { continue }
      let read = (document.analysis ?? document.previous) == nil ? [] : document.read
      if read.contains(where: { changed.contains(LanguageServer.absolute($0, from: workingFolder)) }
      ) {
        rerun(uri)
      }
    }
  }

  // MARK: Diagnostics

  /// The diagnostics of every document whose run is done since they were
  /// last sent, each with its version; a run is started for every document
  /// that has none. Without a pool the runs are made here, abandoned when
  /// `interruptible` and newer input waits (sent after that input is read).
  /// With a pool, runs not done are waited for up to `within` seconds in
  /// all (at `shutdown` and the end of stdin), never longer.
  mutating func publish(interruptible: Bool = true, within: Double = 0) -> [JSON] {
    let deadline = monotonicSeconds() + within
    var out: [JSON] = []
    for uri in closed where documents[uri] == nil {
      out.append(diagnosticsMessage(uri, version: nil, .array([])))
    }
    closed.removeAll()
    for uri in documents.keys.sorted() where documents[uri]?.unpublished == true {
      let diagnostics: JSON
      if pool == nil {
        guard let document = analysis(uri, interruptible: interruptible) else { continue }
        diagnostics = .raw(writer.diagnostics(document, uri: uri))
      } else {
        // Written by the run, on its thread.
        guard latest(uri, waiting: max(0, deadline - monotonicSeconds())) != nil,
          let written = documents[uri]?.diagnostics
        else { continue }
        diagnostics = .raw(written)
      }
      out.append(diagnosticsMessage(uri, version: documents[uri]?.version, diagnostics))
      documents[uri]?.unpublished = false
    }
    return out
  }

  func diagnosticsMessage(_ uri: String, version: JSON?, _ diagnostics: JSON) -> JSON {
    var params: [(String, JSON)] = [("uri", .string(uri))]
    if let version, version != .null { params.append(("version", version)) }
    params.append(("diagnostics", diagnostics))
    return .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/publishDiagnostics")),
      ("params", .object(params)),
    ])
  }

  // MARK: Runs

  /// What a request about document `uri` is answered from, at once: the
  /// run of its latest text when it is done (waited for a moment, once per
  /// run), else the last finished run of an older text, else the text read
  /// alone.
  mutating func answering(_ uri: String) -> HandDocument? {
    guard pool != nil else { return analysis(uri) }
    guard documents[uri] != nil else { return nil }
    let patience = documents[uri]?.waited == true ? 0 : LanguageServer.patience
    if let done = latest(uri, waiting: patience) { return done }
    documents[uri]?.waited = true
    if let previous = documents[uri]?.previous { return previous }
    return unrun(uri)
  }

  /// What completion is answered from: the run of the latest text when it
  /// is done (waited for a moment), else that text read alone, never an
  /// older text, whose words are not what the user typed.
  mutating func current(_ uri: String) -> HandDocument? {
    guard pool != nil else { return analysis(uri) }
    guard documents[uri] != nil else { return nil }
    let patience = documents[uri]?.waited == true ? 0 : LanguageServer.patience
    if let done = latest(uri, waiting: patience) { return done }
    documents[uri]?.waited = true
    return unrun(uri)
  }

  /// The latest text of `uri` read alone, not run.
  mutating func unrun(_ uri: String) -> HandDocument? {
    if let unrun = documents[uri]?.unrun { return unrun }
    guard let document = documents[uri] else { return nil }
    let unrun = HandDocument(
      text: document.text, defaults: GoldenSettings(ascii: ascii), runs: false)
    documents[uri]?.unrun = unrun
    return unrun
  }

  /// The run of the latest text of `uri`, queued in the pool when none is;
  /// nil when it is not done within `waiting` seconds.
  mutating func latest(_ uri: String, waiting: Double = 0) -> HandDocument? {
    guard let document = documents[uri] else { return nil }
    if let analysis = document.analysis { return analysis }
    let job = document.job ?? start(uri)
    guard let finished = job.result(waiting: waiting) else { return nil }
    let result = finished.analysis
    documents[uri]?.analysis = result
    documents[uri]?.read = finished.read
    documents[uri]?.diagnostics = finished.diagnostics
    documents[uri]?.previous = nil
    documents[uri]?.unrun = nil
    documents[uri]?.job = nil
    return result
  }

  /// Queues the run of `uri`'s text in the pool.
  private mutating func start(_ uri: String) -> AnalysisJob {
    let document = documents[uri] ?? OpenDocument(text: [], version: .null)
    let job = AnalysisJob(stamp: document.stamp)
    documents[uri]?.job = job
    let text = document.text
    let defaults = GoldenSettings(ascii: ascii)
    let reader = RunReader(
      read: readFile, folder: LanguageServer.folder(of: uri), stop: { job.isCancelled })
    let finished = finished
    let writer = writer
    pool?.submit(job) {
      guard !job.isCancelled else { return job.finish(nil) }
      let analysis = HandDocument(
        text: text, defaults: defaults, read: { reader.read($0) }, stop: { job.isCancelled })
      guard analysis.complete else { return job.finish(nil) }
      let diagnostics = writer.diagnostics(analysis, uri: uri)
      job.finish(.init(analysis: analysis, read: reader.names, diagnostics: diagnostics))
      finished()
    }
    return job
  }

  /// The run of document `uri`, made once per change, on this thread; nil
  /// when `interruptible` and `interrupted` stopped it.
  mutating func analysis(_ uri: String, interruptible: Bool = false) -> HandDocument? {
    guard let document = documents[uri] else { return nil }
    if let analysis = document.analysis { return analysis }
    let reader = RunReader(read: readFile, folder: LanguageServer.folder(of: uri), stop: { false })
    let analysis = HandDocument(
      text: document.text, defaults: GoldenSettings(ascii: ascii), read: { reader.read($0) },
      stop: interruptible ? interrupted : { false })
    guard analysis.complete else { return nil }
    documents[uri]?.analysis = analysis
    documents[uri]?.read = reader.names
    return analysis
  }
}

/// How one run reads the files its `source`s name: relative to the
/// document's folder, each file read once per run (a file sourced a
/// million times is read once), nothing read once the run is cancelled;
/// the names read are kept, for running the document again when one
/// changes.
final class RunReader: @unchecked Sendable {
  private let readFile: @Sendable (String) -> Result<[UInt8], ReadFailure>
  private let folder: String
  private let stop: @Sendable () -> Bool
  private var kept: [String: Result<[UInt8], ReadFailure>] = [:]
  private var keptBytes = 0
  /// The files read, as resolved, in the order first read.
  private(set) var names: [String] = []

  /// The most bytes kept for reading again.
  static let keptLimit = 64 << 20

  init(
    read: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure>, folder: String,
    stop: @escaping @Sendable () -> Bool
  ) {
    readFile = read
    self.folder = folder
    self.stop = stop
  }

  func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    let path = LanguageServer.resolve(file, in: folder)
    if let known = kept[path] { return known }
    guard !stop() else { return .failure(ReadFailure("abandoned")) }
    let result = readFile(path)
    if !names.contains(path) { names.append(path) }
    let size = (try? result.get().count) ?? 0
    if keptBytes + size <= RunReader.keptLimit {
      kept[path] = result
      keptBytes += size
    }
    return result
  }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
