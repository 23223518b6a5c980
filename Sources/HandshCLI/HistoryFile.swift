import CReadline
import HandKit

/// The prompt's history file (SPEC §8): each entered line is appended as it
/// is entered, so a crash loses nothing and sessions that end one after the
/// other both keep their lines; the file keeps the last 1000 lines and has
/// mode 0600. A problem with it is reported once, and the session goes on.
struct HistoryFile {
  static let maximumLines: Int32 = 1000

  /// nil: no history file.
  let path: String?
  private var reported = false
  private var last: [UInt8]?

  init(path: String?) { self.path = path }

  /// `$HANDSH_HISTORY` when set (set and empty: none), else
  /// `~/.handsh_history`.
  static func defaultPath() -> String? {
    if let chosen = Platform.environment("HANDSH_HISTORY") { return chosen.isEmpty ? nil : chosen }
    guard let home = Platform.environment("HOME"), !home.isEmpty else { return nil }
    return home + (home.hasSuffix("/") ? "" : "/") + ".handsh_history"
  }

  mutating func load() {
    stifle_history(HistoryFile.maximumLines)
    guard let path else { return }
    let code = read_history(path)
    if code != 0 && code != ENOENT { report("cannot read history file", code) }
    // An immediate repeat is one of the last session's last line too.
    last = handsh_last_history_line().map {
      Array(UnsafeRawBufferPointer(start: $0, count: strlen($0)))
    }
  }

  /// Adds a line, unless it is blank or repeats the one before.
  mutating func add(_ line: [UInt8]) {
    let blank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard !blank, line != last else { return }
    last = line
    (line + [0]).withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { add_history($0.baseAddress) }
    }
    guard let path else { return }
    // append_history needs the file to exist; create it private.
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return report("cannot write history file", errno) }
    fchmod(fd, 0o600)  // private, whatever made it before
    close(fd)
    let code = append_history(1, path)
    guard code == 0 else { return report("cannot write history file", code) }
    _ = history_truncate_file(path, HistoryFile.maximumLines)
  }

  private mutating func report(_ what: String, _ code: Int32) {
    guard !reported, let path else { return }
    reported = true
    Platform.printError("handsh: \(what) '\(safeText(path.utf8))': \(Platform.describe(code))")
  }
}
