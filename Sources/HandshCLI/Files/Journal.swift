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
/// same tree and cursor (`start`, JournalResume.swift).
///
/// Write-ahead: each change's line is recorded here, and the lines go out
/// to FILE, in one write of whole lines, before any result reaches stdout
/// (`Output` flushes the journal first). Flushing is done in one place,
/// `flush` and `sync`, and every result is checked: a write or an
/// `fdatasync` that fails is a failed write, FILE is cut back to its whole
/// lines known to be there, `failure` says why and `lost` where the first
/// command whose line may be lost stands; the session is then rebuilt from
/// FILE (`rebuild`), so those commands change nothing. FILE is flushed to
/// disk (`fdatasync`) before results at the prompt, at most a second after
/// a change otherwise, and at the end. One session at a time: FILE is locked.
final class Journal {
  /// FILE as the user named it, made safe, for messages.
  let shown: String
  /// FILE as the user named it, to find it again.
  let path: [UInt8]
  private(set) var fd: Int32
  /// The file FILE names (its device and inode): the one the session
  /// started with, or its compact rewrite.
  private(set) var identity: (device: UInt64, inode: UInt64)
  /// FILE's size at which its compact form is looked at next
  /// (`compactIfDue`).
  var compactCheck = 1 << 20
  /// A compaction failed and was said (once a session).
  var compactionWarned = false
  /// Lines recorded and not yet written.
  let pending = ByteBuffer()
  /// FILE's size: whole lines, all written.
  private(set) var size: Int
  /// How much of FILE is known to be on disk (the last `fdatasync`).
  private var synced: Int
  private var lastSync: Double
  private var ticks = 0
  /// The reason the last write or flush failed, until the session is
  /// rebuilt.
  private(set) var failure: String?
  /// The number of the first version this session makes: its line gets a
  /// time line whatever the second (handsh(1), JOURNAL).
  let sessionStart: Int
  /// FILE's last modification before the resume: the time of the versions
  /// that no time line comes before (a journal with no time lines), on a rebuild too.
  private let untimed: Int

  /// Why a command after a failed write did not run (never shown: the
  /// journal's failure is the message).
  static let stopped = "the journal could not be written"
  /// At the prompt: FILE is flushed to disk before any result is shown.
  var syncsBeforeResults = false
  /// FILE was found to name another file, or none: what was kept is
  /// elsewhere (`keepElsewhere`), and the session ends, status 2.
  private(set) var ended = false

  /// Where a command whose line the journal holds stands: its source (nil
  /// at the prompt), line and column.
  struct Place {
    var source: String?
    var line: Int
    var column: Int
  }

  /// The first command whose line is pending, and the first whose line was
  /// written but not yet flushed to disk.
  private var pendingFrom: Place?
  private var unsyncedFrom: Place?
  /// After a failure: the first command whose line it may have lost.
  private(set) var lost: Place?

  init(
    shown: String, path: [UInt8], fd: Int32, size: Int, status: stat, sessionStart: Int,
    untimed: Int
  ) {
    self.shown = shown
    self.path = path
    self.fd = fd
    self.size = size
    self.sessionStart = sessionStart
    self.untimed = untimed
    synced = size
    identity = (UInt64(status.st_dev), UInt64(status.st_ino))
    lastSync = Platform.monotonicSeconds()
  }

  deinit {
    guard fd >= 0 else { return }
    if handsh_own_file() == fd { handsh_hold_own_file(-1) }
    close(fd)
  }

  /// The descriptor, given up by this journal (now the caller's to close).
  func release() -> Int32 {
    if handsh_own_file() == fd { handsh_hold_own_file(-1) }
    return dup(fd)
  }

  /// Records the line of a change: `move`, or what made `history`'s
  /// current version. `place` tells where the command stands, asked only
  /// for the first line pending.
  @inline(__always)
  func record(_ move: CursorMove?, in history: History, place: () -> Place) {
    if pendingFrom == nil { pendingFrom = place() }
    if move == nil {
      JournalText.appendTimeLine(for: history, sessionStart: sessionStart, to: pending)
    }
    JournalText.appendLine(for: move, in: history, to: pending)
    if size &+ pending.count >= compactCheck { compactIfDue(history) }
  }

  /// When FILE was last modified, in whole seconds since 1970.
  static func modified(_ status: stat) -> Int { Int(status.st_mtim.tv_sec) }

  /// Records the changes held while a text was checked (`HeldJournal`),
  /// their lines written out in pieces as they are made, never all held;
  /// `first` is where the first of their commands stands, `history` the
  /// versions they made.
  func record(held: HeldJournal, first: Place?, history: History) {
    guard !held.isEmpty, failure == nil, !ended else { return }
    if pendingFrom == nil { pendingFrom = first }
    held.write(from: history, into: pending) { flush() }
    if size &+ pending.count >= compactCheck { compactIfDue(history) }
  }

  /// Writes the pending lines, in one write of whole lines, as a critical
  /// section (no signal leaves half a line). False when it failed: FILE is
  /// cut back to its whole lines (a short write's part line too), the lines
  /// are dropped, and `failure` says why.
  @discardableResult
  func flush() -> Bool {
    guard failure == nil, !ended else { return false }
    guard !pending.isEmpty else { return true }
    let code: Int32? = Platform.critical {
      pending.withBytes { Platform.writeAll(fd, $0, at: size) }
    }
    if let code {
      fail(code, lost: pendingFrom ?? unsyncedFrom, keeping: size)
      return false
    }
    size += pending.count
    pending.removeAll()
    if unsyncedFrom == nil { unsyncedFrom = pendingFrom }
    pendingFrom = nil
    return true
  }

  /// Before results are written: the pending lines written, and at the
  /// prompt FILE flushed to disk too, when there are `results`. False when
  /// that failed: the results are dropped, as their commands will be.
  func flushBefore(results: Bool) -> Bool {
    flush() && (!results || !syncsBeforeResults || sync())
  }

  /// Flushes FILE to disk (`fdatasync`), if anything was written since the
  /// last time. False when it failed: a failed write, whose lost lines are
  /// all those written since the last flush that succeeded.
  @discardableResult
  func sync() -> Bool {
    guard failure == nil else { return false }
    guard size != synced, !ended else { return true }
    // The name stays the journal's: checked at each flush.
    guard nameHolds() else {
      ended = true
      keepElsewhere()
      return true
    }
    var result: Int32
    repeat { result = fdatasync(fd) } while result != 0 && errno == EINTR
    guard result == 0 else {
      fail(errno, lost: unsyncedFrom ?? pendingFrom, keeping: synced)
      return false
    }
    synced = size
    unsyncedFrom = nil
    lastSync = Platform.monotonicSeconds()
    return true
  }

  /// A failed write or flush: FILE cut back to `keeping` bytes, the lines
  /// after them forgotten, and why and where said.
  private func fail(_ code: Int32, lost place: Place?, keeping whole: Int) {
    failure = Platform.describe(code)
    lost = place
    _ = Platform.critical { ftruncate(fd, off_t(whole)) }
    // The cut-back reaches the disk before the failure is said, so a power
    // cut never brings back a line whose command was reported failed.
    while fdatasync(fd) != 0, errno == EINTR {}
    size = whole
    synced = min(synced, whole)
    pending.removeAll()
    pendingFrom = nil
    unsyncedFrom = nil
  }

  /// FILE's descriptor replaced by that of its compact rewrite, which
  /// holds `count` bytes, all on disk.
  func replaceFile(with other: Int32, status: stat, count: Int) {
    if handsh_own_file() == fd { handsh_hold_own_file(other) }
    close(fd)
    fd = other
    identity = (UInt64(status.st_dev), UInt64(status.st_ino))
    size = count
    synced = count
  }

  /// Flushes the folder that holds FILE, after handsh made it: its name is
  /// then on disk too. False, with `failure` set, when that failed.
  func syncFolder() -> Bool {
    guard case .success(.entry(let entry)) = NamedPath.walk(path) else { return true }
    let folder = openat(entry.folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { return true }
    defer { close(folder) }
    var result: Int32
    repeat { result = fsync(folder) } while result != 0 && errno == EINTR
    guard result == 0 else {
      failure = Platform.describe(errno)
      return false
    }
    return true
  }

  /// Whether a second has passed since FILE was last flushed to disk with
  /// changes waiting: looked at every 1024 commands, so it costs nothing.
  func due() -> Bool {
    ticks &+= 1
    guard ticks & 1023 == 0, size != synced || !pending.isEmpty else { return false }
    return Platform.monotonicSeconds() - lastSync >= 1
  }

  /// After a failed write: the session FILE holds, read back line by line
  /// as a resume reads it, and the failure forgotten. Nil when FILE cannot
  /// be read back.
  func rebuild() -> Session? {
    defer {
      failure = nil
      lost = nil
    }
    var session = try? Journal.resume(fd, shown: shown, size: size, time: untimed).get().session
    session?.clock = Platform.clock
    return session
  }
}
