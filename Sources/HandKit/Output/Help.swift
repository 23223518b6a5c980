extension CommandName {
  /// One line for the command list of `help`.
  public var summary: String {
    switch self {
    case .add: "draw the deck's next card, or take CARD, onto position 1"
    case .del: "move the card at position P to the discard pile"
    case .mv: "move the card at position A so that it ends at position B"
    case .undo: "step back N versions (default 1)"
    case .redo: "step forward N versions (default 1)"
    case .goto: "make version V current, whichever branch it is on"
    case .new: "start a new game shuffled by SEED (or a random seed)"
    case .limit: "set the most cards a hand can hold (1-52), or print it"
    case .expect: "check that the hand is exactly these cards, or empty"
    case .show: "print the hand as a numbered table"
    case .deck: "print the deck and discard counts and the seed"
    case .history: "print every version, or draw them as a tree"
    case .save: "write a script that rebuilds the current version"
    case .source: "run the script FILE in this session"
    case .help: "list the commands, or explain one"
    case .quit: "end the session or the script"
    case .exit: "end the session or the script (same as quit)"
    }
  }

  /// What `help COMMAND` adds below the usage and summary.
  public var details: [String] {
    switch self {
    case .add:
      [
        "CARD is a rank (A, 2-10, T, J, Q, K) and a suit (♥ ♦ ♣ ♠ or H D C S),",
        "in any case: qh, Q♥, 10s, Ts. Fails when the hand is full, the deck is",
        "empty, or CARD is in the hand or was discarded.",
        "Example: add; add qh",
      ]
    case .del:
      ["Positions count from 1 at the top.", "Example: del 2"]
    case .mv:
      ["The cards between shift by one. mv 2 2 changes nothing.", "Example: mv 3 1"]
    case .undo:
      [
        "Moves to the version this one was made from; no version is ever lost.",
        "A change after undo starts a branch: history shows it, goto reaches it.",
        "Example: undo 2",
      ]
    case .redo:
      [
        "Moves to the child most recently current: after undo, back where the",
        "undo came from; after goto V then undo, back to V.",
        "Example: redo",
      ]
    case .goto:
      [
        "V is a version's number, as history shows it (0 is the start). Only",
        "moves the current version; undo and redo then walk V's branch.",
        "Example: goto 4",
      ]
    case .new:
      ["Empty hand, full deck, the limit unchanged. Undoable.", "Example: new 42"]
    case .limit:
      ["Fails when the hand holds more than N cards.", "Example: limit 7"]
    case .expect:
      ["Top card first. Prints nothing when the hand matches.", "Example: expect K♥ 3♣ 7♥"]
    case .show:
      ["Example: show"]
    case .deck:
      ["The seed reproduces the game: handsh --seed S.", "Example: deck"]
    case .history:
      [
        "In the order made: * marks the current version, (from P) the start of",
        "a branch off version P. With tree, each branch is drawn under the",
        "version it starts from, depth first, children in the order made.",
        "Example: history tree",
      ]
    case .save:
      [
        "The script starts a new game with the same seed and replays the path to",
        "the current version. Quote FILE with \"…\" when it has spaces.",
        "Example: save game.hand",
      ]
    case .source:
      [
        "FILE is checked whole first; a syntax error runs none of it. Each of its",
        "commands makes a version as if typed; the first failure ends FILE, and",
        "quit ends FILE only. Sources nest 16 deep at most. Quote FILE with \"…\"",
        "when it has spaces.",
        "Example: source setup.hand",
      ]
    case .help:
      ["Example: help mv"]
    case .quit, .exit:
      ["Example: quit"]
    }
  }
}

/// The text of `help` and `help COMMAND`.
public func helpText(_ topic: CommandName?) -> String {
  guard let topic else {
    let width = CommandName.allCases.map { $0.usage.count }.max() ?? 0
    var lines = ["Commands (separate them with ; or new lines; # starts a comment):"]
    for name in CommandName.allCases {
      let padding = String(repeating: " ", count: width - name.usage.count)
      lines.append("  \(name.usage)\(padding)  \(name.summary)")
    }
    lines.append("Type 'help COMMAND' for more about one command.")
    return lines.joined(separator: "\n") + "\n"
  }
  return ([topic.usage, "  " + topic.summary] + topic.details.map { "  " + $0 })
    .joined(separator: "\n") + "\n"
}
