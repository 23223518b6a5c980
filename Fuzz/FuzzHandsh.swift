// libFuzzer target for handsh: arbitrary bytes through the code handsh
// itself runs, not a copy of its loop. Built by scripts/fuzz from the real
// modules, HandKit and HandshCLI (with -enable-testing, so this file sees
// their internal API), and CHandsh's C side.
//
// Every input runs as each of these:
//   -  a SCRIPT and stdin: `Runner.runText` (the run-ahead check of a whole
//      text, `RunAhead`, `LineExecutor`) and `Runner.runLines` fed the same
//      bytes in random chunks through the real `LineSplitter`; where the text
//      is free of syntax errors, both must print the same and end in the
//      same state;
//   -  lines typed at the prompt: `promptLines`, then `Runner.enter` for
//      each (the prompt's line rules); a line with a syntax error changes
//      nothing;
//   -  a golden test: `GoldenFile` parsed and run, its diff, and the text
//      `--update` writes, written with `TestFiles.rewrite` (the writer) and
//      read back; that text must parse clean and pass; and run again under
//      a small output bound, which must stop it exactly at the line whose
//      output passes the bound, every block before it unchanged;
//   -  bytes for the writer: `writeFile` onto a file, a symbolic link, a hard
//      link, a folder or a missing file, as the second byte chooses; it must write
//      exactly the bytes or fail leaving the old file, and leave no
//      temporary file.
//   -  the language server: `FrameReader` fed the bytes in random chunks
//      and whole (the same frames), and, when they name no Content-Length,
//      followed by a message that must be read whatever came before, `LanguageServer` handling each frame,
//      the bytes as one JSON body, and as a document opened, edited and
//      asked about; every message it writes must read back equal, and every
//      request get exactly one response.
// Every input also runs both line splitters against each other, and every
// run's history is checked whole (the card partition, text that parses).
// Options come from the next bytes through the real option parser: seed =
// FNV-1a (64-bit) of the first eight bytes, limit = 1 + (byte0 ^ byte1) % 52,
// and the output style and -k from byte 0's bits. `save` writes into a fresh
// folder (the current folder during a run); an input whose `save` or
// `source` names a path outside it (a `/`, `.` or `..`) is skipped, so
// nothing outside it is ever written or read. A broken invariant calls abort(), which libFuzzer reports
// as a crash.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Fails the run with a message libFuzzer shows next to the crash.
private func broken(_ what: String) -> Never {
  var text = "handsh fuzz: invariant broken: \(what)\n"
  text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  abort()
}

/// What a line splitter hands on, kept.
private enum SplitEvent: Equatable {
  case line(Int, [UInt8])
  case tooLong(Int)
}

/// The stream splitter (stdin) against the whole-text splitter (a script):
/// fed the input in chunks whose sizes a generator seeded by the input
/// chooses (empty chunks included), with a line limit small enough to be
/// reached (1 to 64 bytes, chosen by the last byte), it must hand on the
/// same lines as the whole text, up to and including the first line over
/// the limit; after it, the stream goes on line by line, to the input's
/// last line.
private func checkSplitters(_ input: UnsafeBufferPointer<UInt8>) {
  let limit = 1 + Int(input.last ?? 0) % 64
  var whole: [SplitEvent] = []
  var text = TextLines(text: Array(input), limit: limit)
  text.forEachLine { event in
    switch event {
    case .line(let line): whole.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): whole.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  var streamed: [SplitEvent] = []
  var splitter = LineSplitter(limit: limit)
  var random = SplitMix64(seed: seed(of: input) ^ 0x5EED)
  var start = 0
  func collect(_ event: LineEvent) -> Bool {
    switch event {
    case .line(let line):
      guard !line.isASCII || line.bytes.allSatisfy({ $0 < 0x80 }) else {
        broken("stream line \(line.number) is marked ASCII but is not")
      }
      streamed.append(.line(line.number, Array(line.bytes)))
    case .tooLong(let number): streamed.append(.tooLong(number))
    case .waiting: break
    }
    return true
  }
  while start < input.count {
    let size = min(input.count - start, Int(random.next() % 20))
    let chunk = UnsafeBufferPointer(rebasing: input[start..<(start + size)])
    guard splitter.feed(chunk, final: false, collect) else { broken("the splitter stopped") }
    start += size
  }
  guard splitter.feed(UnsafeBufferPointer(rebasing: input[input.count...]), final: true, collect)
  else { broken("the splitter stopped at the end") }

  let cut = streamed.firstIndex { if case .tooLong = $0 { true } else { false } }
  let prefix = cut.map { Array(streamed[...$0]) } ?? streamed
  guard prefix == whole else {
    broken("stream lines \(prefix.count) differ from the whole text's \(whole.count)")
  }
  var lines = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  if let last = input.last, last != 0x0A { lines += 1 }
  for (index, event) in streamed.enumerated() {
    switch event {
    case .line(let number, let bytes):
      guard number == index + 1, bytes.count <= limit else { broken("stream line \(number)") }
    case .tooLong(let number):
      guard number == index + 1 else { broken("stream line \(number) too long out of order") }
    }
  }
  guard streamed.count == lines else { broken("stream gave \(streamed.count) of \(lines) lines") }
}

/// The session's seed: FNV-1a over the first eight bytes.
private func seed(of input: UnsafeBufferPointer<UInt8>) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in input.prefix(8) {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }
  return hash
}

/// The card-partition invariants of one version: the hand within the limit,
/// no card twice in the hand, no hand card still in the deck, and hand,
/// deck and discard pile adding up to exactly 52 cards.
private func check(_ version: Version, in history: History, _ context: String) {
  let limit = version.limit
  guard (1...52).contains(limit) else { broken("limit \(limit) out of 1...52 (\(context))") }
  let hand = version.hand
  guard hand.count <= limit else {
    broken("hand has \(hand.count) cards, limit \(limit) (\(context))")
  }
  let game = history.game(of: version)
  guard game.order.count == 52 else { broken("game order has \(game.order.count) cards") }
  guard version.deck.bits >> 52 == 0 else { broken("deck bits beyond 52 (\(context))") }
  var seen: UInt64 = 0
  for index in 0..<hand.count {
    let card = hand[index]
    guard card.index < 52 else { broken("hand holds card index \(card.index) (\(context))") }
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in the hand (\(context))") }
    seen |= bit
    guard !version.deck.contains(card, in: game) else {
      broken("\(card) in both hand and deck (\(context))")
    }
  }
  let deckCards = version.deck.cards(in: game)
  guard deckCards.count == version.deck.count else { broken("deck count disagrees") }
  for card in deckCards {
    let bit: UInt64 = 1 << UInt64(card.index)
    guard seen & bit == 0 else { broken("\(card) twice in hand and deck (\(context))") }
    seen |= bit
  }
  let discarded = version.discardCount
  guard discarded >= 0, hand.count + deckCards.count + discarded == 52 else {
    broken(
      "hand \(hand.count) + deck \(deckCards.count) + discard \(discarded) != 52 (\(context))")
  }
}

/// Text that `history` or `save` writes must parse back to one command with
/// no syntax error.
private func checkParses(_ text: String, _ context: String) {
  var bytes = Array(text.utf8)
  let items = LineParser.parse(bytes: &bytes)
  for item in items {
    if case .error(let error) = item {
      broken("'\(safeText(text.utf8))' from \(context) does not parse: \(error.message)")
    }
  }
}

/// The folder saves go to: made once, the current folder from then on, and
/// emptied before each input.
/// In memory where there is /dev/shm: the writer flushes every file to disk.
private let scratch: String = {
  let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
  var template = Array("\(parent)/handsh-fuzz-XXXXXX".utf8CString)
  guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }),
    chdir(made) == 0
  else { broken("cannot make a scratch folder") }
  // Removed when the fuzzer ends (not after a crash: then it shows what was
  // written).
  atexit {
    emptyScratch()
    _ = rmdir(scratch)
  }
  return String(cString: made)
}()

/// Removes everything in the scratch folder (files and the folders the
/// writer makes, one level deep).
private func emptyScratch() {
  guard let folder = opendir(scratch) else { broken("cannot list the scratch folder") }
  defer { closedir(folder) }
  while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
    }
    guard name != ".", name != ".." else { continue }
    let path = scratch + "/" + name
    if unlink(path) != 0 { _ = rmdir(path) }
  }
}

/// Two temporary files a runner writes its stdout and stderr to.
private let outputFiles: (out: Int32, err: Int32) = (fileno(tmpfile()), fileno(tmpfile()))

private func resetOutput() {
  for fd in [outputFiles.out, outputFiles.err] {
    _ = ftruncate(fd, 0)
    _ = lseek(fd, 0, SEEK_SET)
  }
}

/// Everything in the file `fd` refers to.
private func contents(of fd: Int32) -> [UInt8] {
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 14)
  var offset: off_t = 0
  while true {
    let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
    guard count > 0 else { break }
    bytes += chunk[..<count]
    offset += off_t(count)
  }
  return bytes
}

/// The file at `path`, or nil when it cannot be read.
private func readBack(_ path: String) -> [UInt8]? {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  return contents(of: fd)
}

/// Names of save's temporary files left in the scratch folder.
private func leftovers() -> Int {
  guard let folder = opendir(scratch) else { return 0 }
  defer { closedir(folder) }
  var count = 0
  while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
    }
    if name.contains(".tmp-") { count += 1 }
  }
  return count
}

/// Whether every `save` and `source` in `lines` names a file right in the
/// current folder (a `source` elsewhere could read a FIFO or a device).
private func savesStayInside(_ lines: [[UInt8]]) -> Bool {
  for line in lines {
    var bytes = line
    for item in LineParser.parse(bytes: &bytes) {
      let file: String
      switch item {
      case .command(.save(let name), _), .command(.source(let name), _): file = name
      default: continue
      }
      let name = Array(file.utf8)
      if name.isEmpty || name.contains(UInt8(ascii: "/")) || file == "." || file == ".."
        || name.count > 200
      {
        return false
      }
    }
  }
  return true
}

/// The lines of a text as a script splits them (too-long lines left out:
/// they never run).
private func scriptLines(_ input: [UInt8]) -> [[UInt8]] {
  var lines: [[UInt8]] = []
  var text = TextLines(text: input)
  text.forEachLine { event in
    if case .line(let line) = event { lines.append(Array(line.bytes)) }
    return true
  }
  return lines
}

/// Whether a text runs the same whole as line by line: no syntax error, no
/// line over the limit, and no `new` without a seed (which draws a random
/// one).
private func runsAlike(_ input: [UInt8]) -> Bool {
  var alike = true
  var text = TextLines(text: input)
  text.forEachLine { event in
    switch event {
    case .tooLong: alike = false
    case .waiting: break
    case .line(let line):
      var bytes = Array(line.bytes)
      for item in LineParser.parse(bytes: &bytes) {
        switch item {
        case .error: alike = false
        case .command(.new(nil), _): alike = false
        default: break
        }
      }
    }
    return alike
  }
  return alike
}

/// stdin as a runner reads it, from bytes in memory: the real splitter, fed
/// chunks of sizes a generator seeded by the input chooses.
private struct ChunkedLines: LineSource {
  let input: [UInt8]
  var random: SplitMix64

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    var splitter = LineSplitter()
    var start = 0
    var random = random
    input.withUnsafeBufferPointer { buffer in
      while start < buffer.count {
        let size = min(buffer.count - start, 1 + Int(random.next() % 64))
        let chunk = UnsafeBufferPointer(rebasing: buffer[start..<(start + size)])
        start += size
        guard splitter.feed(chunk, final: false, body) else { return }
      }
      _ = splitter.feed(UnsafeBufferPointer(rebasing: buffer[buffer.count...]), final: true, body)
    }
  }
}

/// A runner of the options the input chose, writing to the output files.
private func makeRunner(_ arguments: [String], seed: UInt64) -> Runner {
  guard let options = try? Options(parsing: arguments) else {
    broken("the fuzzer's own options \(arguments) do not parse")
  }
  return Runner(options: options, seed: seed, output: outputFiles.out, errors: outputFiles.err)
}

/// Checks every version of a runner's history.
private func checkHistory(_ history: History, _ context: String) {
  for number in 0..<history.count {
    let version = history[number]
    check(version, in: history, "version \(number) \(context)")
    if number == 0 {
      guard case .start = version.step else { broken("version 0 is not start") }
      continue
    }
    // What `history` and `save` write parses back without a syntax error.
    let seed = history.game(of: version).seed
    checkParses(version.step.text(seed: seed, ascii: true), "history")
    checkParses(version.step.text(seed: seed, ascii: false), "history")
  }
}

/// The same bytes as a SCRIPT and as stdin.
private func fuzzScriptAndStdin(_ input: [UInt8], _ arguments: [String], seed: UInt64) {
  guard savesStayInside(scriptLines(input)) else { return }
  resetOutput()
  var whole = makeRunner(arguments, seed: seed)
  let wholeFlow = whole.runText(input, name: "s.hand")
  whole.output.flush()
  let wholeOut = contents(of: outputFiles.out)
  let wholeErr = contents(of: outputFiles.err)
  checkHistory(whole.session.history, "after the script")

  resetOutput()
  var stream = makeRunner(arguments, seed: seed)
  var lines = ChunkedLines(input: input, random: SplitMix64(seed: seed ^ 0x5EED))
  let streamFlow = stream.runLines(&lines, source: "s.hand", stream: true)
  stream.output.flush()
  checkHistory(stream.session.history, "after stdin")
  guard runsAlike(input) else { return }
  guard contents(of: outputFiles.out) == wholeOut else { broken("script and stdin stdout differ") }
  guard contents(of: outputFiles.err) == wholeErr else { broken("script and stdin stderr differ") }
  guard wholeFlow == streamFlow, whole.failed == stream.failed else {
    broken("script and stdin end differently: \(wholeFlow) \(streamFlow)")
  }
  guard whole.session.history == stream.session.history else {
    broken("script and stdin end in different states")
  }
}

/// Lines typed at the prompt.
private func fuzzPrompt(_ input: [UInt8], _ arguments: [String], seed: UInt64) {
  let lines = promptLines(input)
  guard savesStayInside(lines) else { return }
  resetOutput()
  var runner = makeRunner(arguments, seed: seed)
  for line in lines {
    var bytes = line
    let hasError =
      line.count > lineLimit
      || LineParser.parse(bytes: &bytes).contains { if case .error = $0 { true } else { false } }
    let before = runner.session.history
    let flow = runner.enter(line)
    if hasError, runner.session.history != before {
      broken("a prompt line with a syntax error changed the state")
    }
    if flow == .quit { break }
  }
  runner.output.flush()
  checkHistory(runner.session.history, "after the prompt")
}

/// `save` in a golden test: into the scratch folder, under a name made safe.
private struct ScratchSaves: GoldenEffects {
  mutating func save(_ script: String, to file: String) -> String? {
    let name = file.utf8.prefix(100).filter { $0 != UInt8(ascii: "/") }
    let bad = name.isEmpty || name == Array(".".utf8) || name == Array("..".utf8)
    let path = Array("saved-".utf8) + (bad ? Array("f".utf8) : Array(name))
    return writeFile(Array(script.utf8), to: path).map { Platform.describe($0.code) }
  }
}

/// The bytes as a golden test, and what `--update` makes of them.
private func fuzzGolden(_ input: [UInt8], _ settings: GoldenSettings) {
  let file = GoldenFile(text: input, defaults: settings)
  for diagnostic in file.diagnostics { _ = diagnostic.text(path: "t.hand") }
  guard file.diagnostics.isEmpty else { return }
  let result = file.run(effects: ScratchSaves())
  let updated = result.updatedText
  let diff = result.diff(path: "t.hand")
  if result.passed {
    guard updated == input, diff.isEmpty else { broken("a passing test would be rewritten") }
  }
  let report = GoldenFileReport(
    path: "t.hand", status: result.passed ? .passed : .updated(diff: diff))
  _ = tapReport([report], update: true)
  _ = junitReport([report], seconds: 0)

  // As --update writes it, through the writer.
  let path = Array("t.hand".utf8)
  if let failure = writeFile(input, to: path) { broken("cannot write t.hand: \(failure)") }
  guard case .success(let snapshot) = TestFiles.read(path) else { broken("cannot read t.hand") }
  if let problem = TestFiles.rewrite(path, from: snapshot, to: updated) {
    broken("--update cannot rewrite t.hand: \(problem)")
  }
  guard readBack("t.hand") == updated else { broken("t.hand does not hold the updated text") }
  guard leftovers() == 0 else { broken("a temporary file was left") }

  let again = GoldenFile(text: updated, defaults: settings)
  guard again.diagnostics.isEmpty else {
    broken("the updated test is malformed: \(again.diagnostics.map { $0.message })")
  }
  guard again.run(effects: ScratchSaves()).passed else { broken("the updated test fails") }

  // The bound of a test's output, made small: the run stops at the line
  // that passed it, with every block before it as the unbounded run's,
  // that line's and the later ones empty; else it is the unbounded run.
  let limit = 1 + Int(input.count > 1 ? input[1] : 0) * 16
  let bounded = file.run(effects: ScratchSaves(), outputLimit: limit) { _, _, _ in true }
  let lines = bounded.overflow ?? file.inputs.count
  guard bounded.actual.count == file.inputs.count,
    Array(bounded.actual[..<lines]) == Array(result.actual[..<lines]),
    bounded.actual[lines...].allSatisfy(\.isEmpty)
  else { broken("the bounded run differs from the unbounded one") }
  let through = min(lines + 1, file.inputs.count)
  let printed = result.actual[..<through].joined().reduce(0) { $0 + $1.text.count + 1 }
  if bounded.overflow == nil {
    guard printed <= limit, bounded.passed == result.passed else {
      broken("output over the bound of \(limit) bytes was not stopped")
    }
  } else {
    guard printed > limit, !bounded.passed else {
      broken("a run under the bound of \(limit) bytes was stopped")
    }
  }
}

/// The writer, onto what `kind` makes first.
private func fuzzWriter(_ bytes: [UInt8], kind: UInt8) {
  let old: [UInt8] = Array("old\n".utf8)
  func make(_ name: String, mode: mode_t) {
    let fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode)
    guard fd >= 0 else { broken("cannot make \(name)") }
    _ = old.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    _ = fchmod(fd, mode)
    close(fd)
  }
  let modes: [mode_t] = [0o600, 0o644, 0o640, 0o755, 0o444]
  let mode = modes[Int(kind >> 3) % modes.count]
  var target = "f.hand"
  var written = "f.hand"
  var expectFailure: Int32? = nil
  switch kind % 6 {
  case 0: break  // a new file
  case 1: make("f.hand", mode: mode)
  case 2:
    make("t.hand", mode: mode)
    _ = symlink("t.hand", "f.hand")
    written = "t.hand"
  case 3:
    make("f.hand", mode: mode)
    _ = link("f.hand", "g.hand")
    written = "g.hand"
  case 4:
    _ = mkdir("f.hand", 0o755)
    expectFailure = EISDIR
  default:
    target = "f.hand/"
    expectFailure = EISDIR
  }
  var before = stat()
  let existed = lstat(written, &before) == 0 && before.st_mode & S_IFMT == S_IFREG
  let failure = writeFile(bytes, to: Array(target.utf8))
  if let expectFailure {
    guard failure?.code == expectFailure else {
      broken("writing \(target): \(String(describing: failure))")
    }
  } else if let failure {
    // Only a read-only file may refuse, and then it is left as it was.
    guard existed, before.st_mode & 0o200 == 0, getuid() != 0 else {
      broken("writing \(target) failed: \(failure)")
    }
    guard readBack(written) == old else { broken("a failed write changed \(written)") }
  } else {
    guard readBack(written) == bytes else { broken("\(written) does not hold what was written") }
    var after = stat()
    guard lstat(written, &after) == 0 else { broken("\(written) is gone") }
    if existed, after.st_mode & 0o7777 != before.st_mode & 0o7777 {
      broken("\(written) lost its mode")
    }
    if kind % 6 == 2 {
      var link = stat()
      guard lstat("f.hand", &link) == 0, link.st_mode & S_IFMT == S_IFLNK else {
        broken("the symbolic link was replaced")
      }
    }
    if kind % 6 == 3, readBack("f.hand") != bytes { broken("the hard links came apart") }
  }
  guard leftovers() == 0 else { broken("a temporary file was left") }
}

/// The language server (`handsh --lsp`) fed the input three ways: as the
/// byte stream of a client (framing, then JSON, then dispatch), cut into
/// chunks at random and whole, which must give the same frames; as one
/// JSON body; and as the text of a document that is opened, edited and
/// asked about at positions the input chooses. Every message the server
/// writes must read back equal through its own JSON reader, and every
/// request must get exactly one response with its id.
private func fuzzServer(_ input: [UInt8]) {
  var whole = FrameReader()
  whole.feed(input)
  var frames: [Frame] = []
  while let frame = whole.next() { frames.append(frame) }
  var chunked = FrameReader()
  var random = SplitMix64(seed: UInt64(input.count) ^ 0x15F)
  var start = 0
  var again: [Frame] = []
  while start < input.count {
    let end = min(input.count, start + Int(random.next() % 64))
    chunked.feed(Array(input[start..<end]))
    while let frame = chunked.next() { again.append(frame) }
    start = end
  }
  while let frame = chunked.next() { again.append(frame) }
  // A header block is only complete once its body is: chunking may hand
  // on a bad header earlier, never different frames.
  guard frames == again else { broken("frames differ when fed in chunks") }
  // Whatever came before, bytes that name no Content-Length cost no later
  // message: reading starts again at the next Content-Length header.
  let lowered = input.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
  if !lowered.contains(Array("content-length".utf8)) {
    let probe = Array(#"{"jsonrpc":"2.0","id":"probe","method":"x"}"#.utf8)
    var resync = FrameReader()
    resync.feed(input + Array("Content-Length: \(probe.count)\r\n\r\n".utf8) + probe)
    var last: Frame?
    while let frame = resync.next() { last = frame }
    guard last == .body(probe) else { broken("a message after bad bytes was lost") }
  }

  var server = LanguageServer(
    ascii: input.first.map { $0 & 1 == 1 } ?? false,
    readFile: { _ in .failure(ReadFailure("No such file or directory")) }, listFolder: { _ in [] })
  func roundTrip(_ messages: [JSON]) {
    for message in messages {
      guard case .success(let back) = JSONReader.parse(message.bytes), back == message else {
        broken("a message of the server does not read back")
      }
    }
  }
  let initialize = JSON.object([
    ("jsonrpc", .string("2.0")), ("id", .int(0)), ("method", .string("initialize")),
    ("params", .object([])),
  ])
  roundTrip(server.handle(initialize))
  for frame in frames {
    let out = server.handle(frame)
    roundTrip(out)
    if case .body(let body) = frame, case .success(let message) = JSONReader.parse(body),
      let id = message["id"], message["method"]?.string != nil
    {
      let answers = out.filter { $0["id"] == id && ($0["result"] != nil || $0["error"] != nil) }
      guard answers.count == 1 else { broken("a request got \(answers.count) responses") }
    }
  }
  roundTrip(server.publish())
  if case .success(let value) = JSONReader.parse(input) {
    guard case .success(let back) = JSONReader.parse(value.bytes), back == value else {
      broken("JSON does not read back")
    }
    roundTrip(server.handle(value))
  }

  // The input as a document, asked about where its bytes say.
  var document = LanguageServer(
    ascii: false, readFile: { _ in .failure(ReadFailure("No such file or directory")) },
    listFolder: { _ in [] })
  _ = document.handle(initialize)
  let uri = JSON.string("file:///fuzz/doc.hand")
  let text = String(decoding: input, as: UTF8.self)
  _ = document.handle(
    .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/didOpen")),
      (
        "params",
        .object([
          (
            "textDocument",
            .object([("uri", uri), ("version", .int(1)), ("text", .string(text))])
          )
        ])
      ),
    ]))
  roundTrip(document.publish())
  func position(_ a: UInt8, _ b: UInt8) -> JSON {
    .object([("line", .int(Int(a % 16))), ("character", .int(Int(b % 40)))])
  }
  let picks = Array(input.prefix(12)) + Array(repeating: 0, count: max(0, 12 - input.count))
  let at = position(picks[0], picks[1])
  let range = JSON.object([("start", at), ("end", position(picks[2], picks[3]))])
  let identifier = JSON.object([("uri", uri)])
  for (number, method) in [
    "textDocument/hover", "textDocument/completion", "textDocument/definition",
    "textDocument/inlayHint", "textDocument/codeAction",
  ].enumerated() {
    let out = document.handle(
      .object([
        ("jsonrpc", .string("2.0")), ("id", .int(number + 1)), ("method", .string(method)),
        (
          "params",
          .object([
            ("textDocument", identifier), ("position", at), ("range", range),
            ("context", .object([("diagnostics", .array([]))])),
          ])
        ),
      ]))
    roundTrip(out)
    guard out.count == 1, out.first?["result"] != nil else { broken("\(method) failed") }
  }
  _ = document.handle(
    .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/didChange")),
      (
        "params",
        .object([
          ("textDocument", .object([("uri", uri), ("version", .int(2))])),
          (
            "contentChanges",
            .array([
              .object([
                (
                  "range",
                  .object([
                    ("start", position(picks[4], picks[5])), ("end", position(picks[6], picks[7])),
                  ])
                ),
                ("text", .string(String(decoding: input.suffix(8), as: UTF8.self))),
              ])
            ])
          ),
        ])
      ),
    ]))
  roundTrip(document.publish())
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let buffer = UnsafeBufferPointer(start: data, count: size)
  let input = Array(buffer)
  let first = size > 0 ? input[0] : 0
  let second = size > 1 ? input[1] : 0
  let sessionSeed = seed(of: buffer)
  let limit = 1 + Int(first ^ second) % 52
  #if FUZZ_SELFTEST
    // Lets scripts/fuzz check its own crash handling (FUZZ_SELFTEST=1).
    if size >= 9, input.prefix(9).elementsEqual("crash-me!".utf8) { broken("self-test") }
  #endif
  _ = scratch
  emptyScratch()
  checkSplitters(buffer)

  var arguments = ["--limit", "\(limit)", "--color", first & 0x80 != 0 ? "always" : "never"]
  if first & 0x04 != 0 { arguments.append("-k") }
  if first & 0x08 != 0 { arguments.append("--json") }
  if first & 0x10 != 0 { arguments.append("--ascii") }
  if first & 0x20 != 0 { arguments.append("--echo") }
  if first & 0x40 != 0 { arguments.append("-q") }
  fuzzScriptAndStdin(input, arguments, seed: sessionSeed)
  emptyScratch()
  fuzzPrompt(input, arguments, seed: sessionSeed)
  emptyScratch()
  fuzzGolden(
    input,
    GoldenSettings(
      seed: sessionSeed, limit: limit, ascii: first & 0x10 != 0, json: first & 0x08 != 0,
      echo: first & 0x20 != 0, quiet: first & 0x40 != 0))
  emptyScratch()
  fuzzWriter(Array(input.dropFirst(2)), kind: second)
  fuzzServer(input)
  return 0
}
