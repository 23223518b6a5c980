/// The options in a golden test's first line (handsh(1), GOLDEN TESTS):
/// `#!/usr/bin/env -S handsh --seed 42 --limit 3`. The words after the one
/// named `handsh` are options of the command line's table (`Options.table`),
/// read by the same GNU rules; only the six that change what a test prints
/// may appear.
package enum ShebangOptions {
  /// The long names of the options a first line may give, in the order the
  /// writer (`line`) gives them.
  package static let allowed = ["seed", "limit", "ascii", "json", "echo", "quiet"]

  /// What a refused option is told: `only --seed, … and --quiet may appear there`.
  private static let allowedText =
    "only " + allowed.dropLast().map { "--" + $0 }.joined(separator: ", ")
    + (allowed.last.map { " and --" + $0 } ?? "") + " may appear there"

  /// The first line of a test or a journal that gives these options, in
  /// `allowed`'s order (with its line break): the seed always, the limit
  /// unless nil, each flag when true. The recorder and the journal write
  /// theirs with it, and `apply` reads it back.
  package static func line(
    seed: UInt64, limit: Int?, ascii: Bool = false, json: Bool = false, echo: Bool = false,
    quiet: Bool = false
  ) -> String {
    var words = ["#!/usr/bin/env -S handsh --seed \(seed)"]
    if let limit { words.append("--limit \(limit)") }
    let flags = [(ascii, "--ascii"), (json, "--json"), (echo, "--echo"), (quiet, "--quiet")]
    words += flags.filter(\.0).map(\.1)
    return words.joined(separator: " ") + "\n"
  }

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

    let given = Array(words[(program + 1)...])
    // A diagnostic at column `offset` (a byte offset) of word `word`.
    func fail(_ message: String, _ word: Int, offset: Int = 0) -> GoldenDiagnostic {
      let bytes = given[word].bytes.prefix(offset)
      let column = given[word].column + bytes.filter { $0 & 0xC0 != 0x80 }.count
      return GoldenDiagnostic(line: 1, column: column, message: message)
    }
    // Each option applied as it comes, through the table's own parsing of
    // its value: a later problem keeps the options before it.
    var options = Options()
    options.seed = settings.seed
    options.limit = settings.limit
    options.ascii = settings.ascii
    options.json = settings.json
    options.echo = settings.echo
    options.quiet = settings.quiet
    let items = OptionParser.read(given.map(\.bytes), table: Options.table) {
      allowed.contains($0.long)
    }
    for (word, item) in items {
      switch item {
      case .option(let spec, let value):
        do throws(UsageError) {
          try spec.apply(&options, value?.bytes ?? [])
        } catch {
          throw fail(error.message, value?.word ?? word, offset: value?.offset ?? 0)
        }
        settings.seed = options.seed ?? settings.seed
        settings.limit = options.limit
        settings.ascii = options.ascii
        settings.json = options.json
        settings.echo = options.echo
        settings.quiet = options.quiet
      case .operand, .endOfOptions:
        let shown = safeText(given[word].bytes)
        throw fail("unexpected argument '\(shown)' in a test file's first line", word)
      case .problem(.unknownLong(let typed)):
        throw fail("'--\(safeText(typed))' cannot be used in a test file; \(allowedText)", word)
      case .problem(.unknownShort(let flag)):
        throw fail("'-\(safeText([flag]))' cannot be used in a test file; \(allowedText)", word)
      case .problem(.ambiguous(let typed, _)):
        throw fail("option '--\(safeText(typed))' is ambiguous", word)
      case .problem(.missingValue(let shown)):
        throw fail("option '\(shown)' requires an argument", word)
      case .problem(.unexpectedValue(let long)):
        throw fail("option '--\(long)' doesn't allow an argument", word)
      }
    }
  }
}
