import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The interactive prompt (handsh(1), THE PROMPT). The readline and signal
/// side lives in CHandsh; this side decides what a line does.
func runPrompt(_ runner: inout Runner) -> Int32 {
  handsh_use_utf8_locale()
  // Drawn on stdout when it is a terminal, else on stderr (`handsh | tee`).
  let screen: Int32 = Platform.isTerminal(1) ? 1 : 2
  runner.sink.pointsAtFailures = Platform.isTerminal(2)
  // A result shown at the prompt is on disk first (handsh(1), JOURNAL).
  runner.output.journal?.syncsBeforeResults = true
  let context = PromptContext(ascii: runner.options.ascii)
  var results = PromptResults(screen: screen)
  // Once stdout's reader is gone, results go on on the terminal, from the
  // first byte the pipe did not take (handsh(1), THE PROMPT).
  if screen != 1 { runner.output.fallback = screen }
  runner.output.screen = screen
  handsh_prompt_begin(
    "handsh> ", screen,
    { context, before, text, fileNames in
      guard let context else { return nil }
      let prompt = Unmanaged<PromptContext>.fromOpaque(context).takeUnretainedValue()
      var completion = prompt.completion
      completion.ignoresCase = handsh_completion_ignores_case() != 0
      let answer = completions(
        typed: String(cString: text), after: String(cString: before), in: completion)
      if answer.kind == .fileNames { fileNames.pointee = 1 }
      return readlineMatches(answer)
    }, Unmanaged.passUnretained(context).toOpaque())
  // What Enter would do, under the line (handsh(1), THE PROMPT).
  let preview =
    Preview.wanted(runner.options)
    ? Preview(session: runner.session, ascii: runner.options.ascii) : nil
  preview?.install(dim: runner.executor.renderer.style.color)
  let end: PromptEnd = withExtendedLifetime((context, preview)) {
    if !runner.options.quiet { printBanner(runner) }
    var history = HistoryFile(path: HistoryFile.defaultPath())
    history.load()
    while true {
      context.update(runner.session)
      preview?.session = runner.session
      let read = handsh_prompt_read()
      switch read.kind {
      case handsh_read_line:
        let text = read.line.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        free(read.line)
        for line in promptLines(text ?? []) {
          handsh_prompt_run_begin()
          let flow = enter(line, &runner, &history)
          handsh_prompt_run_end()
          if case .quit = flow { return .quit }
          let ending = handsh_prompt_ending()
          if ending != 0 { return .signal(ending) }
          if !results.check(&runner) { return .quit }
        }
      case handsh_read_signal:
        return .signal(read.signal)
      default:
        return .endOfInput
      }
    }
  }
  runner.output.flush()
  // `add; quit` after the reader went away: the last results too.
  _ = results.check(&runner)
  // A signal that came as the session ended (with the last key, or while
  // the last line was written) ends it all the same.
  let fatal = handsh_prompt_fatal()
  handsh_prompt_end()
  var ended = end
  if case .signal = ended {} else if fatal != 0 { ended = .signal(fatal) }
  if case .signal(let number) = ended {
    // SIGQUIT, SIGTERM and SIGHUP end a session as quit would: a
    // recording is written first (handsh(1), GOLDEN TESTS).
    _ = runner.recorder?.finish()
    // The terminal is restored; end as the signal asks, so that the parent
    // (a shell) sees how handsh ended.
    handsh_die_by_signal(number)
  }
  return 0
}

/// The banner line on stderr: the version, the seed, the journal.
private func printBanner(_ runner: Runner) {
  let seed = runner.session.history.seed(of: runner.session.current)
  var journal = ""
  if let file = runner.output.journal {
    journal =
      runner.journalResumed.map { ", journal \(file.shown) resumed at version \($0)" }
      ?? ", journal \(file.shown)"
  }
  Platform.printError(
    "handsh \(handshVersion), seed \(seed)\(journal): type 'help' for commands, Ctrl-D to quit")
}

/// Where the prompt's results go: stdout, until it is a pipe whose reader
/// is gone; then the prompt's terminal, said once (handsh(1), THE PROMPT).
/// The move itself happens inside `Output`, at the byte where the pipe
/// stopped taking them; this answers what is left after a line.
struct PromptResults {
  /// The terminal the prompt is drawn on (1 or 2).
  let screen: Int32

  /// After a line: deals with a failed write of its results. False when the
  /// session cannot go on (the caller reports why, with exit status 1).
  mutating func check(_ runner: inout Runner) -> Bool {
    guard let failure = runner.output.failure else { return true }
    switch failure {
    case EINTR:
      // Control-C abandoned a write that blocked (a full pipe): the rest of
      // those results is dropped, and the session goes on.
      let output = runner.output
      runner.output = Output(fd: output.fd, fallback: output.fallback)
      runner.output.screen = output.screen
      runner.output.journal = output.journal
      // What follows in the stream starts on a line of its own, whatever
      // half line the dropped results left there.
      runner.output.owesLineBreak = !output.endsLine
      return true
    case EPIPE where runner.output.fd != screen:
      // No terminal was given to go on with (cannot happen once `fallback`
      // is set): what could not be written is shown here.
      Platform.printError(Output.closedNotice, to: screen)
      var moved = Output(fd: screen)
      moved.buffer = runner.output.buffer
      runner.output = moved
      runner.output.flush()
      return runner.output.failure == nil
    default:
      return false
    }
  }
}

/// How a prompt session ended.
enum PromptEnd {
  case quit, endOfInput
  /// SIGQUIT, SIGTERM or SIGHUP.
  case signal(Int32)
}

/// One line entered at the prompt, or one line of a paste: into the history,
/// then checked and run as a whole (handsh(1), THE PROMPT).
func enter(_ line: [UInt8], _ runner: inout Runner, _ history: inout HistoryFile) -> LineEnd {
  // A line over the limit runs nothing, and is no line to recall either.
  if line.count <= lineLimit { history.add(line) }
  // One echo of the line with marks under every offending word, before
  // the messages (handsh(1), THE PROMPT).
  if runner.sink.pointsAtFailures, line.count <= lineLimit {
    for row in syntaxPointer(line: line, width: terminalWidth()) {
      Platform.printError(row, to: runner.sink.errors)
    }
  }
  let flow = runner.enter(line)
  runner.output.flush()
  return flow
}

/// The lines of what readline returns: a paste (bracketed by readline 8.1
/// and later) arrives as one text holding line breaks, `\n`, `\r\n` or `\r`,
/// cut as an editor cuts them (`LineTable`, the core's cutter of such
/// text). The break that ends the text ends its last line; it starts no
/// empty one.
package func promptLines(_ text: [UInt8]) -> [[UInt8]] {
  let table = LineTable(text)
  var count = table.starts.count
  if count > 1, table.starts[count - 1] == text.count { count -= 1 }
  return (0..<count).map { Array(text[table.starts[$0]..<table.contentEnd(of: $0)]) }
}

/// The one context of readline's callbacks: what completion needs to know
/// of the session, kept current before each line is read.
final class PromptContext {
  private(set) var completion: CompletionContext

  init(ascii: Bool) {
    completion = CompletionContext(ascii: ascii, folder: folderNames)
  }

  func update(_ session: Session) {
    let history = session.history
    let version = history.current
    completion.deck = version.deck.cards(in: history.game(of: version))
    completion.hand = version.hand.cards
  }
}

/// The array readline takes from a completion function: what replaces the
/// word, then the candidates; nil when there are none.
private func readlineMatches(_ answer: Completions)
  -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
{
  guard !answer.candidates.isEmpty else { return nil }
  let entries =
    answer.candidates.count == 1 ? answer.candidates : [answer.common] + answer.candidates
  guard let matches = handsh_matches_new(entries.count) else { return nil }
  for (index, entry) in entries.enumerated() { handsh_matches_set(matches, index, entry) }
  if answer.labels.count == answer.candidates.count,
    let keys = handsh_matches_new(answer.candidates.count),
    let labels = handsh_matches_new(answer.labels.count)
  {
    for (index, key) in answer.candidates.enumerated() { handsh_matches_set(keys, index, key) }
    for (index, label) in answer.labels.enumerated() { handsh_matches_set(labels, index, label) }
    handsh_completion_labels(keys, labels)
  }
  return matches
}

/// The names in `folder` (`""`: the current one) that are valid UTF-8.
func folderNames(_ folder: String) -> [String] {
  guard let directory = opendir(folder.isEmpty ? "." : folder) else { return [] }
  defer { closedir(directory) }
  var names: [String] = []
  while let entry = readdir(directory) {
    let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
      tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
        String(validatingCString: $0)
      }
    }
    if let name { names.append(name) }
  }
  return names
}
