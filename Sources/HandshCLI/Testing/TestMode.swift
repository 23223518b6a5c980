import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `handsh --test PATH…` (handsh(1), GOLDEN TESTS): finds the test files,
/// runs them in parallel in this one process, and prints the report in the
/// order of their paths, the same whatever `-j`. The engine (reading a
/// file's blocks, running it, the diff, TAP and JUnit) is HandKit's.
struct GoldenTestRun {
  let options: Options
  let settings: GoldenSettings
  /// The largest file `--update` writes: what `--test` reads (tests make it
  /// smaller).
  var updateLimit = TestFiles.goldenSizeLimit

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

  /// How many finished files may wait for a slower one before them: the
  /// bound of a run's memory, whatever the number of files.
  private func window(jobs: Int) -> Int { 2 * jobs + 2 }

  /// Runs everything and prints the report as the files finish; the exit
  /// status. SIGINT, SIGTERM or SIGHUP stops the run: the files still
  /// running are reported `PATH: interrupted`, the summary and the JUnit
  /// file are written, and handsh ends by that signal.
  func run(_ output: inout Output) -> Int32 {
    let started = Platform.monotonicSeconds()
    let items = TestFiles.shard(TestFiles.find(options.paths), options.shard)
    let jobs = max(1, min(options.jobs ?? Platform.processorCount(), items.count))
    output.flush()
    var report = TestReport(options: options, color: color, terminal: Platform.isTerminal(1))
    if options.review { return runReview(items, jobs: jobs, &report, &output, started: started) }
    report.begin(count: items.count)
    // From here a signal that ends handsh is held until the loop below
    // looks at it: the report so far is finished first.
    handsh_results_waiting(1)
    let work = OrderedRun(items: items, window: window(jobs: jobs)) { item in runOne(item) }
    let end = work.run(jobs: jobs, shouldStop: Self.signalled) { _, outcome in
      report.add(outcome)
      report.flush()
    }
    guard case .stopped(let left) = end else {
      let status = report.finish(seconds: Platform.monotonicSeconds() - started)
      // A signal that came while the end was written: the report is whole.
      if Self.signalled() { Self.endBySignal() }
      handsh_results_waiting(0)
      return status
    }
    let now = Platform.monotonicSeconds()
    for (index, result, began) in left {
      report.add(result ?? interrupted(items[index], seconds: now - began))
    }
    _ = report.finish(seconds: now - started)
    Self.endBySignal()
  }

  /// `--review`: every file run first, then the questions, then the report.
  private func runReview(
    _ items: [TestFiles.Item], jobs: Int, _ report: inout TestReport, _ output: inout Output,
    started: Double
  ) -> Int32 {
    var outcomes: [FileRun] = []
    outcomes.reserveCapacity(items.count)
    let work = OrderedRun(items: items, window: items.count) { item in runOne(item) }
    let never: () -> Bool = { false }
    _ = work.run(jobs: jobs, shouldStop: never) { _, outcome in outcomes.append(outcome) }
    review(&outcomes, &output)
    for outcome in outcomes { report.add(outcome) }
    return report.finish(seconds: Platform.monotonicSeconds() - started)
  }

  /// Whether a signal that ends handsh came (held for the report, or
  /// waiting for a file being rewritten).
  private static func signalled() -> Bool {
    handsh_signal_held() != 0 || handsh_signal_waiting() != 0
  }

  /// Ends handsh by the signal that stopped the run, once every file being
  /// rewritten is whole: that rewrite's end ends handsh (handsh(1),
  /// SIGNALS); after a minute without it, here.
  private static func endBySignal() -> Never {
    let held = handsh_signal_held()
    let number = held != 0 ? held : handsh_signal_waiting()
    handsh_end_after_results(1, nil, 0)
    for _ in 0..<6000 {
      var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
      nanosleep(&pause, nil)
    }
    handsh_die_by_signal(number)
  }

  /// The report of a file still running when the run stopped.
  private func interrupted(_ item: TestFiles.Item, seconds: Double) -> FileRun {
    let shown = safeText(item.path)
    var run = FileRun(
      report: GoldenFileReport(
        path: shown, status: .error(["\(shown): interrupted"]), seconds: seconds,
        errorType: "interrupted", name: item.path),
      item: item)
    run.junitBody = junitCaseBody(run.report)
    return run
  }

  /// Reads, checks and runs one file, and with `--update` rewrites it;
  /// with `--junit` makes its test case's body too, within its time.
  func runOne(_ item: TestFiles.Item) -> FileRun {
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
    let effects = GoldenMemory(readFile: readTestSource)
    var result: GoldenResult
    if let seconds = options.timeout {
      let deadline = started + Double(seconds)
      result = file.run(effects: effects) { Platform.monotonicSeconds() >= deadline }
      if let line = result.stoppedLine {
        // Never rewritten: what it would print is not known.
        return outcome(
          .error(["\(shown):\(line): timed out after \(seconds) s"]), type: "timed out")
      }
    } else {
      result = file.run(effects: effects)
    }
    if let message = result.overflowMessage(path: shown) {
      // Never rewritten: no file could expect so much.
      return outcome(.error([message]), type: "output too large")
    }
    guard !result.passed else { return outcome(.passed) }
    let updated = result.updatedText
    if options.update, updated.count > updateLimit {
      // `--test` would refuse the file it became.
      return outcome(.error([TestFiles.tooLargeToUpdate(shown)]), type: "not updated")
    }
    let diff = result.diff(path: TestFiles.patchedName(item.path), to: updated)
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
    if let problem = TestFiles.rewrite(item.path, from: snapshot, to: updated) {
      return outcome(.error([TestFiles.updateFailure(shown, problem)]), type: "not updated")
    }
    return outcome(.updated(diff: diff))
  }
}
