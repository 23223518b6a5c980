/// What a golden test's `save` and `source` do: the effects of a test on
/// the world.
public protocol GoldenEffects {
  /// Writes `script` to `file`; the reason when it cannot.
  mutating func save(_ script: String, to file: String) -> String?
  /// Reads the script `file` for `source`.
  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure>
}

extension GoldenEffects {
  /// Effects that read no files: every `source` fails, as for a file that
  /// is not there.
  public mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    .failure(ReadFailure("No such file or directory"))
  }
}

/// A test's output captured line by line, each line with its stream.
struct CaptureSink<Effects: GoldenEffects>: CommandSink {
  var out: [UInt8] = []
  var lines: [OutputLine] = []
  var effects: Effects
  /// `new` without a seed draws from the file's seed, so a test is
  /// reproducible (handsh(1), GOLDEN TESTS).
  var seeds: SplitMix64

  /// Moves what stdout holds into `lines`, one entry per line.
  mutating func takeOutput() {
    guard !out.isEmpty else { return }
    var start = 0
    while start < out.count {
      let end = out[start...].firstIndex(of: 0x0A) ?? out.count
      lines.append(OutputLine(.stdout, Array(out[start..<end])))
      start = end + 1
    }
    out.removeAll(keepingCapacity: true)
  }

  mutating func diagnose(_ message: String, column: Int) {
    takeOutput()
    // A message never holds a line break; split one anyway, so that every
    // captured line stays one line of the file.
    for piece in Array(("error: " + message).utf8).split(
      separator: 0x0A, omittingEmptySubsequences: false)
    {
      lines.append(OutputLine(.stderr, Array(piece)))
    }
  }

  mutating func diagnose(_ message: String, at location: SourceLocation) {
    takeOutput()
    lines.append(OutputLine(.stderr, Array(diagnostic(message, at: location).utf8)))
  }

  mutating func save(_ script: String, to file: String) -> String? {
    effects.save(script, to: file)
  }

  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> { effects.read(file) }

  mutating func freshSeed() -> UInt64 { seeds.next() }
}

/// What running a golden file found.
public struct GoldenResult: Sendable {
  public let file: GoldenFile
  /// The actual block of each input line, in the order of `file.inputs`.
  public let actual: [[OutputLine]]

  /// Whether every input line printed exactly its block.
  public var passed: Bool {
    zip(file.inputs, actual).allSatisfy { $0.expected == $1 }
  }

  /// The file as `--update` writes it: each block that differs replaced by
  /// the actual one, every other byte kept.
  public var updatedText: [UInt8] {
    let text = file.text
    let lines = file.lines
    let eol: [UInt8] = file.crlf ? [0x0D, 0x0A] : [0x0A]
    var out: [UInt8] = []
    out.reserveCapacity(text.count + 256)
    var next = 0
    for (input, actual) in zip(file.inputs, actual) where input.expected != actual {
      // Everything up to and including the input line, as it is.
      let line = lines[input.line]
      out += text[lines[next].rawStart..<line.end]
      if text[..<line.end].last != 0x0A, !actual.isEmpty { out += eol }
      for output in actual { out += output.marked + eol }
      next = input.block.upperBound
    }
    if next < lines.count { out += text[lines[next].rawStart...] }
    return out
  }

  /// The report of a failing file: a unified diff from the file as it is to
  /// the file as `--update` writes it, both named `path`.
  public func diff(path: String) -> [UInt8] {
    // Only blocks change, and an expectation line never equals another kind
    // of line: every other line anchors the search.
    unifiedDiff(file.text, updatedText, oldName: path, newName: path) { line in
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
    var executor = LineExecutor(
      session: Session(seed: settings.seed, limit: settings.limit),
      renderer: Renderer(style: Style(ascii: settings.ascii, color: false, json: settings.json)),
      echo: settings.echo, quiet: settings.quiet)
    var sink = CaptureSink(effects: effects, seeds: SplitMix64(seed: settings.seed))
    var actual: [[OutputLine]] = []
    actual.reserveCapacity(inputs.count)
    var ended = false
    text.withUnsafeBufferPointer { buffer in
      for input in inputs {
        guard !ended else {
          actual.append([])
          continue
        }
        let line = UnsafeBufferPointer(rebasing: buffer[content(of: input)])
        if isTooLong(input) {
          // As at the prompt: an error, and none of the line runs.
          sink.diagnose(LineParser.tooLongMessage, column: 1)
        } else if executor.check(line, sink: &sink) == 0 {
          ended = executor.run(line, sink: &sink) == .quit
        }
        sink.takeOutput()
        actual.append(sink.lines)
        sink.lines.removeAll(keepingCapacity: true)
      }
    }
    return GoldenResult(file: self, actual: actual)
  }
}
