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
///   folder, flushed to disk, then renamed over FILE; where the file system
///   allows, an unnamed one (`O_TMPFILE`) that a new FILE gets as its name
///   directly, and a replaced one gets its temporary name just before the
///   rename (a rename refused with `EBUSY`, a bind mount: in place);
/// - a descriptor handsh opened for itself (the prompt's signal pipe) by
///   any name is `EBADF`; any other name of the file stdout or stderr holds
///   (same device and inode) is written into that stream; a link of
///   another user's in a shared sticky folder is `EACCES`; a NUL byte in
///   the path is `EINVAL`.
///
/// Every change to a file is a critical section of the one signal policy
/// (handsh(1), SIGNALS): no signal ends handsh in the middle of it.
/// Writing in place reserves the room first (`posix_fallocate`), so a full
/// disk leaves the old content whole, and puts the old content back when
/// the new cannot be written whole. A reader that goes away is `EPIPE`,
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
  // A name the C calls would cut short names another file: never written.
  guard !path.contains(0) else { return EINVAL }
  var path = path
  for _ in 0...maximumLinks {
    if let fd = ownStream(path) { return writeIntoStream(bytes, fd) }
    var status = stat()
    guard Platform.status(of: path, &status, follow: false) else {
      let code = errno
      guard code == ENOENT else { return code }
      // A new file; `name/` names a folder that is not there.
      return path.last == slash ? EISDIR : create(path, with: bytes)
    }
    switch status.st_mode & S_IFMT {
    case S_IFLNK:
      if let refused = refusedLink(path, status) { return refused }
      guard let (text, target) = linkTarget(path) else { return errno }
      // A link whose text names one of handsh's streams is that stream.
      if let fd = ownStream(text) { return writeIntoStream(bytes, fd) }
      // A link the kernel resolves itself (`/proc/thread-self/fd/1`): what
      // it leads to may be a stream of handsh's, or a descriptor of its own.
      var followed = stat()
      if Platform.status(of: path, &followed, follow: true) {
        if let fd = streamHolding(followed) { return writeIntoStream(bytes, fd) }
        if ownDescriptorHolds(followed) { return EBADF }
      }
      path = target
      continue
    case S_IFDIR:
      return EISDIR
    case S_IFREG:
      if path.last == slash { return ENOTDIR }
      // The very file stdout or stderr has open: written into that stream,
      // never replaced, so nothing written there before or after is lost.
      if let fd = streamHolding(status) { return writeIntoStream(bytes, fd) }
      // What the kernel would say to an open for writing, without opening.
      let writable = Platform.withCPath(path) { faccessat(AT_FDCWD, $0, W_OK, AT_EACCESS) == 0 }
      guard writable == true else { return errno }
      if status.st_nlink > 1 { return writeInPlace(bytes, to: path, mayReplace: mayReplace) }
      let failure = replace(path, with: bytes, like: status, mayReplace: mayReplace)
      // A folder the user may not write, or a sticky one whose rename is
      // refused, holding a file they may, or a file that cannot be renamed
      // over (bind-mounted into a container): as `>`.
      return failure == EACCES || failure == EPERM || failure == EBUSY
        ? writeInPlace(bytes, to: path, mayReplace: mayReplace) : failure
    default:
      // A FIFO, a device, a socket: never replaced.
      if let fd = streamHolding(status) { return writeIntoStream(bytes, fd) }
      if ownDescriptorHolds(status) { return EBADF }
      return writeInPlace(bytes, to: path, mayReplace: mayReplace)
    }
  }
  return ELOOP
}

/// `EACCES` when the symbolic link at `path` (whose `lstat` is `link`) may
/// not be followed: it lies in a sticky folder that others may write (a
/// shared temporary folder), and neither the user nor the folder's owner
/// owns it, as Linux's `fs.protected_symlinks` rules, whether or not the
/// kernel enforces them, since handsh follows links itself.
func refusedLink(_ path: [UInt8], _ link: stat) -> Int32? {
  let folder = path.lastIndex(of: slash).map { Array(path[...$0]) } ?? Array(".".utf8)
  var status = stat()
  guard Platform.status(of: folder, &status, follow: true) else { return nil }
  let shared = status.st_mode & S_ISVTX != 0 && status.st_mode & S_IWOTH != 0
  guard shared, link.st_uid != status.st_uid, link.st_uid != geteuid() else { return nil }
  return EACCES
}

/// Why `path` may not be read by `source` before it is opened (the errno):
/// a NUL byte in it (`EINVAL`), a descriptor of handsh's own by name
/// (`EBADF`), or a link in a shared sticky folder that its rules refuse
/// (`EACCES`), followed as the kernel would.
func refusedSource(_ path: [UInt8]) -> Int32? {
  guard !path.contains(0) else { return EINVAL }
  var path = path
  for _ in 0...maximumLinks {
    if let fd = ownStream(path) { return handsh_inherited_fd(fd) != 0 ? nil : EBADF }
    var status = stat()
    guard Platform.status(of: path, &status, follow: false) else { return nil }
    guard status.st_mode & S_IFMT == S_IFLNK else { return nil }
    if let refused = refusedLink(path, status) { return refused }
    guard let (text, target) = linkTarget(path) else { return nil }
    if let fd = ownStream(text) { return handsh_inherited_fd(fd) != 0 ? nil : EBADF }
    var followed = stat()
    if Platform.status(of: path, &followed, follow: true), ownDescriptorHolds(followed) {
      return EBADF
    }
    path = target
  }
  return nil
}

/// stdout (1) or stderr (2) when that descriptor holds the file `status`
/// describes (the same device and inode).
private func streamHolding(_ status: stat) -> Int32? {
  for fd: Int32 in [1, 2] {
    var stream = stat()
    if fstat(fd, &stream) == 0, stream.st_dev == status.st_dev, stream.st_ino == status.st_ino {
      return fd
    }
  }
  return nil
}

/// Whether the file `status` describes is one that handsh opened for
/// itself (the prompt's signal pipe): never a stream a user may name.
func ownDescriptorHolds(_ status: stat) -> Bool {
  for end: Int32 in [0, 1] {
    let fd = handsh_prompt_pipe_fd(end)
    var own = stat()
    if fd >= 0, fstat(fd, &own) == 0, own.st_dev == status.st_dev, own.st_ino == status.st_ino {
      return true
    }
  }
  return false
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
  // Only stdin, stdout, stderr and what handsh inherited are streams a
  // user may name: a pipe or lock of handsh's own is not.
  guard handsh_inherited_fd(fd) != 0 else { return EBADF }
  guard fcntl(fd, F_GETFL) >= 0 else { return errno }
  var status = stat()
  guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
    return bytes.write(into: fd)
  }
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
/// put it back when the new content cannot be written whole.
private let keptAsideLimit = 64 << 20

/// Writes into the file that is there, as `>` does: for FIFOs, devices and
/// regular files that cannot be replaced. A regular file gets the room for
/// `bytes` reserved before its old content is touched, so a full disk
/// leaves it as it was; from that first change to the last, no signal ends
/// handsh, and a write that fails midway puts the old content back: the
/// file holds the old content or the new one, whole. The errno of a failure.
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
  guard fstat(fd, &status) == 0 else {
    let code = errno
    close(fd)
    return code
  }
  var failure: Int32?
  if status.st_mode & S_IFMT != S_IFREG {
    // A FIFO or a device: written straight into, as `>` would, unless it
    // is one of handsh's own descriptors under another name.
    failure =
      ownDescriptorHolds(status) ? EBADF : bytes.write(into: fd)
  } else {
    failure = Platform.critical { rewrite(fd, with: bytes, status: status, path: path) }
  }
  if close(fd) != 0, failure == nil { failure = errno }
  return failure
}

/// Writes `bytes` over the regular file open on `fd` (whose `fstat` is
/// `status`), inside a critical section: its old content kept aside first
/// (when it can be read and is at most `keptAsideLimit`), put back if the
/// new cannot be written whole. The errno of a failure.
private func rewrite(_ fd: Int32, with bytes: WriteSource, status: stat, path: [UInt8]) -> Int32? {
  let oldSize = Int(status.st_size)
  var old: [UInt8]?
  if oldSize <= keptAsideLimit {
    old = readAside(path, like: status)
    if old == nil, errno != EACCES { return errno }
  }
  // The first change: the room reserved (the size may grow; a failure
  // cuts it back). A file system that cannot reserve is written as before.
  var failure: Int32?
  // Counted once: a saved script is made again for each pass over it.
  let count = bytes.count
  if count > 0 {
    let reserved = posix_fallocate(fd, 0, off_t(count))
    if reserved != 0, reserved != EOPNOTSUPP, reserved != EINVAL { failure = reserved }
  }
  if failure == nil { failure = bytes.write(into: fd) }
  if failure == nil, ftruncate(fd, off_t(count)) != 0 { failure = errno }
  if failure == nil, fsync(fd) != 0 { failure = errno }
  if failure != nil {
    // Taken back: the old content, and the old size.
    if let old, lseek(fd, 0, SEEK_SET) == 0 {
      _ = old.withUnsafeBytes { Platform.write(fd, $0) }
    }
    _ = ftruncate(fd, off_t(oldSize))
    _ = fsync(fd)
  }
  return failure
}

/// The content of the regular file at `path` (the one `status` describes),
/// read through a descriptor of its own; nil with errno set when it cannot
/// be read (`EACCES`: a file the user may write but not read).
private func readAside(_ path: [UInt8], like status: stat) -> [UInt8]? {
  let fd =
    Platform.withCPath(path) { open($0, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK) } ?? -1
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var same = stat()
  guard fstat(fd, &same) == 0, same.st_dev == status.st_dev, same.st_ino == status.st_ino else {
    errno = EAGAIN
    return nil
  }
  var content = [UInt8](repeating: 0, count: Int(same.st_size))
  var done = 0
  while done < content.count {
    let count = content.withUnsafeMutableBytes {
      pread(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(done))
    }
    if count < 0, errno == EINTR { continue }
    if count < 0 { return nil }
    if count == 0 { break }
    done += count
  }
  return Array(content[..<done])
}

/// A new file at `path`: written into an unnamed file in its folder
/// (`O_TMPFILE`) that is given the name only once it is whole, so that even
/// SIGKILL or a crash leaves no temporary file behind. Where the file system
/// cannot, as `replace` does. The errno of a failure.
private func create(_ path: [UInt8], with bytes: WriteSource) -> Int32? {
  Platform.critical {
    let (folder, _) = split(path)
    let fd =
      Platform.withCPath(folder.isEmpty ? Array(".".utf8) : folder) {
        handsh_open_unnamed($0, 0o666)
      } ?? -1
    guard fd >= 0 else { return replace(path, with: bytes) }
    var failure = bytes.write(into: fd)
    if failure == nil, fsync(fd) != 0 { failure = errno }
    if failure == nil, let code = giveName(fd, path) {
      // The name was taken meanwhile, or the file cannot be named here.
      close(fd)
      return code == ENOSPC || code == EIO || code == EDQUOT
        ? code : replace(path, with: bytes, unnamedFirst: code == EEXIST)
    }
    if close(fd) != 0, failure == nil { failure = errno }
    return failure
  }
}

/// Gives the unnamed file open on `fd` the name `path`; the errno of a
/// failure (`EEXIST`: the name is taken).
private func giveName(_ fd: Int32, _ path: [UInt8]) -> Int32? {
  let linked = Platform.withCPath(path) { handsh_name_unnamed(fd, $0) } ?? -1
  return linked == 0 ? nil : errno
}

/// The folder part of `path` (with its `/`, empty for none) and the name.
private func split(_ path: [UInt8]) -> (folder: [UInt8], name: [UInt8]) {
  let last = path.lastIndex(of: slash)
  return (last.map { Array(path[...$0]) } ?? [], last.map { Array(path[($0 + 1)...]) } ?? path)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so a failure leaves any older
/// file intact. The new file gets the mode (and, where allowed, the owner) of
/// `original`, or the umask's default for a new file. Where the file system
/// allows it, the content goes to an unnamed file (`O_TMPFILE`) that gets
/// its temporary name only just before the rename. A critical section: no
/// signal ends handsh until the temporary file is renamed or gone. The
/// errno of a failure.
private func replace(
  _ path: [UInt8], with bytes: WriteSource, like original: stat? = nil,
  mayReplace: (() -> Bool)? = nil, unnamedFirst: Bool = true
) -> Int32? {
  guard !path.isEmpty else { return ENOENT }
  return Platform.critical {
    let (folder, name) = split(path)
    let unnamed =
      !unnamedFirst
      ? -1
      : Platform.withCPath(folder.isEmpty ? Array(".".utf8) : folder) {
        handsh_open_unnamed($0, 0o600)
      } ?? -1
    var fd = unnamed
    var temporary: [UInt8] = []
    if fd < 0 {
      var template =
        (folder + temporaryName(for: name, in: folder)).map { CChar(bitPattern: $0) } + [0]
      fd = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.map { mkstemp($0) } ?? -1
      }
      guard fd >= 0 else { return errno }
      temporary = template.dropLast().map { UInt8(bitPattern: $0) }
    }
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
    if failure == nil, let mayReplace, !mayReplace() { failure = ECANCELED }
    if failure == nil, unnamed >= 0 {
      // The temporary name, only now that the content is whole.
      for _ in 0..<100 {
        let candidate = folder + temporaryName(for: name, in: folder, random: true)
        let code = giveName(fd, candidate)
        if code == EEXIST { continue }
        if let code { failure = code } else { temporary = candidate }
        break
      }
      if failure == nil, temporary.isEmpty { failure = EEXIST }
      if let code = failure, code == ENOENT || code == EPERM || code == EOPNOTSUPP {
        // The unnamed file cannot be named here (no /proc, and not the
        // privilege to name it by descriptor): a named temporary file.
        close(fd)
        return replace(
          path, with: bytes, like: original, mayReplace: mayReplace, unnamedFirst: false)
      }
    }
    if close(fd) != 0, failure == nil { failure = errno }
    if failure == nil {
      let renamed =
        Platform.withCPath(temporary) { from in Platform.withCPath(path) { rename(from, $0) } ?? -1
        }
        ?? -1
      if renamed != 0 { failure = errno }
    }
    if failure != nil, !temporary.isEmpty { _ = Platform.withCPath(temporary) { unlink($0) } }
    return failure
  }
}

/// `.NAME.tmp-XXXXXX` for mkstemp (with `random`, filled in), with NAME cut short when the whole would
/// pass the folder's name-length limit: any name the file system accepts
/// can be saved.
private func temporaryName(for name: [UInt8], in folder: [UInt8], random: Bool = false) -> [UInt8] {
  var suffix = Array(".tmp-XXXXXX".utf8)
  if random {
    // As mkstemp would fill it in.
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    for index in suffix.count - 6..<suffix.count {
      suffix[index] = letters[Int.random(in: 0..<letters.count)]
    }
  }
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
  // A link of another user's in a shared sticky folder is never followed.
  var link = stat()
  if Platform.status(of: path, &link, follow: false), link.st_mode & S_IFMT == S_IFLNK,
    let refused = refusedLink(path, link)
  {
    return failure(refused)
  }
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
