import CHandsh
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
  struct Outcome {
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
  private func runOne(_ item: TestFiles.Item) -> Outcome {
    let started = Platform.monotonicSeconds()
    var outcome = runTimed(item, started: started)
    if options.junit != nil {
      outcome.junitBody = junitCaseBody(outcome.report)
      outcome.report.seconds = Platform.monotonicSeconds() - started
    }
    return outcome
  }

  private func runTimed(_ item: TestFiles.Item, started: Double) -> Outcome {
    let shown = safeText(item.path)
    func outcome(_ status: GoldenFileReport.Status, type: String = "malformed") -> Outcome {
      Outcome(
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

/// Finding test files in PATHs, reading them, and rewriting one.
enum TestFiles {
  struct Item {
    /// PATH joined to the rest with one `/`.
    var path: [UInt8]
    /// Why it cannot run (a PATH that does not exist, a folder without
    /// tests, a FIFO); the message after `handsh: `.
    var problem: String?
    /// A problem of a PATH itself (it does not exist, or holds no test):
    /// reported by every part of a `--shard` run, never split off.
    var ofOperand = false
  }

  /// `--shard K/N`: file I of `items` (from 0, in the report's order) goes
  /// to part `I mod N + 1`, and only part K is kept; the problems of a
  /// PATH itself stay in every part.
  static func shard(_ items: [Item], _ shard: Options.Shard?) -> [Item] {
    guard let shard else { return items }
    var kept: [Item] = []
    var index: UInt64 = 0
    for item in items {
      if item.ofOperand {
        kept.append(item)
        continue
      }
      if index % shard.count + 1 == shard.part { kept.append(item) }
      index += 1
    }
    return kept
  }

  /// Every file the PATHs name, folders searched for `*.hand` (skipping
  /// names that start with `.`, not following links to folders), in byte
  /// order of their paths, each file once whatever the names it is found
  /// under (`x.hand ./x.hand`, a hard link): under its first name. What is
  /// not a regular file, and a folder that cannot be listed or searched,
  /// is an error, never skipped in silence.
  static func find(_ paths: [[UInt8]]) -> [Item] {
    var items: [Item] = []
    for operand in paths {
      var base = operand
      while base.count > 1, base.last == UInt8(ascii: "/") { base.removeLast() }
      var status = stat()
      guard Platform.status(of: base, &status, follow: true) else {
        let reason = Platform.describe(errno)
        items.append(
          Item(
            path: base, problem: "cannot open '\(safeText(base))': \(reason)", ofOperand: true))
        continue
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        var found: [Item] = []
        walk(base, into: &found)
        if found.isEmpty {
          found.append(
            Item(path: base, problem: "no .hand files in '\(safeText(base))'", ofOperand: true))
        }
        items += found
      case S_IFREG:
        items.append(Item(path: base, problem: nil))
      default:
        items.append(Item(path: base, problem: notRegular(base)))
      }
    }
    items.sort { $0.path.lexicographicallyPrecedes($1.path) }
    var unique: [Item] = []
    var seen = Set<FileID>()
    for item in items where unique.last?.path != item.path {
      var status = stat()
      if item.problem == nil, Platform.status(of: item.path, &status, follow: true) {
        guard
          seen.insert(FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))).inserted
        else { continue }
      }
      unique.append(item)
    }
    return unique
  }

  /// A file, whatever the names it goes by.
  struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  private static func notRegular(_ path: [UInt8]) -> String {
    "cannot read '\(safeText(path))': not a regular file"
  }

  private static func walk(_ folder: [UInt8], into items: inout [Item]) {
    let prefix = folder == [UInt8(ascii: "/")] ? folder : folder + [UInt8(ascii: "/")]
    guard let names = Platform.folderEntries(folder) else {
      let reason = Platform.describe(errno)
      items.append(Item(path: folder, problem: "cannot read '\(safeText(folder))': \(reason)"))
      return
    }
    var unsearchable = false
    for name in names where name.first != UInt8(ascii: ".") {
      let path = prefix + name
      var status = stat()
      guard Platform.status(of: path, &status, follow: false) else {
        let code = errno
        if code == ENOENT { continue }  // gone since the folder was listed
        if code == EACCES {
          // A folder that can be listed but not searched: said once.
          if !unsearchable {
            items.append(
              Item(
                path: folder,
                problem: "cannot search '\(safeText(folder))': \(Platform.describe(code))"))
          }
          unsearchable = true
          continue
        }
        items.append(
          Item(path: path, problem: "cannot read '\(safeText(path))': \(Platform.describe(code))"))
        continue
      }
      var kind = status.st_mode & S_IFMT
      if kind == S_IFLNK {
        // A link to a folder is not followed; a link to a file is a file,
        // and so is a broken link (reading it says what is wrong).
        if Platform.status(of: path, &status, follow: true) {
          kind = status.st_mode & S_IFMT
          if kind == S_IFDIR { continue }
        } else {
          kind = S_IFREG
        }
      }
      if kind == S_IFDIR {
        walk(path, into: &items)
      } else if name.count > 5, name.suffix(5).elementsEqual(".hand".utf8) {
        items.append(Item(path: path, problem: kind == S_IFREG ? nil : notRegular(path)))
      }
    }
  }

  /// A test file as it was read: its bytes, and its size and time then.
  struct Snapshot {
    var text: [UInt8]
    var size: Int
    var modified: timespec
  }

  struct ReadProblem: Error {
    var reason: String
  }

  /// The largest golden test handsh reads: 64 MiB (handsh(1), LIMITS).
  static let goldenSizeLimit = 64 << 20

  /// Reads a whole regular file with the one reader, whatever the lengths
  /// of its lines, unless it is over `goldenSizeLimit`. A path that is not a regular file is refused, and never
  /// blocks: opened without waiting, and checked before the first read.
  static func read(_ path: [UInt8]) -> Result<Snapshot, ReadProblem> {
    switch readFile(path, others: .refuse, whole: true, sizeLimit: goldenSizeLimit) {
    case .success(let file):
      return .success(
        Snapshot(
          text: file.bytes, size: Int(file.status.st_size), modified: file.status.st_mtim))
    case .failure(let error):
      return .failure(ReadProblem(reason: error.reason))
    }
  }

  /// Whether the file at `path` is still what `snapshot` read: its size,
  /// its time and its contents.
  static func unchanged(_ path: [UInt8], since snapshot: Snapshot) -> Bool {
    var status = stat()
    guard Platform.status(of: path, &status, follow: true),
      Int(status.st_size) == snapshot.size,
      status.st_mtim.tv_sec == snapshot.modified.tv_sec,
      status.st_mtim.tv_nsec == snapshot.modified.tv_nsec,
      case .success(let now) = read(path)
    else { return false }
    return now.text == snapshot.text
  }

  /// The name a diff's headers give the file at `path`: the path itself
  /// when no symbolic link leads to it; else the file `--update` writes, the
  /// path with every link resolved (to a file or to a folder), written as
  /// the PATH that reached it is: from the current folder, with `./` in
  /// front when the path has it (`./t/link.hand` -> `./t/real.hand`), or
  /// from `/` for an absolute one. So GNU patch, which refuses to patch
  /// through a link, and `git apply` (`-p0`, or by default with `./`),
  /// which refuses a name beyond a link, both take it. A target outside the
  /// current folder gets `..` steps; one whose real path cannot be found
  /// keeps the path.
  static func patchedName(_ path: [UInt8]) -> [UInt8] {
    let slash = UInt8(ascii: "/")
    guard let target = realPath(path) else { return path }
    let absolute = path.first == slash
    var here: [UInt8] = []
    if !absolute {
      guard let current = realPath([0x2E]) else { return path }
      here = current
    }
    // The path as it would be with no link on the way.
    var lexical: [[UInt8]] = absolute ? [] : here.split(separator: slash).map(Array.init)
    for part in path.split(separator: slash) {
      if part.elementsEqual([0x2E]) { continue }
      if part.elementsEqual([0x2E, 0x2E]) {
        if !lexical.isEmpty { lexical.removeLast() }
        continue
      }
      lexical.append(Array(part))
    }
    let targetParts = target.split(separator: slash).map(Array.init)
    guard targetParts != lexical else { return path }
    if absolute { return target }
    let hereParts = here.split(separator: slash).map(Array.init)
    var common = 0
    while common < min(targetParts.count, hereParts.count),
      targetParts[common] == hereParts[common]
    {
      common += 1
    }
    // Under the current folder a plain relative path; elsewhere one with
    // `..` steps.
    let ups = hereParts.count - common
    let rest = Array(targetParts[common...])
    guard !rest.isEmpty else { return path }
    let steps = Array(repeating: [UInt8]("..".utf8), count: ups) + rest
    let relative = Array(steps.joined(separator: [slash]))
    return ups == 0 && path.starts(with: [0x2E, slash]) ? [0x2E, slash] + relative : relative
  }

  /// realpath(3) of a path given as bytes, or nil.
  private static func realPath(_ path: [UInt8]) -> [UInt8]? {
    let resolved: UnsafeMutablePointer<CChar>?? = Platform.withCPath(path) { realpath($0, nil) }
    guard let resolved = resolved ?? nil else { return nil }
    defer { free(resolved) }
    return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }

  /// The message of a file that changed while the tests ran.
  static let changedMessage = "changed while the tests ran; not updated"

  /// The error line of a file `--update` could not rewrite (`shown`: its
  /// path made safe): `PATH: changed while the tests ran; not updated`, or
  /// `handsh: cannot update 'PATH': REASON`.
  static func updateFailure(_ shown: String, _ problem: String) -> String {
    problem == changedMessage
      ? "\(shown): \(problem)" : "handsh: cannot update '\(shown)': \(problem)"
  }

  /// `--update`: writes `new` over the file at `path` as `save` writes
  /// (atomically, its mode kept), unless it is no longer what `snapshot`
  /// read: checked last, after the new text is written and flushed, right
  /// before the rename. Why not, when it fails. `beforeCheck` is for tests:
  /// it runs right before that check.
  static func rewrite(
    _ path: [UInt8], from snapshot: Snapshot, to new: [UInt8],
    beforeCheck: (() -> Void)? = nil
  ) -> String? {
    var changed = false
    let failure = writeFile(new, to: path) {
      beforeCheck?()
      changed = !unchanged(path, since: snapshot)
      return !changed
    }
    if changed { return changedMessage }
    // The reason as the writer gives it: `(PATH is damaged: …)` included.
    return failure.map(\.reason)
  }
}

/// `transform` applied to every item, on up to `jobs` threads; the results
/// in the order of the items.
func parallelMap<Item, Result>(
  _ items: [Item], jobs: Int, _ transform: @escaping (Item) -> Result
) -> [Result] {
  guard jobs > 1, items.count > 1 else { return items.map(transform) }
  let work = ParallelWork(items: items, transform: transform)
  let job = Job { work.perform() }
  var threads: [pthread_t] = []
  // Born blocking the signals that end handsh: only the main thread takes
  // them, and the policy waits for every thread's write (handsh(1), SIGNALS).
  handsh_threads_begin()
  for _ in 1..<jobs {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(job).toOpaque()
    let created = pthread_create(
      &thread, nil,
      { context in
        if let context { Unmanaged<Job>.fromOpaque(context).takeRetainedValue().run() }
        return nil
      }, context)
    if created == 0 {
      threads.append(thread)
    } else {
      Unmanaged<Job>.fromOpaque(context).release()
    }
  }
  handsh_threads_end()
  // This thread works too, so the run goes on even if no thread started.
  work.perform()
  for thread in threads { pthread_join(thread, nil) }
  return work.results()
}

/// What a worker thread runs.
private final class Job: @unchecked Sendable {
  let run: () -> Void
  init(_ run: @escaping () -> Void) { self.run = run }
}

/// The shared state of `parallelMap`: the next item to take, under a lock,
/// and one result slot per item, each written by one thread only.
private final class ParallelWork<Item, Result>: @unchecked Sendable {
  private let items: [Item]
  private let transform: (Item) -> Result
  private let slots: UnsafeMutableBufferPointer<Result?>
  private var next = 0
  private let lock: UnsafeMutablePointer<pthread_mutex_t>

  init(items: [Item], transform: @escaping (Item) -> Result) {
    self.items = items
    self.transform = transform
    slots = .allocate(capacity: items.count)
    slots.initialize(repeating: nil)
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
  }

  deinit {
    pthread_mutex_destroy(lock)
    lock.deallocate()
    _ = slots.deinitialize()
    slots.deallocate()
  }

  private func take() -> Int? {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    guard next < items.count else { return nil }
    next += 1
    return next - 1
  }

  func perform() {
    while let index = take() { slots[index] = transform(items[index]) }
  }

  func results() -> [Result] { slots.compactMap { $0 } }
}
