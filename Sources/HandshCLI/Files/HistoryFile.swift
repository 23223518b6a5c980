import CReadline
import HandKit

/// The prompt's history file (handsh(1), FILES): each entered line is
/// appended as it is entered, so a crash loses nothing; the file keeps the
/// last 1000 lines. Sessions sharing the file take a lock (`flock`) for every
/// read, append and cut, and the cut is made in place, under the lock, so no
/// session's lines are dropped and a read-only folder is no obstacle. Only a
/// regular file is ever opened: `/dev/null` means no history, silently; a
/// FIFO, a device or a folder is reported once and left alone. A file handsh
/// creates has mode 0600; an existing file keeps its mode. A problem is
/// reported once, and the session goes on without the file.
struct HistoryFile {
  static let maximumLines = 1000

  /// nil: no history file (none asked for, `/dev/null`, or given up on).
  private(set) var path: String?
  private var last: [UInt8]?

  init(path: String?) { self.path = path }

  /// `$HANDSH_HISTORY` when set (set and empty: none), else
  /// `~/.handsh_history`.
  static func defaultPath() -> String? {
    if let chosen = Platform.environment("HANDSH_HISTORY") { return chosen.isEmpty ? nil : chosen }
    guard let home = Platform.environment("HOME"), !home.isEmpty else { return nil }
    return home + (home.hasSuffix("/") ? "" : "/") + ".handsh_history"
  }

  /// Loads the file's lines into readline's history.
  mutating func load() {
    stifle_history(Int32(HistoryFile.maximumLines))
    guard let path else { return }
    switch HistoryFile.kind(of: path) {
    case .missing: return
    case .none: self.path = nil
    case .unusable(let problem): give(up: problem)
    case .regular:
      switch HistoryFile.readLines(path) {
      case .success(let lines):
        for line in lines.suffix(HistoryFile.maximumLines) { addToReadline(line) }
      case .failure(let problem): give(up: problem)
      }
    }
  }

  /// Adds a line, unless it is blank or repeats this session's line before.
  mutating func add(_ line: [UInt8]) {
    let blank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard !blank, line != last else { return }
    last = line
    addToReadline(line)
    guard let path else { return }
    if let problem = HistoryFile.append(line, to: path, keeping: HistoryFile.maximumLines) {
      give(up: problem)
    }
  }

  private func addToReadline(_ line: [UInt8]) {
    (line + [0]).withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { add_history($0.baseAddress) }
    }
  }

  /// Reports `problem` (the one report) and goes on without the file.
  private mutating func give(up problem: Problem) {
    path = nil
    if case .silent = problem { return }
    Platform.printError("handsh: \(problem)")
  }

  // MARK: The file

  /// Why the history file is not used.
  enum Problem: Error, CustomStringConvertible, Equatable {
    case system(SystemError)
    /// A FIFO, a device or a socket: never opened.
    case notRegular(path: String)
    /// `/dev/null` turned up after all.
    case silent

    var description: String {
      switch self {
      case .system(let error): error.description
      case .notRegular(let path): "cannot use history file '\(path)': not a regular file"
      case .silent: ""
      }
    }
  }

  enum Kind: Equatable {
    /// Not there yet: the first line creates it.
    case missing
    case regular
    /// `/dev/null`, or a link to it: no history, silently.
    case none
    case unusable(Problem)
  }

  /// What is at `path`, following symbolic links, without opening it.
  static func kind(of path: String) -> Kind {
    var status = stat()
    guard stat(path, &status) == 0 else {
      let code = errno
      if code == ENOENT { return .missing }
      return .unusable(
        .system(SystemError("cannot read history file", path: shown(path), code: code)))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR:
      return .unusable(
        .system(SystemError("cannot use history file", path: shown(path), code: EISDIR)))
    case S_IFCHR where isNullDevice(status): return .none
    default: return .unusable(.notRegular(path: shown(path)))
    }
  }

  private static func shown(_ path: String) -> String { safeText(path.utf8) }

  private static func isNullDevice(_ status: stat) -> Bool {
    var null = stat()
    return stat("/dev/null", &null) == 0 && null.st_mode & S_IFMT == S_IFCHR
      && null.st_rdev == status.st_rdev
  }

  /// Opens `path` if it is (still) a regular file: O_NONBLOCK, so that a FIFO
  /// swapped in after `kind` never blocks, then checked with fstat.
  private static func openRegular(
    _ path: String, _ flags: Int32, operation: String
  ) -> Result<Int32, Problem> {
    let fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      return .failure(.system(SystemError(operation, path: shown(path), code: errno)))
    }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      return .failure(isNullDevice(status) ? .silent : .notRegular(path: shown(path)))
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return .success(fd)
  }

  /// The whole file, read from its start.
  private static func contents(_ fd: Int32) -> Result<[UInt8], SystemError> {
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, $0.count, off_t(text.count))
      }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(SystemError("", code: errno))
      }
      if count == 0 { return .success(text) }
      text.append(contentsOf: chunk[..<count])
    }
  }

  /// The lines of the history file, read under a shared lock.
  static func readLines(_ path: String) -> Result<[[UInt8]], Problem> {
    let fd: Int32
    switch openRegular(path, O_RDONLY, operation: "cannot read history file") {
    case .success(let opened): fd = opened
    case .failure(let problem): return .failure(problem)
    }
    defer { close(fd) }
    while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    defer { flock(fd, LOCK_UN) }
    switch contents(fd) {
    case .success(let text):
      return .success(
        text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
          Array($0)
        })
    case .failure(let error):
      return .failure(
        .system(SystemError("cannot read history file", path: shown(path), code: error.code)))
    }
  }

  /// Appends `line` to the file at `path` (made, mode 0600, if missing), then
  /// cuts the file to its last `maximum` lines when it holds more: all under
  /// an exclusive lock, the cut in place (the kept lines written over the
  /// start, then the file shortened), so a session waiting for the lock
  /// loses nothing and no temporary file or rename is needed.
  static func append(_ line: [UInt8], to path: String, keeping maximum: Int) -> Problem? {
    let operation = "cannot write history file"
    let fd: Int32
    switch openRegular(path, O_RDWR | O_CREAT, operation: operation) {
    case .success(let opened): fd = opened
    case .failure(let problem): return problem
    }
    defer { close(fd) }
    func failure(_ code: Int32) -> Problem {
      .system(SystemError(operation, path: shown(path), code: code))
    }
    while flock(fd, LOCK_EX) != 0 {
      if errno != EINTR { return failure(errno) }
    }
    defer { flock(fd, LOCK_UN) }
    var text: [UInt8]
    switch contents(fd) {
    case .success(let read): text = read
    case .failure(let error): return failure(error.code)
    }
    // A last line without its newline (another program's) stays a line.
    var added = text.last.map { $0 == UInt8(ascii: "\n") ? [] : [UInt8(ascii: "\n")] } ?? []
    added += line + [UInt8(ascii: "\n")]
    if let code = writeAll(added, fd, at: text.count) { return failure(code) }
    text += added
    let cut = cutPoint(text, keeping: maximum)
    guard cut > 0 else { return nil }
    if let code = writeAll(Array(text[cut...]), fd, at: 0) { return failure(code) }
    if ftruncate(fd, off_t(text.count - cut)) != 0 { return failure(errno) }
    return nil
  }

  /// Where the last `maximum` lines of `text` (which ends in a newline) start.
  static func cutPoint(_ text: [UInt8], keeping maximum: Int) -> Int {
    var lines = 0
    var index = text.count - 1
    while index > 0 {
      index -= 1
      if text[index] == UInt8(ascii: "\n") {
        lines += 1
        if lines == maximum { return index + 1 }
      }
    }
    return 0
  }

  private static func writeAll(_ bytes: [UInt8], _ fd: Int32, at offset: Int) -> Int32? {
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeBytes {
        pwrite(fd, $0.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset + done))
      }
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      done += count
    }
    return nil
  }
}
