import HandKit

extension ColorChoice {
  /// Whether what goes to `fd` is coloured (handsh(1), Colour): `auto`
  /// colours only a terminal whose TERM is not `dumb` (an Emacs shell
  /// buffer shows escapes raw), and only while NO_COLOR is unset or empty.
  func colors(_ fd: Int32) -> Bool {
    switch self {
    case .always: return true
    case .never: return false
    case .auto:
      return Platform.isTerminal(fd) && Platform.environment("TERM") != "dumb"
        && (Platform.environment("NO_COLOR") ?? "").isEmpty
    }
  }
}
