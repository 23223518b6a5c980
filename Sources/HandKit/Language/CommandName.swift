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
    case .show, .deck, .history, .quit, .exit: rawValue
    }
  }

  /// The name that `word` spells exactly, if any. Names are short ASCII
  /// words, so the word's bytes, read as a little-endian number, are the key:
  /// one switch, no String, no allocation (this runs once per command).
  @inline(__always)
  public init?(spelling word: UnsafeBufferPointer<UInt8>) {
    guard word.count <= 7 else { return nil }
    var key: UInt64 = 0
    var shift: UInt64 = 0
    for byte in word {
      // Lowercase letters only, so that no byte (NUL above all) is lost.
      guard byte &- UInt8(ascii: "a") <= 25 else { return nil }
      // At most seven bytes: the shift stays under 64.
      key |= UInt64(byte) &<< shift
      shift &+= 8
    }
    switch key {
    case 0x64_6461: self = .add
    case 0x6C_6564: self = .del
    case 0x766D: self = .mv
    case 0x6F64_6E75: self = .undo
    case 0x6F64_6572: self = .redo
    case 0x6F74_6F67: self = .goto
    case 0x77_656E: self = .new
    case 0x74_696D_696C: self = .limit
    case 0x7463_6570_7865: self = .expect
    case 0x776F_6873: self = .show
    case 0x6B63_6564: self = .deck
    case 0x79_726F_7473_6968: self = .history
    case 0x6576_6173: self = .save
    case 0x6563_7275_6F73: self = .source
    case 0x706C_6568: self = .help
    case 0x7469_7571: self = .quit
    case 0x7469_7865: self = .exit
    default: return nil
    }
  }
}
