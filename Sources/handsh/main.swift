import HandKit

#if canImport(Glibc)
  import Glibc
#endif

/// handsh: parse the options, then hand the lines of a script, `-c`, stdin or
/// the prompt to one runner.
func main() -> Never {
  // A closed pipe ends handsh at once and quietly, whatever the parent set.
  signal(SIGPIPE, SIG_DFL)

  let options: Options
  do {
    options = try Options(parsing: rawArguments())
  } catch {
    System.printError("handsh: \(error.message)")
    System.printError("Try 'handsh --help' for more information.")
    System.exit(2)
  }
  if options.help || options.version {
    var output = Output()
    output.buffer.append(
      contentsOf: (options.help ? Options.usage : "handsh \(handshVersion)\n").utf8)
    output.flush()
    System.exit(0)
  }

  var runner = Runner(options: options, seed: options.seed ?? UInt64.random(in: .min ... .max))
  let terminal = System.isTerminal(0) && System.isTerminal(1)
  var flow = Flow.next
  var ranScript = false

  if let command = options.command {
    flow = runner.runText(command, name: "<command line>")
    ranScript = true
  } else if let script = options.script, script != [UInt8(ascii: "-")] {
    switch readFile(script) {
    case .success(let text):
      flow = runner.runText(text, name: safeText(script))
      ranScript = true
    case .failure(let error):
      System.printError(
        "handsh: cannot open '\(safeText(script))': \(System.describe(error.code))")
      System.exit(2)
    }
  }

  if ranScript && !(options.interactive && !options.checkOnly) || flow == .quit {
    finish(&runner, status: runner.failed ? 1 : 0)
  }
  // The prompt runs what is typed, so -n (run nothing) checks stdin instead.
  if terminal && !options.checkOnly && (ranScript || options.script == nil) {
    runner.output.flush()
    let status = runPrompt(&runner)
    finish(&runner, status: status)
  }
  var stdin = StreamLines(fd: 0)
  if ranScript {
    // -i without a terminal: go on with stdin, as the prompt would.
    _ = runner.runStream(&stdin, name: nil)
    finish(&runner, status: 0)
  }
  _ = runner.runStream(&stdin, name: "<stdin>")
  finish(&runner, status: runner.failed ? 1 : 0)
}

/// The arguments as the kernel gave them: bytes, not lossily decoded Strings.
func rawArguments() -> [[UInt8]] {
  // argc can be 0 where the kernel allows an execve with an empty argv
  // (Linux since 5.18 passes "" instead, so no test here can make it 0).
  let count = Int(CommandLine.argc)
  guard count > 1 else { return [] }
  return (1..<count).map { index in
    guard let argument = CommandLine.unsafeArgv[index] else { return [] }
    return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map {
      UInt8(bitPattern: $0)
    }
  }
}

func finish(_ runner: inout Runner, status: Int32) -> Never {
  runner.output.flush()
  System.exit(status)
}

let handshVersion = "1.0.0"

main()
