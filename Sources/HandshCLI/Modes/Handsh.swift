import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The version `--version` and the banner print.
package let handshVersion = "1.0.0"

/// What a command line asks handsh to do (handsh(1), DESCRIPTION).
package enum Mode: Equatable {
  /// `--help` or `--version`: print and exit 0.
  case help, version
  /// `--completion-script SHELL`: print SHELL's script and exit 0.
  case completionScript(Shell)
  /// A SCRIPT or `-c` text: checked whole, then run; with `-i`, the prompt
  /// (or stdin, without a terminal) follows.
  case text(source: TextSource, thenInteractive: Bool)
  /// Commands from stdin, run line by line as they arrive.
  case stdin
  /// The readline prompt.
  case prompt
  /// `--test PATH…`: golden tests (handsh(1), GOLDEN TESTS).
  case test
  /// `--lsp`: the language server (handsh(1), EDITORS).
  case lsp

  /// Whether the mode reads commands from stdin.
  var readsStdin: Bool {
    switch self {
    case .stdin, .prompt: true
    case .text(_, let interactive): interactive
    default: false
    }
  }

  /// Whether the mode only prints a text and exits, running nothing.
  var onlyPrints: Bool {
    switch self {
    case .help, .version, .completionScript: true
    case .text, .stdin, .prompt, .test, .lsp: false
    }
  }

  package enum TextSource: Equatable {
    case command([UInt8])
    case script([UInt8])
  }

  /// The mode for `options`, given which standard streams are terminals:
  /// the prompt needs stdin to be one, and stdout or stderr to draw on.
  package init(_ options: Options, stdin: Bool, stdout: Bool, stderr: Bool) {
    let terminal = stdin && (stdout || stderr)
    if options.help {
      self = .help
    } else if options.version {
      self = .version
    } else if let shell = options.completionScript {
      self = .completionScript(shell)
    } else if options.lsp {
      self = .lsp
    } else if options.test {
      self = .test
    } else if let command = options.command {
      self = .text(source: .command(command), thenInteractive: options.interactive)
    } else if let script = options.script, script != [UInt8(ascii: "-")] {
      self = .text(source: .script(script), thenInteractive: options.interactive)
    } else if terminal && !options.checkOnly && options.script == nil {
      // The prompt runs what is typed, so -n (run nothing) checks stdin instead.
      self = .prompt
    } else {
      self = .stdin
    }
  }
}

/// The whole of handsh behind `main`: parses the arguments, runs the mode
/// they ask for, and returns the exit status. Only `main` exits.
package enum Handsh {
  /// Notes the descriptors handsh inherited, and sets up the one signal
  /// policy of the process (handsh(1), SIGNALS): first thing in `main`.
  package static func startSignalPolicy() { handsh_signals_start() }

  /// The process's arguments after the program name, as bytes, as the
  /// kernel gave them (kept by a constructor, so that no /proc is needed).
  package static func processArguments() -> [[UInt8]]? {
    let count = Int(handsh_argument_count())
    guard count > 0 else { return nil }
    return (1..<count).map { index in
      handsh_argument(Int32(index)).map {
        Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) }
      } ?? []
    }
  }

  package static func run(arguments: [[UInt8]]) -> Int32 {
    let options: Options
    do {
      options = try Options(parsing: arguments)
    } catch {
      Platform.printError("handsh: \(error.message)")
      Platform.printError("Try 'handsh --help' for more information.")
      return 2
    }
    let mode = Mode(
      options, stdin: Platform.isTerminal(0), stdout: Platform.isTerminal(1),
      stderr: Platform.isTerminal(2))
    if options.review, mode == .test, !(Platform.isTerminal(0) && Platform.isTerminal(2)) {
      Platform.printError("handsh: --review needs a terminal: stdin and stderr")
      Platform.printError("Try 'handsh --help' for more information.")
      return 2
    }
    if options.record != nil, mode != .prompt, !mode.onlyPrints {
      Platform.printError(
        "handsh: --record needs the prompt: stdin and stdout or stderr a terminal")
      Platform.printError("Try 'handsh --help' for more information.")
      return 2
    }
    let seed = options.seed ?? UInt64.random(in: .min ... .max)
    var runner = Runner(options: options, seed: seed)
    if let path = options.journal, !mode.onlyPrints {
      switch Journal.start(
        path, seed: seed, limit: options.limit, given: options.journalSettings,
        readsStdin: mode.readsStdin)
      {
      case .failure(let failure):
        Platform.printError("handsh: \(failure.message)")
        if failure.usage { Platform.printError("Try 'handsh --help' for more information.") }
        return 2
      case .success(let started):
        runner.executor.session = started.session
        runner.output.journal = started.journal
        runner.journalResumed = started.resumed
      }
    }
    if let file = options.record, mode == .prompt {
      // Said now, not after a session typed in vain (the folder may still
      // go away; that is reported when the session ends).
      if let problem = checkWritable(file) {
        Platform.printError("handsh: \(problem)")
        return 2
      }
      runner.recorder = Recorder(file: file, runner: runner)
    }
    var status = runMode(mode, &runner)
    // The output first: the recording's FILE may be stdout by name.
    runner.output.flush()
    // The journal to disk at the end: a failure there is a failed write.
    if runner.sink.syncJournal(session: &runner.executor.session) { status = max(status, 1) }
    if runner.output.journal?.ended == true { status = 2 }
    if let recorder = runner.recorder, !recorder.finish() { status = max(status, 1) }
    if let failure = runner.output.failure {
      // A closed pipe ends handsh quietly, like `cat`.
      if failure != EPIPE {
        Platform.printError("handsh: write error: \(Platform.describe(failure))")
      }
      // The largest status wins: a usage error (2) stays 2.
      return max(status, 1)
    }
    return status
  }

  /// A read error on stdin: reported after the output so far, status 2
  /// (handsh(1), EXIT STATUS); never taken for the end of the input.
  private static func readFailed(_ failure: SystemError, _ runner: inout Runner) -> Int32 {
    runner.output.flush()
    Platform.printError("handsh: \(failure)")
    return 2
  }

  private static func runMode(_ mode: Mode, _ runner: inout Runner) -> Int32 {
    switch mode {
    case .help, .version:
      runner.output.buffer.append(
        contentsOf: (mode == .help ? Options.usage : "handsh \(handshVersion)\n").utf8)
      return 0
    case .completionScript(let shell):
      runner.output.buffer.append(contentsOf: completionScript(for: shell).utf8)
      return 0
    case .prompt:
      return runPrompt(&runner)
    case .test:
      return GoldenTestRun(options: runner.options).run(&runner.output)
    case .lsp:
      return ServerLoop.serve(ascii: runner.options.ascii)
    case .stdin:
      var stdin = StreamLines(fd: 0)
      _ = runner.runLines(&stdin, source: "<stdin>", stream: true)
      if let failure = stdin.failure { return readFailed(failure, &runner) }
      return runner.failed ? 1 : 0
    case .text(let source, let interactive):
      let flow: LineEnd
      switch source {
      case .command(let text):
        flow = runner.runText(text, name: "<command line>")
      case .script(let path):
        switch runner.runScript(path, name: safeText(path)) {
        case .success(let ran):
          flow = ran
        case .failure(let error):
          Platform.printError("handsh: \(error)")
          return 2
        }
      }
      guard interactive && !runner.options.checkOnly && flow != .quit else {
        return runner.failed ? 1 : 0
      }
      if Platform.isTerminal(0) && (Platform.isTerminal(1) || Platform.isTerminal(2)) {
        runner.output.flush()
        return runPrompt(&runner)
      }
      // -i without a terminal: go on with stdin, as the prompt would.
      var stdin = StreamLines(fd: 0)
      _ = runner.runLines(&stdin, source: nil, stream: true)
      if let failure = stdin.failure { return readFailed(failure, &runner) }
      return 0
    }
  }
}
