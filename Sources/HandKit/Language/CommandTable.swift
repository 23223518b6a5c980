// The language's commands, each described once: its name, its arguments and
// their kinds, its help, and what running ahead and the canonical writer need
// (`CommandName.entry`). Usage and its messages, `help`, Tab completion and
// an editor's hover are made from it; the man page, the README's table, the
// vim keywords and scripts/gen-commands are tested against it. What runs for
// every command keeps a fast switch of its own, which the compiler checks
// (no `default`) and CommandTableTests holds to the table: the parser's
// reading of the arguments, `Command.pausesRunAhead` and the name key below;
// `Command.isJournaled` too. A command's meaning is a switch of its own:
// building its `Command` (LineParser) and running it (`Session.apply`).

/// A parsed command: every case of the language, so that a new command is a
/// compile error until every `switch` handles it.
public enum Command: Sendable, Equatable {
  /// `add` draws the deck's next card; `add CARD` takes that card.
  case add(Card?)
  /// `del P`, with P counted from 1.
  case delete(Int)
  /// `mv A B`, with A and B counted from 1.
  case move(Int, Int)
  case undo(Int)
  case redo(Int)
  /// `goto V`: version V, 0 or more.
  case goto(Int)
  /// `earlier [N|TIME]`: back in the order versions were made.
  case earlier(VersionStride)
  /// `later [N|TIME]`: forward in the order versions were made.
  case later(VersionStride)
  /// `new` with its seed; nil asks for a fresh random seed.
  case new(UInt64?)
  /// `limit N` sets the limit; `limit` prints it.
  case limit(Int?)
  /// `expect CARD…`; no cards is `expect empty`.
  case expect([Card])
  case show
  case deck
  /// `history`, or `history tree` (`tree` true): every version.
  case history(tree: Bool)
  case save(String)
  /// `source FILE`: runs the script FILE in the session.
  case source(String)
  /// `help` or `help COMMAND`.
  case help(CommandName?)
  /// `quit` or `exit`.
  case quit
}

/// How far `earlier` and `later` go (handsh(1), Versions): a number of
/// versions in the order they were made, or a span of time.
public enum VersionStride: Sendable, Equatable {
  /// N versions, 1 or more.
  case versions(Int)
  /// A span of time in seconds, 1 or more: `10m` is 600.
  case seconds(Int)
}

/// The command names, in the order of handsh(1)'s list under THE LANGUAGE,
/// Syntax errors (which breaks ties between suggestions).
public enum CommandName: String, CaseIterable, Sendable {
  case add, del, mv, undo, redo, goto, earlier, later, new, limit, expect, show, deck, history
  case save, source, help, quit, exit
}

// MARK: The table

/// What an argument is, which says how it is read, offered and explained.
public enum ArgumentKind: Sendable, Equatable {
  /// A card to take: Tab offers the deck's cards in new-deck order.
  case card
  /// A card of the hand, or the word `empty` (`expect`): Tab offers the
  /// hand's cards not named yet, or `empty` for an empty hand.
  case handCard
  /// A place in the hand, from 1: Tab offers the hand's positions with
  /// their cards, and hover names the card there.
  case position
  /// How many versions to step (`undo`, `redo`), 1 or more; for `earlier`
  /// and `later`, that or a time (`10m`).
  case count
  /// A version's number, 0 or more: Tab offers the versions with their hands.
  case version
  /// A game's seed, 0 to 2^64-1.
  case seed
  /// The most cards a hand can hold, 1 to 52.
  case limit
  /// A file name, quoted with `"…"` when it has spaces: Tab offers file names.
  case file
  /// A command name (`help`): Tab offers the names.
  case topic
  /// One word, the argument's placeholder itself (`tree`): Tab offers it.
  case keyword

  /// The word that stands for no cards after `expect`.
  public static let emptyWord = "empty"
}

/// How often an argument may be given.
public enum Presence: Sendable, Equatable {
  case required
  case optional
  /// One or more, to the command's end.
  case repeated
}

/// One argument of a command.
public struct Argument: Sendable, Equatable {
  public let kind: ArgumentKind
  /// How usage and `help` write it: `P`, `CARD`, `tree`.
  public let placeholder: String
  public let presence: Presence

  init(_ kind: ArgumentKind, _ placeholder: String, _ presence: Presence) {
    self.kind = kind
    self.placeholder = placeholder
    self.presence = presence
  }
}

/// What running ahead (a text run while it is still checked) does at a
/// command.
public enum RunAheadRule: Sendable, Equatable {
  /// It runs: all it does can be taken back.
  case runs
  /// It waits for the check to end: the command cannot be taken back (a
  /// save, a quit, a source that may do either), or its output is too long
  /// to hold (`history`).
  case pauses
}

/// How the canonical writer (`history`, `save` and a journal) writes what a
/// command did.
public enum Canonical: Sendable, Equatable {
  /// As the step of the version it made, its arguments filled in and cards
  /// in their canonical spelling: `add QH`, `del 2`, `new 42`, `limit 7`.
  case step
  /// As itself, when it only moved the current version: `undo 1`, `goto 4`;
  /// `earlier` and `later` as the `goto V` they did.
  case move
  /// Never: it makes no version and moves none.
  case never
}

/// A command's entry in the table.
public struct CommandEntry: Sendable {
  public let arguments: [Argument]
  /// One line for the command list of `help`.
  public let summary: String
  /// What `help COMMAND` adds below the usage and summary, ending with an
  /// example.
  public let details: [String]
  public let runAhead: RunAheadRule
  public let canonical: Canonical

  init(
    _ arguments: [Argument], summary: String, details: [String], runAhead: RunAheadRule,
    canonical: Canonical
  ) {
    self.arguments = arguments
    self.summary = summary
    self.details = details
    self.runAhead = runAhead
    self.canonical = canonical
  }
}

extension CommandName {
  /// The command's entry in the table.
  public var entry: CommandEntry {
    switch self {
    case .add:
      CommandEntry(
        [Argument(.card, "CARD", .optional)],
        summary: "draw the deck's next card, or take CARD, onto position 1",
        details: [
          "CARD is a rank (A, 2-10, T, J, Q, K) and a suit (♥ ♦ ♣ ♠ or H D C S),",
          "in any case: qh, Q♥, 10s, Ts. Fails when the hand is full, the deck is",
          "empty, or CARD is in the hand or was discarded.",
          "Example: add; add qh",
        ], runAhead: .runs, canonical: .step)
    case .del:
      CommandEntry(
        [Argument(.position, "P", .required)],
        summary: "move the card at position P to the discard pile",
        details: ["Positions count from 1 at the top.", "Example: del 2"],
        runAhead: .runs, canonical: .step)
    case .mv:
      CommandEntry(
        [Argument(.position, "A", .required), Argument(.position, "B", .required)],
        summary: "move the card at position A so that it ends at position B",
        details: ["The cards between shift by one. mv 2 2 changes nothing.", "Example: mv 3 1"],
        runAhead: .runs, canonical: .step)
    case .undo:
      CommandEntry(
        [Argument(.count, "N", .optional)],
        summary: "step back N versions (default 1)",
        details: [
          "Moves to the version this one was made from; no version is ever lost.",
          "A change after undo starts a branch: history shows it, goto reaches it.",
          "Example: undo 2",
        ], runAhead: .runs, canonical: .move)
    case .redo:
      CommandEntry(
        [Argument(.count, "N", .optional)],
        summary: "step forward N versions (default 1)",
        details: [
          "Moves to the child most recently current: after undo, back where the",
          "undo came from; after goto V then undo, back to V.",
          "Example: redo",
        ], runAhead: .runs, canonical: .move)
    case .goto:
      CommandEntry(
        [Argument(.version, "V", .required)],
        summary: "make version V current, whichever branch it is on",
        details: [
          "V is a version's number, as history shows it (0 is the start). Only",
          "moves the current version; undo and redo then walk V's branch.",
          "Example: goto 4",
        ], runAhead: .runs, canonical: .move)
    case .earlier:
      CommandEntry(
        [Argument(.count, "N|TIME", .optional)],
        summary: "go back N versions in the order made (default 1), or TIME",
        details: [
          "Walks every version in the order made, across branches, as vim's",
          ":earlier does: earlier N is goto C-N, C the current version. TIME is a",
          "number and s, m, h or d: the last version made at or before TIME before",
          "the current one was made. A journal and --record write the goto it did.",
          "Example: earlier; earlier 10m",
        ], runAhead: .runs, canonical: .move)
    case .later:
      CommandEntry(
        [Argument(.count, "N|TIME", .optional)],
        summary: "go forward N versions in the order made (default 1), or TIME",
        details: [
          "The way back of earlier: later N is goto C+N, at most the newest version.",
          "later TIME goes to the last version made at or before TIME after the",
          "current one was made, and at least one version forward.",
          "Example: later 2",
        ], runAhead: .runs, canonical: .move)
    case .new:
      CommandEntry(
        [Argument(.seed, "SEED", .optional)],
        summary: "start a new game shuffled by SEED (or a random seed)",
        details: ["Empty hand, full deck, the limit unchanged. Undoable.", "Example: new 42"],
        runAhead: .runs, canonical: .step)
    case .limit:
      CommandEntry(
        [Argument(.limit, "N", .optional)],
        summary:
          "set the most cards a hand can hold (\(Session.limits.lowerBound)-"
          + "\(Session.limits.upperBound)), or print it",
        details: ["Fails when the hand holds more than N cards.", "Example: limit 7"],
        runAhead: .runs, canonical: .step)
    case .expect:
      CommandEntry(
        [Argument(.handCard, "CARD…|empty", .repeated)],
        summary: "check that the hand is exactly these cards, or empty",
        details: [
          "Top card first. Prints nothing when the hand matches.", "Example: expect K♥ 3♣ 7♥",
        ],
        runAhead: .runs, canonical: .never)
    case .show:
      CommandEntry(
        [], summary: "print the hand as a numbered table", details: ["Example: show"],
        runAhead: .runs, canonical: .never)
    case .deck:
      CommandEntry(
        [], summary: "print the deck and discard counts and the seed",
        details: ["The seed reproduces the game: handsh --seed S.", "Example: deck"],
        runAhead: .runs, canonical: .never)
    case .history:
      CommandEntry(
        [Argument(.keyword, "tree", .optional)],
        summary: "print every version, or draw them as a tree",
        details: [
          "In the order made: * marks the current version, (from P) the start of",
          "a branch off version P. With tree, each branch is drawn under the",
          "version it starts from, depth first, children in the order made.",
          "Example: history tree",
        ], runAhead: .pauses, canonical: .never)
    case .save:
      CommandEntry(
        [Argument(.file, "FILE", .required)],
        summary: "write a script that rebuilds the current version",
        details: [
          "The script starts a new game with the same seed and replays the path to",
          "the current version. Quote FILE with \"…\" when it has spaces.",
          "Example: save game.hand",
        ], runAhead: .pauses, canonical: .never)
    case .source:
      CommandEntry(
        [Argument(.file, "FILE", .required)],
        summary: "run the script FILE in this session",
        details: [
          "FILE is checked whole first; a syntax error runs none of it. Each of its",
          "commands makes a version as if typed; the first failure ends FILE, and",
          "quit ends FILE only. Sources nest 16 deep at most. Quote FILE with \"…\"",
          "when it has spaces.",
          "Example: source setup.hand",
        ], runAhead: .pauses, canonical: .never)
    case .help:
      CommandEntry(
        [Argument(.topic, "COMMAND", .optional)],
        summary: "list the commands, or explain one", details: ["Example: help mv"],
        runAhead: .runs, canonical: .never)
    case .quit:
      CommandEntry(
        [], summary: "end the session or the script", details: ["Example: quit"],
        runAhead: .pauses, canonical: .never)
    case .exit:
      CommandEntry(
        [], summary: "end the session or the script (same as quit)", details: ["Example: quit"],
        runAhead: .pauses, canonical: .never)
    }
  }

  /// The command's syntax, as usage messages and `help` write it: its
  /// name, then each argument's placeholder, in brackets when optional.
  public var usage: String {
    var usage = rawValue
    for argument in entry.arguments {
      usage +=
        argument.presence == .optional ? " [\(argument.placeholder)]" : " \(argument.placeholder)"
    }
    return usage
  }

  /// One line for the command list of `help`.
  public var summary: String { entry.summary }

  /// What `help COMMAND` adds below the usage and summary.
  public var details: [String] { entry.details }

  /// The argument that the word `index` after the name stands for: the
  /// repeated last argument for any word past it; nil past the arguments.
  public func argument(at index: Int) -> Argument? {
    let arguments = entry.arguments
    if arguments.indices.contains(index) { return arguments[index] }
    guard let last = arguments.last, last.presence == .repeated, index >= 0 else { return nil }
    return last
  }
}

extension Command {
  /// The name of the command's entry in the table (`quit` for `exit` too).
  public var name: CommandName {
    switch self {
    case .add: .add
    case .delete: .del
    case .move: .mv
    case .undo: .undo
    case .redo: .redo
    case .goto: .goto
    case .earlier: .earlier
    case .later: .later
    case .new: .new
    case .limit: .limit
    case .expect: .expect
    case .show: .show
    case .deck: .deck
    case .history: .history
    case .save: .save
    case .source: .source
    case .help: .help
    case .quit: .quit
    }
  }

  /// Whether running ahead waits at the command for the check to end: the
  /// entry's `runAhead`, written out as a switch with no `default`, as this
  /// runs for every command of a text and an entry is built, arrays and
  /// all, each time it is read. CommandTableTests checks that the two agree.
  @inlinable public var pausesRunAhead: Bool {
    switch self {
    case .history, .save, .source, .quit: true
    case .add, .delete, .move, .undo, .redo, .goto, .earlier, .later, .new, .limit, .expect, .show,
      .deck, .help:
      false
    }
  }
}

extension Command {
  /// Whether the command is `earlier` or `later`, which history files
  /// (a journal, `--record`) write as the `goto V` they did.
  @inlinable public var walksInOrderMade: Bool {
    switch self {
    case .earlier, .later: true
    default: false
    }
  }

  /// Whether a journal may hold the command (JournalText): one whose
  /// canonical form the entry gives (it changes the state or the cursor)
  /// and that needs nothing from outside (`add` with or without its card,
  /// `new` with its seed, `limit` with N). `earlier` and `later` are
  /// written as the `goto` they did. CommandTableTests checks it against
  /// the entries.
  var isJournaled: Bool {
    switch self {
    case .add, .delete, .move, .undo, .redo, .goto: true
    case .earlier, .later: false
    case .new(let seed): seed != nil
    case .limit(let limit): limit != nil
    case .expect, .show, .deck, .history, .save, .source, .help, .quit: false
    }
  }
}

// MARK: Spelling

extension CommandName {
  /// The name that `word` spells exactly, if any.
  @inline(__always)
  public init?(spelling word: UnsafeBufferPointer<UInt8>) {
    guard word.count <= 7 else { return nil }
    var key: UInt64 = 0
    var shift: UInt64 = 0
    for byte in word {
      key |= UInt64(byte) &<< shift
      shift &+= 8
    }
    self.init(key: key, length: word.count)
  }

  /// The name whose spelling is `length` bytes that, read as a
  /// little-endian number, are `key`, if any. Names are short ASCII words,
  /// so a word of at most eight bytes and its length are all it takes: one
  /// switch, no String, no allocation, and the parser packs the key as it
  /// scans the word (this runs once per command). For one length, the
  /// key tells the bytes apart, NUL bytes too. Each key is the name's
  /// bytes, written by hand: `CommandNameSpellingTests` checks every name
  /// of the table against it, and that nothing else matches.
  @inline(__always)
  init?(key: UInt64, length: Int) {
    switch key {
    case 0x64_6461 where length == 3: self = .add
    case 0x6C_6564 where length == 3: self = .del
    case 0x766D where length == 2: self = .mv
    case 0x6F64_6E75 where length == 4: self = .undo
    case 0x6F64_6572 where length == 4: self = .redo
    case 0x6F74_6F67 where length == 4: self = .goto
    case 0x72_6569_6C72_6165 where length == 7: self = .earlier
    case 0x72_6574_616C where length == 5: self = .later
    case 0x77_656E where length == 3: self = .new
    case 0x74_696D_696C where length == 5: self = .limit
    case 0x7463_6570_7865 where length == 6: self = .expect
    case 0x776F_6873 where length == 4: self = .show
    case 0x6B63_6564 where length == 4: self = .deck
    case 0x79_726F_7473_6968 where length == 7: self = .history
    case 0x6576_6173 where length == 4: self = .save
    case 0x6563_7275_6F73 where length == 6: self = .source
    case 0x706C_6568 where length == 4: self = .help
    case 0x7469_7571 where length == 4: self = .quit
    case 0x7469_7865 where length == 4: self = .exit
    default: return nil
    }
  }
}
