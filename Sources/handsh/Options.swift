import HandKit

/// When to colour red cards.
enum ColorChoice: String, CaseIterable {
  case auto, always, never
}

/// The command line, parsed by GNU rules (SPEC §6).
struct Options: Equatable {
  var command: String?
  var seed: UInt64?
  var limit = 5
  var keepGoing = false
  var checkOnly = false
  var quiet = false
  var interactive = false
  var echo = false
  var json = false
  var ascii = false
  var color = ColorChoice.auto
  var help = false
  var version = false
  /// The SCRIPT operand: a path, or `-` for stdin.
  var script: String?
}

/// A usage error: what `handsh:` says before exiting with status 2.
struct UsageError: Error, Equatable {
  let message: String
}

/// One option of the table: its names, whether it takes a value, and what
/// it does to `Options`.
struct OptionSpec: Sendable {
  let short: Character?
  let long: String
  let value: String?
  let help: String
  let apply: @Sendable (inout Options, String) throws(UsageError) -> Void
}

extension Options {
  /// Every option, in the order `--help` lists them.
  static let table: [OptionSpec] = [
    OptionSpec(
      short: "c", long: "command", value: "TEXT",
      help: "run TEXT (commands separated by ; or new lines) instead of a script"
    ) { options, text throws(UsageError) in options.command = text },
    OptionSpec(
      short: "s", long: "seed", value: "N", help: "seed of the first game (0-18446744073709551615)"
    ) {
      options, text throws(UsageError) in
      guard let seed = UInt64(decimal: text) else {
        throw UsageError(
          message:
            "invalid seed '\(safeText(text.utf8))': expected a whole number from 0 to 18446744073709551615"
        )
      }
      options.seed = seed
    },
    OptionSpec(
      short: "l", long: "limit", value: "N",
      help: "the most cards a hand can hold, 1-52 (default 5)"
    ) {
      options, text throws(UsageError) in
      guard let limit = UInt64(decimal: text), (1...52).contains(limit) else {
        throw UsageError(
          message: "invalid limit '\(safeText(text.utf8))': expected a whole number from 1 to 52")
      }
      options.limit = Int(limit)
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
      help: "colour red cards: auto (default), always or never"
    ) {
      options, text throws(UsageError) in
      guard let choice = ColorChoice(rawValue: text) else {
        throw UsageError(
          message:
            "invalid argument '\(safeText(text.utf8))' for '--color' (expected auto, always or never)"
        )
      }
      options.color = choice
    },
    OptionSpec(short: "h", long: "help", value: nil, help: "print this help and exit") {
      options, _ throws(UsageError) in options.help = true
    },
    OptionSpec(short: "V", long: "version", value: nil, help: "print the version and exit") {
      options, _ throws(UsageError) in options.version = true
    },
  ]

  /// Parses `arguments` (without the program name): options anywhere,
  /// `--name=value` or `--name value`, unambiguous prefixes of long names,
  /// `-s42` or `-s 42`, grouped flags (`-kq`), and `--` to end the options.
  init(parsing arguments: [String]) throws(UsageError) {
    self.init()
    var operands: [String] = []
    var i = 0
    func value(for spec: OptionSpec, named name: String) throws(UsageError) -> String {
      i += 1
      guard i < arguments.count else {
        throw UsageError(message: "option '\(name)' requires an argument")
      }
      return arguments[i]
    }
    while i < arguments.count {
      let argument = arguments[i]
      if argument == "--" {
        operands += arguments[(i + 1)...]
        break
      } else if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        let spec = try Options.longOption(name)
        if spec.value != nil {
          let text: String
          if let attached {
            text = attached
          } else {
            text = try value(for: spec, named: "--" + spec.long)
          }
          try spec.apply(&self, text)
        } else {
          guard attached == nil else {
            throw UsageError(message: "option '--\(spec.long)' doesn't allow an argument")
          }
          try spec.apply(&self, "")
        }
      } else if argument.hasPrefix("-"), argument != "-" {
        var flags = Substring(argument.dropFirst())
        while let flag = flags.popFirst() {
          guard let spec = Options.table.first(where: { $0.short == flag }) else {
            throw UsageError(message: "invalid option -- '\(safeText(String(flag).utf8))'")
          }
          if spec.value != nil {
            let text =
              flags.isEmpty ? try value(for: spec, named: "-" + String(flag)) : String(flags)
            try spec.apply(&self, text)
            break
          }
          try spec.apply(&self, "")
        }
      } else {
        operands.append(argument)
      }
      i += 1
    }
    if operands.count > 1 {
      throw UsageError(
        message: "unexpected argument '\(safeText(operands[1].utf8))' (only one SCRIPT)")
    }
    script = operands.first
    if command != nil, let script {
      throw UsageError(message: "-c cannot be used with a SCRIPT ('\(safeText(script.utf8))')")
    }
  }

  /// The long option `name` names, exactly or as an unambiguous prefix.
  private static func longOption(_ name: String) throws(UsageError) -> OptionSpec {
    if let exact = table.first(where: { $0.long == name }) { return exact }
    let candidates = table.filter { $0.long.hasPrefix(name) }
    guard candidates.count == 1, let only = candidates.first, !name.isEmpty else {
      let shown = safeText(name.utf8)
      throw UsageError(
        message: candidates.count > 1
          ? "option '--\(shown)' is ambiguous; possibilities: "
            + candidates.map { "'--\($0.long)'" }.joined(separator: " ")
          : "unrecognized option '--\(shown)'")
    }
    return only
  }

  /// `handsh --help`: usage and every option of the table.
  static var usage: String {
    var lines = [
      "Usage: handsh [OPTIONS] [SCRIPT | -]",
      "A shell for a hand of playing cards: runs SCRIPT, -c TEXT, or stdin;",
      "with a terminal and no SCRIPT, a readline prompt. Type 'help' inside.",
      "",
      "Options:",
    ]
    let left = table.map { spec in
      let names = (spec.short.map { "-\($0), " } ?? "    ") + "--" + spec.long
      return spec.value.map { names + " " + $0 } ?? names
    }
    let width = left.map(\.count).max() ?? 0
    for (text, spec) in zip(left, table) {
      lines.append(
        "  " + text + String(repeating: " ", count: width - text.count) + "  " + spec.help)
    }
    lines += [
      "",
      "Exit status: 0 when every command succeeded, 1 when a command or the syntax",
      "failed, 2 for a usage error. See handsh(1) for the language.",
    ]
    return lines.joined(separator: "\n") + "\n"
  }
}

extension UInt64 {
  /// Decimal digits only: no sign, no spaces, no other bases.
  init?(decimal text: String) {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = UInt64(text)
    else {
      return nil
    }
    self = value
  }
}
