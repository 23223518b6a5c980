import CHandsh

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one way of opening a path a user named (handsh(1), FILES): `save`,
/// `source`, `--update`, `--junit`, `--record`, the SCRIPT and the history
/// file all find their file here. The path is walked a component at a time
/// from a folder's descriptor, as systemd's `chase()` does: each component
/// is looked at without following it (`O_PATH | O_NOFOLLOW`, `fstatat`
/// with `AT_SYMLINK_NOFOLLOW`), a symbolic link is read and its text walked
/// in turn, and the rule of shared sticky folders is applied to every link
/// met, not only the last. What is opened afterwards is opened in the
/// folder found, never by the whole path again, and compared with what was
/// looked at: a link swapped in after the check is never followed.
enum NamedPath {
  /// Where a walk ended.
  enum End {
    /// One of handsh's own streams by name: `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`, `/proc/self/fd/N`, or a link whose text is one of these.
    case stream(Int32)
    /// What a link of /proc leads to (a process's descriptor, which only the
    /// kernel can follow), located: its descriptor and `fstat`.
    case located(Located)
    /// A name in a folder: what is there (`lstat`, never a link), or nil
    /// when nothing is.
    case entry(Entry)
  }

  /// A name in a folder, found by a walk. Owns the folder's descriptor.
  final class Entry {
    /// The folder's descriptor (`O_PATH`).
    let folder: Int32
    /// The last component (`.` for a folder itself).
    let name: [UInt8]
    /// What was there when it was looked at, never a link; nil: nothing.
    let status: stat?

    init(folder: Int32, name: [UInt8], status: stat?) {
      self.folder = folder
      self.name = name
      self.status = status
    }

    deinit { close(folder) }

    /// `body` given the name as a C string.
    func withName<T>(_ body: (UnsafePointer<CChar>) -> T) -> T {
      Platform.withCPath(name, body) ?? body("")
    }

    /// Opens the name with `flags`, never following a link there, and makes
    /// sure it is the file that was looked at (`EAGAIN`: it was swapped
    /// meanwhile, a link in its place included). What is there is located
    /// first (`O_PATH | O_NOFOLLOW`, which opens nothing), compared with
    /// what was looked at, and only then opened, through that very
    /// descriptor: a file swapped in is never opened at all, so nothing
    /// happens to it (a FIFO's waiting writer stays waiting), and only a
    /// FIFO that was looked at may block. A FIFO's open that blocks is
    /// abandoned by Control-C (`EINTR`). The descriptor, or the errno.
    func open(_ flags: Int32) -> Opened {
      let located = withName { handsh_locate(folder, $0, 0, 0) }
      guard located >= 0 else { return .failure(Failure(code: errno)) }
      defer { close(located) }
      var found = stat()
      guard fstat(located, &found) == 0 else { return .failure(Failure(code: errno)) }
      guard found.st_mode & S_IFMT != S_IFLNK else { return .failure(Failure(code: EAGAIN)) }
      if let status, found.st_dev != status.st_dev || found.st_ino != status.st_ino {
        return .failure(Failure(code: EAGAIN))
      }
      var fd: Int32 = -1
      repeat {
        fd = handsh_reopen(located, flags | O_NOCTTY)
      } while fd < 0 && errno == EINTR && handsh_prompt_interrupted() == 0
      // No /proc to reopen it through: opened by name in its folder.
      if fd < 0, errno == ENOENT { return openInFolder(flags, like: found) }
      guard fd >= 0 else { return .failure(Failure(code: errno)) }
      // That very file; its size as it is now.
      var opened = stat()
      guard fstat(fd, &opened) == 0 else {
        let code = errno
        close(fd)
        return .failure(Failure(code: code))
      }
      return .success((fd, opened))
    }

    /// `open` without /proc: the name opened in its folder (`O_NOFOLLOW`),
    /// non-blocking unless `found` is a FIFO, and compared with `found`
    /// after the open.
    private func openInFolder(_ flags: Int32, like found: stat) -> Opened {
      let waits = found.st_mode & S_IFMT == S_IFIFO
      let opening = flags | O_NOCTTY | (waits ? 0 : O_NONBLOCK)
      var fd: Int32 = -1
      repeat {
        fd = withName { handsh_open_in(folder, $0, opening, 0) }
      } while fd < 0 && errno == EINTR && handsh_prompt_interrupted() == 0
      guard fd >= 0 else { return .failure(Failure(code: errno == ELOOP ? EAGAIN : errno)) }
      var opened = stat()
      guard fstat(fd, &opened) == 0 else {
        let code = errno
        close(fd)
        return .failure(Failure(code: code))
      }
      if opened.st_dev != found.st_dev || opened.st_ino != found.st_ino {
        close(fd)
        return .failure(Failure(code: EAGAIN))
      }
      if !waits, flags & O_NONBLOCK == 0 {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
      }
      return .success((fd, opened))
    }
  }

  /// A file located through a link of /proc. Owns its descriptor.
  final class Located {
    let fd: Int32
    let status: stat
    init(fd: Int32, status: stat) {
      self.fd = fd
      self.status = status
    }
    deinit { close(fd) }

    /// The located file opened with `flags`: that very file, reopened.
    func open(_ flags: Int32) -> Opened {
      let opened = handsh_reopen(fd, flags | O_NOCTTY)
      guard opened >= 0 else { return .failure(Failure(code: errno)) }
      var status = stat()
      guard fstat(opened, &status) == 0 else {
        let code = errno
        close(opened)
        return .failure(Failure(code: code))
      }
      return .success((opened, status))
    }
  }

  /// Why a walk failed: the errno, and whether it is a refusal of handsh's
  /// own rules (a NUL byte, a link a sticky folder's rule refuses, a
  /// descriptor of handsh's own) rather than the system's answer.
  struct Failure: Error, Equatable {
    var code: Int32
    var refused = false
  }

  /// A file opened: its descriptor (the caller's to close) and `fstat`.
  typealias Opened = Result<(fd: Int32, status: stat), Failure>

  /// How many symbolic links a walk follows before it gives up, as the kernel.
  static let maximumLinks = 40
  /// How often a walk is tried again when what it found changed before it
  /// was opened (another process swapping names in a loop, which on another
  /// core wins the race between the look and the open often): a run whose
  /// file stays a regular file meanwhile never fails for the swaps.
  static let attempts = 100

  /// Walks `path` to its end: its last component's folder and what is
  /// there, following links as the kernel would (a trailing `/` asks for a
  /// folder), but a link at a time, under the sticky folders' rule.
  static func walk(_ path: [UInt8]) -> Result<End, Failure> {
    var result = walkOnce(path)
    // A component swapped between its look and its use (a link that is
    // a file by the time it is read): walked again from the start.
    for _ in 1..<attempts {
      guard case .failure(let failure) = result, failure.code == EAGAIN else { break }
      result = walkOnce(path)
    }
    return result
  }

  /// One walk of `path`; `EAGAIN` when a component changed under it.
  private static func walkOnce(_ path: [UInt8]) -> Result<End, Failure> {
    guard !path.isEmpty else { return .failure(Failure(code: ENOENT)) }
    // A name the C calls would cut short names another file.
    guard !path.contains(0) else { return .failure(Failure(code: EINVAL, refused: true)) }
    if let fd = ownStream(path) { return .success(.stream(fd)) }
    let slash = UInt8(ascii: "/")
    var folder = handsh_locate_start(path.first == slash ? 1 : 0)
    guard folder >= 0 else { return .failure(Failure(code: errno)) }
    var pending = components(path)
    let wantsFolder = path.last == slash
    var links = 0
    func fail(_ code: Int32, refused: Bool = false) -> Result<End, Failure> {
      close(folder)
      return .failure(Failure(code: code, refused: refused))
    }
    while let name = pending.popLast() {
      let last = pending.isEmpty
      var status = stat()
      let found =
        Platform.withCPath(name) { fstatat(folder, $0, &status, AT_SYMLINK_NOFOLLOW) } ?? -1
      if found != 0 {
        let code = errno
        if code == ENOENT, last {
          // Nothing there: a new file, unless a folder was asked for.
          if wantsFolder { return fail(EISDIR) }
          return .success(.entry(Entry(folder: folder, name: name, status: nil)))
        }
        return fail(code)
      }
      switch status.st_mode & S_IFMT {
      case S_IFLNK:
        links += 1
        if links > maximumLinks { return fail(ELOOP) }
        if refusedLink(status, in: folder) { return fail(EACCES, refused: true) }
        switch followLink(name, in: folder, last: last, pending: &pending) {
        case .into(let next): folder = next
        case .end(let result): return result
        }
      case S_IFDIR:
        if last {
          return .success(.entry(Entry(folder: folder, name: name, status: status)))
        }
        switch descend(name, in: folder, to: status) {
        case .failure(let failure): return fail(failure.code)
        case .success(let next):
          close(folder)
          folder = next
        }
      default:
        if !last || wantsFolder { return fail(ENOTDIR) }
        return .success(.entry(Entry(folder: folder, name: name, status: status)))
      }
    }
    // `/`, or a path of slashes: the root folder itself.
    return .success(
      .entry(Entry(folder: folder, name: Array(".".utf8), status: folderStatus(folder))))
  }

  /// Where a link leads: a folder to walk on into, or the end.
  private enum LinkStep {
    case into(Int32)
    case end(Result<End, Failure>)
  }

  /// The link `name` in `folder`, followed a link at a time: by the kernel
  /// on /proc, else by its text, whose components go before what is left
  /// of the path in `pending` (from the root folder when it starts with
  /// `/`). Takes `folder`: closes it, or hands it on in `.into`.
  private static func followLink(
    _ name: [UInt8], in folder: Int32, last: Bool, pending: inout [[UInt8]]
  ) -> LinkStep {
    var folder = folder
    func fail(_ code: Int32) -> LinkStep {
      close(folder)
      return .end(.failure(Failure(code: code)))
    }
    if handsh_on_proc(folder) != 0 {
      // A process's descriptor (`/proc/thread-self/fd/1`): only the
      // kernel can follow it, and no other user can plant one.
      let step = followProcLink(name, in: folder, last: last)
      close(folder)
      return step
    }
    // No longer a link (EINVAL): swapped since it was looked at.
    guard let text = linkText(name, in: folder) else {
      return fail(errno == EINVAL ? EAGAIN : errno)
    }
    if last, let fd = ownStream(text) {
      close(folder)
      return .end(.success(.stream(fd)))
    }
    if text.first == UInt8(ascii: "/") {
      let root = handsh_locate_start(1)
      guard root >= 0 else { return fail(errno) }
      close(folder)
      folder = root
    }
    // The link's components come before what was left of the path.
    pending.append(contentsOf: components(text))
    if text.isEmpty { return fail(ENOENT) }
    return .into(folder)
  }

  /// The link `name` of /proc in `folder`, followed by the kernel: a
  /// folder, handsh's own stream (a descriptor of its own by number is
  /// `EBADF`), or another file, located. Never closes `folder`.
  private static func followProcLink(_ name: [UInt8], in folder: Int32, last: Bool) -> LinkStep {
    func failure(_ code: Int32, refused: Bool = false) -> LinkStep {
      .end(.failure(Failure(code: code, refused: refused)))
    }
    let located = Platform.withCPath(name) { handsh_locate(folder, $0, 1, 0) } ?? -1
    guard located >= 0 else { return failure(errno) }
    var target = stat()
    guard fstat(located, &target) == 0 else {
      let code = errno
      close(located)
      return failure(code)
    }
    if target.st_mode & S_IFMT == S_IFDIR { return .into(located) }
    if !last {
      close(located)
      return failure(ENOTDIR)
    }
    if let fd = descriptorNamed(name, status: target) {
      // Named by number: a stream of handsh's, or one of its own.
      close(located)
      if handsh_inherited_fd(fd) == 0 { return failure(EBADF, refused: true) }
      return .end(.success(.stream(fd)))
    }
    return .end(.success(.located(Located(fd: located, status: target))))
  }

  /// The folder `name` in `folder`, opened to walk on (`O_PATH`), when it
  /// is the folder `status` describes; `EAGAIN` when something else is
  /// there now (a link or a file swapped in: `ELOOP`, `ENOTDIR`).
  private static func descend(_ name: [UInt8], in folder: Int32, to status: stat) -> Result<
    Int32, Failure
  > {
    let next = Platform.withCPath(name) { handsh_locate(folder, $0, 0, 1) } ?? -1
    guard next >= 0 else {
      return .failure(Failure(code: errno == ELOOP || errno == ENOTDIR ? EAGAIN : errno))
    }
    var opened = stat()
    guard fstat(next, &opened) == 0, opened.st_dev == status.st_dev,
      opened.st_ino == status.st_ino
    else {
      close(next)
      return .failure(Failure(code: EAGAIN))
    }
    return .success(next)
  }

  /// The components of `path`, last first (popped from the end), without
  /// empty ones; `.` where there are none (`/`).
  private static func components(_ path: [UInt8]) -> [[UInt8]] {
    let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
      Array($0)
    }
    return parts.isEmpty ? [Array(".".utf8)] : parts.reversed()
  }

  private static func folderStatus(_ folder: Int32) -> stat? {
    var status = stat()
    return fstat(folder, &status) == 0 ? status : nil
  }

  /// Whether the link `link` (its `lstat`) in `folder` may not be
  /// followed: the folder is sticky and others may write it (a shared
  /// temporary folder), and neither the user nor the folder's owner owns
  /// the link, as Linux's `fs.protected_symlinks` rule, whether or not the
  /// kernel enforces it, since handsh follows links itself.
  private static func refusedLink(_ link: stat, in folder: Int32) -> Bool {
    var status = stat()
    guard fstat(folder, &status) == 0 else { return false }
    let shared = status.st_mode & S_ISVTX != 0 && status.st_mode & S_IWOTH != 0
    return shared && link.st_uid != status.st_uid && link.st_uid != geteuid()
  }

  /// The text of the link `name` in `folder`; nil with errno set.
  private static func linkText(_ name: [UInt8], in folder: Int32) -> [UInt8]? {
    let capacity = Int(PATH_MAX)
    var buffer = [UInt8](repeating: 0, count: capacity)
    let count =
      Platform.withCPath(name) { name in
        buffer.withUnsafeMutableBytes {
          guard let base = $0.baseAddress else { return -1 }
          return readlinkat(folder, name, base.assumingMemoryBound(to: CChar.self), capacity)
        }
      } ?? -1
    guard count >= 0 else { return nil }
    return Array(buffer[..<count])
  }

  /// The descriptor a /proc link `name` (digits) stands for, when it is
  /// this process's descriptor of that number (`status` is what it leads to).
  private static func descriptorNamed(_ name: [UInt8], status: stat) -> Int32? {
    guard !name.isEmpty, name.count <= 9,
      name.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    let fd = name.reduce(Int32(0)) { $0 * 10 + Int32($1 - UInt8(ascii: "0")) }
    var own = stat()
    guard fstat(fd, &own) == 0, own.st_dev == status.st_dev, own.st_ino == status.st_ino else {
      return nil
    }
    return fd
  }

  /// Opens the file a user named for reading (`source`, a SCRIPT, a golden
  /// test, the history file), by the walk: a descriptor of handsh's own
  /// (stdout, stderr, or one it opened itself) is `EBADF`; stdin and
  /// inherited descriptors by name are that file, opened again. The
  /// descriptor and its `fstat`, or the failure.
  static func openForReading(_ path: [UInt8], _ flags: Int32) -> Opened {
    var result: Opened = .failure(Failure(code: EAGAIN))
    for _ in 0..<attempts {
      switch walk(path) {
      case .failure(let failure): return .failure(failure)
      case .success(.stream(let fd)):
        // Reading handsh's own output would wait on itself for ever.
        guard fd == 0 || (fd > 2 && handsh_inherited_fd(fd) != 0) else {
          return .failure(Failure(code: EBADF, refused: true))
        }
        var opened = handsh_reopen(fd, flags)
        // No /proc: the descriptor itself, shared.
        if opened < 0, errno == ENOENT { opened = fcntl(fd, F_DUPFD_CLOEXEC, 3) }
        guard opened >= 0 else { return .failure(Failure(code: errno)) }
        var status = stat()
        _ = fstat(opened, &status)
        return .success((opened, status))
      case .success(.located(let located)):
        return located.open(flags)
      case .success(.entry(let entry)):
        guard entry.status != nil else { return .failure(Failure(code: ENOENT)) }
        result = entry.open(flags)
        if case .failure(let failure) = result, failure.code == EAGAIN { continue }
        return result
      }
    }
    return result
  }
}

/// The descriptor that `path` names when it is one of handsh's own streams
/// by name: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N`.
func ownStream(_ path: [UInt8]) -> Int32? {
  if path.elementsEqual("/dev/stdout".utf8) { return 1 }
  if path.elementsEqual("/dev/stderr".utf8) { return 2 }
  if path.elementsEqual("/dev/stdin".utf8) { return 0 }
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
