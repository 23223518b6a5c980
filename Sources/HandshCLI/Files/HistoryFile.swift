import CHandsh
import CReadline
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The prompt's history file (handsh(1), FILES): each entered line is
/// appended as it is entered, so a crash loses nothing; the file keeps the
/// last 1000 lines. Sessions sharing the file take a lock (`flock`) for every
/// read, append and cut, and the cut is made in place, under the lock, so no
/// session's lines are dropped and a read-only folder is no obstacle. Only a
/// regular file is ever opened: `/dev/null` means no history, silently; a
/// FIFO, a device or a folder is reported once and left alone. A file handsh
/// creates has mode 0600 whatever the umask; an existing file keeps its
/// mode. A problem is reported once, and the session goes on without the
/// file.
///
/// The work is bounded whatever the file holds: it is read from its end
/// (at most its last 1000 lines and 64 MiB), a line over 64 KiB is not
/// kept, and the lock is waited on for at most 2 seconds (then that line is
/// not written, said once, and the session goes on).
struct HistoryFile {
  static let maximumLines = 1000
  /// A longer line runs but is not kept.
  static let maximumLineBytes = 1 << 16
  /// The most of the file's end that is ever read.
  static let maximumReadBytes = 64 << 20
  /// How long the lock is waited on.
  static let lockSeconds = 2.0

  /// nil: no history file (none asked for, `/dev/null`, or given up on).
  private(set) var path: String?
  private var last: [UInt8]?
  /// Whether a line lost to a held lock was reported (once a session).
  private var lockReported = false

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
        for line in lines.suffix(HistoryFile.maximumLines)
        where line.count <= HistoryFile.maximumLineBytes {
          addToReadline(line)
        }
      case .failure(let problem): give(up: problem)
      }
    }
  }

  /// Adds a line, unless it is blank or repeats this session's line before.
  mutating func add(_ line: [UInt8]) {
    let blank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard !blank, line != last, line.count <= HistoryFile.maximumLineBytes else { return }
    last = line
    addToReadline(line)
    guard let path else { return }
    switch HistoryFile.append(line, to: path, keeping: HistoryFile.maximumLines) {
    case nil: break
    case .locked?:
      // This line only: the next may find the lock free.
      if !lockReported {
        Platform.printError("handsh: \(Problem.locked(path: HistoryFile.shown(path)))")
      }
      lockReported = true
    case let problem?: give(up: problem)
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
    /// Another session held the lock past the wait: the line is not written.
    case locked(path: String)

    var description: String {
      switch self {
      case .system(let error): error.description
      case .notRegular(let path): "cannot use history file '\(path)': not a regular file"
      case .silent: ""
      case .locked(let path):
        "cannot write history file '\(path)': locked by another program for"
          + " \(Int(HistoryFile.lockSeconds)) seconds; a line was not kept"
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

  /// What is at `path`, following symbolic links (by the one way of
  /// opening, handsh(1), FILES), without opening it.
  static func kind(of path: String) -> Kind {
    let status: stat
    switch NamedPath.walk(Array(path.utf8)) {
    case .failure(let failure):
      if failure.code == ENOENT { return .missing }
      return .unusable(
        .system(
          SystemError(
            failure.refused ? "cannot use history file" : "cannot read history file",
            path: shown(path), code: failure.code)))
    case .success(.stream):
      // A descriptor by name (`/dev/stdin`): not a regular file.
      return .unusable(.notRegular(path: shown(path)))
    case .success(.located(let located)): status = located.status
    case .success(.entry(let entry)):
      guard let found = entry.status else { return .missing }
      status = found
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

  fileprivate static func shown(_ path: String) -> String { safeText(path.utf8) }

  private static func isNullDevice(_ status: stat) -> Bool {
    var null = stat()
    return stat("/dev/null", &null) == 0 && null.st_mode & S_IFMT == S_IFCHR
      && null.st_rdev == status.st_rdev
  }

  /// The history file open, and where the walk found it.
  private struct Opened {
    let fd: Int32
    let entry: NamedPath.Entry
  }

  /// What one try at opening the file gave: the file, a problem, or
  /// nothing because another session's cut replaced the file between the
  /// walk and the open (a new file renamed over the old): walk again.
  private enum Attempt {
    case opened(Opened)
    case failed(Problem)
    case replaced
  }

  /// Sessions sharing the file replace it at each cut, so what the walk
  /// found may be gone by the open many times over: walked again, up to a
  /// hundred times running, not a few.
  private static let walks = 100

  /// Opens `path` by the one way of opening if it is (still) a regular file,
  /// walking it again while sessions' cuts replace it (`walks` times at most).
  private static func openRegular(
    _ path: String, _ flags: Int32, operation: String
  ) -> Result<Opened, Problem> {
    for _ in 0..<walks {
      switch openOnce(path, flags, create: false, operation: operation) {
      case .opened(let opened): return .success(opened)
      case .failed(let problem): return .failure(problem)
      case .replaced: continue
      }
    }
    return .failure(.system(SystemError(operation, path: shown(path), code: EAGAIN)))
  }

  /// One try at opening `path` by the one way of opening if it is a
  /// regular file: O_NONBLOCK, so that a FIFO swapped in after `kind` never
  /// blocks, then checked with fstat. With `create`, a missing file is made,
  /// mode 0600 whatever the umask.
  private static func openOnce(
    _ path: String, _ flags: Int32, create: Bool, operation: String
  ) -> Attempt {
    let flags = flags | O_NONBLOCK
    func failure(_ code: Int32) -> Attempt {
      .failed(.system(SystemError(operation, path: shown(path), code: code)))
    }
    let entry: NamedPath.Entry
    switch NamedPath.walk(Array(path.utf8)) {
    case .failure(let refused):
      return .failed(
        .system(
          SystemError(
            refused.refused ? "cannot use history file" : operation, path: shown(path),
            code: refused.code)))
    case .success(.stream), .success(.located):
      return .failed(.notRegular(path: shown(path)))
    case .success(.entry(let found)): entry = found
    }
    let fd: Int32
    var status = stat()
    if entry.status == nil {
      guard create else { return failure(ENOENT) }
      let made = entry.withName {
        handsh_open_in(entry.folder, $0, flags | O_CREAT | O_EXCL | O_NOCTTY, 0o600)
      }
      if made < 0, errno == EEXIST { return .replaced }
      guard made >= 0 else { return failure(errno) }
      // The umask may have taken bits from 0600 (0277 gives 0400).
      _ = fchmod(made, 0o600)
      fd = made
      _ = fstat(fd, &status)
    } else {
      switch entry.open(flags) {
      case .failure(let refused) where refused.code == EAGAIN: return .replaced
      case .failure(let refused): return failure(refused.code)
      case .success(let opened): (fd, status) = opened
      }
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      return .failed(isNullDevice(status) ? .silent : .notRegular(path: shown(path)))
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return .opened(Opened(fd: fd, entry: entry))
  }

  /// Whether the file open on `fd` is still the one at its name: a cut
  /// renames a new file over it, and a session that waited for the lock
  /// on the old one must open the new one.
  private static func stillNamed(_ opened: Opened) -> Bool {
    var open = stat()
    var named = stat()
    return fstat(opened.fd, &open) == 0
      && opened.entry.withName {
        fstatat(opened.entry.folder, $0, &named, AT_SYMLINK_NOFOLLOW)
      } == 0
      && open.st_dev == named.st_dev && open.st_ino == named.st_ino
  }

  /// Takes the lock `operation` (LOCK_SH or LOCK_EX) on `fd`, waiting at
  /// most `lockSeconds`; the errno of a failure (`EWOULDBLOCK` when the
  /// wait ran out).
  static func lock(_ fd: Int32, _ operation: Int32) -> Int32? {
    let deadline = Platform.monotonicSeconds() + lockSeconds
    var pause: UInt32 = 500
    while flock(fd, operation | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      guard code == EWOULDBLOCK, Platform.monotonicSeconds() < deadline else { return code }
      usleep(pause)
      pause = min(pause * 2, 10_000)
    }
    return nil
  }

  /// The lines at the end of the history file (at most the last
  /// `maximumLines` and `maximumReadBytes`), read under a shared lock.
  static func readLines(_ path: String) -> Result<[[UInt8]], Problem> {
    let opened: Opened
    switch openRegular(path, O_RDONLY, operation: "cannot read history file") {
    case .success(let file): opened = file
    case .failure(let problem): return .failure(problem)
    }
    let fd = opened.fd
    defer { close(fd) }
    // A lock held too long: read anyway; a cut meanwhile costs at most a line.
    let locked = lock(fd, LOCK_SH) == nil
    defer { if locked { flock(fd, LOCK_UN) } }
    guard let text = readTail(fd, lines: maximumLines, bytes: maximumReadBytes) else {
      return .failure(
        .system(SystemError("cannot read history file", path: shown(path), code: errno)))
    }
    return .success(
      text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
        Array($0)
      })
  }

  /// Appends `line` to the file at `path` (made, mode 0600, if missing),
  /// keeping its last `maximum` lines (and at most `maximumReadBytes`):
  /// all under an exclusive lock, so a session waiting for the lock loses
  /// nothing. When the file would pass the bound, the kept lines and the
  /// new one are written whole into a new file that is renamed over the
  /// old (in place, where the folder refuses), so that a fault at any
  /// moment, once or lasting, leaves whole lines, never more than
  /// `maximum`, never a line cut in two. Only the file's end is read, so
  /// the cost does not grow with the file. `.locked` when the lock was not
  /// had within `lockSeconds`: nothing was written.
  static func append(_ line: [UInt8], to path: String, keeping maximum: Int) -> Problem? {
    let operation = "cannot write history file"
    func failure(_ code: Int32) -> Problem {
      .system(SystemError(operation, path: shown(path), code: code))
    }
    // Sessions that share the file may each cut it (a new file renamed
    // over the old): between the walk and the open, walked again up to
    // `walks` times running; while this one waits for the lock, opened
    // again for as long as the lock would be waited on.
    let deadline = Platform.monotonicSeconds() + lockSeconds
    var walked = 0
    while true {
      let opened: Opened
      switch openOnce(path, O_RDWR, create: true, operation: operation) {
      case .opened(let file): opened = file
      case .failed(let problem): return problem
      case .replaced:
        walked += 1
        if walked == walks { return failure(EAGAIN) }
        continue
      }
      walked = 0
      defer { close(opened.fd) }
      if let code = lock(opened.fd, LOCK_EX) {
        return code == EWOULDBLOCK ? .locked(path: shown(path)) : failure(code)
      }
      defer { flock(opened.fd, LOCK_UN) }
      // Another session's cut replaced the file while this one waited.
      guard stillNamed(opened) else {
        if Platform.monotonicSeconds() > deadline { return .locked(path: shown(path)) }
        continue
      }
      // No signal ends handsh between the first change and the last.
      return Platform.critical { appendLocked(line, opened, keeping: maximum, failure) }
    }
  }

  /// `append`'s work under the lock. An append that cannot be written whole
  /// (a full disk) is taken back, the file cut to its length before it.
  private static func appendLocked(
    _ line: [UInt8], _ opened: Opened, keeping maximum: Int, _ failure: (Int32) -> Problem
  ) -> Problem? {
    let fd = opened.fd
    var status = stat()
    guard fstat(fd, &status) == 0 else { return failure(errno) }
    let size = Int(status.st_size)
    // A last line without its newline (another program's) stays a line.
    var lastByte: UInt8 = 0x0A
    if size > 0, pread(fd, &lastByte, 1, off_t(size - 1)) != 1 { return failure(errno) }
    let added = (lastByte == 0x0A ? [] : [0x0A]) + line + [0x0A]
    // Where the lines kept beside the new one start.
    guard
      let cut = tailStart(
        fd, size: size, lines: maximum - 1, bytes: max(0, maximumReadBytes - added.count))
    else { return failure(errno) }
    guard cut > 0 else {
      if let code = added.withUnsafeBytes({ Platform.writeAll(fd, $0, at: size) }) {
        // Taken back; tried twice, as a passing fault may hit it too.
        if ftruncate(fd, off_t(size)) != 0 { _ = ftruncate(fd, off_t(size)) }
        return failure(code)
      }
      return nil
    }
    // The file passes its bound: the kept lines and the new one, whole.
    var content = [UInt8](repeating: 0, count: size - cut)
    if let code = Platform.readAll(fd, &content, at: cut) { return failure(code) }
    // Shorter than fstat said: cut meanwhile by something else.
    guard content.count == size - cut else { return failure(EIO) }
    // A last line too long to keep needs no line break to end it.
    content += content.isEmpty ? line + [0x0A] : added
    switch replaceFile(opened.entry, with: WriteSource(content), like: status, positional: true) {
    case .done: return nil
    case .failed(let code) where code != EACCES && code != EPERM && code != EBUSY:
      return failure(code)
    case .failed, .inPlace:
      // A folder that refuses a new file: the cut in place.
      return rewriteInPlace(content, fd, oldSize: size).map(failure)
    }
  }

  /// The file open on `fd` made to hold `content` in place, its old bytes
  /// put back when a step fails (the errno of the failure).
  private static func rewriteInPlace(_ content: [UInt8], _ fd: Int32, oldSize: Int) -> Int32? {
    var old = [UInt8](repeating: 0, count: min(content.count, oldSize))
    let want = old.count
    if let code = Platform.readAll(fd, &old, at: 0) { return code }
    guard old.count == want else { return EIO }
    var failure = content.withUnsafeBytes { Platform.writeAll(fd, $0, at: 0) }
    if failure == nil, ftruncate(fd, off_t(content.count)) != 0 { failure = errno }
    if failure != nil {
      _ = old.withUnsafeBytes { Platform.writeAll(fd, $0, at: 0) }
      _ = ftruncate(fd, off_t(oldSize))
    }
    return failure
  }

}
