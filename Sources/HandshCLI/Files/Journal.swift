import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `--journal FILE` (handsh(1), JOURNAL): every version of the session kept
/// in FILE, a canonical script, so that quitting, a crash, SIGKILL or a
/// closed terminal loses none; the next `--journal FILE` resumes with the
/// same tree and cursor.
///
/// Write-ahead: each change's line is recorded here, and the lines go out
/// to FILE, in one write of whole lines, before any result reaches stdout
/// (`Output` flushes the journal first). A write that fails is taken back,
/// so FILE ends with a whole line; the results of the commands it held are
/// dropped, and the session is rebuilt from FILE, so the commands whose
/// lines could not be written change nothing. FILE is flushed to disk
/// (`fdatasync`) after each prompt line, at most a second after a change
/// otherwise, and at the end. One session at a time: FILE is locked.
final class Journal {
  /// FILE as the user named it, made safe, for messages.
  let shown: String
  private let fd: Int32
  /// Lines recorded and not yet written.
  let pending = ByteBuffer()
  /// FILE's size: whole lines, all written.
  private var size: Int
  private var unsynced = false
  private var lastSync: Double
  private var ticks = 0
  /// The reason the last write failed, until the session is rebuilt.
  private(set) var failure: String?
  /// The number of the first version this session makes: its line gets a
  /// time line whatever the second (handsh(1), JOURNAL).
  let sessionStart: Int
  /// FILE's last modification before the resume: the time of the versions
  /// that no time line comes before (a v6 journal), on a rebuild too.
  private let untimed: Int

  private init(shown: String, fd: Int32, size: Int, sessionStart: Int, untimed: Int) {
    self.shown = shown
    self.fd = fd
    self.size = size
    self.sessionStart = sessionStart
    self.untimed = untimed
    lastSync = Platform.monotonicSeconds()
  }

  deinit {
    if handsh_own_file() == fd { handsh_hold_own_file(-1) }
    close(fd)
  }

  /// Why a journal cannot be started: the message, and whether it is a
  /// usage error (both end handsh with status 2).
  struct StartFailure: Error {
    var message: String
    var usage = false
  }

  /// A journal started: the session it holds, and the version resumed
  /// (nil for a new FILE).
  struct Started {
    var journal: Journal
    var session: Session
    var resumed: Int?
  }

  /// Opens FILE by the one way of opening (handsh(1), FILES): made (mode
  /// 0600) with version 0 of `seed` and `limit` when missing or empty;
  /// else checked whole and replayed. A torn last line is dropped, with a
  /// warning; `given` (`--seed` or `--limit`) with an existing FILE is a
  /// usage error.
  static func start(_ path: [UInt8], seed: UInt64, limit: Int, given: String?) -> Result<
    Started, StartFailure
  > {
    let shown = safeText(path)
    func cannotUse(_ reason: String) -> Result<Started, StartFailure> {
      .failure(StartFailure(message: "cannot use journal \(shown): \(reason)"))
    }
    var opened: (fd: Int32, status: stat)?
    for _ in 0..<NamedPath.attempts where opened == nil {
      switch NamedPath.walk(path) {
      case .failure(let failure): return cannotUse(Platform.describe(failure.code))
      case .success(.stream), .success(.located): return cannotUse("not a regular file")
      case .success(.entry(let entry)):
        guard let status = entry.status else {
          let fd = entry.withName {
            handsh_open_in(entry.folder, $0, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY, 0o600)
          }
          if fd < 0, errno == EEXIST { continue }
          guard fd >= 0 else { return cannotUse(Platform.describe(errno)) }
          // The umask may have taken bits from 0600.
          _ = fchmod(fd, 0o600)
          var made = stat()
          _ = fstat(fd, &made)
          opened = (fd, made)
          break
        }
        if status.st_mode & S_IFMT == S_IFDIR { return cannotUse(Platform.describe(EISDIR)) }
        guard status.st_mode & S_IFMT == S_IFREG else { return cannotUse("not a regular file") }
        switch entry.open(O_RDWR | O_NONBLOCK) {
        case .failure(let failure) where failure.code == EAGAIN: continue
        case .failure(let failure): return cannotUse(Platform.describe(failure.code))
        case .success(let file): opened = file
        }
      }
    }
    guard let (fd, _) = opened else { return cannotUse(Platform.describe(EAGAIN)) }
    var closing: Int32? = fd
    defer { if let closing { close(closing) } }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      return cannotUse(errno == EWOULDBLOCK ? "in use by another handsh" : Platform.describe(errno))
    }
    var status = stat()
    guard fstat(fd, &status) == 0 else { return cannotUse(Platform.describe(errno)) }
    var text = [UInt8](repeating: 0, count: Int(status.st_size))
    if let code = Platform.readAll(fd, &text, at: 0) { return cannotUse(Platform.describe(code)) }
    // A last line without its line break: power lost in an append.
    let whole = text.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
    if whole > 0, let given {
      return .failure(
        StartFailure(
          message: "--\(given) cannot be used with an existing journal (\(shown) gives the seed"
            + " and the limit)", usage: true))
    }
    let session: Session
    var resumed: Int?
    if whole == 0 {
      session = Session(seed: seed, limit: limit, clock: Platform.clock)
    } else {
      let replayed = text.withUnsafeBufferPointer {
        JournalText.replay(
          UnsafeBufferPointer(rebasing: $0[..<whole]), time: Journal.modified(status))
      }
      switch replayed {
      case .failure(let failure):
        return .failure(
          StartFailure(
            message:
              "cannot resume from \(shown): \(failure.line):\(failure.column): \(failure.message)"))
      case .success(var found):
        found.clock = Platform.clock
        session = found
        resumed = found.history.cursor
      }
    }
    if whole < text.count {
      Platform.printError("handsh: \(shown): dropped an incomplete last line")
      guard ftruncate(fd, off_t(whole)) == 0 else { return cannotUse(Platform.describe(errno)) }
    }
    let journal = Journal(
      shown: shown, fd: fd, size: whole, sessionStart: session.history.count,
      untimed: Journal.modified(status))
    closing = nil
    handsh_hold_own_file(fd)
    if whole == 0 {
      journal.pending.append(contentsOf: JournalText.firstLine(seed: seed, limit: limit).utf8)
      // Written now (a FILE that cannot take it is refused at the start);
      // flushed to disk with the first changes, or at the end.
      guard journal.flush() else { return cannotUse(journal.failure ?? "") }
    }
    return .success(Started(journal: journal, session: session, resumed: resumed))
  }

  /// Records the line of a change: `move`, or what made `history`'s
  /// current version, after its time line when it needs one.
  func record(_ move: CursorMove?, in history: History) {
    if move == nil {
      JournalText.appendTimeLine(for: history, sessionStart: sessionStart, to: pending)
    }
    JournalText.appendLine(for: move, in: history, to: pending)
  }

  /// When FILE was last modified, in whole seconds since 1970.
  private static func modified(_ status: stat) -> Int { Int(status.st_mtim.tv_sec) }

  /// Records lines held while a text was checked, whole, with their breaks.
  func record(lines: ByteBuffer) { pending.append(lines) }

  /// Writes the pending lines, in one write of whole lines, as a critical
  /// section (no signal leaves half a line). False when it failed: FILE is
  /// cut back to its whole lines, the lines are dropped, and `failure`
  /// says why.
  @discardableResult
  func flush() -> Bool {
    guard failure == nil else { return false }
    guard !pending.isEmpty else { return true }
    let code: Int32? = Platform.critical {
      let code = pending.withBytes { Platform.writeAll(fd, $0, at: size) }
      if code != nil { _ = ftruncate(fd, off_t(size)) }
      return code
    }
    if let code {
      failure = Platform.describe(code)
      pending.removeAll()
      return false
    }
    size += pending.count
    pending.removeAll()
    unsynced = true
    return true
  }

  /// Flushes FILE to disk, if anything was written since the last time.
  func sync() {
    guard unsynced else { return }
    while fdatasync(fd) != 0 && errno == EINTR {}
    unsynced = false
    lastSync = Platform.monotonicSeconds()
  }

  /// Whether a second has passed since FILE was last flushed to disk with
  /// changes waiting: looked at every 1024 commands, so it costs nothing.
  func due() -> Bool {
    ticks &+= 1
    guard ticks & 1023 == 0, unsynced || !pending.isEmpty else { return false }
    return Platform.monotonicSeconds() - lastSync >= 1
  }

  /// After a failed write: the session FILE holds, read back, and the
  /// failure forgotten. Nil when FILE cannot be read back.
  func rebuild() -> Session? {
    defer { failure = nil }
    var text = [UInt8](repeating: 0, count: size)
    guard Platform.readAll(fd, &text, at: 0) == nil else { return nil }
    var session = try? text.withUnsafeBufferPointer { JournalText.replay($0, time: untimed) }
      .get()
    session?.clock = Platform.clock
    return session
  }

}
