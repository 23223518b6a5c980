import HandKit

/// `handsh --test PATH…` (handsh(1), GOLDEN TESTS): finds the test files,
/// runs them in parallel in this one process, and prints the report in the
/// order of their paths, the same whatever `-j`. The engine (reading a
/// file's blocks, running it, the diff, TAP and JUnit) is HandKit's.
struct GoldenTestRun {
  let options: Options
  let settings: GoldenSettings

  init(options: Options) {
    self.options = options
    settings = GoldenSettings(
      seed: options.seed ?? 0, limit: options.limit, ascii: options.ascii, json: options.json,
      echo: options.echo, quiet: options.quiet)
  }

  /// What running one file found: its report line, and for a failing file
  /// what the report and `--review` need.
  struct FileRun {
    var report: GoldenFileReport
    var item: TestFiles.Item
    /// The line numbers of the input lines whose block differs.
    var differing: [Int] = []
    var result: GoldenResult?
    var snapshot: TestFiles.Snapshot?
    /// With `--junit`: the lines inside its `<testcase>`, made while the
    /// file was timed.
    var junitBody: [String]?
  }

  /// Whether the diffs are coloured: as hand lines are (handsh(1), Colour).
  private var color: Bool { options.color.colors(1) }

  /// Runs everything and prints the report; the exit status.
  func run(_ output: inout Output) -> Int32 {
    let started = Platform.monotonicSeconds()
    let items = TestFiles.shard(TestFiles.find(options.paths), options.shard)
    let jobs = max(1, min(options.jobs ?? Platform.processorCount(), items.count))
    var outcomes = parallelMap(items, jobs: jobs) { item in runOne(item) }
    if options.review { review(&outcomes, &output) }
    let reports = outcomes.map(\.report)
    let summary = GoldenSummary(reports)

    let terminal = Platform.isTerminal(1)
    let color = self.color
    for outcome in outcomes {
      let report = outcome.report
      switch report.status {
      case .passed, .skipped: break
      case .failed(let diff):
        output.flush()
        for line in outcome.differing where !options.review {
          Platform.printError("\(report.path):\(line): output differs")
        }
        if !options.tap && !options.review {
          output.buffer +=
            terminal || color ? shownDiff(diff, color: color, escaped: terminal) : diff
        }
      case .updated:
        if !options.tap { output.buffer += Array("updated \(report.path)\n".utf8) }
      case .error(let messages):
        output.flush()
        for message in messages { Platform.printError(message) }
      }
    }
    if options.tap {
      output.buffer += tapReport(reports, update: options.update)
    } else {
      let mode: GoldenSummary.Mode = options.review ? .review : options.update ? .update : .test
      output.buffer += Array((summary.line(mode) + "\n").utf8)
    }
    output.flush()
    var status: Int32 =
      summary.errors > 0 ? 2 : summary.failed > 0 || summary.kept > 0 ? 1 : 0
    if let junit = options.junit {
      let bodies = outcomes.map { $0.junitBody ?? junitCaseBody($0.report) }
      let xml = junitReport(
        reports, seconds: Platform.monotonicSeconds() - started, bodies: bodies)
      if let failure = writeFile(xml, to: junit) {
        Platform.printError("handsh: \(failure)")
        status = 2
      }
    }
    return status
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

  /// Reads, checks and runs one file, and with `--update` rewrites it;
  /// with `--junit` makes its test case's body too, within its time.
  private func runOne(_ item: TestFiles.Item) -> FileRun {
    let started = Platform.monotonicSeconds()
    var outcome = runTimed(item, started: started)
    if options.junit != nil {
      outcome.junitBody = junitCaseBody(outcome.report)
      outcome.report.seconds = Platform.monotonicSeconds() - started
    }
    return outcome
  }

  private func runTimed(_ item: TestFiles.Item, started: Double) -> FileRun {
    let shown = safeText(item.path)
    func outcome(_ status: GoldenFileReport.Status, type: String = "malformed") -> FileRun {
      FileRun(
        report: GoldenFileReport(
          path: shown, status: status, seconds: Platform.monotonicSeconds() - started,
          errorType: type, name: item.path),
        item: item)
    }
    if let problem = item.problem {
      return outcome(.error(["handsh: " + problem]), type: "unreadable")
    }
    let snapshot: TestFiles.Snapshot
    switch TestFiles.read(item.path) {
    case .success(let read): snapshot = read
    case .failure(let problem):
      return outcome(
        .error(["handsh: cannot read '\(shown)': \(problem.reason)"]), type: "unreadable")
    }
    let file = GoldenFile(text: snapshot.text, defaults: settings)
    guard file.diagnostics.isEmpty else {
      return outcome(.error(file.diagnostics.map { $0.text(path: shown) }))
    }
    guard !file.checksNothing else { return outcome(.skipped) }
    let result = file.run(effects: GoldenMemory(readFile: readTestSource))
    if let message = result.overflowMessage(path: shown) {
      // Never rewritten: no file could expect so much.
      return outcome(.error([message]), type: "output too large")
    }
    guard !result.passed else { return outcome(.passed) }
    let diff = result.diff(path: TestFiles.patchedName(item.path))
    guard !options.review else {
      var failed = outcome(.failed(diff: diff))
      failed.result = result
      failed.snapshot = snapshot
      failed.differing = result.differing.map { file.inputs[$0].number }
      return failed
    }
    guard options.update else {
      var failed = outcome(.failed(diff: diff))
      failed.differing = result.differing.map { file.inputs[$0].number }
      return failed
    }
    if let problem = TestFiles.rewrite(item.path, from: snapshot, to: result.updatedText) {
      return outcome(.error([TestFiles.updateFailure(shown, problem)]), type: "not updated")
    }
    return outcome(.updated(diff: diff))
  }
}
