import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Nothing lost, nothing hung (handsh(1), FILES, EXIT STATUS): the one
/// writer at the edges, driven through `sh -c` so that the shell's `>>`,
/// pipes and descriptors are the ones a user has. handshs own streams by
/// name, a FIFO whose reader leaves, a full disk, a sticky folder, a huge
/// sparse script, a non-blocking stdout, and which exit status wins.
///
/// Everything lives in the test's own temporary folder: links to
/// `/proc/self/fd/N` and `/dev/stdout` made there, FIFOs, a small tmpfs
/// mounted there (as root; skipped, saying why, where it cannot mount).
final class EdgeWriteTests: XCTestCase {
  private var folder: URL!
  private var binary: URL!
  private var previousSigpipe: sighandler_t?

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
    previousSigpipe = signal(SIGPIPE, SIG_IGN)
  }

  override func tearDownWithError() throws {
    if let previousSigpipe { signal(SIGPIPE, previousSigpipe) }
    if let folder {
      _ = umount2(path("mnt"), Int32(MNT_DETACH))
      try? FileManager.default.removeItem(at: folder)
    }
  }

  // MARK: - handsh's own streams by name (finding 1)

  /// `save` onto a link to `/proc/self/fd/1` with stdout opened by `>>`:
  /// the script goes into the stream after what handsh wrote before, and
  /// the file is neither replaced nor truncated (same inode, old log kept).
  func testSaveOntoOwnStdoutWritesIntoTheStreamInOrder() throws {
    XCTAssertEqual(symlink("/proc/self/fd/1", path("out1")), 0)
    try make("log.txt", "old\n")
    let before = status("log.txt")?.st_ino
    let reference = try sh(#""$H" -s 1 -c 'add; save ref.hand; add; show' > ref.txt"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let result = try sh(#""$H" -s 1 -c 'add; save out1; add; show' >> log.txt"#)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(status("log.txt")?.st_ino, before, "log.txt was replaced")
    let lines = try contents("ref.txt").split(separator: "\n", omittingEmptySubsequences: false)
    let expected =
      "old\n" + lines[0] + "\n" + (try contents("ref.hand"))
      + lines[1...].joined(separator: "\n")
    XCTAssertEqual(try contents("log.txt"), expected)
  }

  /// Each way of naming a stream: `/dev/stdout` as a link's text with
  /// stdout a pipe (whose `/proc` link text is `pipe:[N]`, no path),
  /// `/proc/self/fd/2`, `/dev/fd/3`; a closed descriptor is `Bad file
  /// descriptor`; `--junit` shares the writer.
  func testEveryNameOfAStreamIsWrittenIntoIt() throws {
    XCTAssertEqual(symlink("/dev/stdout", path("devout")), 0)
    XCTAssertEqual(symlink("/proc/self/fd/2", path("err2")), 0)
    XCTAssertEqual(symlink("/dev/fd/3", path("fd3")), 0)
    XCTAssertEqual(symlink("/proc/self/fd/7", path("closed7")), 0)
    let reference = try sh(#""$H" -s 1 -q -c 'add; save ref.hand'"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let script = try contents("ref.hand")

    let piped = try sh(#""$H" -s 1 -q -c 'add; save devout' | cat > piped.txt"#)
    XCTAssertEqual(piped.err, "")
    XCTAssertEqual(try contents("piped.txt"), script)
    XCTAssertEqual(kind("devout"), S_IFLNK)

    let stderr = try sh(#""$H" -s 1 -q -c 'add; save err2' 2> err.txt"#)
    XCTAssertEqual(stderr.status, 0)
    XCTAssertEqual(try contents("err.txt"), script)

    try make("three.txt", "x\n")
    let three = try sh(#""$H" -s 1 -q -c 'add; save fd3' 3>> three.txt"#)
    XCTAssertEqual(three.err, "")
    XCTAssertEqual(try contents("three.txt"), "x\n" + script)

    let closed = try sh(#""$H" -s 1 -q -c 'add; save closed7'"#)
    XCTAssertEqual(
      closed.err, "<command line>:1:6: error: cannot write closed7: Bad file descriptor\n")
    XCTAssertEqual(closed.status, 1)
    XCTAssertEqual(kind("closed7"), S_IFLNK)

    XCTAssertEqual(symlink("/proc/self/fd/1", path("out1")), 0)
    try make("t.hand", "show\n#> (empty)\n")
    let junit = try sh(#""$H" --test t.hand --junit out1 > report.txt"#)
    XCTAssertEqual(junit.err, "")
    XCTAssertEqual(junit.status, 0)
    let report = try contents("report.txt")
    XCTAssertTrue(report.hasPrefix("1 passed"), report)
    XCTAssertTrue(report.contains("\n<?xml"), "the XML follows the summary: \(report)")
  }

  // MARK: - A reader that goes away (finding 2)

  /// A FIFO whose reader leaves after 5 bytes of a script larger than a
  /// pipe holds: `Broken pipe`, no death by SIGPIPE, and with `-k` the
  /// rest of the script still runs and prints.
  func testSaveIntoAFIFOWhoseReaderLeavesIsABrokenPipe() throws {
    XCTAssertEqual(mkfifo(path("ff"), 0o600), 0)
    let moves = String(repeating: "mv 1 2\n", count: 12_000)
    try make("big.hand", "limit 52\nadd; add\n" + moves + "save ff\nshow\n")
    let reference = try sh(#""$H" -s 1 -q -c 'limit 52; add; add; show'"#)
    let result = try sh(
      #"head -c 5 ff > got5 & "$H" -s 1 -q -k big.hand; echo "status $?"; wait"#)
    XCTAssertEqual(result.out, reference.out + "status 1\n")
    XCTAssertEqual(result.err, "big.hand:12003:1: error: cannot write ff: Broken pipe\n")
    XCTAssertEqual(try contents("got5"), "#!/us")
    XCTAssertEqual(kind("ff"), S_IFIFO)
  }

  /// `save /dev/stdout` with stdout a pipe whose reader has already gone:
  /// `Broken pipe`, status 1, and the script stops there, so the next save
  /// never happens. (Caught the mutant that counted EPIPE on one of
  /// handsh's own streams as success: the save was lost silently, status
  /// 0, and `kept.hand` was written.)
  func testSaveIntoOwnStdoutWhoseReaderIsGoneIsABrokenPipe() throws {
    let closedReader = """
      import os, sys
      read, write = os.pipe()
      os.close(read)
      os.dup2(write, 1)
      os.execv(sys.argv[1], sys.argv[1:])
      """
    try make("closed.py", closedReader)
    let (executable, arguments) = TestProcess.withReadOnlyDev(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "python3", "closed.py", binary.path, "-s", "1", "-q", "-c",
        "add; save /dev/stdout; add; save kept.hand",
      ])
    let result = try TestProcess.run(executable, arguments, in: folder)
    XCTAssertFalse(result.timedOut)
    XCTAssertNil(result.signal, "handsh died of a signal")
    XCTAssertEqual(
      result.err, "<command line>:1:6: error: cannot write /dev/stdout: Broken pipe\n")
    XCTAssertEqual(result.status, 1)
    XCTAssertNil(status("kept.hand"), "the script went on after the failed save")
  }

  // MARK: - A full disk (finding 3)

  /// On a 64 KiB tmpfs with little room left, a 48 KB save over a file with
  /// two hard links, and over a writable file in a read-only folder, fails
  /// with `No space left on device` and leaves the old content whole.
  func testFullDiskLeavesInPlaceFilesAsTheyWere() throws {
    try mountSmallTmpfs()
    try make("mnt/a.hand", "old a\n")
    XCTAssertEqual(link(path("mnt/a.hand"), path("mnt/b.hand")), 0)
    XCTAssertEqual(mkdir(path("mnt/ro"), 0o755), 0)
    try make("mnt/ro/c.hand", "old c\n")
    XCTAssertEqual(chmod(path("mnt/ro/c.hand"), 0o666), 0)
    // Fill the disk until 24 KiB at most are left.
    try Data(count: 36 * 1024).write(to: url("mnt/filler"))
    let moves = String(repeating: "mv 1 2\n", count: 7_000)
    try make("big.hand", "limit 52\nadd; add\n" + moves + "save mnt/a.hand\n")
    let linked = try sh(#""$H" -s 1 -q big.hand"#)
    XCTAssertEqual(
      linked.err, "big.hand:7003:1: error: cannot write mnt/a.hand: No space left on device\n")
    XCTAssertEqual(linked.status, 1)
    XCTAssertEqual(try contents("mnt/a.hand"), "old a\n")
    XCTAssertEqual(try contents("mnt/b.hand"), "old a\n")

    // A writable file in a folder the user may not write: as nobody.
    guard getuid() == 0, let drop = try nobody() else { return }
    XCTAssertEqual(chmod(path("mnt/ro"), 0o555), 0)
    try make("ro.hand", "limit 52\nadd; add\n" + moves + "save mnt/ro/c.hand\n")
    let readOnly = try sh(drop + #" "$H" -s 1 -q ro.hand"#)
    XCTAssertEqual(
      readOnly.err,
      "ro.hand:7003:1: error: cannot write mnt/ro/c.hand: No space left on device\n")
    XCTAssertEqual(try contents("mnt/ro/c.hand"), "old c\n")
  }

  // MARK: - A sticky folder (finding 4)

  /// A writable file of another user's in a sticky folder (mode 1777):
  /// `save` writes it in place, as `echo x > FILE` does.
  func testSaveIntoAnotherUsersFileInAStickyFolder() throws {
    try requireRoot("the file must belong to another user than handsh's")
    guard let drop = try nobody() else { return }
    XCTAssertEqual(mkdir(path("sticky"), 0o777), 0)
    XCTAssertEqual(chmod(path("sticky"), 0o1777), 0)
    try make("sticky/shared", "old\n")
    XCTAssertEqual(chmod(path("sticky/shared"), 0o666), 0)
    let reference = try sh(#""$H" -s 1 -q -c 'add; save ref.hand'"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let result = try sh(drop + #" "$H" -s 1 -q -c 'add; save sticky/shared'"#)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(try contents("sticky/shared"), try contents("ref.hand"))
    XCTAssertEqual(status("sticky/shared")?.st_uid, 0, "the file changed hands")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("sticky")), ["shared"])
  }

  // MARK: - No memory reserved by a file's size (finding 5)

  /// A 2 GB sparse script under a 600 MB address-space limit ends with the
  /// line-limit error, not a failed allocation.
  func testHugeSparseScriptNeedsNoMemoryOfItsSize() throws {
    if ProcessInfo.processInfo.environment["HANDSH_TEST_SANITIZER"] != nil {
      throw XCTSkip("a sanitizer's shadow memory needs more address space than the limit")
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
      throw XCTSkip("no prlimit(1) to limit the address space with")
    }
    XCTAssertEqual(open(path("sparse.hand"), O_CREAT | O_WRONLY, 0o644).closing, 0)
    XCTAssertEqual(truncate(path("sparse.hand"), 2_000_000_000), 0)
    let result = try sh(#"/usr/bin/prlimit --as=600000000 "$H" sparse.hand"#)
    XCTAssertEqual(result.err, "sparse.hand:1:1: error: line is longer than 1048576 bytes\n")
    XCTAssertEqual(result.status, 1)
  }

  // MARK: - The largest status wins (finding 7)

  /// A missing test PATH (2) and a write error on stdout (1): status 2.
  func testMissingTestPathWinsOverAWriteError() throws {
    try requireRoot("mknod makes the full device")
    XCTAssertEqual(mknod(path("full"), S_IFCHR | 0o666, dev_t((1 << 8) | 7)), 0)
    try make("t.hand", "show\n#> (empty)\n")
    let result = try sh(#""$H" --test missing.hand t.hand > full"#)
    XCTAssertEqual(
      result.err,
      "handsh: cannot open 'missing.hand': No such file or directory\n"
        + "handsh: write error: No space left on device\n")
    XCTAssertEqual(result.status, 2)
  }

  // MARK: - A non-blocking stdout (finding 9)

  /// Stdout a non-blocking pipe whose reader is slow: every byte arrives,
  /// no `Resource temporarily unavailable`.
  func testNonBlockingStdoutIsWaitedOn() throws {
    try make("many.hand", "add\n" + String(repeating: "show\n", count: 30_000))
    let reference = try sh(#""$H" -s 1 -q many.hand > ref.txt"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let nonBlocking = """
      import fcntl, os, sys
      fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)
      os.execv(sys.argv[1], sys.argv[1:])
      """
    try make("nb.py", nonBlocking)
    let result = try sh(
      #"{ python3 nb.py "$H" -s 1 -q many.hand; echo $? > st; } | { sleep 1; cat > got.txt; }"#)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(try contents("st"), "0\n")
    XCTAssertEqual(try Data(contentsOf: url("got.txt")), try Data(contentsOf: url("ref.txt")))
  }

  // MARK: - Invisible characters in messages (finding 8)

  /// A tag character hidden in a word, and a Hangul filler after one, are
  /// shown by number: the message never reads `unknown command 'add'`.
  func testInvisibleCharactersInAWordAreShown() throws {
    let result = try sh(#"printf 'ad\363\240\201\241d\nadd\357\276\240\n' | "$H" -k -"#)
    XCTAssertEqual(
      result.err,
      "<stdin>:1:1: error: unknown command 'ad\\u{E0061}d' (did you mean 'add'?)\n"
        + "<stdin>:2:1: error: unknown command 'add\\u{FFA0}' (did you mean 'add'?)\n")
  }

  // MARK: - Helpers

  private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
  private func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  private func make(_ name: String, _ text: String) throws {
    try Data(text.utf8).write(to: url(name))
  }

  private func contents(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: url(name)), as: UTF8.self)
  }

  private func status(_ name: String) -> stat? {
    var result = stat()
    return lstat(path(name), &result) == 0 ? result : nil
  }

  private func kind(_ name: String) -> mode_t? { status(name).map { $0.st_mode & S_IFMT } }

  private func requireRoot(_ why: String) throws {
    if getuid() != 0 { throw XCTSkip("not root: \(why)") }
  }

  /// The words that run a command as uid/gid 65534 (setpriv), when root.
  private func nobody() throws -> String? {
    guard getuid() == 0 else { return nil }
    let drop = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
      try sh(drop + " /bin/true").status == 0
    else { throw XCTSkip("setpriv cannot drop to uid 65534") }
    return drop
  }

  /// A 64 KiB tmpfs at `mnt`, unmounted in tearDown.
  private func mountSmallTmpfs() throws {
    try requireRoot("mounting a tmpfs needs root")
    XCTAssertEqual(mkdir(path("mnt"), 0o755), 0)
    guard mount("tmpfs", path("mnt"), "tmpfs", 0, "size=64k,mode=0777") == 0 else {
      throw XCTSkip("cannot mount a tmpfs here: \(String(cString: strerror(errno)))")
    }
  }

  /// Runs SCRIPT with `/bin/sh -c` in the folder, `$H` naming handsh.
  private func sh(_ script: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> TestRun
  {
    let result = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder,
      environment: ["H": binary.path])
    XCTAssertFalse(result.timedOut, "\(script) timed out and was killed", file: file, line: line)
    XCTAssertNil(result.signal, "\(script) died of a signal", file: file, line: line)
    return result
  }
}

extension Int32 {
  /// Closes this descriptor; 0 when it was one and closed.
  fileprivate var closing: Int32 { self >= 0 ? close(self) : -1 }
}
