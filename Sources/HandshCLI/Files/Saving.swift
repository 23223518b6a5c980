import CHandsh
import HandKit

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
/// - a regular file keeps its permission bits (and, for root, its owner); one
///   the user may not write fails with `Permission denied`; one with more
///   than one hard link is written in place, so the links stay together;
/// - a folder (also `.` or `name/`) fails with `Is a directory`;
/// - a writable file in a folder the user may not write (or a sticky folder
///   that refuses the rename) is written in place;
/// - anything else is written atomically: a temporary file in the same
///   folder, flushed to disk, then renamed over FILE.
///
/// Writing in place reserves the room first (`posix_fallocate`), so a full
/// disk leaves the old content whole. A reader that goes away is `EPIPE`,
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
  Platform.withoutSIGPIPE { write(bytes, to: path, mayReplace: mayReplace) }.map {
    SystemError("cannot write", path: safeText(path), code: $0)
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

  var isEmpty: Bool { count == 0 }

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

/// The descriptor that `path` names when it is one of handsh's own streams
/// by name: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N`.
func ownStream(_ path: [UInt8]) -> Int32? {
  if path.elementsEqual("/dev/stdout".utf8) { return 1 }
  if path.elementsEqual("/dev/stderr".utf8) { return 2 }
  for prefix in ["/dev/fd/", "/proc/self/fd/"] {
    let head = Array(prefix.utf8)
    guard path.starts(with: head) else { continue }
    let digits = path[head.count...]
    guard !digits.isEmpty, digits.count <= 9,
      digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return digits.reduce(0) { $0 * 10 + Int32($1 - UInt8(ascii: "0")) }
  }
  return nil
}

/// The umask, read once: reading it means setting it, which races with the
/// threads of `--test -j`.
private let creationMask: mode_t = {
  let mask = umask(0)
  umask(mask)
  return mask
}()

/// How many symbolic links `save` follows before it gives up (as the kernel).
private let maximumLinks = 40

private let slash = UInt8(ascii: "/")

/// `save`'s work; the errno of a failure.
private func write(_ bytes: WriteSource, to path: [UInt8], mayReplace: (() -> Bool)?) -> Int32? {
  guard !path.isEmpty else { return ENOENT }
  var path = path
  for _ in 0...maximumLinks {
    if let fd = ownStream(path) { return writeIntoStream(bytes, fd) }
    var status = stat()
    guard Platform.status(of: path, &status, follow: false) else {
      let code = errno
      guard code == ENOENT else { return code }
      // A new file; `name/` names a folder that is not there.
      return path.last == slash ? EISDIR : replace(path, with: bytes, mayReplace: mayReplace)
    }
    switch status.st_mode & S_IFMT {
    case S_IFLNK:
      guard let (text, target) = linkTarget(path) else { return errno }
      // A link whose text names one of handsh's streams is that stream.
      if let fd = ownStream(text) { return writeIntoStream(bytes, fd) }
      path = target
      continue
    case S_IFDIR:
      return EISDIR
    case S_IFREG:
      if path.last == slash { return ENOTDIR }
      // What the kernel would say to an open for writing, without opening.
      let writable = Platform.withCPath(path) { faccessat(AT_FDCWD, $0, W_OK, AT_EACCESS) == 0 }
      guard writable == true else { return errno }
      if status.st_nlink > 1 { return writeInPlace(bytes, to: path, mayReplace: mayReplace) }
      let failure = replace(path, with: bytes, like: status, mayReplace: mayReplace)
      // A folder the user may not write, or a sticky one whose rename is
      // refused, holding a file they may: as `>`.
      return failure == EACCES || failure == EPERM
        ? writeInPlace(bytes, to: path, mayReplace: mayReplace) : failure
    default:
      // A FIFO, a device, a socket: never replaced.
      return writeInPlace(bytes, to: path, mayReplace: mayReplace)
    }
  }
  return ELOOP
}

/// The text of the symbolic link at `path`, and where it points, relative
/// to the link's folder; nil with errno set when it cannot be read.
private func linkTarget(_ path: [UInt8]) -> (text: [UInt8], target: [UInt8])? {
  let capacity = Int(PATH_MAX)
  var buffer = [CChar](repeating: 0, count: capacity + 1)
  let count = Platform.withCPath(path) { readlink($0, &buffer, capacity) } ?? -1
  guard count >= 0 else { return nil }
  let text = buffer[..<count].map { UInt8(bitPattern: $0) }
  guard text.first != slash, let last = path.lastIndex(of: slash) else { return (text, text) }
  return (text, Array(path[...last]) + text)
}

/// Writes into handsh's own open descriptor `fd`, at its current place, as
/// gawk writes `/dev/stdout`: never reopened, truncated or replaced. The
/// errno of a failure; `EBADF` when `fd` is not open (or not for writing).
private func writeIntoStream(_ bytes: WriteSource, _ fd: Int32) -> Int32? {
  guard fcntl(fd, F_GETFL) >= 0 else { return errno }
  return bytes.write(into: fd)
}

/// Writes into the file that is there, as `>` does: for FIFOs, devices and
/// regular files that cannot be replaced. A regular file gets the room for
/// `bytes` reserved before its old content is touched, so a full disk
/// leaves it as it was. The errno of a failure.
private func writeInPlace(
  _ bytes: WriteSource, to path: [UInt8], mayReplace: (() -> Bool)? = nil
) -> Int32? {
  if let mayReplace, !mayReplace() { return ECANCELED }
  var fd: Int32 = -1
  // A FIFO with no reader blocks the open: Control-C abandons it (EINTR).
  repeat {
    fd = Platform.withCPath(path) { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) } ?? -1
  } while fd < 0 && errno == EINTR && handsh_prompt_interrupted() == 0
  guard fd >= 0 else { return errno }
  var status = stat()
  let regular = fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  var failure: Int32?
  let count = regular ? bytes.count : 0
  if regular, count > 0 {
    let reserved = posix_fallocate(fd, 0, off_t(count))
    // A file system that cannot reserve (EOPNOTSUPP) is written as before.
    if reserved != 0, reserved != EOPNOTSUPP, reserved != EINVAL { failure = reserved }
  }
  if failure == nil {
    failure = bytes.write(into: fd)
  }
  if failure == nil, regular {
    if ftruncate(fd, off_t(count)) != 0 || fsync(fd) != 0 { failure = errno }
  }
  if close(fd) != 0, failure == nil { failure = errno }
  return failure
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so a failure leaves any older
/// file intact. The new file gets the mode (and, where allowed, the owner) of
/// `original`, or the umask's default for a new file. Signals that end
/// handsh wait until the temporary file is gone. The errno of a failure.
private func replace(
  _ path: [UInt8], with bytes: WriteSource, like original: stat? = nil,
  mayReplace: (() -> Bool)? = nil
) -> Int32? {
  guard !path.isEmpty else { return ENOENT }
  var blocked = sigset_t()
  var previous = sigset_t()
  sigemptyset(&blocked)
  for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&blocked, signal) }
  sigprocmask(SIG_BLOCK, &blocked, &previous)
  defer { sigprocmask(SIG_SETMASK, &previous, nil) }

  let last = path.lastIndex(of: slash)
  let folder = last.map { Array(path[...$0]) } ?? []
  let name = last.map { Array(path[($0 + 1)...]) } ?? path
  var template = (folder + temporaryName(for: name, in: folder)).map { CChar(bitPattern: $0) } + [0]
  let fd = template.withUnsafeMutableBufferPointer { buffer in
    buffer.baseAddress.map { mkstemp($0) } ?? -1
  }
  guard fd >= 0 else { return errno }
  let temporary = template.dropLast().map { UInt8(bitPattern: $0) }

  var failure: Int32?
  if let original {
    // Root may keep the owner too; others cannot, and the file is then theirs.
    _ = fchown(fd, original.st_uid, original.st_gid)
    if fchmod(fd, original.st_mode & 0o7777) != 0 { failure = errno }
  } else {
    if fchmod(fd, 0o666 & ~creationMask) != 0 { failure = errno }
  }
  if failure == nil {
    failure = bytes.write(into: fd)
  }
  if failure == nil, fsync(fd) != 0 { failure = errno }
  if close(fd) != 0, failure == nil { failure = errno }
  if failure == nil, let mayReplace, !mayReplace() { failure = ECANCELED }
  if failure == nil {
    let renamed =
      Platform.withCPath(temporary) { from in Platform.withCPath(path) { rename(from, $0) } ?? -1 }
      ?? -1
    if renamed != 0 { failure = errno }
  }
  if failure != nil { _ = Platform.withCPath(temporary) { unlink($0) } }
  return failure
}

/// `.NAME.tmp-XXXXXX` for mkstemp, with NAME cut short when the whole would
/// pass the folder's name-length limit: any name the file system accepts
/// can be saved.
private func temporaryName(for name: [UInt8], in folder: [UInt8]) -> [UInt8] {
  let suffix = Array(".tmp-XXXXXX".utf8)
  let limit =
    Platform.withCPath(folder.isEmpty ? [UInt8(ascii: ".")] : folder) {
      pathconf($0, Int32(_PC_NAME_MAX))
    } ?? -1
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
  guard !path.isEmpty else { return failure(ENOENT) }
  // One of handsh's own streams by name: whether that descriptor is open.
  let stream = ownStream(path) ?? linkTarget(path).flatMap { ownStream($0.text) }
  if let fd = stream { return fcntl(fd, F_GETFL) >= 0 ? nil : failure(errno) }
  var status = stat()
  if Platform.status(of: path, &status, follow: true) {
    if status.st_mode & S_IFMT == S_IFDIR { return failure(EISDIR) }
    let writable = Platform.withCPath(path) { faccessat(AT_FDCWD, $0, W_OK, AT_EACCESS) }
    return writable == 0 ? nil : failure(errno)
  }
  guard errno == ENOENT else { return failure(errno) }
  if path.last == UInt8(ascii: "/") { return failure(EISDIR) }
  let folder = path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[...$0]) } ?? Array(".".utf8)
  let usable = Platform.withCPath(folder) { faccessat(AT_FDCWD, $0, W_OK | X_OK, AT_EACCESS) }
  return usable == 0 ? nil : failure(errno)
}
