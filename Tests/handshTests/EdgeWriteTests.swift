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
/// mounted there in a user namespace of the run's own.
final class EdgeWriteTests: XCTestCase, FolderTestCase {
  var folder: URL!
  var binary: URL!
  private var previousSigpipe: sighandler_t?

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
    previousSigpipe = signal(SIGPIPE, SIG_IGN)
  }

  override func tearDownWithError() throws {
    if let previousSigpipe { signal(SIGPIPE, previousSigpipe) }
    if let folder { try? FileManager.default.removeItem(at: folder) }
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

  /// `save` into handsh's own stdout (through `out`, a link in the test's
  /// folder to `/proc/self/fd/1`, as `/dev/stdout` is one: no test aims a
  /// write at the machine's /dev) with stdout a pipe whose reader has gone:
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
    try FileManager.default.createSymbolicLink(
      atPath: path("out"), withDestinationPath: "/proc/self/fd/1")
    let (executable, arguments) = TestProcess.withReadOnlyDev(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "python3", "closed.py", binary.path, "-s", "1", "-q", "-c",
        "add; save out; add; save kept.hand",
      ])
    let result = try TestProcess.run(executable, arguments, in: folder)
    XCTAssertFalse(result.timedOut)
    XCTAssertNil(result.signal, "handsh died of a signal")
    XCTAssertEqual(
      result.err, "<command line>:1:6: error: cannot write out: Broken pipe\n")
    XCTAssertEqual(result.status, 1)
    XCTAssertNil(status("kept.hand"), "the script went on after the failed save")
  }

  // MARK: - A full disk (finding 3)

  /// On a 64 KiB tmpfs with little room left, a 48 KB save over a file with
  /// two hard links, and over a writable file in a read-only folder, fails
  /// with `No space left on device` and leaves the old content whole.
  ///
  /// The tmpfs is mounted in a user and mount namespace of the run's own
  /// (`unshare -rm`), which needs no root: the check runs as whoever runs
  /// the tests, and as uid 65534 too when that is root. handsh runs as the
  /// namespace's root; the read-only folder's save runs with every
  /// capability dropped, so that the folder's mode stops it as it stops a
  /// user.
  func testFullDiskLeavesInPlaceFilesAsTheyWere() throws {
    try fullDisk(in: "self", as: nil)
    if getuid() == 0, let drop = try nobody() { try fullDisk(in: "nobody", as: drop) }
  }

  /// The full-disk check in the folder's subfolder NAME, as DROP (setpriv's
  /// words) when given.
  private func fullDisk(in name: String, as drop: String?, line: UInt = #line) throws {
    XCTAssertEqual(mkdir(path(name), 0o755), 0)
    XCTAssertEqual(mkdir(path(name + "/mnt"), 0o755), 0)
    let moves = String(repeating: "mv 1 2\n", count: 7_000)
    try make(name + "/big.hand", "limit 52\nadd; add\n" + moves + "save mnt/a.hand\n")
    try make(name + "/ro.hand", "limit 52\nadd; add\n" + moves + "save mnt/ro/c.hand\n")
    // Fills the disk until 24 KiB at most are left.
    try Data(count: 36 * 1024).write(to: url(name + "/filler"))
    let scenario = """
      mount -t tmpfs -o size=64k,mode=0777 tmpfs mnt || exit 125
      printf 'old a\\n' > mnt/a.hand && ln mnt/a.hand mnt/b.hand && mkdir mnt/ro &&
        printf 'old c\\n' > mnt/ro/c.hand && chmod 666 mnt/ro/c.hand && chmod 555 mnt/ro &&
        cp filler mnt/filler || exit 1
      "$H" -s 1 -q big.hand 2> linked.err; echo $? > linked.status
      setpriv --bounding-set=-all --inh-caps=-all "$H" -s 1 -q ro.hand 2> ro.err
      echo $? > ro.status
      cat mnt/a.hand mnt/b.hand mnt/ro/c.hand > after

      """
    try make(name + "/disk.sh", scenario)
    if drop != nil {
      for file in ["", "/mnt", "/big.hand", "/ro.hand", "/filler", "/disk.sh"] {
        XCTAssertEqual(chown(path(name + file), 65534, 65534), 0, file)
      }
    }
    let unshare = (drop.map { $0 + " " } ?? "") + "/usr/bin/unshare -rm"
    let run = try sh(
      "cd \(name) && { \(unshare) /bin/true || exit 125; } && \(unshare) /bin/sh disk.sh",
      line: line)
    if run.status == 125 {
      // scripts/bootstrap cannot make a kernel allow user namespaces.
      let why = "unshare -rm cannot mount a tmpfs here: \(run.err)"
      if runningInCI() { throw MissingTool(description: why) }
      throw XCTSkip(why)
    }
    XCTAssertEqual(run.status, 0, run.err, line: line)
    XCTAssertEqual(
      try contents(name + "/linked.err"),
      "big.hand:7003:1: error: cannot write mnt/a.hand: No space left on device\n", line: line)
    XCTAssertEqual(try contents(name + "/linked.status"), "1\n", line: line)
    XCTAssertEqual(
      try contents(name + "/ro.err"),
      "ro.hand:7003:1: error: cannot write mnt/ro/c.hand: No space left on device\n", line: line)
    XCTAssertEqual(try contents(name + "/ro.status"), "1\n", line: line)
    XCTAssertEqual(try contents(name + "/after"), "old a\nold a\nold c\n", line: line)
  }

  // MARK: - A write in place that fails after its first change

  /// A hard-linked file is written in place; when the write fails after
  /// the new content is all in the file (strace makes its `fsync` fail
  /// with EIO), the old content and the old size are put back: both
  /// names show the old file, byte for byte, still one inode, and the
  /// failure is said. Old contents longer and shorter than the new script
  /// (the size is taken back too).
  func testAWriteInPlaceThatFailsLateIsTakenBack() throws {
    try requireStrace()
    let longer = String(repeating: "# an old line, longer than the new script\n", count: 60)
    for (name, old) in [("longer", longer), ("shorter", "# old\n")] {
      try make("\(name).hand", old)
      XCTAssertEqual(link(path("\(name).hand"), path("\(name)-link.hand")), 0)
      var before = stat()
      XCTAssertEqual(stat(path("\(name).hand"), &before), 0)
      let result = try sh(
        #"strace -f -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=1 "#
          + #""$H" -s 1 -q -c 'add; add; add; save \#(name).hand'; echo "status $?""#)
      XCTAssertTrue(result.out.hasSuffix("status 1\n"), "\(name): \(result.out)\(result.err)")
      XCTAssertTrue(
        result.err.hasSuffix("error: cannot write \(name).hand: Input/output error\n"),
        "\(name): \(result.err)")
      XCTAssertEqual(try contents("\(name).hand"), old, "\(name): the old content is not back")
      XCTAssertEqual(try contents("\(name)-link.hand"), old, "\(name): the other link differs")
      var after = stat()
      XCTAssertEqual(stat(path("\(name).hand"), &after), 0)
      XCTAssertEqual(after.st_ino, before.st_ino, "\(name): not written in place")
      XCTAssertEqual(after.st_nlink, 2)
    }
    // Without the fault the same save writes the new script in place.
    let whole = try sh(#""$H" -s 1 -q -c 'add; add; add; save longer.hand'"#)
    XCTAssertEqual(whole.status, 0, whole.err)
    XCTAssertTrue(try contents("longer-link.hand").hasPrefix("#!/usr/bin/env handsh\n"))
  }

  /// Skips (fails in CI) where strace cannot trace.
  private func requireStrace() throws {
    guard try sh("strace -f -o /dev/null /bin/true").status == 0 else {
      let why = "strace cannot trace here (scripts/bootstrap installs it)"
      if runningInCI() { throw MissingTool(description: why) }
      throw XCTSkip(why)
    }
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

  private func kind(_ name: String) -> mode_t? { status(name).map { $0.st_mode & S_IFMT } }

  /// The words that run a command as uid/gid 65534 (setpriv), when root.
  private func nobody() throws -> String? {
    guard getuid() == 0 else { return nil }
    let drop = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
      try sh(drop + " /bin/true").status == 0
    else {
      // In CI (as root) every check runs: a skip there would hide one.
      if runningInCI() { throw MissingTool(description: "setpriv cannot drop to uid 65534") }
      throw XCTSkip("setpriv cannot drop to uid 65534")
    }
    return drop
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
