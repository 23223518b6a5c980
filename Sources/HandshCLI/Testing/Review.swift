import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `handsh --test --review PATH…` (handsh(1), GOLDEN TESTS): each differing
/// block, in the report's order, shown on the terminal (stderr) with its
/// file and input line, then `(K/T) Accept this block [y,n,a,d,q,?]? ` read
/// with readline, K the block's number among the T differing blocks of the
/// whole run. Once every block is answered, each file is written, as
/// `--update` writes, with the accepted blocks only; Control-C (or a signal
/// that ends handsh) before that writes no file at all.
extension GoldenTestRun {
  static let reviewPrompt = "Accept this block [y,n,a,d,q,?]? "

  /// The question about block `number` of `total`.
  static func reviewQuestion(_ number: Int, of total: Int) -> String {
    "(\(number)/\(total)) " + reviewPrompt
  }

  static let reviewHelp = """
    y - accept this block
    n - keep the file's block as it is
    a - accept this block and the rest of this file's blocks
    d - keep this block and the rest of this file's blocks
    q - keep every block not yet answered, and stop
    ? - print this help
    """

  /// What an answer asks for.
  private enum Answer {
    case accept, keep, acceptRest, keepRest, quit
  }

  func review(_ outcomes: inout [FileRun], _ output: inout Output) {
    handsh_use_utf8_locale()
    handsh_prompt_begin(Self.reviewPrompt, 2, nil, nil)
    handsh_prompt_interrupt_ends(1)
    defer { handsh_prompt_end() }
    // The review is shown on the terminal it reads from (stderr).
    let color = options.color.colors(2)
    let total = outcomes.reduce(0) { sum, outcome in
      guard case .failed = outcome.report.status else { return sum }
      return sum + (outcome.result?.differing.count ?? 0)
    }
    var number = 0
    var quitting = false
    var answered: [(index: Int, accepted: Set<Int>)] = []
    for index in outcomes.indices {
      guard case .failed = outcomes[index].report.status, let result = outcomes[index].result
      else { continue }
      let item = outcomes[index].item
      let shown = outcomes[index].report.path
      let name = TestFiles.patchedName(item.path)
      let blocks = result.differing
      var accepted = Set<Int>()
      var rest: Bool?
      for block in blocks {
        number += 1
        if quitting { break }
        if let rest {
          if rest { accepted.insert(block) }
          continue
        }
        let input = result.file.inputs[block]
        let line = result.file.text[result.file.content(of: input)]
        output.flush()
        Platform.printError("\(shown):\(input.number): \(safeText(line))")
        let diff = result.diff(path: name, to: result.updatedText(accepting: { $0 == block }))
        var text = shownDiff(diff, color: color, escaped: true)
        if text.last == 0x0A { text.removeLast() }
        Platform.printError(String(decoding: text, as: UTF8.self))
        handsh_prompt_change(Self.reviewQuestion(number, of: total))
        switch ask() {
        case .accept: accepted.insert(block)
        case .keep: break
        case .acceptRest:
          accepted.insert(block)
          rest = true
        case .keepRest: rest = false
        case .quit: quitting = true
        }
      }
      outcomes[index].report.kept = blocks.count - accepted.count
      answered.append((index, accepted))
    }
    // Every block answered: only now is any file written.
    for (index, accepted) in answered where !accepted.isEmpty {
      guard let result = outcomes[index].result, let snapshot = outcomes[index].snapshot else {
        continue
      }
      let item = outcomes[index].item
      let new = result.updatedText(accepting: accepted.contains)
      if new.count > updateLimit {
        outcomes[index].report.status = .error(
          [TestFiles.tooLargeToUpdate(outcomes[index].report.path)])
        outcomes[index].report.errorType = "not updated"
      } else if let problem = TestFiles.rewrite(item.path, from: snapshot, to: new) {
        outcomes[index].report.status = .error(
          [TestFiles.updateFailure(outcomes[index].report.path, problem)])
        outcomes[index].report.errorType = "not updated"
      } else {
        outcomes[index].report.status = .updated(
          diff: result.diff(path: TestFiles.patchedName(item.path), to: new))
      }
      Self.endIfSignalled()
    }
    Self.endIfSignalled()
  }

  /// SIGTERM, SIGHUP or SIGQUIT that came while the answers were written
  /// (the prompt's handler holds them): handsh ends by it now, after the
  /// file in progress, as anywhere else (handsh(1), SIGNALS).
  private static func endIfSignalled() {
    let fatal = handsh_prompt_fatal()
    guard fatal != 0 else { return }
    handsh_prompt_end()
    handsh_die_by_signal(fatal)
  }

  /// Reads answers until one is a choice; `?` (and anything unknown)
  /// prints the help and asks the same again. The end of input quits;
  /// Control-C and a signal that ends handsh end it here, no file written.
  private func ask() -> Answer {
    while true {
      let read = handsh_prompt_read()
      switch read.kind {
      case handsh_read_line:
        let text = read.line.map { String(cString: $0) } ?? ""
        free(read.line)
        let word = text.trimmingSpaces.lowercased()
        switch word {
        case "y", "yes": return .accept
        case "n", "no": return .keep
        case "a": return .acceptRest
        case "d": return .keepRest
        case "q": return .quit
        default: Platform.printError(Self.reviewHelp)
        }
      case handsh_read_signal:
        handsh_prompt_end()
        handsh_die_by_signal(read.signal)
      default:
        return .quit
      }
    }
  }
}

extension String {
  /// Without leading and trailing spaces and tabs.
  fileprivate var trimmingSpaces: String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    return String(self.drop(while: blank).reversed().drop(while: blank).reversed())
  }
}
