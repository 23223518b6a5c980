// The input as bytes for the writer, onto files, links and folders.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The writer, onto what `kind` makes first.
func fuzzWriter(_ bytes: [UInt8], kind: UInt8) {
  let old: [UInt8] = Array("old\n".utf8)
  func make(_ name: String, mode: mode_t) {
    let fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode)
    guard fd >= 0 else { broken("cannot make \(name)") }
    _ = old.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    _ = fchmod(fd, mode)
    close(fd)
  }
  let modes: [mode_t] = [0o600, 0o644, 0o640, 0o755, 0o444]
  let mode = modes[Int(kind >> 3) % modes.count]
  var target = "f.hand"
  var written = "f.hand"
  var expectFailure: Int32? = nil
  switch kind % 6 {
  case 0: break  // a new file
  case 1: make("f.hand", mode: mode)
  case 2:
    make("t.hand", mode: mode)
    _ = symlink("t.hand", "f.hand")
    written = "t.hand"
  case 3:
    make("f.hand", mode: mode)
    _ = link("f.hand", "g.hand")
    written = "g.hand"
  case 4:
    _ = mkdir("f.hand", 0o755)
    expectFailure = EISDIR
  default:
    target = "f.hand/"
    expectFailure = EISDIR
  }
  var before = stat()
  let existed = lstat(written, &before) == 0 && before.st_mode & S_IFMT == S_IFREG
  let failure = writeFile(bytes, to: Array(target.utf8))
  if let expectFailure {
    guard failure?.code == expectFailure else {
      broken("writing \(target): \(String(describing: failure))")
    }
  } else if let failure {
    // Only a read-only file may refuse, and then it is left as it was.
    guard existed, before.st_mode & 0o200 == 0, getuid() != 0 else {
      broken("writing \(target) failed: \(failure)")
    }
    guard readBack(written) == old else { broken("a failed write changed \(written)") }
  } else {
    guard readBack(written) == bytes else { broken("\(written) does not hold what was written") }
    var after = stat()
    guard lstat(written, &after) == 0 else { broken("\(written) is gone") }
    if existed, after.st_mode & 0o7777 != before.st_mode & 0o7777 {
      broken("\(written) lost its mode")
    }
    if kind % 6 == 2 {
      var link = stat()
      guard lstat("f.hand", &link) == 0, link.st_mode & S_IFMT == S_IFLNK else {
        broken("the symbolic link was replaced")
      }
    }
    if kind % 6 == 3, readBack("f.hand") != bytes { broken("the hard links came apart") }
  }
  guard leftovers() == 0 else { broken("a temporary file was left") }
}
