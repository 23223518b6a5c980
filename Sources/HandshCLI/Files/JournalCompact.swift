import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Compaction (handsh(1), JOURNAL), as Redis rewrites its append-only
/// file: when FILE passes twice the size of its compact form plus 1 MiB,
/// it is rewritten in that form (`JournalText.compactForm`, a pure function
/// of the versions): written and flushed beside FILE, locked, renamed over
/// it, and the folder flushed, so that a crash or a signal at any moment
/// leaves the old file or the new one, whole, and both resume to the same
/// versions, numbers, parents, redo children and current version.
extension Journal {
  /// Looked at once FILE reaches `compactCheck`, with the versions the
  /// lines written so far made: the lines go to disk first; then FILE is
  /// rewritten if its compact form is less than half its size (less
  /// 1 MiB). The next look is once FILE passes that bound again.
  func compactIfDue(_ history: History) {
    // A bound first, at no cost: the compact form has line 1 (45 bytes at
    // least) and a line for each version but 0 of 6 bytes at least (`del
    // 1`, `new 0`), so while FILE is within twice that plus 1 MiB it
    // cannot be due.
    let least = 2 * (39 + 6 * history.count) + (1 << 20)
    guard size &+ pending.count > least else {
      compactCheck = least
      return
    }
    guard failure == nil, !ended, flush(), sync(), !ended else { return }
    var compact = 0
    JournalText.compactForm(of: history) { chunk in
      compact += chunk.count
      return true
    }
    let bound = 2 * compact + (1 << 20)
    // Never looked at again before FILE grows by 64 KiB: the look costs a
    // walk over the versions.
    compactCheck = max(bound, size + (1 << 16))
    guard size > bound else { return }
    switch rewrite(history) {
    case nil: compactCheck = bound
    case 0?: break
    case let code?:
      // FILE stays as it was, whole and on disk: said once, as a warning.
      guard !compactionWarned else { break }
      compactionWarned = true
      Platform.printError("handsh: cannot compact journal \(shown): \(Platform.describe(code))")
    }
  }

  /// Writes the compact form of `history` to a new file beside FILE and
  /// renames it over FILE: nil when FILE is now that file, else the errno
  /// of the failure (0: FILE no longer names the journal, which the next
  /// flush finds). Any failure leaves FILE as it was (its lines are all on
  /// disk) and removes the new file. A critical section: no signal ends
  /// handsh in the middle.
  private func rewrite(_ history: History) -> Int32? {
    let entry: NamedPath.Entry
    switch NamedPath.walk(path) {
    case .failure(let failure): return failure.code
    case .success(.entry(let found)): entry = found
    case .success: return 0
    }
    guard let status = entry.status, UInt64(status.st_dev) == identity.device,
      UInt64(status.st_ino) == identity.inode
    else { return 0 }
    return Platform.critical {
      let folder = entry.folder
      var temporary: [UInt8] = []
      let made = newFile(beside: entry, temporary: &temporary)
      guard made >= 0 else { return errno }
      var written = 0
      var good =
        fchmod(made, status.st_mode & 0o7777) == 0 && flock(made, LOCK_EX | LOCK_NB) == 0
        && JournalText.compactForm(of: history) { chunk in
          let code = Platform.writeAll(made, chunk, at: written)
          written += chunk.count
          return code == nil
        }
      good = good && fdatasync(made) == 0
      // FILE renamed away meanwhile: not a failure here (the next flush
      // finds it), and nothing replaced.
      var moved = false
      if good {
        let now = fileMoved()
        moved = now ?? false
        good = now == false
      }
      if good, temporary.isEmpty {
        temporary = temporaryName(for: entry.name, in: folder)
        good = Platform.withCPath(temporary, { handsh_name_unnamed(made, folder, $0) }) == 0
        if !good { temporary = [] }
      }
      var renamed = stat()
      good =
        good && fstat(made, &renamed) == 0
        && Platform.withCPath(
          temporary,
          { from in
            entry.withName { renameat(folder, from, folder, $0) }
          }) == 0
      guard good else {
        let code = moved ? 0 : max(errno, 1)
        close(made)
        if !temporary.isEmpty { _ = Platform.withCPath(temporary) { unlinkat(folder, $0, 0) } }
        return code
      }
      replaceFile(with: made, status: renamed, count: written)
      // Both files resume to the same versions: a folder that cannot be
      // flushed leaves either on disk, whole.
      let flushed = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      if flushed >= 0 {
        _ = fsync(flushed)
        close(flushed)
      }
      return nil
    }
  }

  /// The file the compact form is written to, in `entry`'s folder: an
  /// unnamed file where the file system has them, named only once whole,
  /// just before the rename (a SIGKILL leaves no half file); else a file
  /// under a temporary name, put in `temporary`. Its descriptor, or -1 with
  /// `errno` set.
  private func newFile(beside entry: NamedPath.Entry, temporary: inout [UInt8]) -> Int32 {
    let folder = entry.folder
    var made = handsh_open_unnamed(folder, 0o600)
    if made >= 0 {
      // Opened for writing only: read too, as FILE is (a rebuild, a copy).
      let both = handsh_reopen(made, O_RDWR | O_NOCTTY)
      close(made)
      made = both
    }
    if made < 0 {
      temporary = temporaryName(for: entry.name, in: folder)
      made =
        Platform.withCPath(temporary) {
          handsh_open_in(folder, $0, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY, 0o600)
        } ?? -1
    }
    return made
  }

  /// FILE looked at again just before the rename: whether it was renamed
  /// away (no longer names the journal, or nothing there); nil when the
  /// walk to it fails.
  private func fileMoved() -> Bool? {
    switch NamedPath.walk(path) {
    case .failure: return nil
    case .success(.entry(let now)):
      return now.status.map {
        UInt64($0.st_dev) != identity.device || UInt64($0.st_ino) != identity.inode
      } ?? true
    case .success: return true
    }
  }
}
