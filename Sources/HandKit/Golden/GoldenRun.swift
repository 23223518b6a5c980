/// The most output a golden test may print, 64 MiB: what no test file can
/// expect, since a larger file is not read. A test that passes it stops at
/// the input line that did, and is an error (handsh(1), GOLDEN TESTS).
public let goldenOutputLimit = 64 << 20

/// The bound as messages name it, `over 64 MiB`: the largest test file
/// handsh reads, and the most output a test may print.
public let goldenLimitText = "over \(goldenOutputLimit >> 20) MiB"

/// The names under which `save` writes into the test's own blocks.
let savedToStdout = "/dev/stdout"
let savedToStderr = "/dev/stderr"

/// What running a golden file found.
public struct GoldenResult: Sendable {
  public let file: GoldenFile
  /// The actual block of each input line, in the order of `file.inputs`.
  public let actual: [[OutputLine]]
  /// The index (into `file.inputs`) of the input line whose output passed
  /// `goldenOutputLimit`: the test stopped there, and is an error. Its
  /// block, and those of the lines after it, are empty.
  public let overflow: Int?
  /// The index (into `file.inputs`) of the input line where the runner's
  /// `stop` stopped the test (its time limit): an error, as an overflow is.
  public let stopped: Int?
  /// The index of the input line on which an editor's run passed its
  /// commands (`GoldenBounds`): nothing after it ran.
  public let exhausted: Int?
  /// The run was abandoned (`GoldenBounds.stop`): nothing of it is of use.
  public let abandoned: Bool
  /// The blocks were not kept: the output passed the run's `keepLimit`.
  public let dropped: Bool

  init(
    file: GoldenFile, actual: [[OutputLine]], overflow: Int? = nil, stopped: Int? = nil,
    exhausted: Int? = nil, abandoned: Bool = false, dropped: Bool = false
  ) {
    self.file = file
    self.actual = actual
    self.overflow = overflow
    self.stopped = overflow == nil ? stopped : nil
    self.exhausted = exhausted
    self.abandoned = abandoned
    self.dropped = dropped
  }

  /// The line number of the input line where `stop` stopped the test.
  public var stoppedLine: Int? {
    guard let stopped, file.inputs.indices.contains(stopped) else { return nil }
    return file.inputs[stopped].number
  }

  /// The error of a test whose output passed the bound: `PATH:LINE: output
  /// too large for a golden test (over 64 MiB)`, LINE its input line's.
  public func overflowMessage(path: String) -> String? {
    guard let overflow, file.inputs.indices.contains(overflow) else { return nil }
    return "\(path):\(file.inputs[overflow].number): \(GoldenResult.overflowText)"
  }

  public static let overflowText = "output too large for a golden test (\(goldenLimitText))"

  /// Whether every input line printed exactly its block.
  public var passed: Bool {
    overflow == nil && stopped == nil && zip(file.inputs, actual).allSatisfy { $0.expected == $1 }
  }

  /// The indexes (into `file.inputs`) of the input lines whose block differs.
  public var differing: [Int] {
    // Past an overflow or a stop nothing ran: no block there is known to
    // differ; nor from the line where an editor's run passed its commands.
    let ran = min(overflow ?? stopped ?? file.inputs.count, exhausted ?? file.inputs.count)
    return file.inputs.indices.prefix(ran).filter { file.inputs[$0].expected != actual[$0] }
  }

  /// The file as `--update` writes it: each block that differs replaced by
  /// the actual one, every other byte kept.
  public var updatedText: [UInt8] { updatedText(accepting: { _ in true }) }

  /// The file with the differing blocks that `accept` takes (by index into
  /// `file.inputs`) replaced by the actual ones, every other byte kept: what
  /// `--review` writes.
  public func updatedText(accepting accept: (Int) -> Bool) -> [UInt8] {
    let text = file.text
    let lines = file.lines
    var out: [UInt8] = []
    out.reserveCapacity(text.count + 256)
    var next = 0
    for (index, (input, actual)) in zip(file.inputs, actual).enumerated()
    where input.expected != actual && accept(index) {
      // Everything up to and including the input line, as it is.
      let line = lines[input.line]
      out += text[lines[next].rawStart..<line.end]
      file.writeBlock(actual, after: line.end, to: &out)
      next = input.block.upperBound
    }
    if next < lines.count { out += text[lines[next].rawStart...] }
    return out
  }

  /// The report of a failing file: a unified diff from the file as it is to
  /// the file as `--update` writes it, both named `path` (quoted as git
  /// quotes a name that `patch` would misread).
  public func diff(path: [UInt8]) -> [UInt8] { diff(path: path, to: updatedText) }

  public func diff(path: String) -> [UInt8] { diff(path: Array(path.utf8)) }

  /// The diff from the file as it is to `new`, a text made from it.
  public func diff(path: [UInt8], to new: [UInt8]) -> [UInt8] {
    let name = quotedPath(path)
    // Only blocks change, and an expectation line never equals another kind
    // of line: every other line anchors the search.
    return unifiedDiff(file.text, new, oldName: name, newName: name) { line in
      !line.starts(with: "#>".utf8) && !line.starts(with: "#2>".utf8)
    }
  }
}

extension GoldenFile {
  /// Runs the input lines through a fresh session, as the prompt would run
  /// them: each line checked first, none of it run on a syntax error, the
  /// first failed command skipping the rest of the line, `quit` ending the
  /// file. Diagnostics take the prompt's form, `error: MESSAGE`.
  public func run<Effects: GoldenEffects>(effects: Effects) -> GoldenResult {
    run(effects: effects) { _, _, _ in true }
  }

  /// The same run, asking `stop` after each command and each input line:
  /// once it answers true the test stops at the line it reached
  /// (`GoldenResult.stopped`). A runner's time limit; the core keeps no
  /// clock.
  public func run<Effects: GoldenEffects>(
    effects: Effects, stop: @escaping () -> Bool
  ) -> GoldenResult {
    run(effects: effects, stop: stop) { _, _, _ in true }
  }

  /// The same run, handing `observe` after each input line (by its index
  /// into `inputs`) the session as the line left it and the line's
  /// problems: what an editor shows beside each line. When `observe`
  /// returns false the run stops there (an editor's newer text replaced
  /// this one), and the lines not run have empty blocks.
  /// Unless `keepOutput`, the blocks are not kept (all come out empty),
  /// only counted against the bound: for an editor that shows none.
  /// With `keepLimit`, the blocks are kept until the output passes so many
  /// bytes, then dropped (the result says so).
  public func run<Effects: GoldenEffects>(
    effects: Effects, keepOutput: Bool = true, outputLimit: Int = goldenOutputLimit,
    keepLimit: Int? = nil, bounds: GoldenBounds? = nil, stop: (() -> Bool)? = nil,
    observe: (Int, Session, [LineProblem]) -> Bool
  ) -> GoldenResult {
    var executor = LineExecutor(
      session: Session(seed: settings.seed, limit: settings.limit),
      renderer: Renderer(style: Style(ascii: settings.ascii, color: false, json: settings.json)),
      echo: settings.echo, quiet: settings.quiet)
    var sink = CaptureSink(effects: effects, seeds: SplitMix64(seed: settings.seed))
    sink.keeps = keepOutput
    sink.outputLimit = outputLimit
    sink.stop = stop
    sink.bounds = bounds
    sink.keepLimit = keepLimit
    sink.actual.reserveCapacity(inputs.count)
    withoutActuallyEscaping(observe) { observe in
      sink.observe = observe
      defer { sink.observe = nil }
      text.withUnsafeBufferPointer { buffer in
        var lines = GoldenInputs(file: self, text: buffer)
        _ = executor.runLines(&lines, rules: .prompt, sink: &sink)
        // After `quit` or an overflow nothing runs; the editor still sees
        // each line left, until it asks to stop.
        guard !sink.observerStopped, !sink.abandoned else { return }
        while sink.actual.count < inputs.count {
          let index = sink.actual.count
          sink.actual.append([])
          if !observe(index, executor.session, []) { return }
        }
      }
    }
    while sink.actual.count < inputs.count { sink.actual.append([]) }
    return GoldenResult(
      file: self, actual: sink.actual, overflow: sink.overflow, stopped: sink.stopped,
      exhausted: sink.exhausted, abandoned: sink.abandoned, dropped: sink.dropped)
  }
}

/// What an editor bounds a run by (handsh(1), EDITORS): a document that
/// `source`s a file that `source`s itself a thousand times over stops after
/// `commands` commands, `source`d ones counted; `stop`, asked every 256
/// commands and between the pieces of a sourced file's check, abandons it.
public struct GoldenBounds {
  public var commands: Int
  public var stop: () -> Bool

  public init(commands: Int = GoldenBounds.commandLimit, stop: @escaping () -> Bool) {
    self.commands = commands
    self.stop = stop
  }

  /// The most commands one run of an editor's document runs.
  public static let commandLimit = 10_000_000
  /// The diagnostic on the line where a run passed its commands.
  public static let exhaustedText = "analysis stopped: more than 10,000,000 commands"
}

/// The input lines of a golden file, as a source of lines: a line too
/// long is handed on as such, and the lines after it too.
struct GoldenInputs: LineSource {
  let file: GoldenFile
  let text: UnsafeBufferPointer<UInt8>

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    for input in file.inputs {
      let event: LineEvent =
        file.isTooLong(input)
        ? .tooLong(number: input.number)
        : .line(
          Line(
            number: input.number,
            bytes: UnsafeBufferPointer(rebasing: text[file.content(of: input)])))
      guard body(event) else { return }
    }
  }
}

/// A syntax error or a failed command of an input line, where an editor
/// shows it.
public struct LineProblem: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// None of the line ran.
    case syntax
    /// A command failed; the rest of the line was skipped.
    case failure
  }

  public let kind: Kind
  /// The 1-based column (in Unicode scalars) of the word it is about; nil
  /// for a problem at a line of a sourced file (the message names it).
  public let column: Int?
  public let message: String
  /// For a failed command, the byte range of its words in the line.
  public let span: Range<Int>?
  /// For a problem at a line of a sourced file: that file's line.
  public var location: SourceLocation? = nil
}
