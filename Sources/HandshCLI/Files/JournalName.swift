import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The name stays the journal's (handsh(1), JOURNAL): at each flush FILE
/// is found again by the one way of opening names; when it no longer names
/// the file kept (removed, renamed away, or replaced, as `sed -i` or an
/// editor's save does), nothing is lost and nobody else's file is written
/// over: what was kept is written to FILE when nothing is there any more,
/// else to the first free of `FILE.1`, `FILE.2`, …, and the session ends.
extension Journal {
  /// The most `FILE.N` names tried.
  static let keepNames = 1000

  /// Whether FILE still names the file kept.
  func nameHolds() -> Bool {
    guard case .success(.entry(let entry)) = NamedPath.walk(path), let status = entry.status
    else { return false }
    return UInt64(status.st_dev) == identity.device && UInt64(status.st_ino) == identity.inode
  }

  /// FILE named another file, or none: what was kept written elsewhere,
  /// said, and the session to end (status 2).
  func keepElsewhere() {
    let start = "handsh: journal \(shown) was removed or replaced while in use"
    switch keptCopy() {
    case .success(let name): Platform.printError("\(start); kept as \(safeText(name))")
    case .failure(let failure):
      Platform.printError("\(start); it could not be kept: \(Platform.describe(failure.code))")
    }
  }

  /// Writes FILE's whole lines to FILE, or the first free `FILE.N`, made
  /// anew (never an existing file), flushed to disk with its folder. The
  /// name, or the errno.
  private func keptCopy() -> Result<[UInt8], NamedPath.Failure> {
    var last: Int32 = EEXIST
    for number in 0...Journal.keepNames {
      let name = number == 0 ? path : path + Array(".\(number)".utf8)
      guard case .success(.entry(let entry)) = NamedPath.walk(name) else {
        if case .failure(let failure) = NamedPath.walk(name) { last = failure.code }
        continue
      }
      guard entry.status == nil else { continue }
      let copy = entry.withName {
        handsh_open_in(entry.folder, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, 0o600)
      }
      guard copy >= 0 else {
        last = errno
        continue
      }
      defer { close(copy) }
      if let code = copyLines(to: copy) {
        _ = entry.withName { unlinkat(entry.folder, $0, 0) }
        return .failure(NamedPath.Failure(code: code))
      }
      let folder = openat(entry.folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      if folder >= 0 {
        _ = fsync(folder)
        close(folder)
      }
      return .success(name)
    }
    return .failure(NamedPath.Failure(code: last))
  }

  /// FILE's whole lines copied to `target`, and flushed to disk; the errno
  /// of a failure.
  private func copyLines(to target: Int32) -> Int32? {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var at = 0
    while at < size {
      chunk.removeAll(keepingCapacity: true)
      chunk.append(contentsOf: repeatElement(0, count: min(1 << 16, size - at)))
      if let code = Platform.readAll(fd, &chunk, at: at) { return code }
      guard !chunk.isEmpty else { break }
      if let code = chunk.withUnsafeBytes({ Platform.writeAll(target, $0, at: at) }) {
        return code
      }
      at += chunk.count
    }
    return fdatasync(target) == 0 ? nil : errno
  }
}
