/// The command names, in the order of handsh(1)'s list under THE LANGUAGE, Syntax errors
/// (which breaks ties
/// between suggestions).
public enum CommandName: String, CaseIterable, Sendable {
  case add, del, mv, undo, redo, goto, new, limit, expect, show, deck, history, save, source, help
  case quit, exit

  /// The command's syntax, as usage messages and `help` write it.
  public var usage: String {
    switch self {
    case .add: "add [CARD]"
    case .del: "del P"
    case .mv: "mv A B"
    case .undo: "undo [N]"
    case .redo: "redo [N]"
    case .goto: "goto V"
    case .new: "new [SEED]"
    case .limit: "limit [N]"
    case .expect: "expect CARD…|empty"
    case .save: "save FILE"
    case .source: "source FILE"
    case .help: "help [COMMAND]"
    case .history: "history [tree]"
    case .show, .deck, .quit, .exit: rawValue
    }
  }

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
  /// key tells the bytes apart, NUL bytes too.
  @inline(__always)
  init?(key: UInt64, length: Int) {
    switch key {
    case 0x64_6461 where length == 3: self = .add
    case 0x6C_6564 where length == 3: self = .del
    case 0x766D where length == 2: self = .mv
    case 0x6F64_6E75 where length == 4: self = .undo
    case 0x6F64_6572 where length == 4: self = .redo
    case 0x6F74_6F67 where length == 4: self = .goto
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
