import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Starting a journal (handsh(1), JOURNAL): FILE found by the one way of
/// opening, locked, and resumed, or made.
extension Journal {
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
  /// else read line by line and replayed (`resume`). `given` (`--seed` or
  /// `--limit`) with an existing FILE is a usage error.
  static func start(
    _ path: [UInt8], seed: UInt64, limit: Int, given: String?, readsStdin: Bool = false
  ) -> Result<Started, StartFailure> {
    let shown = safeText(path)
    func cannotUse(_ reason: String) -> Result<Started, StartFailure> {
      .failure(StartFailure(message: "cannot use journal \(shown): \(reason)"))
    }
    let opened: Opened
    switch open(path) {
    case .failure(let refusal): return cannotUse(refusal.reason)
    case .success(let found): opened = found
    }
    var closing: Int32? = opened.fd
    var made = opened.made
    defer {
      if let closing {
        close(closing)
        // Nothing is left of a FILE that could not be made whole.
        if made { Journal.unlink(path, ifStill: opened.status) }
      }
    }
    // FILE is no input of its own session: it would read what it appends.
    if readsStdin, isStdin(opened.status) {
      return .failure(StartFailure(message: "cannot read <stdin>: \(Platform.describe(EBUSY))"))
    }
    if let reason = lock(opened.fd) { return cannotUse(reason) }
    var status = stat()
    guard fstat(opened.fd, &status) == 0 else { return cannotUse(Platform.describe(errno)) }
    // An empty FILE (made, then a crash) is taken as a missing one.
    let empty = status.st_size == 0
    if !empty, let given {
      return .failure(
        StartFailure(
          message: "--\(given) cannot be used with an existing journal (\(shown) gives the seed"
            + " and the limit)", usage: true))
    }
    var session = Session(seed: seed, limit: limit, clock: Platform.clock)
    var resumed: Int?
    var size = 0
    if !empty {
      let time = Journal.modified(status)
      switch resume(opened.fd, shown: shown, size: Int(status.st_size), time: time) {
      case .failure(let failure):
        return .failure(
          StartFailure(
            message:
              "cannot resume from \(shown): \(failure.line):\(failure.column): \(failure.message)"
          ))
      case .success(let found):
        if let code = found.dropTail(opened.fd, shown: shown) {
          return cannotUse(Platform.describe(code))
        }
        (session, resumed, size) = (found.session, found.session.history.cursor, found.whole)
        session.clock = Platform.clock
      }
    }
    let journal = Journal(
      shown: shown, path: path, fd: opened.fd, size: size, status: status,
      sessionStart: session.history.count, untimed: Journal.modified(status))
    closing = nil
    handsh_hold_own_file(opened.fd)
    if empty {
      journal.pending.append(contentsOf: JournalText.firstLine(seed: seed, limit: limit).utf8)
      // Written and flushed to disk now, with the folder that holds it: a
      // FILE that cannot take it is refused at the start, and removed if
      // handsh made it.
      guard journal.flush(), journal.sync(), !made || journal.syncFolder() else {
        closing = journal.release()
        return cannotUse(journal.failure ?? "")
      }
      made = false
    }
    return .success(Started(journal: journal, session: session, resumed: resumed))
  }

  /// Why FILE cannot be used.
  struct Refusal: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    init(code: Int32) { reason = Platform.describe(code) }
  }

  /// FILE opened for reading and writing, and whether handsh made it.
  struct Opened {
    var fd: Int32
    var status: stat
    var made: Bool
  }

  /// Finds FILE by the one way of opening: a regular file, opened for
  /// reading and writing, or made (mode 0600) when nothing is there. The
  /// reason it cannot be used.
  private static func open(_ path: [UInt8]) -> Result<Opened, Refusal> {
    for _ in 0..<NamedPath.attempts {
      switch NamedPath.walk(path) {
      case .failure(let failure): return .failure(Refusal(code: failure.code))
      case .success(.stream), .success(.located): return .failure(Refusal("not a regular file"))
      case .success(.entry(let entry)):
        guard let status = entry.status else {
          let fd = entry.withName {
            handsh_open_in(entry.folder, $0, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY, 0o600)
          }
          if fd < 0, errno == EEXIST { continue }
          guard fd >= 0 else { return .failure(Refusal(code: errno)) }
          // The umask may have taken bits from 0600.
          _ = fchmod(fd, 0o600)
          var made = stat()
          _ = fstat(fd, &made)
          return .success(Opened(fd: fd, status: made, made: true))
        }
        if status.st_mode & S_IFMT == S_IFDIR { return .failure(Refusal(code: EISDIR)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
          return .failure(Refusal("not a regular file"))
        }
        switch entry.open(O_RDWR | O_NONBLOCK) {
        case .failure(let failure) where failure.code == EAGAIN: continue
        case .failure(let failure): return .failure(Refusal(code: failure.code))
        case .success(let file):
          return .success(Opened(fd: file.fd, status: file.status, made: false))
        }
      }
    }
    return .failure(Refusal(code: EAGAIN))
  }

  /// Locks FILE for this session; the reason it cannot be. A handsh keeping
  /// FILE holds an exclusive lock: one that still lets a shared lock in is
  /// another program's, and so is an exclusive one whose holder is not a
  /// handsh (as /proc/locks and the holder's name say).
  private static func lock(_ fd: Int32) -> String? {
    guard flock(fd, LOCK_EX | LOCK_NB) != 0 else { return nil }
    guard errno == EWOULDBLOCK else { return Platform.describe(errno) }
    let another = "locked by another program"
    if flock(fd, LOCK_SH | LOCK_NB) == 0 {
      _ = flock(fd, LOCK_UN)
      return another
    }
    return lockHeldByHandsh(fd) == false ? another : "in use by another handsh"
  }

  /// Whether stdin is the file `status` describes.
  private static func isStdin(_ status: stat) -> Bool {
    var input = stat()
    return fstat(0, &input) == 0 && input.st_dev == status.st_dev && input.st_ino == status.st_ino
  }

  /// Removes the name FILE if it still names the file `status` describes.
  static func unlink(_ path: [UInt8], ifStill status: stat) {
    guard case .success(.entry(let entry)) = NamedPath.walk(path), let found = entry.status,
      found.st_dev == status.st_dev, found.st_ino == status.st_ino
    else { return }
    _ = entry.withName { unlinkat(entry.folder, $0, 0) }
  }
}

/// What resuming found: the session FILE's whole lines rebuild, where they
/// end, and a torn last line to drop.
struct Resumed {
  var session: Session
  /// FILE's size up to its last whole line.
  var whole: Int
  /// A last line without its line break (at most `Journal.tornLimit` bytes).
  var tail: [UInt8] = []

  /// Drops the torn last line: said, with its text made safe, and FILE cut
  /// back to its last whole line. The errno when FILE cannot be cut.
  func dropTail(_ fd: Int32, shown: String) -> Int32? {
    guard !tail.isEmpty else { return nil }
    Platform.printError("handsh: \(shown): dropped an incomplete last line '\(safeText(tail))'")
    return ftruncate(fd, off_t(whole)) == 0 ? nil : errno
  }
}

extension Journal {
  /// The longest torn last line that resuming drops: a line of a journal
  /// is at most 32 bytes, so a longer one was never written by an append.
  static let tornLimit = 64

  /// Reads FILE's first `size` bytes in pieces, never whole, line by line
  /// through the line reader stdin uses (`LineSplitter`: one line held at
  /// a time, a line over the limit reported as soon as it passes it), and
  /// replays them (`JournalReplay`). A last line without its line break is
  /// kept apart when it is at most `tornLimit` bytes and every line before
  /// it resumes; any other fault is the failure, at its line and column.
  /// `time` is when the versions were made that no time line comes before
  /// (a journal with no time lines): FILE's last modification before the resume.
  static func resume(_ fd: Int32, shown: String, size: Int, time: Int) -> Result<
    Resumed, JournalText.Failure
  > {
    var replay = JournalReplay(time: time)
    var splitter = LineSplitter()
    var failure: JournalText.Failure?
    var whole = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var at = 0
    while at < size, failure == nil {
      let count = chunk.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, min($0.count, size - at), off_t(at))
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        if count < 0 {
          return .failure(
            JournalText.Failure(
              line: splitter.number + 1, column: 1,
              message: Platform.describe(errno)))
        }
        break
      }
      chunk.withUnsafeBufferPointer { chunk in
        let piece = UnsafeBufferPointer(rebasing: chunk[..<count])
        if let last = piece.lastIndex(of: 0x0A) { whole = at + last + 1 }
        _ = splitter.feed(piece, final: false) { event in
          switch event {
          case .tooLong(let number): failure = replay.take(nil, number: number)
          case .line(let line):
            failure = replay.take(line.bytes, number: line.number, knownASCII: line.isASCII)
          case .waiting: break
          }
          return failure == nil
        }
      }
      at += count
    }
    if let failure { return .failure(failure) }
    // No line break at all: not a journal, whatever the size.
    guard whole > 0, case .success(let session) = replay.finish() else {
      return .failure(JournalText.Failure(line: 1, column: 1, message: JournalReplay.notAJournal))
    }
    var resumed = Resumed(session: session, whole: whole)
    let torn = at - whole
    guard torn > 0 else { return .success(resumed) }
    guard torn <= tornLimit else {
      return .failure(
        JournalText.Failure(
          line: splitter.number + 1, column: 1,
          message: "incomplete last line of \(torn) bytes (more than \(tornLimit))"))
    }
    resumed.tail = [UInt8](repeating: 0, count: torn)
    if let code = Platform.readAll(fd, &resumed.tail, at: whole) {
      return .failure(
        JournalText.Failure(
          line: splitter.number + 1, column: 1, message: Platform.describe(code)))
    }
    return .success(resumed)
  }
}

extension Journal {
  /// Whether the exclusive lock on `fd`'s file is held by a handsh, as
  /// /proc/locks (the holder's process) and its name say; nil when that
  /// cannot be told.
  static func lockHeldByHandsh(_ fd: Int32) -> Bool? {
    var status = stat()
    guard fstat(fd, &status) == 0,
      case .success(let locks) = readFile(Array("/proc/locks".utf8), whole: true)
    else { return nil }
    let inode = String(status.st_ino)
    // `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`
    for line in locks.bytes.split(separator: 0x0A) {
      let words = line.split(separator: 0x20)
      guard words.count >= 6, words[1].elementsEqual("FLOCK".utf8),
        words[5].split(separator: 0x3A).last?.elementsEqual(inode.utf8) == true,
        let pid = Int32(String(decoding: words[4], as: UTF8.self)), pid != getpid()
      else { continue }
      guard case .success(let name) = readFile(Array("/proc/\(pid)/comm".utf8), whole: true)
      else { return nil }
      return name.bytes.starts(with: "handsh".utf8)
    }
    return nil
  }
}
