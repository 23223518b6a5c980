/// The command names, in the order of SPEC §4's table (which breaks ties
/// between suggestions).
public enum CommandName: String, CaseIterable, Sendable {
  case add, del, mv, undo, redo, new, limit, expect, show, deck, history, save, help, quit, exit

  /// The command's syntax, as usage messages and `help` write it.
  public var usage: String {
    switch self {
    case .add: "add [CARD]"
    case .del: "del P"
    case .mv: "mv A B"
    case .undo: "undo [N]"
    case .redo: "redo [N]"
    case .new: "new [SEED]"
    case .limit: "limit [N]"
    case .expect: "expect CARD…"
    case .save: "save FILE"
    case .help: "help [COMMAND]"
    case .show, .deck, .history, .quit, .exit: rawValue
    }
  }

  /// The name that `word` spells exactly, if any.
  public init?<Bytes: Collection<UInt8>>(spelling word: Bytes) {
    // Command names are short ASCII words; compare without building a String.
    guard (2...7).contains(word.count), let first = word.first else { return nil }
    for name in CommandName.allCases where name.rawValue.utf8.first == first {
      if name.rawValue.utf8.elementsEqual(word) {
        self = name
        return
      }
    }
    return nil
  }
}
