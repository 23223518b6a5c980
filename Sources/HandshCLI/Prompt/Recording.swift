import HandKit

/// `handsh --record FILE` (handsh(1), GOLDEN TESTS): keeps each line entered
/// at the prompt and, when the session ends, writes FILE as a golden test.
/// The blocks under the lines come from running the recorded text through
/// the same engine as `--test`, so the recording passes by construction.
final class Recorder {
  let file: [UInt8]
  /// The first line, with its line break: `#!/usr/bin/env -S handsh --seed
  /// S` and the options of the session that change what a test prints.
  let shebang: String
  /// The lines entered, as they will be written.
  private(set) var lines: [[UInt8]] = []
  private var finished = false

  init(file: [UInt8], runner: Runner) {
    self.file = file
    let options = runner.options
    shebang = ShebangOptions.line(
      seed: runner.session.history.seed(of: runner.session.current),
      limit: options.limit != Session.defaultLimit ? options.limit : nil, ascii: options.ascii,
      json: options.json,
      echo: options.echo, quiet: options.quiet)
  }

  /// A line the prompt ran, with the seeds `new` drew and the versions
  /// `earlier` and `later` went to.
  func entered(_ line: [UInt8], effects: [ProcessSink.Effect]) {
    guard !finished else { return }
    let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    guard !blank else { return }
    var seeds: [UInt64] = []
    var versions: [Int] = []
    for effect in effects {
      switch effect {
      case .seed(let seed): seeds.append(seed)
      case .walked(let version): versions.append(version)
      case .save: break
      }
    }
    var text = Recorder.writingSeeds(seeds, into: line)
    text = Recorder.writingGotos(versions, into: text)
    // A typed marker, indented or not, stays a comment: never an
    // expectation, never a malformed line.
    let start = text.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? text.endIndex
    if text[start...].starts(with: Array("#>".utf8))
      || text[start...].starts(with: Array("#2>".utf8))
    {
      text.insert(contentsOf: Array("# ".utf8), at: 0)
    }
    lines.append(text)
  }

  /// `line` with each `new` that drew a seed written `new SEED`, in order.
  static func writingSeeds(_ seeds: [UInt64], into line: [UInt8]) -> [UInt8] {
    guard !seeds.isEmpty else { return line }
    var bytes = line
    let spans = LineParser.parse(bytes: &bytes).compactMap { item -> Range<Int>? in
      if case .command(.new(nil), let span) = item { return span }
      return nil
    }
    var text = line
    for (span, seed) in zip(spans, seeds).reversed() {
      text.replaceSubrange(span, with: Array("new \(seed)".utf8))
    }
    return text
  }

  /// `line` with each `earlier` or `later` that ran written as the `goto V`
  /// it did, in order: the test replays it whatever its clock says. A
  /// failed one went nowhere, and the commands after it did not run.
  static func writingGotos(_ versions: [Int], into line: [UInt8]) -> [UInt8] {
    guard !versions.isEmpty else { return line }
    var bytes = line
    let spans = LineParser.parse(bytes: &bytes).compactMap { item -> Range<Int>? in
      if case .command(let command, let span) = item, command.walksInOrderMade { return span }
      return nil
    }
    var text = line
    for (span, version) in zip(spans, versions).reversed() {
      text.replaceSubrange(span, with: Array("goto \(version)".utf8))
    }
    return text
  }

  /// The recording as a golden test that passes: the blocks are what
  /// `--test` prints (a `save` in a test goes to the test's own memory).
  func text() -> [UInt8] {
    var text = Array(shebang.utf8)
    for line in lines { text += line + [0x0A] }
    let file = GoldenFile(text: text)
    let result = file.run(effects: GoldenMemory(readFile: readTestSource))
    return result.passed ? text : result.updatedText
  }

  /// Writes FILE, once; false (after saying why) when it cannot.
  func finish() -> Bool {
    guard !finished else { return true }
    finished = true
    if let failure = writeFile(text(), to: file) {
      Platform.printError("handsh: \(failure)")
      return false
    }
    return true
  }
}
