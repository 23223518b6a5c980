/// The options in a golden test's first line (handsh(1), GOLDEN TESTS):
/// `#!/usr/bin/env -S handsh --seed 42 --limit 3`. The words after the one
/// named `handsh` are options in their GNU forms; only the six that change
/// what a test prints may appear.
package enum ShebangOptions {
  private struct Spec {
    let short: UInt8?
    let long: String
    let takesValue: Bool
  }

  private static let specs = [
    Spec(short: UInt8(ascii: "s"), long: "seed", takesValue: true),
    Spec(short: UInt8(ascii: "l"), long: "limit", takesValue: true),
    Spec(short: nil, long: "ascii", takesValue: false),
    Spec(short: nil, long: "json", takesValue: false),
    Spec(short: nil, long: "echo", takesValue: false),
    Spec(short: UInt8(ascii: "q"), long: "quiet", takesValue: false),
  ]

  private static let allowed =
    "only --seed, --limit, --ascii, --json, --echo and --quiet may appear there"

  /// Every long option of handsh's command line (a test keeps this equal to
  /// the option table): a shebang's unique prefix must be unique among them
  /// all, so that the file runs the same way on its own.
  package static let commandLineLongOptions = [
    "command", "seed", "limit", "keep-going", "check", "quiet", "interactive", "echo", "json",
    "ascii", "color", "test", "update", "review", "jobs", "tap", "junit", "shard", "record",
    "journal", "lsp", "help", "version",
  ]

  /// Applies the options of shebang line `line` (its content) to `settings`.
  static func apply(_ line: [UInt8], to settings: inout GoldenSettings) throws(GoldenDiagnostic) {
    // Words split at spaces and tabs, whatever the form of the shebang, each
    // with its 1-based column.
    var words: [(bytes: [UInt8], column: Int)] = []
    var column = 3
    var word: [UInt8] = []
    var wordColumn = 3
    for byte in line.dropFirst(2) {
      if byte == 0x20 || byte == 0x09 {
        if !word.isEmpty { words.append((word, wordColumn)) }
        word = []
      } else {
        if word.isEmpty { wordColumn = column }
        word.append(byte)
      }
      if byte & 0xC0 != 0x80 { column += 1 }
    }
    if !word.isEmpty { words.append((word, wordColumn)) }
    let name = Array("handsh".utf8)
    guard
      let program = words.firstIndex(where: {
        $0.bytes == name
          || $0.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) == name
      })
    else { return }

    var i = program + 1
    func fail(_ message: String, _ at: Int) -> GoldenDiagnostic {
      GoldenDiagnostic(line: 1, column: words[at].column, message: message)
    }
    while i < words.count {
      let (argument, _) = words[i]
      let at = i
      // The value that follows as the next word, and its column.
      func value(_ shown: String) throws(GoldenDiagnostic) -> ([UInt8], Int) {
        i += 1
        guard i < words.count else { throw fail("option '\(shown)' requires an argument", at) }
        return (words[i].bytes, words[i].column)
      }
      // The column of the value attached to this word after its first
      // `skip` bytes.
      func attachedColumn(after skip: Int) -> Int {
        words[at].column + argument.prefix(skip).filter { $0 & 0xC0 != 0x80 }.count
      }
      if argument.starts(with: Array("--".utf8)), argument.count > 2 {
        let body = argument.dropFirst(2)
        let equals = body.firstIndex(of: UInt8(ascii: "="))
        let typed = Array(body[..<(equals ?? body.endIndex)])
        let names = commandLineLongOptions.filter { $0.utf8.starts(with: typed) }
        let name = commandLineLongOptions.first { Array($0.utf8) == typed } ?? names.first
        if names.count > 1, !names.contains(where: { Array($0.utf8) == typed }) {
          throw fail("option '--\(safeText(typed))' is ambiguous", at)
        }
        guard let spec = specs.first(where: { $0.long == name }) else {
          throw fail("'--\(safeText(typed))' cannot be used in a test file; \(allowed)", at)
        }
        if spec.takesValue {
          var given = (bytes: [UInt8](), column: 0)
          if let equals {
            given = (Array(body[(equals + 1)...]), attachedColumn(after: equals + 1))
          } else {
            given = try value("--" + spec.long)
          }
          try set(spec, given.bytes, &settings, at: given.column)
        } else {
          guard equals == nil else {
            throw fail("option '--\(spec.long)' doesn't allow an argument", at)
          }
          try set(spec, [], &settings, at: words[at].column)
        }
      } else if argument.first == UInt8(ascii: "-"), argument.count > 1,
        argument != Array("--".utf8)
      {
        var flags = argument.dropFirst()
        while let flag = flags.popFirst() {
          guard let spec = specs.first(where: { $0.short == flag }) else {
            throw fail("'-\(safeText([flag]))' cannot be used in a test file; \(allowed)", at)
          }
          if spec.takesValue {
            var given = (bytes: [UInt8](), column: 0)
            if flags.isEmpty {
              given = try value("-" + String(Unicode.Scalar(flag)))
            } else {
              given = (Array(flags), attachedColumn(after: flags.startIndex))
            }
            try set(spec, given.bytes, &settings, at: given.column)
            break
          }
          try set(spec, [], &settings, at: words[at].column)
        }
      } else {
        throw fail("unexpected argument '\(safeText(argument))' in a test file's first line", at)
      }
      i += 1
    }
  }

  private static func set(
    _ spec: Spec, _ text: [UInt8], _ settings: inout GoldenSettings, at column: Int
  ) throws(GoldenDiagnostic) {
    let digits = !text.isEmpty && text.allSatisfy { $0 >= 48 && $0 <= 57 }
    let number = digits ? UInt64(String(decoding: text, as: UTF8.self)) : nil
    switch spec.long {
    case "seed":
      guard let number else {
        throw GoldenDiagnostic(
          line: 1, column: column,
          message:
            "invalid seed '\(safeText(text))': expected a whole number from 0 to 18446744073709551615"
        )
      }
      settings.seed = number
    case "limit":
      guard let number, (1...52).contains(number) else {
        throw GoldenDiagnostic(
          line: 1, column: column,
          message: "invalid limit '\(safeText(text))': expected a whole number from 1 to 52")
      }
      settings.limit = Int(number)
    case "ascii": settings.ascii = true
    case "json": settings.json = true
    case "echo": settings.echo = true
    default: settings.quiet = true
    }
  }
}
