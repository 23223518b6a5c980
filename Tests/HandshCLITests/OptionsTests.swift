import HandKit
import HandshCLI
import Testing

/// The GNU option parser and the choice of mode, in-process (handsh(1),
/// OPTIONS): no process is started, so every form can be tried.
struct OptionsTests {
  private func parse(_ arguments: [String]) throws -> Options {
    try Options(parsing: arguments)
  }

  /// `--seed=42`, `--seed 42`, `-s42`, `-s 42`, a unique prefix, options
  /// after SCRIPT and `--` all parse to the same options.
  @Test func optionFormsAreTheSame() throws {
    var expected = Options()
    expected.seed = 42
    expected.script = Array("s.hand".utf8)
    let forms: [[String]] = [
      ["--seed", "42", "s.hand"],
      ["--seed=42", "s.hand"],
      ["-s42", "s.hand"],
      ["-s", "42", "s.hand"],
      ["--se", "42", "s.hand"],
      ["--se=42", "s.hand"],
      ["s.hand", "--seed", "42"],
      ["s.hand", "-s42"],
      ["--limit", "5", "s.hand", "--seed=42", "--color=auto"],
      ["--seed", "42", "--", "s.hand"],
      ["-s42", "--", "s.hand"],
    ]
    for form in forms {
      #expect(try parse(form) == expected, "handsh \(form.joined(separator: " "))")
    }
    // After `--`, a word that looks like an option is the SCRIPT.
    #expect(try parse(["--", "-x.hand"]).script == Array("-x.hand".utf8))
    #expect(
      try parse(["--", "--seed"])
        == {
          var o = Options()
          o.script = Array("--seed".utf8)
          return o
        }())
  }

  /// Grouped flags (`-kq`, `-kqs42`) are the flags one by one; a flag that
  /// takes a value ends the group, taking the rest or the next argument.
  @Test func groupedFlagsAreTheFlagsOneByOne() throws {
    var expected = Options()
    expected.keepGoing = true
    expected.quiet = true
    expected.seed = 42
    for form in [
      ["-kq", "--seed", "42"], ["-qk", "-s", "42"], ["-k", "-q", "-s42"], ["-kqs42"],
      ["-qks", "42"], ["--kee", "--qu", "--seed", "42"],
    ] {
      #expect(try parse(form) == expected, "handsh \(form.joined(separator: " "))")
    }
    #expect(try parse(["-c", "add; show"]).command == Array("add; show".utf8))
    #expect(try parse(["-cadd"]).command == Array("add".utf8))
    #expect(try parse(["-c", "-k"]).command == Array("-k".utf8))
  }

  /// Every usage error names what is wrong, and parses to nothing.
  @Test(
    arguments: [
      (["-x", "ok.hand"], "invalid option -- 'x'"),
      (["--bogus"], "unrecognized option '--bogus'"),
      (["--c"], "ambiguous"),
      (["--quiet=yes"], "option '--quiet' doesn't allow an argument"),
      (["ok.hand", "--seed"], "option '--seed' requires an argument"),
      (["ok.hand", "-s"], "option '-s' requires an argument"),
      (["ok.hand", "-c"], "option '-c' requires an argument"),
      (["--seed=abc"], "invalid seed 'abc'"),
      (["--seed", "-1"], "invalid seed '-1'"),
      (["--seed", "+5"], "invalid seed '+5'"),
      (["--seed="], "invalid seed ''"),
      (["-s", "0x10"], "invalid seed '0x10'"),
      (["--seed", "18446744073709551616"], "invalid seed '18446744073709551616'"),
      (["--limit", "0"], "invalid limit '0'"),
      (["--limit", "53"], "invalid limit '53'"),
      (["-l", "99999999999999999999999"], "invalid limit '99999999999999999999999'"),
      (["--color", "sometimes"], "invalid argument 'sometimes' for '--color'"),
      (["--color", "ok.hand"], "invalid argument 'ok.hand' for '--color'"),
      (["ok.hand", "other.hand"], "unexpected argument 'other.hand'"),
      (["ok.hand", "--", "other.hand"], "unexpected argument 'other.hand'"),
      (["-c", "add", "ok.hand"], "-c cannot be used with a SCRIPT ('ok.hand')"),
      (["ok.hand", "--command=add"], "-c cannot be used with a SCRIPT ('ok.hand')"),
      (["-c", "add", "-"], "-c cannot be used with a SCRIPT ('-')"),
      (["--seed", "\u{1B}[31m"], "invalid seed '\\x1B[31m'"),
    ])
  func usageErrors(arguments: [String], message: String) {
    #expect {
      _ = try parse(arguments)
    } throws: { error in
      guard let error = error as? UsageError else { return false }
      return error.message.contains(message)
    }
  }

  /// The exact words of the common usage errors, as GNU getopt says them.
  @Test func usageMessagesFollowGetopt() {
    #expect(throws: UsageError(message: "unrecognized option '--bogus'")) {
      try parse(["--bogus"])
    }
    #expect(
      throws: UsageError(
        message:
          "option '--c' is ambiguous; possibilities: '--command' '--check' '--color' '--completion-script'"
      )
    ) { try parse(["--c"]) }
  }

  /// Which mode a command line asks for, given which streams are terminals.
  @Test func modes() throws {
    func mode(_ arguments: [String], tty: (Bool, Bool, Bool)) throws -> Mode {
      Mode(try parse(arguments), stdin: tty.0, stdout: tty.1, stderr: tty.2)
    }
    let all = (true, true, true)
    let none = (false, false, false)
    #expect(try mode(["--help", "-c", "add"], tty: none) == .help)
    #expect(try mode(["-V"], tty: none) == .version)
    #expect(try mode([], tty: all) == .prompt)
    #expect(try mode([], tty: none) == .stdin)
    // `handsh | tee log` and `handsh > out` keep their prompt, on stderr.
    #expect(try mode([], tty: (true, false, true)) == .prompt)
    #expect(try mode([], tty: (true, true, false)) == .prompt)
    #expect(try mode([], tty: (true, false, false)) == .stdin)
    #expect(try mode([], tty: (false, true, true)) == .stdin)
    // `-` always reads stdin; -n checks what is typed instead of prompting.
    #expect(try mode(["-"], tty: all) == .stdin)
    #expect(try mode(["-n"], tty: all) == .stdin)
    #expect(
      try mode(["-i", "-c", "add"], tty: none)
        == .text(source: .command(Array("add".utf8)), thenInteractive: true))
    #expect(
      try mode(["g.hand"], tty: all)
        == .text(source: .script(Array("g.hand".utf8)), thenInteractive: false))
  }

  /// `--help` lists every option of the table, each once, with its short form.
  @Test func helpListsEveryOption() {
    let lines = Options.usage.split(separator: "\n").map(String.init)
    for spec in Options.table {
      let names = spec.short.map { "  -\($0), --\(spec.long)" } ?? "      --\(spec.long)"
      let line = lines.filter { $0.hasPrefix(names + " ") }
      #expect(line.count == 1, "\(names) in --help")
    }
  }

  /// A golden test's shebang takes options of the command line's table
  /// (read by its parser, so abbreviations resolve among the same long
  /// names): every name of its allow-list is one of them.
  @Test func shebangsAllowOptionsOfTheTable() {
    for name in ShebangOptions.allowed {
      #expect(Options.table.contains { $0.long == name }, "--\(name)")
    }
  }

  /// `--completion-script SHELL` names one of three shells, prints its
  /// script and exits, as `--help` does, whatever goes with it.
  @Test func completionScriptNamesAShell() throws {
    #expect(try Options(parsing: ["--completion-script=zsh"]).completionScript == .zsh)
    let options = try Options(parsing: ["--comp", "fish", "--update", "a.hand"])
    #expect(options.completionScript == .fish)
    #expect(Mode(options, stdin: true, stdout: true, stderr: true) == .completionScript(.fish))
    #expect(
      throws: UsageError(
        message: "invalid argument 'sh' for '--completion-script' (expected bash, zsh or fish)")
    ) {
      try Options(parsing: ["--completion-script", "sh"])
    }
  }

  /// `--lsp` takes `--ascii` and nothing else (handsh(1), EDITORS).
  @Test func lspTakesOnlyASCII() throws {
    let options = try Options(parsing: ["--ascii", "--lsp"])
    #expect(options.lsp && options.ascii)
    #expect(Mode(options, stdin: true, stdout: true, stderr: true) == .lsp)
    #expect(throws: UsageError(message: "--lsp cannot be used with --seed")) {
      try Options(parsing: ["--lsp", "-s", "1"])
    }
    #expect(throws: UsageError(message: "--lsp cannot be used with --test")) {
      try Options(parsing: ["--test", "--lsp", "x"])
    }
    #expect(throws: UsageError(message: "--lsp cannot be used with --help")) {
      try Options(parsing: ["--lsp", "--help"])
    }
    #expect(throws: UsageError(message: "--lsp takes no PATH ('x.hand')")) {
      try Options(parsing: ["--lsp", "x.hand"])
    }
  }
}
