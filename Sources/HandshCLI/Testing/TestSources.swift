import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads the script `file` for a `source` in a golden test or in a document
/// the language server runs (handsh(1), GOLDEN TESTS and EDITORS): a test
/// reads only regular files. A FIFO, a socket, a device, and whatever one
/// of handsh's own stdin, stdout or stderr holds (`/dev/stdin`, `/dev/fd/1`,
/// `/proc/self/fd/2`, even when that stream is a regular file) fails with
/// `not a regular file` before it is opened, so a test never blocks on a
/// writer, never reads without end, and never reads the runner's (or the
/// editor's) own streams. What passes is read as `source` reads a file (a
/// folder is `Is a directory`).
func readTestSource(_ file: String) -> Result<[UInt8], ReadFailure> {
  let path = Array(file.utf8)
  var status = stat()
  if !path.isEmpty, !path.contains(0), Platform.status(of: path, &status, follow: true) {
    let kind = status.st_mode & S_IFMT
    // A folder is read as ever, and fails as `Is a directory`.
    if kind != S_IFREG && kind != S_IFDIR || isOwnStream(status) {
      return .failure(ReadFailure("not a regular file"))
    }
  }
  // Checked again on the descriptor once opened: a file swapped for a
  // FIFO in between is refused the same way, and never waited on.
  var errors = ErrorCounter()
  let size = Int(clamping: status.st_size)
  return readFile(path, others: .refuse) { text, final in
    if text.count <= size { return true }
    return text.withUnsafeBufferPointer { errors.count($0, final: final) }
  }
  .map(\.bytes).mapError { ReadFailure($0.reason) }
}

/// Whether `status` describes the file that stdin, stdout or stderr holds.
private func isOwnStream(_ status: stat) -> Bool {
  for fd: Int32 in [0, 1, 2] {
    var stream = stat()
    if fstat(fd, &stream) == 0, stream.st_dev == status.st_dev, stream.st_ino == status.st_ino {
      return true
    }
  }
  return false
}
