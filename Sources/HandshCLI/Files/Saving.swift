import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one writer of every file handsh writes whole: `save`, and the files
/// of `--test --update`, `--junit` and `--record` (handsh(1), FILES). What
/// FILE already is decides how it is written, the way a careful editor
/// does it:
/// - one of handsh's own streams by name (`/dev/stdout`, `/dev/stderr`,
///   `/dev/fd/N`, `/proc/self/fd/N`, or a symbolic link whose text is one of
///   these): written into the open descriptor, after what handsh wrote there
///   before (the caller flushes its buffered output first), never reopened,
///   truncated or replaced; a descriptor that is not open is `EBADF`;
/// - a symbolic link stays; its target is written, atomically, at the
///   target's path;
/// - a FIFO or a device is written straight into, as the shell's `>` would;
/// - a regular file keeps its permission bits and its owner (one whose
///   owner a new file could not keep is written in place); one the user
///   may not write fails with `Permission denied`; one with more than one
///   hard link is written in place, so the links stay together;
/// - a folder (also `.` or `name/`) fails with `Is a directory`;
/// - a writable file in a folder the user may not write (or a sticky folder
///   that refuses the rename) is written in place;
/// - anything else is written atomically: a temporary file in the same
///   folder, flushed to disk, then renamed over FILE; where the file system
///   allows, an unnamed one (`O_TMPFILE`) that a new FILE gets as its name
///   directly, and a replaced one gets its temporary name just before the
///   rename (a rename refused with `EBUSY`, a bind mount: in place);
/// - a descriptor handsh opened for itself by number (`/dev/fd/N`) is
///   `EBADF`, and the journal it holds by any name is `EBUSY`; any other name of the file stdout or stderr holds
///   (same device and inode) is written into that stream; a link of
///   another user's in a shared sticky folder is `EACCES`; a NUL byte in
///   the path is `EINVAL`.
///
/// The path is found by the one way of opening (`NamedPath`): a link at a
/// time, under the sticky folders' rule for every link met, and what is
/// written is what was looked at, never the path opened again.
///
/// Every change to a file is a critical section of the one signal policy
/// (handsh(1), SIGNALS): no signal ends handsh in the middle of it.
/// Writing in place reserves the room first (`posix_fallocate`), so a full
/// disk leaves the old content whole, and puts the old content back when
/// the new cannot be written whole; a file whose old content cannot be
/// kept (unreadable, or over 64 MiB) is not written in place at all. A reader that goes away is `EPIPE`,
/// never death by SIGPIPE; a non-blocking descriptor is waited on. The path
/// is bytes down to the C calls, so any name the file system accepts can be
/// written, invalid UTF-8 included; messages show it made safe.
///
/// `mayReplace`, when given, is asked last, right before the file is
/// replaced (after the new text is written and flushed, before the rename
/// or the write in place); when it answers false nothing is replaced and
/// the failure is `ECANCELED` (`--test --update`: the file changed meanwhile).
func writeFile(
  _ bytes: [UInt8], to path: [UInt8], mayReplace: (() -> Bool)? = nil
) -> SystemError? {
  writeFile(WriteSource(bytes), to: path, mayReplace: mayReplace)
}

/// `writeFile` of text made as it is written (`save`'s script).
func writeFile(
  _ bytes: WriteSource, to path: [UInt8], mayReplace: (() -> Bool)? = nil
) -> SystemError? {
  var damaged = false
  let failure = Platform.withoutSIGPIPE {
    write(bytes, to: path, mayReplace: mayReplace, damaged: &damaged)
  }
  return failure.map { code in
    let shown = safeText(path)
    guard damaged else { return SystemError("cannot write", path: shown, code: code) }
    return SystemError(
      "cannot write", path: shown, code: code,
      detail: Platform.describe(code)
        + " (\(shown) is damaged: its old content could not be put back)")
  }
}

/// What a writer writes: bytes held in memory, or made in chunks as they
/// are written, so that a long saved script is never held whole (handsh(1),
/// LIMITS). `chunks` hands its body each chunk in order and stops when the
/// body answers false.
struct WriteSource {
  let chunks: ((UnsafeRawBufferPointer) -> Bool) -> Void

  init(chunks: @escaping ((UnsafeRawBufferPointer) -> Bool) -> Void) { self.chunks = chunks }

  init(_ bytes: [UInt8]) {
    chunks = { body in _ = bytes.withUnsafeBytes(body) }
  }

  /// How many bytes there are, made once more and counted.
  var count: Int {
    var total = 0
    chunks { chunk in
      total += chunk.count
      return true
    }
    return total
  }

  /// Writes every chunk into the regular file `fd` from its start with
  /// `pwrite`, never moving its offset; the errno of a failure.
  func pwrite(into fd: Int32) -> Int32? {
    var failure: Int32?
    var offset = 0
    chunks { chunk in
      var done = 0
      while done < chunk.count, let base = chunk.baseAddress {
        let count = Glibc.pwrite(fd, base + done, chunk.count - done, off_t(offset + done))
        if count < 0, errno == EINTR { continue }
        if count < 0 {
          failure = errno
          return false
        }
        done += count
      }
      offset += chunk.count
      return true
    }
    return failure
  }

  /// Writes every chunk into `fd`; the errno of a failure.
  func write(into fd: Int32) -> Int32? {
    var failure: Int32?
    chunks { chunk in
      failure = Platform.write(fd, chunk)
      return failure == nil
    }
    return failure
  }
}

/// The umask, read once: reading it means setting it, which races with the
/// threads of `--test -j`.
private let creationMask: mode_t = {
  let mask = umask(0)
  umask(mask)
  return mask
}()

/// `save`'s work; the errno of a failure. `damaged`: a write in place
/// failed and even its old content could not be put back.
private func write(
  _ bytes: WriteSource, to path: [UInt8], mayReplace: (() -> Bool)?, damaged: inout Bool
) -> Int32? {
  // What the walk found may change before it is opened (another process
  // swapping a name in a loop): it is then walked again, a few times.
  var failure: Int32? = EAGAIN
  for _ in 0..<NamedPath.attempts {
    switch NamedPath.walk(path) {
    case .failure(let refused): return refused.code
    case .success(.stream(let fd)): return writeIntoStream(bytes, fd)
    case .success(.located(let located)):
      // A process's descriptor by another name (`/proc/thread-self/fd/1`).
      switch streamHolding(located.status) {
      case .failure(let failure): return failure.code
      case .success(let fd?): return writeIntoStream(bytes, fd)
      case .success(nil): break
      }
      if ownDescriptorHolds(located.status) { return EBUSY }
      return writeInPlace(
        bytes, regular: located.status.st_mode & S_IFMT == S_IFREG, open: located.open,
        mayReplace: mayReplace, damaged: &damaged)
    case .success(.entry(let entry)):
      failure = write(bytes, to: entry, mayReplace: mayReplace, damaged: &damaged)
      if failure != EAGAIN { return failure }
    }
  }
  return failure
}

/// Writes what the walk found at its end, as its kind says (handsh(1),
/// FILES); `EAGAIN` when it was swapped before it was opened.
private func write(
  _ bytes: WriteSource, to entry: NamedPath.Entry, mayReplace: (() -> Bool)?,
  damaged: inout Bool
) -> Int32? {
  guard let status = entry.status else { return create(entry, with: bytes) }
  let kind = status.st_mode & S_IFMT
  if kind == S_IFDIR { return EISDIR }
  // The very file stdout or stderr has open: written into that stream,
  // never replaced, so nothing written there before or after is lost.
  switch streamHolding(status) {
  case .failure(let failure): return failure.code
  case .success(let fd?): return writeIntoStream(bytes, fd)
  case .success(nil): break
  }
  // The journal handsh keeps: never replaced or written over.
  if ownDescriptorHolds(status) { return EBUSY }
  guard kind == S_IFREG else {
    // A FIFO, a device, a socket: never replaced.
    return writeInPlace(
      bytes, regular: false, open: entry.open, mayReplace: mayReplace, damaged: &damaged)
  }
  // What the kernel would say to an open for writing, without opening.
  guard entry.withName({ faccessat(entry.folder, $0, W_OK, AT_EACCESS) }) == 0 else {
    return errno
  }
  if status.st_nlink == 1 {
    switch replaceFile(entry, with: bytes, like: status, mayReplace: mayReplace) {
    case .done: return nil
    case .failed(let code):
      // A file that cannot be renamed over (bind-mounted into a
      // container): as `>`.
      guard code == EBUSY else { return code }
    case .inPlace:
      // A folder the user may not write, or a sticky one whose rename is
      // refused, or an owner that a new file could not keep: as `>`.
      break
    }
  }
  return writeInPlace(
    bytes, regular: true, open: entry.open, mayReplace: mayReplace, damaged: &damaged)
}

/// stdout (1) or stderr (2) when that descriptor holds the file `status`
/// describes (the same device and inode); the errno of an `fstat` that
/// failed for another reason than a closed descriptor, since a guess
/// here could replace the file a stream writes into.
private func streamHolding(_ status: stat) -> Result<Int32?, NamedPath.Failure> {
  for fd: Int32 in [1, 2] {
    var stream = stat()
    guard fstat(fd, &stream) == 0 else {
      if errno == EBADF { continue }
      return .failure(NamedPath.Failure(code: errno))
    }
    if stream.st_dev == status.st_dev, stream.st_ino == status.st_ino { return .success(fd) }
  }
  return .success(nil)
}

/// Whether the file `status` describes is the one handsh holds open for
/// itself (the journal): never a file a user may write or read by name.
func ownDescriptorHolds(_ status: stat) -> Bool {
  let fd = handsh_own_file()
  var own = stat()
  return fd >= 0 && fstat(fd, &own) == 0 && own.st_dev == status.st_dev
    && own.st_ino == status.st_ino
}

/// Writes into handsh's own open descriptor `fd`, at its current place, as
/// gawk writes `/dev/stdout`: never reopened, truncated or replaced. The
/// errno of a failure; `EBADF` when `fd` is not open (or not for writing).
private func writeIntoStream(_ bytes: WriteSource, _ fd: Int32) -> Int32? {
  // Only stdin, stdout, stderr and what handsh inherited are streams a
  // user may name: a pipe or lock of handsh's own is not.
  guard handsh_inherited_fd(fd) != 0 else { return EBADF }
  guard fcntl(fd, F_GETFL) >= 0 else { return errno }
  var status = stat()
  guard fstat(fd, &status) == 0 else { return errno }
  guard status.st_mode & S_IFMT == S_IFREG else { return bytes.write(into: fd) }
  // A file that `>` opened: the script lands whole or not at all.
  return Platform.critical {
    let size = status.st_size
    let offset = lseek(fd, 0, SEEK_CUR)
    let appending = fcntl(fd, F_GETFL) & O_APPEND != 0 || offset == size
    let failure = bytes.write(into: fd)
    if failure != nil, appending {
      // Taken back: the stream ends where it did, never on half a script.
      _ = ftruncate(fd, size)
      _ = lseek(fd, size, SEEK_SET)
    }
    return failure
  }
}

/// The most of a file's old content that a write in place keeps aside, to
/// put it back when the new content cannot be written whole: a larger
/// regular file is not written in place at all (`EFBIG`).
private let keptAsideLimit = 64 << 20

/// Writes into the file that is there, as `>` does: for FIFOs, devices and
/// regular files that cannot be replaced, opened by `open` (the file the
/// walk found, never the path again). A regular file is written only when
/// its old content can be kept aside first (one the user may not read is
/// `EACCES`, one over `keptAsideLimit` is `EFBIG`, and it stays as it was,
/// as vim will not write a file it cannot back up); the room for the new
/// content is reserved before the old is touched, so a full disk leaves it
/// as it was; from that first change to the last, no signal ends handsh,
/// and a write that fails midway puts the old content back. The errno of
/// a failure; `damaged` when even the old content could not be put back.
private func writeInPlace(
  _ bytes: WriteSource, regular: Bool,
  open: (Int32) -> NamedPath.Opened,
  mayReplace: (() -> Bool)?, damaged: inout Bool
) -> Int32? {
  if let mayReplace, !mayReplace() { return ECANCELED }
  // A FIFO with no reader blocks the open: Control-C abandons it (EINTR).
  let opened: (fd: Int32, status: stat)
  switch open(regular ? O_RDWR : O_WRONLY) {
  case .failure(let failure): return failure.code
  case .success(let file): opened = file
  }
  let fd = opened.fd
  var failure: Int32?
  if opened.status.st_mode & S_IFMT != S_IFREG {
    // A FIFO or a device: written straight into, as `>` would, unless it
    // is one of handsh's own descriptors under another name.
    failure = ownDescriptorHolds(opened.status) ? EBUSY : bytes.write(into: fd)
  } else if Int(opened.status.st_size) > keptAsideLimit {
    failure = EFBIG
  } else {
    switch readAside(fd, size: Int(opened.status.st_size)) {
    case .failure(let unread): failure = unread.code
    case .success(let old):
      failure = Platform.critical { rewrite(fd, with: bytes, old: old, damaged: &damaged) }
    }
  }
  if close(fd) != 0, failure == nil { failure = errno }
  return failure
}

/// Writes `bytes` over the regular file open on `fd` (read and write),
/// whose old content is `old`, inside a critical section; puts the old
/// content back if the new cannot be written whole (`damaged` when that
/// fails too). The errno of a failure.
private func rewrite(_ fd: Int32, with bytes: WriteSource, old: [UInt8], damaged: inout Bool)
  -> Int32?
{
  // The first change: the room reserved (the size may grow; a failure
  // cuts it back). A file system that cannot reserve is written as before.
  var failure: Int32?
  // Counted once: a saved script is made again for each pass over it.
  let count = bytes.count
  if count > 0 {
    let reserved = posix_fallocate(fd, 0, off_t(count))
    if reserved != 0, reserved != EOPNOTSUPP, reserved != EINVAL { failure = reserved }
  }
  if failure == nil, lseek(fd, 0, SEEK_SET) != 0 { failure = errno }
  // From here on the old content may be partly gone.
  let touched = failure == nil
  if failure == nil { failure = bytes.write(into: fd) }
  if failure == nil, ftruncate(fd, off_t(count)) != 0 { failure = errno }
  if failure == nil, fsync(fd) != 0 { failure = errno }
  if failure != nil {
    // Taken back: the old content, and the old size (a reservation may
    // have grown it).
    var status = stat()
    let sized =
      fstat(fd, &status) == 0 && Int(status.st_size) == old.count
      || ftruncate(fd, off_t(old.count)) == 0
    let restored =
      !touched || (old.withUnsafeBytes { Platform.writeAll(fd, $0, at: 0) } == nil && sized)
    if !restored || (touched && fsync(fd) != 0) { damaged = true }
  }
  return failure
}

/// The content of the regular file open on `fd` (`size` bytes when it was
/// opened), read with `pread`; the errno when it cannot be read.
private func readAside(_ fd: Int32, size: Int) -> Result<[UInt8], NamedPath.Failure> {
  var content = [UInt8](repeating: 0, count: size)
  if let code = Platform.readAll(fd, &content, at: 0) {
    return .failure(NamedPath.Failure(code: code))
  }
  return .success(content)
}

/// A new file: written into an unnamed file in its folder (`O_TMPFILE`)
/// that is given the name only once it is whole, so that even SIGKILL or a
/// crash leaves no temporary file behind. Where the file system cannot, as
/// `replace` does. The errno of a failure; `EAGAIN` when the name was
/// taken meanwhile (the path is then walked again).
private func create(_ entry: NamedPath.Entry, with bytes: WriteSource) -> Int32? {
  Platform.critical {
    let fd = handsh_open_unnamed(entry.folder, 0o666)
    guard fd >= 0 else { return replaceNew(entry, with: bytes) }
    var failure = bytes.write(into: fd)
    if failure == nil, fsync(fd) != 0 { failure = errno }
    if failure == nil {
      let named = entry.withName { handsh_name_unnamed(fd, entry.folder, $0) }
      if named != 0 {
        let code = errno
        close(fd)
        if code == EEXIST { return EAGAIN }
        if code == ENOSPC || code == EIO || code == EDQUOT { return code }
        // The unnamed file cannot be named here (no /proc, and not the
        // privilege to name it by descriptor): a named temporary file.
        return replaceNew(entry, with: bytes)
      }
    }
    if close(fd) != 0, failure == nil { failure = errno }
    return failure
  }
}

/// `create` through a named temporary file, for a file system without
/// `O_TMPFILE`.
private func replaceNew(_ entry: NamedPath.Entry, with bytes: WriteSource) -> Int32? {
  switch replaceFile(entry, with: bytes, unnamedFirst: false) {
  case .done: return nil
  case .failed(let code), .inPlace(let code): return code
  }
}

/// How `replace` ended.
enum Replaced {
  case done
  case failed(Int32)
  /// No temporary file could be made in the folder, or the file's owner
  /// could not be kept: written in place instead, if at all (the errno).
  case inPlace(Int32)
}

/// Writes `bytes` to the name `entry` found, atomically: a temporary file
/// in the same folder, flushed to disk, then renamed over the name, so a
/// failure leaves any older file intact. The new file gets the mode and
/// the owner of `original` (a file whose owner cannot be kept is written
/// in place instead, so its owner never changes in silence), or the
/// umask's default for a new file. Where the file system allows it, the
/// content goes to an unnamed file (`O_TMPFILE`) that gets its temporary
/// name only just before the rename. Every name is relative to the folder
/// the walk found, so a path as long as the system takes is replaced like
/// any other. A critical section: no signal ends handsh until the
/// temporary file is renamed or gone.
///
/// `positional`: the content is written with `pwrite` (the history file's
/// cut, whose appends are `pwrite`s too).
func replaceFile(
  _ entry: NamedPath.Entry, with bytes: WriteSource, like original: stat? = nil,
  mayReplace: (() -> Bool)? = nil, unnamedFirst: Bool = true, positional: Bool = false
) -> Replaced {
  Platform.critical {
    let folder = entry.folder
    let unnamed = unnamedFirst ? handsh_open_unnamed(folder, 0o600) : -1
    var fd = unnamed
    var temporary: [UInt8] = []
    if fd < 0 {
      for _ in 0..<100 {
        let candidate = temporaryName(for: entry.name, in: folder)
        fd =
          Platform.withCPath(candidate) {
            handsh_open_in(folder, $0, O_WRONLY | O_CREAT | O_EXCL, 0o600)
          } ?? -1
        if fd >= 0 { temporary = candidate }
        if fd >= 0 || errno != EEXIST { break }
      }
      // The folder's answer, not the file's: written in place, whose
      // answer is the file's own.
      guard fd >= 0 else { return .inPlace(errno) }
    }
    var failure: Int32?
    if let original {
      var made = stat()
      if fstat(fd, &made) != 0 {
        failure = errno
      } else if made.st_uid != original.st_uid || made.st_gid != original.st_gid,
        fchown(fd, original.st_uid, original.st_gid) != 0
      {
        let code = errno
        close(fd)
        if !temporary.isEmpty { _ = Platform.withCPath(temporary) { unlinkat(folder, $0, 0) } }
        return .inPlace(code)
      }
      if failure == nil, fchmod(fd, original.st_mode & 0o7777) != 0 { failure = errno }
    } else {
      if fchmod(fd, 0o666 & ~creationMask) != 0 { failure = errno }
    }
    if failure == nil { failure = positional ? bytes.pwrite(into: fd) : bytes.write(into: fd) }
    if failure == nil, fsync(fd) != 0 { failure = errno }
    if failure == nil, let mayReplace, !mayReplace() { failure = ECANCELED }
    if failure == nil, unnamed >= 0 {
      // The temporary name, only now that the content is whole.
      for _ in 0..<100 {
        let candidate = temporaryName(for: entry.name, in: folder)
        let named = Platform.withCPath(candidate) { handsh_name_unnamed(fd, folder, $0) } ?? -1
        if named != 0, errno == EEXIST { continue }
        if named != 0 { failure = errno } else { temporary = candidate }
        break
      }
      if failure == nil, temporary.isEmpty { failure = EEXIST }
      if let code = failure, code == ENOENT || code == EPERM || code == EOPNOTSUPP {
        // The unnamed file cannot be named here (no /proc, and not the
        // privilege to name it by descriptor): a named temporary file.
        close(fd)
        return replaceFile(
          entry, with: bytes, like: original, mayReplace: mayReplace, unnamedFirst: false,
          positional: positional)
      }
    }
    if close(fd) != 0, failure == nil { failure = errno }
    if failure == nil {
      let renamed =
        Platform.withCPath(temporary) { from in
          entry.withName { renameat(folder, from, folder, $0) }
        } ?? -1
      if renamed != 0 { failure = errno }
    }
    if failure != nil, !temporary.isEmpty {
      // Tried twice: a passing fault must not leave the temporary name.
      if Platform.withCPath(temporary, { unlinkat(folder, $0, 0) }) != 0, errno != ENOENT {
        _ = Platform.withCPath(temporary) { unlinkat(folder, $0, 0) }
      }
    }
    return failure.map { .failed($0) } ?? .done
  }
}

/// `.NAME.tmp-XXXXXX` with the X filled in at random, with NAME cut short
/// when the whole would pass the folder's name-length limit: any name the
/// file system accepts can be saved.
func temporaryName(for name: [UInt8], in folder: Int32) -> [UInt8] {
  var suffix = Array(".tmp-XXXXXX".utf8)
  let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
  for index in suffix.count - 6..<suffix.count {
    suffix[index] = letters[Int.random(in: 0..<letters.count)]
  }
  let limit = fpathconf(folder, Int32(_PC_NAME_MAX))
  let room = max(1, (limit > 0 ? limit : 255) - 1 - suffix.count)
  var kept = Array(name.prefix(room))
  // Cut between characters, so the name stays valid UTF-8 where it was.
  while kept.count < name.count, let last = kept.last, last & 0xC0 == 0x80 || last >= 0xC0 {
    kept.removeLast()
    if last >= 0xC0 { break }
  }
  return [UInt8(ascii: ".")] + kept + suffix
}

/// Whether `writeFile` could write `path` now, without writing anything: a
/// file there that the user may write, or a folder to make it in. For
/// `--record`, so that a session is not typed in vain (handsh(1), GOLDEN TESTS).
func checkWritable(_ path: [UInt8]) -> SystemError? {
  func failure(_ code: Int32) -> SystemError {
    SystemError("cannot write", path: safeText(path), code: code)
  }
  switch NamedPath.walk(path) {
  case .failure(let refused): return failure(refused.code)
  case .success(.stream(let fd)):
    // One of handsh's own streams by name: whether that descriptor is open.
    guard handsh_inherited_fd(fd) != 0 else { return failure(EBADF) }
    return fcntl(fd, F_GETFL) >= 0 ? nil : failure(errno)
  case .success(.located(let located)):
    return located.status.st_mode & S_IFMT == S_IFDIR ? failure(EISDIR) : nil
  case .success(.entry(let entry)):
    guard let status = entry.status else {
      let usable = faccessat(entry.folder, ".", W_OK | X_OK, AT_EACCESS)
      return usable == 0 ? nil : failure(errno)
    }
    if status.st_mode & S_IFMT == S_IFDIR { return failure(EISDIR) }
    let writable = entry.withName { faccessat(entry.folder, $0, W_OK, AT_EACCESS) }
    return writable == 0 ? nil : failure(errno)
  }
}
