/// Writes `text` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so a failure leaves any older
/// file intact. Signals that end handsh wait until the temporary file is gone.
/// Returns the errno of a failure.
func writeAtomically(_ text: String, to path: String) -> Int32? {
  writeAtomically(bytes: Array(text.utf8), to: path)
}

/// The same, for bytes that need not be UTF-8 (a golden test keeps every
/// byte of the file it rewrites).
func writeAtomically(bytes: [UInt8], to path: String) -> Int32? {
  guard !path.isEmpty else { return ENOENT }
  var blocked = sigset_t()
  var previous = sigset_t()
  sigemptyset(&blocked)
  for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&blocked, signal) }
  sigprocmask(SIG_BLOCK, &blocked, &previous)
  defer { sigprocmask(SIG_SETMASK, &previous, nil) }

  let slash = path.lastIndex(of: "/")
  let folder = slash.map { String(path[...$0]) } ?? ""
  let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
  var template = Array((folder + "." + name + ".tmp-XXXXXX").utf8CString)
  let fd = template.withUnsafeMutableBufferPointer { buffer in
    buffer.baseAddress.map { mkstemp($0) } ?? -1
  }
  guard fd >= 0 else { return errno }
  let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)

  let mask = umask(0)
  umask(mask)
  var failure: Int32? = fchmod(fd, 0o666 & ~mask) == 0 ? nil : errno
  if failure == nil {
    failure = bytes.withUnsafeBytes { Platform.write(fd, $0) }
  }
  if failure == nil, fsync(fd) != 0 { failure = errno }
  if close(fd) != 0, failure == nil { failure = errno }
  if failure == nil, rename(temporary, path) != 0 { failure = errno }
  if failure != nil { unlink(temporary) }
  return failure
}
