/// A test's output captured line by line, each line with its stream.
struct CaptureSink<Effects: GoldenEffects>: CommandSink {
  var out: [UInt8] = []
  var lines: [OutputLine] = []
  var effects: Effects
  /// `new` without a seed draws from the file's seed, so a test is
  /// reproducible (handsh(1), GOLDEN TESTS).
  var seeds: SplitMix64
  /// Whether the problems found now are syntax errors (the line is being
  /// checked) rather than failed commands.
  var checking = false
  /// The problems of the line running, with their columns, for an editor.
  var problems: [LineProblem] = []
  /// The words of the command whose failure is about to be reported.
  var failedSpan: Range<Int>?
  /// The bytes of the test's output so far (each line with its break).
  var written = 0
  /// Set once the output passed `outputLimit`: the line stops there.
  var overflowed = false
  var outputLimit = goldenOutputLimit

  /// Whether the lines are kept: an editor that shows no blocks (a file
  /// with no expectations) needs only their size.
  var keeps = true

  /// An editor's bounds on the run: at most so many commands, and a
  /// question asked now and then, also inside a `source`d file.
  var bounds: GoldenBounds?
  /// Commands run so far, `source`d ones counted.
  var commands = 0
  /// The index of the input line on which the run passed its commands.
  var exhausted: Int?
  /// `bounds.stop` said to stop: nothing of the run is of use.
  var abandoned = false

  mutating func commandFailed(span: Range<Int>) { failedSpan = span }

  /// The actual block of each input line run so far.
  var actual: [[OutputLine]] = []
  /// The index of the input line whose output passed the bound.
  var overflow: Int?
  /// Told after each input line (`GoldenFile.run`); false stops the run.
  var observe: ((Int, Session, [LineProblem]) -> Bool)?
  /// Asked after each command and each input line: true stops the test
  /// there (a runner's time limit; the core keeps no clock).
  var stop: (() -> Bool)?
  /// `stop` answered true: the line running stops, and nothing after it runs.
  var stopRequested = false
  /// The index of the input line that `stop` stopped.
  var stopped: Int?
  /// `observe` asked to stop.
  var observerStopped = false

  mutating func lineStarts(number: Int) { checking = true }

  mutating func lineChecked() { checking = false }

  /// The line's block taken: nothing after a line that passed the bound
  /// runs, and nothing it printed is kept.
  mutating func lineEnded(_ end: LineEnd?, session: inout Session) -> LineEnd? {
    takeOutput()
    var after = end
    if !stopRequested, let stop, stop() { stopRequested = true }
    if abandoned { after = .stopped }
    if let bounds, commands > bounds.commands, exhausted == nil {
      exhausted = actual.count
      after = .stopped
    }
    if overflowed || written > outputLimit {
      overflow = actual.count
      after = .stopped
      lines.removeAll()
    } else if stopRequested {
      stopped = actual.count
      after = .stopped
      lines.removeAll()
    }
    actual.append(lines)
    lines.removeAll(keepingCapacity: true)
    let goOn = observe?(actual.count - 1, session, problems) ?? true
    problems.removeAll(keepingCapacity: true)
    if !goOn {
      observerStopped = true
      return .stopped
    }
    return after == .quit ? .quit : after == .stopped ? .stopped : .finished
  }

  /// Past so many bytes of output the lines are no longer kept (nil: all
  /// are), and those kept are dropped: `dropped` says so.
  var keepLimit: Int?
  var dropped = false

  /// Counts `line` (with its break) and keeps it when the sink keeps lines.
  mutating func keep(_ stream: GoldenStream, _ text: ArraySlice<UInt8>) {
    written += text.count + 1
    if keeps, let keepLimit, written > keepLimit { drop() }
    if keeps { lines.append(OutputLine(stream, Array(text))) }
  }

  /// Keeps no more lines, and frees those kept.
  mutating func drop() {
    keeps = false
    dropped = true
    lines = []
    actual = actual.map { _ in [] }
  }

  /// False, and the line stops, once the test's output passed the bound.
  mutating func commandDone() -> Bool {
    if written + out.count > outputLimit { overflowed = true }
    if !stopRequested, let stop, stop() { stopRequested = true }
    if stopRequested { return false }
    guard let bounds else { return !overflowed }
    commands += 1
    if commands > bounds.commands { return false }
    // Asked every 256 commands: a question costs a lock.
    if commands & 255 == 0, bounds.stop() { abandoned = true }
    return !overflowed && !abandoned
  }

  /// Asked while a long sourced file is checked: the runner's `stop` ends
  /// it there; so does an editor's, between the pieces of the check (an
  /// abandoned run reads no further).
  mutating func checkInterrupted() -> ReadFailure? {
    if !stopRequested, let stop, stop() { stopRequested = true }
    if stopRequested { return ReadFailure("stopped") }
    guard let bounds, abandoned || bounds.stop() else { return nil }
    abandoned = true
    return ReadFailure("abandoned")
  }

  /// Moves what stdout holds into `lines`, one entry per line.
  mutating func takeOutput() {
    guard !out.isEmpty else { return }
    guard keeps else {
      written += out.count + (out.last == 0x0A ? 0 : 1)
      out.removeAll(keepingCapacity: true)
      return
    }
    var start = 0
    while start < out.count {
      let end = out[start...].firstIndex(of: 0x0A) ?? out.count
      keep(.stdout, out[start..<end])
      start = end + 1
    }
    out.removeAll(keepingCapacity: true)
  }

  mutating func diagnose(_ message: String, column: Int) {
    takeOutput()
    problems.append(
      LineProblem(
        kind: checking ? .syntax : .failure, column: column, message: message, span: failedSpan))
    failedSpan = nil
    // A message never holds a line break; split one anyway, so that every
    // captured line stays one line of the file.
    for piece in Array(("error: " + message).utf8).split(
      separator: 0x0A, omittingEmptySubsequences: false)
    {
      keep(.stderr, piece)
    }
  }

  mutating func diagnose(_ message: String, at location: SourceLocation) {
    takeOutput()
    problems.append(
      LineProblem(
        kind: .failure, column: nil, message: diagnostic(message, at: location), span: nil,
        location: location))
    keep(.stderr, Array(diagnostic(message, at: location).utf8)[...])
  }

  mutating func diagnose(_ message: String, in source: String) {
    takeOutput()
    keep(.stderr, Array(diagnostic(message, in: source).utf8)[...])
  }

  /// `save /dev/stdout` and `save /dev/stderr` write the script into the
  /// test's blocks, so a test can check what `save` writes; every other
  /// name goes to the test's memory.
  mutating func save(_ script: SavedScript, to file: String) -> String? {
    guard file == savedToStdout || file == savedToStderr else {
      return effects.save(script.text, to: file)
    }
    takeOutput()
    var pieces = Array(script.text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
    if pieces.last?.isEmpty == true { pieces.removeLast() }
    let stream: GoldenStream = file == savedToStdout ? .stdout : .stderr
    for piece in pieces {
      keep(stream, piece)
    }
    return nil
  }

  mutating func readSource(_ file: String) -> Result<SourcedText, ReadFailure> {
    effects.read(file).map { SourcedText(bytes: $0) }
  }

  mutating func freshSeed(sourced: Bool) -> UInt64 { seeds.next() }
}
