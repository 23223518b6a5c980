import CReadline
import HandKit

/// The interactive prompt on GNU readline's callback interface: `poll` on
/// the terminal and a self-pipe that signal handlers write to, so Ctrl-C can
/// drop the line being typed and leave readline's state clean (SPEC §8).
func runPrompt(_ runner: inout Runner) -> Int32 {
  setlocale(LC_ALL, "")
  Prompt.start(runner)
  defer { Prompt.stop() }
  // SIGTERM and SIGHUP end handsh from inside the prompt: a recording is
  // written first (handsh(1), GOLDEN TESTS).
  Prompt.beforeSignalEnd = { [recorder = runner.recorder] in _ = recorder?.finish() }
  if !runner.options.quiet {
    let seed = runner.session.history.seed(of: runner.session.current)
    Platform.printError(
      "handsh \(handshVersion), seed \(seed): type 'help' for commands, Ctrl-D to quit")
  }
  var history = HistoryFile(path: HistoryFile.defaultPath())
  history.load()
  while true {
    Prompt.update(runner)
    guard let line = Prompt.readLine() else {
      // Ctrl-D on an empty line.
      runner.output.buffer.append(UInt8(ascii: "\n"))
      runner.output.flush()
      return 0
    }
    history.add(line)
    let flow = runner.enter(line)
    runner.output.flush()
    if case .quit = flow { return 0 }
  }
}

/// Readline's callbacks are C functions without context, so what they need
/// lives here, touched only from the one thread that runs the prompt.
enum Prompt {
  /// The line entered, as bytes: invalid UTF-8 must reach the parser as is.
  nonisolated(unsafe) static var line: [UInt8]?
  nonisolated(unsafe) static var lineDone = false
  nonisolated(unsafe) static var candidates: [String] = []
  nonisolated(unsafe) static var deckCards: [Card] = []
  nonisolated(unsafe) static var ascii = false
  nonisolated(unsafe) static var signalPipe: (read: Int32, write: Int32) = (-1, -1)
  static let promptText = "handsh> "
  nonisolated(unsafe) static var promptCString: UnsafeMutablePointer<CChar>? = nil
  /// Run when SIGTERM or SIGHUP ends the session.
  nonisolated(unsafe) static var beforeSignalEnd: () -> Void = {}

  static func start(_ runner: Runner) {
    handsh_rl_set_name("handsh")
    // We handle the signals ourselves, through the self-pipe.
    handsh_rl_set_catch_signals(0)
    handsh_rl_set_completer { text, start, _ in Prompt.complete(text, start) }
    ascii = runner.options.ascii
    promptCString = strdup(promptText)
    var fds: [Int32] = [-1, -1]
    if pipe(&fds) == 0 {
      signalPipe = (fds[0], fds[1])
      for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }
    for signal in [SIGINT, SIGWINCH, SIGTERM, SIGHUP] { install(signal) }
  }

  static func stop() {
    for number in [SIGINT, SIGWINCH, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
  }

  /// Keeps the completion's view of the session current.
  static func update(_ runner: Runner) {
    let history = runner.session.history
    deckCards = history.current.deck.cards(in: history.game(of: history.current))
  }

  private static func install(_ number: Int32) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { number in
      var byte = UInt8(truncatingIfNeeded: number)
      _ = write(Prompt.signalPipe.write, &byte, 1)
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(number, &action, nil)
  }

  /// Reads one line at the prompt; nil at Ctrl-D on an empty line.
  static func readLine() -> [UInt8]? {
    lineDone = false
    line = nil
    installLineHandler()
    while !lineDone {
      var fds = [
        pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
        pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, -1)
      if ready < 0 {
        if errno == EINTR { continue }
        rl_callback_handler_remove()
        return nil
      }
      if fds[1].revents & Int16(POLLIN) != 0 { handleSignals() }
      if !lineDone, fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        rl_callback_read_char()
      }
    }
    return line
  }

  /// Shows the prompt; readline calls back with the line (nil at Ctrl-D).
  private static func installLineHandler() {
    rl_callback_handler_install(promptCString) { raw in
      Prompt.lineDone = true
      if let raw {
        Prompt.line = Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
        free(raw)
      }
      rl_callback_handler_remove()
    }
  }

  private static func handleSignals() {
    var byte: UInt8 = 0
    while read(signalPipe.read, &byte, 1) == 1 {
      switch Int32(byte) {
      case SIGINT:
        // Drop the line being typed and start afresh on a new line.
        rl_free_line_state()
        rl_callback_sigcleanup()
        rl_cleanup_after_signal()
        rl_callback_handler_remove()
        rl_replace_line("", 0)
        _ = write(1, "\n", 1)
        installLineHandler()
      case SIGWINCH:
        rl_resize_terminal()
      default:
        // SIGTERM, SIGHUP: history is already on disk; restore the terminal.
        // Then die of the signal itself, so the parent sees how handsh ended.
        rl_callback_handler_remove()
        rl_cleanup_after_signal()
        beforeSignalEnd()
        signal(Int32(byte), SIG_DFL)
        raise(Int32(byte))
        exit(128 + Int32(byte))
      }
    }
  }

  // MARK: Completion

  /// Tab: command names at the start of a command, topics after `help`, and
  /// the cards still in the deck after `add`.
  static func complete(
    _ text: UnsafePointer<CChar>?, _ start: Int32
  ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    handsh_rl_completion_over()
    let buffer = handsh_rl_line_buffer().map { String(cString: $0) } ?? ""
    let before = Array(buffer.utf8.prefix(max(0, Int(start))))
    let command =
      before.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).last ?? []
    let words = command.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map {
      String(decoding: $0, as: UTF8.self)
    }
    let typed = text.map { String(cString: $0) } ?? ""
    candidates = completions(typed: typed, after: words)
    guard !candidates.isEmpty else { return nil }
    return rl_completion_matches(text) { _, state in
      guard Int(state) < Prompt.candidates.count else { return nil }
      return strdup(Prompt.candidates[Int(state)])
    }
  }

  static func completions(typed: String, after words: [String]) -> [String] {
    let lowered = typed.lowercased()
    switch words.count {
    case 0:
      return CommandName.allCases.map(\.rawValue).filter { $0.hasPrefix(typed) }
    case 1 where words[0] == "help":
      return CommandName.allCases.map(\.rawValue).filter { $0.hasPrefix(typed) }
    case 1 where words[0] == "add":
      return deckCards.filter {
        $0.name(ascii: ascii).lowercased().hasPrefix(lowered)
          || $0.name(ascii: true).lowercased().hasPrefix(lowered)
      }.map { $0.name(ascii: ascii) }
    default:
      return []
    }
  }
}
