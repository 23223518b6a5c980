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

  /// Runs everything and prints the report; the exit status.
  func run(_ output: inout Output) -> Int32 {
    let started = Platform.monotonicSeconds()
    let items = TestFiles.find(options.paths)
    let jobs = max(1, min(options.jobs ?? Platform.processorCount(), items.count))
    let reports = parallelMap(items, jobs: jobs) { item in runOne(item) }
    let summary = GoldenSummary(reports)

    for report in reports {
      switch report.status {
      case .passed: break
      case .failed(let diff):
        if !options.tap { output.buffer += diff }
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
      output.buffer += Array((summary.line(update: options.update) + "\n").utf8)
    }
    output.flush()
    var status: Int32 = summary.errors > 0 ? 2 : summary.failed > 0 ? 1 : 0
    if let junit = options.junit {
      let xml = junitReport(reports, seconds: Platform.monotonicSeconds() - started)
      if let failure = writeFile(xml, to: junit) {
        Platform.printError("handsh: \(failure)")
        status = 2
      }
    }
    return status
  }

  /// Reads, checks and runs one file, and with `--update` rewrites it.
  private func runOne(_ item: TestFiles.Item) -> GoldenFileReport {
    let started = Platform.monotonicSeconds()
    let shown = safeText(item.path)
    func report(_ status: GoldenFileReport.Status) -> GoldenFileReport {
      GoldenFileReport(path: shown, status: status, seconds: Platform.monotonicSeconds() - started)
    }
    if let problem = item.problem { return report(.error(["handsh: " + problem])) }
    let text: [UInt8]
    switch readFile(item.path) {
    case .success(let bytes): text = bytes
    case .failure(let error):
      return report(.error(["handsh: cannot read '\(shown)': \(Platform.describe(error.code))"]))
    }
    let file = GoldenFile(text: text, defaults: settings)
    guard file.diagnostics.isEmpty else {
      return report(.error(file.diagnostics.map { $0.text(path: shown) }))
    }
    let result = file.run(effects: DiskSaves())
    guard !result.passed else { return report(.passed) }
    let updated = result.updatedText
    let diff = result.diff(path: shown)
    guard options.update else { return report(.failed(diff: diff)) }
    if let problem = TestFiles.rewrite(item.path, from: text, to: updated) {
      return report(.error(["handsh: cannot update '\(shown)': \(problem)"]))
    }
    return report(.updated(diff: diff))
  }
}

/// `save` in a test writes as usual, relative to the current folder.
struct DiskSaves: GoldenEffects {
  mutating func save(_ script: String, to file: String) -> String? {
    writeFile(Array(script.utf8), to: Array(file.utf8)).map { Platform.describe($0.code) }
  }

  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> { readSourced(file) }
}

/// Finding test files in PATHs, and rewriting one.
enum TestFiles {
  struct Item {
    /// PATH joined to the rest with one `/`.
    var path: [UInt8]
    /// Why it cannot run (a PATH that does not exist, a folder without
    /// tests); the message after `handsh: `.
    var problem: String?
  }

  /// Every file the PATHs name, folders searched for `*.hand` (skipping
  /// names that start with `.`, not following links to folders), in byte
  /// order of their paths, each once.
  static func find(_ paths: [[UInt8]]) -> [Item] {
    var items: [Item] = []
    for operand in paths {
      var base = operand
      while base.count > 1, base.last == UInt8(ascii: "/") { base.removeLast() }
      var status = stat()
      guard Platform.status(of: base, &status, follow: true) else {
        let reason = Platform.describe(errno)
        items.append(Item(path: base, problem: "cannot open '\(safeText(base))': \(reason)"))
        continue
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        items.append(Item(path: base, problem: nil))
        continue
      }
      var found: [Item] = []
      walk(base, into: &found)
      if found.isEmpty {
        found.append(Item(path: base, problem: "no .hand files in '\(safeText(base))'"))
      }
      items += found
    }
    items.sort { $0.path.lexicographicallyPrecedes($1.path) }
    var unique: [Item] = []
    for item in items where unique.last?.path != item.path { unique.append(item) }
    return unique
  }

  private static func walk(_ folder: [UInt8], into items: inout [Item]) {
    let prefix = folder == [UInt8(ascii: "/")] ? folder : folder + [UInt8(ascii: "/")]
    guard let names = Platform.folderEntries(folder) else {
      let reason = Platform.describe(errno)
      items.append(Item(path: folder, problem: "cannot read '\(safeText(folder))': \(reason)"))
      return
    }
    for name in names where name.first != UInt8(ascii: ".") {
      let path = prefix + name
      var status = stat()
      guard Platform.status(of: path, &status, follow: false) else { continue }
      var kind = status.st_mode & S_IFMT
      if kind == S_IFLNK {
        // A link to a folder is not followed; a link to a file is a file,
        // and so is a broken link (reading it says what is wrong).
        if Platform.status(of: path, &status, follow: true) {
          kind = status.st_mode & S_IFMT
          if kind == S_IFDIR { continue }
        }
      }
      if kind == S_IFDIR {
        walk(path, into: &items)
      } else if name.count > 5, name.suffix(5).elementsEqual(".hand".utf8) {
        items.append(Item(path: path, problem: nil))
      }
    }
  }

  /// `--update`: writes `new` over the file at `path` atomically, keeping
  /// its mode, unless it no longer holds `old`. Why not, when it fails.
  static func rewrite(_ path: [UInt8], from old: [UInt8], to new: [UInt8]) -> String? {
    var status = stat()
    guard Platform.status(of: path, &status, follow: true) else { return Platform.describe(errno) }
    guard case .success(let now) = readFile(path), now == old else {
      return "it changed while the tests ran; not overwritten"
    }
    // As save writes (a link's target, hard links in place, the mode kept).
    return writeFile(new, to: path).map { Platform.describe($0.code) }
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
