/// When to colour red cards (`--color`); whether a stream is coloured is
/// the shell's to say (it asks the terminal).
package enum ColorChoice: String, CaseIterable, Sendable {
  case auto, always, never
}

/// The shells that handsh writes a completion script for
/// (`--completion-script`).
package enum Shell: String, CaseIterable, Sendable {
  case bash, zsh, fish
}

/// The command line, parsed by GNU rules (handsh(1), OPTIONS).
package struct Options: Equatable {
  package var command: [UInt8]?
  package var seed: UInt64?
  package var limit = Session.defaultLimit
  package var keepGoing = false
  package var checkOnly = false
  package var quiet = false
  package var interactive = false
  package var echo = false
  package var json = false
  package var ascii = false
  package var color = ColorChoice.auto
  /// `--no-preview`: the prompt shows no preview of what Enter will do.
  package var noPreview = false
  package var help = false
  package var version = false
  /// `--completion-script SHELL`: print SHELL's completion script and exit.
  package var completionScript: Shell?
  /// The SCRIPT operand: a path, or `-` for stdin, as raw bytes.
  package var script: [UInt8]?
  /// `--test`: run the PATHs as golden tests (handsh(1), GOLDEN TESTS).
  package var test = false
  package var update = false
  /// `--review`: ask about each differing block (handsh(1), GOLDEN TESTS).
  package var review = false
  /// `-j N`: files run at once; nil for as many as there are CPUs.
  package var jobs: Int?
  package var tap = false
  package var junit: [UInt8]?
  /// `--shard K/N`: run only part K of N of the files found.
  package var shard: Shard?
  /// `--timeout SECONDS`: a test still running after SECONDS stops, an error.
  package var timeout: UInt64?
  /// `--record FILE`: write the prompt's session to FILE as a golden test.
  package var record: [UInt8]?
  /// The PATH operands of `--test`, as raw bytes.
  package var paths: [[UInt8]] = []
  /// `--lsp`: the language server on stdin and stdout (handsh(1), EDITORS).
  package var lsp = false
  /// `--journal FILE`: keep every version in FILE, and resume from it.
  package var journal: [UInt8]?
  /// `seed` or `limit`, when given with `--journal` (which an existing
  /// FILE refuses: it gives both).
  package var journalSettings: String?

  /// The defaults: no SCRIPT, limit 5, colour when a terminal shows it.
  package init() {}

  /// `--shard K/N`: part K (`part`, from 1) of N (`count`).
  package struct Shard: Equatable, Sendable {
    package var part: UInt64
    package var count: UInt64

    /// `K/N` with 1 <= K <= N, both whole numbers in decimal digits.
    package init?(_ text: [UInt8]) {
      let pieces = text.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      guard pieces.count == 2, let part = UInt64(decimalDigits: Array(pieces[0])),
        let count = UInt64(decimalDigits: Array(pieces[1])), part >= 1, part <= count
      else { return nil }
      self.part = part
      self.count = count
    }
  }
}

/// A usage error: what `handsh:` says before exiting with status 2.
package struct UsageError: Error, Equatable {
  package let message: String

  package init(message: String) { self.message = message }

  /// What the command line says of an option it cannot take.
  init(_ problem: OptionParser.Problem) {
    /// A long name as typed, its invalid UTF-8 shown as U+FFFD.
    func shown(_ typed: [UInt8]) -> String { safeText(String(decoding: typed, as: UTF8.self).utf8) }
    switch problem {
    case .unknownLong(let typed):
      message = "unrecognized option '--\(shown(typed))'"
    case .ambiguous(let typed, let candidates):
      message =
        "option '--\(shown(typed))' is ambiguous; possibilities: "
        + candidates.map { "'--\($0)'" }.joined(separator: " ")
    case .unknownShort(let flag): message = "invalid option -- '\(safeText([flag]))'"
    case .missingValue(let option): message = "option '\(option)' requires an argument"
    case .unexpectedValue(let long): message = "option '--\(long)' doesn't allow an argument"
    }
  }
}

/// One option of the table: its names, whether it takes a value, and what
/// it does to `Options`. `--help`, the shell completions (CompletionScripts.swift)
/// and the options a golden test's first line may give (ShebangOptions.swift)
/// are made from the table.
package struct OptionSpec: Sendable {
  package let short: Character?
  package let long: String
  package let value: String?
  package let help: String
  /// The words the value must be one of, for the completions; empty for a
  /// free value (a value named `FILE` completes file names).
  package var choices: [String] = []
  package let apply: @Sendable (inout Options, [UInt8]) throws(UsageError) -> Void

  package init(
    short: Character?, long: String, value: String?, help: String, choices: [String] = [],
    apply: @escaping @Sendable (inout Options, [UInt8]) throws(UsageError) -> Void
  ) {
    (self.short, self.long, self.value) = (short, long, value)
    (self.help, self.choices, self.apply) = (help, choices, apply)
  }
}

extension Options {
  /// Every option, in the order `--help` lists them.
  package static let table: [OptionSpec] = [
    OptionSpec(
      short: "c", long: "command", value: "TEXT",
      help: "run TEXT (commands separated by ; or new lines) instead of a script"
    ) { options, text throws(UsageError) in options.command = text },
    OptionSpec(
      short: "s", long: "seed", value: "N", help: "seed of the first game (0-\(UInt64.max))"
    ) {
      options, text throws(UsageError) in
      guard let seed = UInt64(decimalDigits: text) else {
        throw UsageError(message: Session.invalidSeedMessage(safeText(text)))
      }
      options.seed = seed
    },
    OptionSpec(
      short: "l", long: "limit", value: "N",
      help: "the most cards a hand can hold, \(Session.limits.lowerBound)-"
        + "\(Session.limits.upperBound) (default \(Session.defaultLimit))"
    ) {
      options, text throws(UsageError) in
      guard let limit = UInt64(decimalDigits: text).flatMap(Int.init(exactly:)),
        Session.limits.contains(limit)
      else {
        throw UsageError(message: Session.invalidLimitMessage(safeText(text)))
      }
      options.limit = limit
    },
    OptionSpec(
      short: "k", long: "keep-going", value: nil,
      help: "after a failed command, go on with the next; exit 1 at the end"
    ) { options, _ throws(UsageError) in options.keepGoing = true },
    OptionSpec(short: "n", long: "check", value: nil, help: "only check the syntax; run nothing") {
      options, _ throws(UsageError) in options.checkOnly = true
    },
    OptionSpec(
      short: "q", long: "quiet", value: nil, help: "no hand line after each change (and no banner)"
    ) {
      options, _ throws(UsageError) in options.quiet = true
    },
    OptionSpec(
      short: "i", long: "interactive", value: nil,
      help: "after the script or -c, go on at the prompt"
    ) { options, _ throws(UsageError) in options.interactive = true },
    OptionSpec(short: nil, long: "echo", value: nil, help: "echo each command before it runs") {
      options, _ throws(UsageError) in options.echo = true
    },
    OptionSpec(short: nil, long: "json", value: nil, help: "JSON lines instead of hand lines") {
      options, _ throws(UsageError) in options.json = true
    },
    OptionSpec(short: nil, long: "ascii", value: nil, help: "card suits as letters (QH, not Q♥)") {
      options, _ throws(UsageError) in options.ascii = true
    },
    OptionSpec(
      short: nil, long: "color", value: "WHEN",
      help: "colour red cards: auto (default), always or never",
      choices: ColorChoice.allCases.map(\.rawValue)
    ) { options, text throws(UsageError) in options.color = try choice(text, for: "color") },
    OptionSpec(
      short: nil, long: "no-preview", value: nil,
      help: "at the prompt: no preview of what Enter will do"
    ) { options, _ throws(UsageError) in options.noPreview = true },
    OptionSpec(short: nil, long: "test", value: nil, help: "run the PATHs as golden tests") {
      options, _ throws(UsageError) in options.test = true
    },
    OptionSpec(
      short: nil, long: "update", value: nil, help: "with --test: rewrite failing tests to pass"
    ) { options, _ throws(UsageError) in options.update = true },
    OptionSpec(
      short: nil, long: "review", value: nil,
      help: "with --test: ask about each differing block, then rewrite"
    ) { options, _ throws(UsageError) in options.review = true },
    OptionSpec(
      short: "j", long: "jobs", value: "N", help: "with --test: run N files at once (default: CPUs)"
    ) {
      options, text throws(UsageError) in
      guard let jobs = UInt64(decimalDigits: text), jobs >= 1 else {
        throw UsageError(
          message:
            "invalid jobs '\(safeText(text))': expected a whole number from 1 to 18446744073709551615"
        )
      }
      options.jobs = Int(min(jobs, 1024))
    },
    OptionSpec(short: nil, long: "tap", value: nil, help: "with --test: report in TAP version 13") {
      options, _ throws(UsageError) in options.tap = true
    },
    OptionSpec(
      short: nil, long: "junit", value: "FILE", help: "with --test: also write JUnit XML to FILE"
    ) { options, text throws(UsageError) in options.junit = text },
    OptionSpec(
      short: nil, long: "shard", value: "K/N",
      help: "with --test: run only part K of N of the files"
    ) {
      options, text throws(UsageError) in
      guard let shard = Shard(text) else {
        throw UsageError(
          message:
            "invalid shard '\(safeText(text))': expected K/N, whole numbers with K from 1 to N")
      }
      options.shard = shard
    },
    OptionSpec(
      short: nil, long: "timeout", value: "SECONDS",
      help: "with --test: stop a file that runs longer, as an error"
    ) {
      options, text throws(UsageError) in
      guard let seconds = UInt64(decimalDigits: text), seconds >= 1 else {
        throw UsageError(
          message:
            "invalid timeout '\(safeText(text))': expected a whole number of seconds from 1 to 18446744073709551615"
        )
      }
      options.timeout = seconds
    },
    OptionSpec(
      short: nil, long: "record", value: "FILE",
      help: "at the prompt: write the session to FILE as a golden test"
    ) { options, text throws(UsageError) in options.record = text },
    OptionSpec(
      short: nil, long: "journal", value: "FILE",
      help: "keep every version in FILE, and resume from it"
    ) { options, text throws(UsageError) in options.journal = text },
    OptionSpec(
      short: nil, long: "lsp", value: nil,
      help: "serve the language server protocol on stdin and stdout"
    ) { options, _ throws(UsageError) in options.lsp = true },
    OptionSpec(short: "h", long: "help", value: nil, help: "print this help and exit") {
      options, _ throws(UsageError) in options.help = true
    },
    OptionSpec(short: "V", long: "version", value: nil, help: "print the version and exit") {
      options, _ throws(UsageError) in options.version = true
    },
    OptionSpec(
      short: nil, long: "completion-script", value: "SHELL",
      help: "print the completion script for SHELL (bash, zsh or fish) and exit",
      choices: Shell.allCases.map(\.rawValue)
    ) {
      options, text throws(UsageError) in
      options.completionScript = try choice(text, for: "completion-script")
    },
  ]

  /// The word `text` names among the values of `Choice`, or the usage error
  /// `invalid argument 'TEXT' for '--LONG' (expected A, B or C)`.
  private static func choice<Choice: CaseIterable & RawRepresentable<String>>(
    _ text: [UInt8], for long: String
  ) throws(UsageError) -> Choice {
    if let choice = Choice(rawValue: String(decoding: text, as: UTF8.self)) { return choice }
    let words = Choice.allCases.map(\.rawValue)
    let expected = words.dropLast().joined(separator: ", ") + (words.last.map { " or " + $0 } ?? "")
    throw UsageError(
      message: "invalid argument '\(safeText(text))' for '--\(long)' (expected \(expected))")
  }

  /// Parses `arguments` (without the program name) by the GNU rules of
  /// `OptionParser`. Arguments are raw bytes, so `-c` text and a SCRIPT path
  /// reach the parser and `open` as given, invalid UTF-8 included.
  package init(parsing arguments: [[UInt8]]) throws(UsageError) {
    self.init()
    var operands: [[UInt8]] = []
    /// The long names of the options given, in order: `--lsp` takes no other.
    var given: [String] = []
    for (_, item) in OptionParser.read(arguments, table: Options.table) {
      switch item {
      case .option(let spec, let value):
        given.append(spec.long)
        try spec.apply(&self, value?.bytes ?? [])
      case .operand(let operand): operands.append(operand)
      case .endOfOptions: break
      case .problem(let problem): throw UsageError(problem)
      }
    }
    if lsp {
      if let other = given.first(where: { $0 != "lsp" && $0 != "ascii" }) {
        throw UsageError(message: "--lsp cannot be used with --\(other)")
      }
      if let operand = operands.first {
        throw UsageError(message: "--lsp takes no PATH ('\(safeText(operand))')")
      }
      return
    }
    if test {
      paths = operands
    } else if operands.count > 1 {
      throw UsageError(message: "unexpected argument '\(safeText(operands[1]))' (only one SCRIPT)")
    } else {
      script = operands.first
    }
    if command != nil, let script {
      throw UsageError(message: "-c cannot be used with a SCRIPT ('\(safeText(script))')")
    }
    if !help && !version && completionScript == nil { try checkTestOptions() }
    if journal != nil {
      journalSettings = given.first { $0 == "seed" || $0 == "limit" }
      let conflicts: [(Bool, String)] = [
        (test, "--test"), (checkOnly, "-n"), (record != nil, "--record"),
      ]
      if let (_, name) = conflicts.first(where: { $0.0 }) {
        throw UsageError(message: "--journal cannot be used with \(name)")
      }
    }
  }

  /// The combinations `--test` and `--record` forbid (handsh(1), GOLDEN TESTS).
  private func checkTestOptions() throws(UsageError) {
    if test {
      let conflicts: [(Bool, String)] = [
        (command != nil, "-c"), (interactive, "-i"), (keepGoing, "-k"), (checkOnly, "-n"),
        (record != nil, "--record"),
      ]
      if let (_, name) = conflicts.first(where: { $0.0 }) {
        throw UsageError(message: "--test cannot be used with \(name)")
      }
      if paths.isEmpty { throw UsageError(message: "--test needs at least one PATH") }
      if paths.contains([UInt8(ascii: "-")]) {
        throw UsageError(message: "--test cannot read tests from stdin ('-')")
      }
      if review {
        let conflicts: [(Bool, String)] = [
          (update, "--update"), (tap, "--tap"), (junit != nil, "--junit"),
          (shard != nil, "--shard"),
        ]
        if let (_, name) = conflicts.first(where: { $0.0 }) {
          throw UsageError(message: "--review cannot be used with \(name)")
        }
      }
    } else {
      let needTest: [(Bool, String)] = [
        (update, "--update"), (review, "--review"), (tap, "--tap"), (junit != nil, "--junit"),
        (jobs != nil, "-j"), (shard != nil, "--shard"), (timeout != nil, "--timeout"),
      ]
      if let (_, name) = needTest.first(where: { $0.0 }) {
        throw UsageError(message: "\(name) can only be used with --test")
      }
    }
    if record != nil {
      if command != nil { throw UsageError(message: "--record cannot be used with -c") }
      if let script {
        throw UsageError(
          message: "--record cannot be used with a SCRIPT ('\(safeText(script))')")
      }
    }
  }

  /// The same, for arguments that are Swift strings (tests).
  package init(parsing arguments: [String]) throws(UsageError) {
    try self.init(parsing: arguments.map { Array($0.utf8) })
  }

  /// The widest names (`-c, --command TEXT`) `--help` writes beside their
  /// help.
  private static let namesWidth = 20

  /// `handsh --help`: usage and every option of the table.
  package static var usage: String {
    var lines = [
      "Usage: handsh [OPTIONS] [SCRIPT | -]",
      "       handsh --test [--update | --review] [-j N] [--tap] [--junit FILE]",
      "                     [--shard K/N] [--timeout SECONDS] PATH...",
      "       handsh --lsp [--ascii]",
      "A shell for a hand of playing cards: runs SCRIPT, -c TEXT, or stdin;",
      "with a terminal and no SCRIPT, a readline prompt. Type 'help' inside.",
      "With --test, checks the golden tests in the PATHs (files, or folders of",
      "*.hand files) against the output written under their lines. With --lsp,",
      "a language server for .hand files in an editor.",
      "",
      "Options:",
    ]
    let left = table.map { spec in
      let names = (spec.short.map { "-\($0), " } ?? "    ") + "--" + spec.long
      return spec.value.map { names + " " + $0 } ?? names
    }
    // The help column is as wide as the names that fit in `namesWidth`; a
    // longer name has its help on the next line, as GNU argp writes it.
    let width = left.map(\.count).filter { $0 <= namesWidth }.max() ?? namesWidth
    for (text, spec) in zip(left, table) {
      if text.count > width {
        lines.append("  " + text)
        lines.append(String(repeating: " ", count: 2 + width + 2) + spec.help)
      } else {
        lines.append(
          "  " + text + String(repeating: " ", count: width - text.count) + "  " + spec.help)
      }
    }
    lines += [
      "",
      "Exit status: 0 when every command succeeded, 1 when a command or the syntax",
      "failed, 2 for a usage error. With --test: 0 when every test passed, 1 when",
      "some failed, 2 for a malformed or unreadable one. See handsh(1).",
    ]
    return lines.joined(separator: "\n") + "\n"
  }
}
