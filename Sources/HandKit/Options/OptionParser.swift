/// The GNU rules for reading options (handsh(1), OPTIONS), shared by the
/// command line (`Options(parsing:)`) and a golden test's first line
/// (`ShebangOptions`): options anywhere, `--name=value` or `--name value`,
/// unambiguous prefixes of long names, `-s42` or `-s 42`, grouped flags
/// (`-kq`), and `--` to end the options. Each reader words the problems its
/// own way; this only says what each word is.
package enum OptionParser {
  /// A value given to an option: its bytes, the word that holds them and
  /// where in that word they start (a byte offset: after `--name=` or
  /// `-s`, else 0).
  package struct Value: Equatable, Sendable {
    package var bytes: [UInt8]
    package var word: Int
    package var offset: Int
  }

  /// Why a word is not a usable option.
  package enum Problem: Equatable, Sendable {
    /// `--NAME` names no option that may be used (NAME as typed).
    case unknownLong([UInt8])
    /// `--NAME` is a prefix of the long names of all these options.
    case ambiguous([UInt8], candidates: [String])
    /// `-F` is no option that may be used.
    case unknownShort(UInt8)
    /// The option (as typed: `--seed` or `-s`) is the last word.
    case missingValue(String)
    /// `--LONG=…` given to an option that takes no value.
    case unexpectedValue(long: String)
  }

  /// What a word, or a part of a grouped word, is.
  package enum Item {
    case option(OptionSpec, Value?)
    case operand([UInt8])
    /// `--`: every word after it is an operand.
    case endOfOptions
    case problem(Problem)
  }

  /// The items of `words`, each with the index of the word that holds it
  /// (an option's own word, not its value's), in order, up to the first
  /// problem. A long name is looked up among all of `table` (so that an
  /// abbreviation means the same everywhere); an option not `allowed` is
  /// then unknown.
  package static func read(
    _ words: [[UInt8]], table: [OptionSpec], allowed: (OptionSpec) -> Bool = { _ in true }
  ) -> [(word: Int, item: Item)] {
    var items: [(word: Int, item: Item)] = []
    let dash = UInt8(ascii: "-")
    var i = 0
    while i < words.count {
      let word = words[i]
      let at = i
      // The next word as the value of option `shown`, or the problem.
      func next(_ shown: String) -> Value? {
        i += 1
        guard i < words.count else {
          items.append((at, .problem(.missingValue(shown))))
          return nil
        }
        return Value(bytes: words[i], word: i, offset: 0)
      }
      if word == [dash, dash] {
        items.append((i, .endOfOptions))
        items += words.indices.dropFirst(i + 1).map { ($0, .operand(words[$0])) }
        return items
      } else if word.starts(with: [dash, dash]) {
        let body = word.dropFirst(2)
        let equals = body.firstIndex(of: UInt8(ascii: "="))
        let typed = Array(body[..<(equals ?? body.endIndex)])
        guard let spec = longOption(typed, table) else {
          let candidates = table.filter { $0.long.utf8.starts(with: typed) }
          let problem: Problem =
            candidates.count > 1
            ? .ambiguous(typed, candidates: candidates.map(\.long)) : .unknownLong(typed)
          items.append((at, .problem(problem)))
          return items
        }
        guard allowed(spec) else {
          items.append((at, .problem(.unknownLong(typed))))
          return items
        }
        if spec.value == nil {
          guard equals == nil else {
            items.append((at, .problem(.unexpectedValue(long: spec.long))))
            return items
          }
          items.append((at, .option(spec, nil)))
        } else if let equals {
          let value = Value(bytes: Array(word[(equals + 1)...]), word: at, offset: equals + 1)
          items.append((at, .option(spec, value)))
        } else {
          guard let value = next("--" + spec.long) else { return items }
          items.append((at, .option(spec, value)))
        }
      } else if word.first == dash, word.count > 1 {
        var flags = word.dropFirst()
        while let flag = flags.popFirst() {
          guard let spec = table.first(where: { $0.short?.asciiValue == flag }), allowed(spec)
          else {
            items.append((at, .problem(.unknownShort(flag))))
            return items
          }
          guard spec.value != nil else {
            items.append((at, .option(spec, nil)))
            continue
          }
          if flags.isEmpty {
            guard let value = next("-" + String(Unicode.Scalar(flag))) else { return items }
            items.append((at, .option(spec, value)))
          } else {
            let value = Value(bytes: Array(flags), word: at, offset: flags.startIndex)
            items.append((at, .option(spec, value)))
          }
          break
        }
      } else {
        items.append((at, .operand(word)))
      }
      i += 1
    }
    return items
  }

  /// The option long name `typed` names, exactly or as the prefix of one
  /// long name only.
  private static func longOption(_ typed: [UInt8], _ table: [OptionSpec]) -> OptionSpec? {
    if let exact = table.first(where: { $0.long.utf8.elementsEqual(typed) }) { return exact }
    let candidates = table.filter { $0.long.utf8.starts(with: typed) }
    return candidates.count == 1 && !typed.isEmpty ? candidates.first : nil
  }
}
