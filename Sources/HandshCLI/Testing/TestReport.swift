import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The report of `--test`, written file by file as the files finish
/// (handsh(1), GOLDEN TESTS): each file's `PATH:LINE: output differs`
/// lines and errors on stderr, its diff or its TAP test point on stdout,
/// its JUnit test case into a spool; at the end the summary, and the JUnit
/// file, written whole (atomically) from the spool. Nothing of a file is
/// kept once it is written, so memory does not grow with the files.
struct TestReport {
  let options: Options
  private let color: Bool
  private let terminal: Bool
  private(set) var summary = GoldenSummary([])
  private var junit: JUnitSpool?
  /// stdout's bytes not yet written: written before anything on stderr,
  /// and at the end of each batch.
  private var pending: [UInt8] = []
  /// The errno of the first failed write of stdout; nothing more goes there.
  private(set) var failure: Int32?

  init(options: Options, color: Bool, terminal: Bool) {
    self.options = options
    self.color = color
    self.terminal = terminal
    if options.junit != nil { junit = JUnitSpool() }
  }

  /// The start: with `--tap`, the version and the plan of `count` files.
  mutating func begin(count: Int) {
    if options.tap { pending += tapHeader(count: count) }
  }

  /// One file's report, in order.
  mutating func add(_ outcome: GoldenTestRun.FileRun) {
    let report = outcome.report
    summary.add(report)
    switch report.status {
    case .passed, .skipped: break
    case .failed(let diff):
      if !options.review {
        flush()
        for line in outcome.differing {
          Platform.printError("\(report.path):\(line): output differs")
        }
      }
      if !options.tap && !options.review {
        pending += terminal || color ? shownDiff(diff, color: color, escaped: terminal) : diff
      }
    case .updated:
      if !options.tap { pending += Array("updated \(report.path)\n".utf8) }
    case .error(let messages):
      flush()
      for message in messages { Platform.printError(message) }
    }
    if options.tap { pending += tapLines(report, number: summary.files) }
    junit?.append(junitCase(report, body: outcome.junitBody ?? junitCaseBody(report)))
    if pending.count >= 1 << 16 { flush() }
  }

  /// Writes what waits for stdout.
  mutating func flush() {
    guard !pending.isEmpty else { return }
    defer { pending.removeAll(keepingCapacity: pending.count <= 1 << 20) }
    guard failure == nil else { return }
    failure = pending.withUnsafeBytes { Platform.write(1, $0) }
  }

  /// The end: the summary line (with `--tap`, a closing comment), then the
  /// JUnit file; the exit status.
  mutating func finish(seconds: Double) -> Int32 {
    if options.tap {
      pending += tapFooter(summary, update: options.update)
    } else {
      let mode: GoldenSummary.Mode = options.review ? .review : options.update ? .update : .test
      pending += Array((summary.line(mode) + "\n").utf8)
    }
    flush()
    var status: Int32 =
      summary.errors > 0 ? 2 : summary.failed > 0 || summary.kept > 0 ? 1 : 0
    if let path = options.junit, let spool = junit {
      let header = junitHeader(summary, seconds: seconds)
      if let problem = writeFile(spool.source(header: header, footer: junitFooter), to: path) {
        Platform.printError("handsh: \(problem)")
        status = 2
      }
    }
    if let failure {
      // A closed pipe ends handsh quietly, like `cat`.
      if failure != EPIPE {
        Platform.printError("handsh: write error: \(Platform.describe(failure))")
      }
      status = max(status, 1)
    }
    return status
  }
}

/// A diff as a terminal shows it: removed lines red, added lines green,
/// hunk headers cyan when `color`; control characters and the like made
/// safe as in diagnostics when `escaped`.
func shownDiff(_ diff: [UInt8], color: Bool, escaped: Bool) -> [UInt8] {
  var out: [UInt8] = []
  var lines = diff.split(separator: 0x0A, omittingEmptySubsequences: false)
  if lines.last?.isEmpty == true { lines.removeLast() }
  for line in lines {
    let text = escaped ? Array(safeText(line).utf8) : Array(line)
    var paint: String?
    if color, !line.starts(with: "--- ".utf8), !line.starts(with: "+++ ".utf8) {
      switch line.first {
      case UInt8(ascii: "-"): paint = "31"
      case UInt8(ascii: "+"): paint = "32"
      case UInt8(ascii: "@"): paint = "36"
      default: break
      }
    }
    if let paint {
      out += Array("\u{1B}[\(paint)m".utf8) + text + Array("\u{1B}[0m".utf8)
    } else {
      out += text
    }
    out.append(0x0A)
  }
  return out
}

/// The JUnit test cases of a run, kept on disk as they come (an unnamed
/// temporary file, `tmpfile(3)`) rather than in memory, until the file is
/// written whole at the end with the totals in front; in memory only when
/// no temporary file can be made.
final class JUnitSpool {
  private let file: UnsafeMutablePointer<FILE>?
  private var size = 0
  private var memory: [UInt8] = []
  /// A write to the temporary file failed: what it held moves to memory.
  private var broken = false

  init() { file = tmpfile() }

  deinit { if let file { fclose(file) } }

  func append(_ bytes: [UInt8]) {
    if let file, !broken {
      let fd = fileno(file)
      if bytes.withUnsafeBytes({ Platform.writeAll(fd, $0, at: size) }) == nil {
        size += bytes.count
        return
      }
      broken = true
      memory = read(upTo: size)
    }
    memory += bytes
  }

  /// The first `count` bytes of the temporary file.
  private func read(upTo count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    chunks(count) { chunk in
      bytes += chunk
      return true
    }
    return bytes
  }

  /// Hands `body` the temporary file's first `count` bytes in pieces of
  /// 1 MiB, until it answers false.
  private func chunks(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Bool) {
    guard let file else { return }
    let fd = fileno(file)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset = 0
    while offset < count {
      let got = buffer.withUnsafeMutableBytes { raw in
        pread(fd, raw.baseAddress, min(raw.count, count - offset), off_t(offset))
      }
      if got < 0, errno == EINTR { continue }
      guard got > 0 else { return }
      offset += got
      let going = buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
      if !going { return }
    }
  }

  /// The whole report: `header`, every case in order, `footer`.
  func source(header: [UInt8], footer: [UInt8]) -> WriteSource {
    WriteSource { [self] body in
      guard header.withUnsafeBytes(body) else { return }
      if !broken {
        var going = true
        chunks(size) { chunk in
          going = body(chunk)
          return going
        }
        guard going else { return }
      }
      guard memory.withUnsafeBytes(body) else { return }
      _ = footer.withUnsafeBytes(body)
    }
  }
}
