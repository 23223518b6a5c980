import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// How every whole file handsh writes — `save`, and the files of `--test
/// --update`, `--junit` and `-j N` saves — is made (handsh(1), save and
/// FILES), checked where a plausible bug would have passed the other tests:
///
/// - a new file gets 0666 less the umask, and an existing one keeps its
///   mode, under umask 077 too (a fixed 0644 passed every test, which all
///   ran under umask 022);
/// - a write that fails half-way (a file-size limit, `ulimit -f`, with
///   SIGXFSZ ignored) leaves the older file byte-identical and no temporary
///   file (a truncate-then-write passed every test but a timing-dependent one);
/// - a writable file in a folder the user may not write is written in
///   place, and root saving another user's file keeps its owner (both
///   could be removed unseen: no test existed).
///
/// `--record` is checked under umask 077 by Tests/pty/test_file_modes.py.
/// handsh runs through `/bin/sh -c`, which sets the umask and limits first.
final class SaveAuditTests: XCTestCase {
  private var folder: URL!
  private var binary: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
  }

  override func tearDownWithError() throws {
    if let folder {
      // Folders a test made read-only, so that they can be removed.
      if let names = try? FileManager.default.subpathsOfDirectory(atPath: folder.path) {
        for name in names { _ = chmod(path(name), 0o755) }
      }
      try? FileManager.default.removeItem(at: folder)
    }
  }

  /// What `save` writes for `--seed 42 -c 'add; save …'`.
  private let saved = "#!/usr/bin/env handsh\nnew 42\nlimit 5\nadd 7H\n"

  // MARK: - Modes under umask 077 (item 2)

  func testSaveUnderUmask077() throws {
    try make("old.hand", "old\n", mode: 0o644)
    let result = try handsh(
      ["--seed", "42", "-q", "-c", "add; save new.hand; save old.hand"], umask: "077")
    XCTAssertEqual(result.status, 0, result.err)
    XCTAssertEqual(try contents("new.hand"), saved)
    XCTAssertEqual(mode("new.hand"), 0o600, "a new file: 0666 less umask 077")
    XCTAssertEqual(try contents("old.hand"), saved)
    XCTAssertEqual(mode("old.hand"), 0o644, "an existing file keeps its mode")
    XCTAssertEqual(try leftovers(), [])
  }

  /// Under umask 027 and 002 as well: the mode is computed, not fixed.
  func testSaveFollowsTheUmask() throws {
    for (mask, wanted) in [("027", 0o640), ("002", 0o664), ("022", 0o644)] as [(String, mode_t)] {
      let result = try handsh(["--seed", "42", "-q", "-c", "add; save m\(mask).hand"], umask: mask)
      XCTAssertEqual(result.status, 0, result.err)
      XCTAssertEqual(mode("m\(mask).hand"), wanted, "umask \(mask)")
    }
  }

  func testUpdateUnderUmask077KeepsTheFilesMode() throws {
    for (name, wanted) in [("a.hand", 0o644), ("b.hand", 0o755)] as [(String, mode_t)] {
      try make(name, "#!/usr/bin/env -S handsh --seed 42\nadd\n#> wrong\n", mode: wanted)
    }
    let result = try handsh(["--test", "--update", "a.hand", "b.hand"], umask: "077")
    XCTAssertEqual(result.status, 0, result.out + result.err)
    for (name, wanted) in [("a.hand", 0o644), ("b.hand", 0o755)] as [(String, mode_t)] {
      XCTAssertEqual(try contents(name), "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n")
      XCTAssertEqual(mode(name), wanted, name)
    }
    XCTAssertEqual(try leftovers(), [])
  }

  func testJunitUnderUmask077() throws {
    try make("t.hand", "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n", mode: 0o644)
    try make("old.xml", "old\n", mode: 0o644)
    let result = try handsh(
      ["--test", "--junit", "new.xml", "t.hand"], umask: "077")
    XCTAssertEqual(result.status, 0, result.out + result.err)
    XCTAssertTrue(try contents("new.xml").contains("<testcase"))
    XCTAssertEqual(mode("new.xml"), 0o600, "a new JUnit file: 0666 less umask 077")

    let again = try handsh(["--test", "--junit", "old.xml", "t.hand"], umask: "077")
    XCTAssertEqual(again.status, 0, again.out + again.err)
    XCTAssertTrue(try contents("old.xml").contains("<testcase"))
    XCTAssertEqual(mode("old.xml"), 0o644, "an existing JUnit file keeps its mode")
  }

  /// `-j 8`: a test's `save` stays in its own memory, so the files written
  /// at once are `--update`'s rewrites: under umask 077 each keeps its mode
  /// (0644, not 0600), and nothing the tests saved appears on disk.
  func testParallelUpdatesUnderUmask077() throws {
    try FileManager.default.createDirectory(at: url("t"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: url("out"), withIntermediateDirectories: true)
    for i in 0..<16 {
      let lines = (0..<5).map { "save out/f\(i)_\($0).hand\nadd\n" }.joined()
      try make("t/t\(i).hand", lines, mode: 0o644)
    }
    let result = try handsh(["--test", "--update", "-j", "8", "t"], umask: "077")
    XCTAssertEqual(result.status, 0, result.out + result.err)
    XCTAssertTrue(result.out.hasSuffix("0 passed, 16 updated\n"), result.out)
    for i in 0..<16 {
      XCTAssertEqual(mode("t/t\(i).hand"), 0o644, "t\(i).hand")
      XCTAssertTrue(try contents("t/t\(i).hand").contains("#> "), "t\(i).hand not rewritten")
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("out")), [])
  }

  // MARK: - A write that fails half-way (item 3)

  /// A save larger than the file-size limit fails with `File too large`
  /// after some of it was written; the older file is byte-identical and no
  /// temporary file is left.
  func testSaveFailingMidWriteLeavesTheOldFile() throws {
    // ThreadSanitizer's own runtime dies of SIGBUS under a file-size
    // limit, before handsh writes anything; the plain and ASan runs check it.
    try XCTSkipIf(
      ProcessInfo.processInfo.environment["HANDSH_TEST_SANITIZER"] == "thread",
      "ThreadSanitizer cannot run under ulimit -f")
    let older = "#!/usr/bin/env handsh\nnew 1\nlimit 5\nadd AS\n"
    try make("x.hand", older, mode: 0o640)
    // 200 moves: a script of about 1.4 KB, over a limit of one block.
    let moves = String(repeating: "mv 1 2; ", count: 200)
    let result = try handsh(
      ["--seed", "42", "-q", "-c", "add; add; \(moves)save x.hand"], fileSizeBlocks: 1)
    XCTAssertEqual(result.status, 1, result.err)
    XCTAssertTrue(
      result.err.hasSuffix("error: cannot write x.hand: File too large\n"), result.err)
    XCTAssertEqual(try contents("x.hand"), older, "the older file changed")
    XCTAssertEqual(mode("x.hand"), 0o640)
    XCTAssertEqual(try leftovers(), [])
    // The limit, not the script, stopped it: without it the save is whole.
    let whole = try handsh(["--seed", "42", "-q", "-c", "add; add; \(moves)save y.hand"])
    XCTAssertEqual(whole.status, 0, whole.err)
    XCTAssertGreaterThan(try contents("y.hand").utf8.count, 1024)
  }

  /// `--update` of a test whose new text is over the limit: the test file
  /// is byte-identical, and no temporary file is left.
  func testUpdateFailingMidWriteLeavesTheOldFile() throws {
    // ThreadSanitizer's own runtime dies of SIGBUS under a file-size
    // limit, before handsh writes anything; the plain and ASan runs check it.
    try XCTSkipIf(
      ProcessInfo.processInfo.environment["HANDSH_TEST_SANITIZER"] == "thread",
      "ThreadSanitizer cannot run under ulimit -f")
    let older =
      "#!/usr/bin/env -S handsh --seed 42\nadd\n#> wrong\n"
      + String(repeating: "show\n", count: 200)
    try make("t.hand", older, mode: 0o644)
    let result = try handsh(["--test", "--update", "t.hand"], fileSizeBlocks: 1)
    XCTAssertNotEqual(result.status, 0, result.out)
    XCTAssertTrue(result.err.contains("t.hand"), result.err)
    XCTAssertTrue(result.err.contains("File too large"), result.err)
    XCTAssertEqual(try contents("t.hand"), older, "the older test file changed")
    XCTAssertEqual(try leftovers(), [])
  }

  // MARK: - Read-only folders and owners (item 4)

  /// A file the user may write, in a folder they may not: written in place,
  /// as the shell's `>` would; the folder gets no new entry. As root,
  /// handsh runs as `nobody`, who owns the file but not the folder.
  func testWritableFileInReadOnlyFolderIsWrittenInPlace() throws {
    try FileManager.default.createDirectory(at: url("ro"), withIntermediateDirectories: false)
    try make("ro/x.hand", "old\n", mode: 0o644)
    var before = stat()
    XCTAssertEqual(stat(path("ro/x.hand"), &before), 0)
    let user = try unprivileged(owning: ["ro/x.hand"])
    XCTAssertEqual(chmod(path("ro"), 0o555), 0)

    let result = try handsh(["--seed", "42", "-q", "-c", "add; save ro/x.hand"], as: user)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(try contents("ro/x.hand"), saved)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("ro")), ["x.hand"])
    var after = stat()
    XCTAssertEqual(stat(path("ro/x.hand"), &after), 0)
    XCTAssertEqual(after.st_ino, before.st_ino, "not written in place")
    XCTAssertEqual(after.st_mode & 0o7777, 0o644)
  }

  /// Root saving a file that another user owns: the new file has that
  /// owner and group, and the mode, as an editor would keep them.
  func testRootKeepsTheOwnerOfAnotherUsersFile() throws {
    guard getuid() == 0 else {
      // Only root can give a file away; a user's saves are theirs.
      throw XCTSkip("not root: only root may keep another user's ownership")
    }
    try make("theirs.hand", "old\n", mode: 0o640)
    XCTAssertEqual(chown(path("theirs.hand"), 65534, 65534), 0)
    let result = try handsh(["--seed", "42", "-q", "-c", "add; save theirs.hand"])
    XCTAssertEqual(result.status, 0, result.err)
    XCTAssertEqual(try contents("theirs.hand"), saved)
    var status = stat()
    XCTAssertEqual(stat(path("theirs.hand"), &status), 0)
    XCTAssertEqual(status.st_uid, 65534, "the owner was not kept")
    XCTAssertEqual(status.st_gid, 65534, "the group was not kept")
    XCTAssertEqual(status.st_mode & 0o7777, 0o640)
    XCTAssertEqual(try leftovers(), [])
  }

  /// The other way round: a user saving their own file whose group they
  /// are not in. A new file could not keep that group (the kernel refuses
  /// the chown), and that is no error: the file is written in place, as vim
  /// does, so it keeps its group, its mode and its inode, and no temporary
  /// file is left. As root, handsh runs as uid 65534, who owns the file and
  /// its folder but not the group; an ordinary user cannot make such a
  /// file, so elsewhere this skips, and CI runs as root. (Caught the mutant
  /// that made a refused chown fail the save, and the one that let the
  /// group change in silence.)
  func testAGroupThatCannotBeKeptIsNoError() throws {
    guard getuid() == 0 else {
      throw XCTSkip("not root: only root can give a user a file of a group they are not in")
    }
    try FileManager.default.createDirectory(at: url("own"), withIntermediateDirectories: false)
    try make("own/x.hand", "old\n", mode: 0o640)
    let user = try unprivileged(owning: ["own", "own/x.hand"])
    XCTAssertEqual(chown(path("own/x.hand"), 65534, 0), 0)
    var before = stat()
    XCTAssertEqual(stat(path("own/x.hand"), &before), 0)
    let result = try handsh(["--seed", "42", "-q", "-c", "add; save own/x.hand"], as: user)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(try contents("own/x.hand"), saved)
    var status = stat()
    XCTAssertEqual(stat(path("own/x.hand"), &status), 0)
    XCTAssertEqual(status.st_uid, 65534)
    XCTAssertEqual(status.st_gid, 0, "the group changed in silence")
    XCTAssertEqual(status.st_ino, before.st_ino, "not written in place")
    XCTAssertEqual(status.st_mode & 0o7777, 0o640)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("own")), ["x.hand"])
  }

  // MARK: - Helpers

  /// Runs handsh through `/bin/sh -c`: first `umask MASK`, and with
  /// FILESIZEBLOCKS SIGXFSZ ignored and `ulimit -f` (blocks of 512 bytes in
  /// dash, 1024 in bash: either is less than the saves written here), so a
  /// write past it fails with EFBIG instead of killing handsh; as USER
  /// (setpriv's arguments) when given.
  private func handsh(
    _ arguments: [String], umask mask: String = "022", fileSizeBlocks: Int? = nil,
    as user: [String] = [], line: UInt = #line
  ) throws -> TestRun {
    var setup = "umask \(mask) || exit 125; "
    if let fileSizeBlocks { setup += "trap '' XFSZ; ulimit -f \(fileSizeBlocks) || exit 125; " }
    let command = user.isEmpty ? ["\"$0\" \"$@\""] : user.map { "'\($0)'" } + ["\"$0\" \"$@\""]
    let result = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", setup + "exec " + command.joined(separator: " "), binary.path] + arguments,
      in: folder)
    XCTAssertFalse(result.timedOut, "\(arguments) timed out", line: line)
    XCTAssertNil(result.signal, "\(arguments) died of signal \(result.signal ?? 0)", line: line)
    XCTAssertNotEqual(result.status, 125, "the shell could not set up: \(result.err)", line: line)
    return result
  }

  /// The command that runs handsh as a user whom folder permissions stop:
  /// none when not root; as root, setpriv as uid/gid 65534, after giving
  /// NAMES to that user.
  private func unprivileged(owning names: [String]) throws -> [String] {
    guard getuid() == 0 else { return [] }
    let setpriv = "/usr/bin/setpriv"
    let drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    let probe = try TestProcess.run(
      URL(fileURLWithPath: setpriv), Array(drop.dropFirst()) + ["/bin/true"], in: folder)
    guard probe.status == 0 else {
      let why = "running as root, and setpriv cannot drop to uid 65534: \(probe.err)"
      if runningInCI() { XCTFail(why) }
      throw XCTSkip(why)
    }
    for name in names { XCTAssertEqual(chown(path(name), 65534, 65534), 0, name) }
    return drop
  }

  private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
  private func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  private func make(_ name: String, _ text: String, mode: mode_t) throws {
    try Data(text.utf8).write(to: url(name))
    XCTAssertEqual(chmod(path(name), mode), 0)
  }

  private func contents(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: url(name)), as: UTF8.self)
  }

  private func mode(_ name: String) -> mode_t? {
    var result = stat()
    return lstat(path(name), &result) == 0 ? result.st_mode & 0o7777 : nil
  }

  /// Temporary files (`.NAME.tmp-*`) left anywhere under the folder.
  private func leftovers() throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
      $0.contains(".tmp-")
    }
  }
}
