import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Nothing lost under any kill, any limit (handsh(1), FILES, SIGNALS,
/// LIMITS): one signal policy for the whole process, and every writer's
/// critical section declared to it. Faults land at exact system calls
/// through `strace -e inject`, so each test hits the moment it names.
///
/// Everything lives in the test's own temporary folder: links, sticky
/// folders, bind mounts (as root; skipped, saying why, where impossible).
final class SignalPolicyTests: XCTestCase, FolderTestCase {
  var folder: URL!
  var binary: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
  }

  override func tearDownWithError() throws {
    if let folder {
      _ = umount2(path("bound.hand"), Int32(MNT_DETACH))
      try? FileManager.default.removeItem(at: folder)
    }
  }

  /// A script whose `save` writes about 14 KB: two cards swapped 2000 times.
  private let bigSave = "add; add; " + String(repeating: "mv 1 2; ", count: 2000) + "mv 1 2"

  // MARK: - SIGTERM in the middle of a write in place

  /// A hard-linked file is written in place; a SIGTERM that arrives as the
  /// new content is written (strace injects it at that `write`) ends
  /// handsh only once the file is whole: the new content, never its head
  /// followed by the old tail.
  func testSIGTERMDuringAWriteInPlaceWaitsForTheWholeFile() throws {
    try requireStrace()
    let old = String(repeating: "# an old line that is longer than the new script\n", count: 400)
    try make("linked.hand", old)
    XCTAssertEqual(link(path("linked.hand"), path("other.hand")), 0)
    let reference = try sh(#""$H" -s 1 -q -c 'add; add; save ref.hand'"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let result = try sh(
      #"strace -f -o /dev/null -e trace=write -e inject=write:signal=SIGTERM:when=1 "#
        + #""$H" -s 1 -q -c 'add; add; save linked.hand'; echo "status $?""#)
    XCTAssertTrue(result.out.hasSuffix("status 143\n"), result.out + result.err)
    let now = try contents("linked.hand")
    let new = try contents("ref.hand")
    XCTAssertTrue(now == old || now == new, "a mix: \(now.prefix(300))")
    XCTAssertEqual(status("linked.hand")?.st_nlink, 2)
    XCTAssertEqual(try contents("other.hand"), now)
  }

  // MARK: - SIGTERM during --update -j 2

  /// The main thread waits in pthread_join while a worker writes: a
  /// SIGTERM from outside then waits for the worker's write, and handsh
  /// ends by it with no temporary file left and each file old or new,
  /// whole. A thread held in its `fsync` (strace delays its start), or
  /// just after its `linkat` (with the temporary name given and the rename
  /// to come), holds the window open; both threads get to be the slow one.
  func testSIGTERMDuringParallelUpdateLeavesNoTemporaryFile() throws {
    try requireStrace()
    let body = String(repeating: "add\n#> wrong\ndel 1\n", count: 300)
    for delay in ["fsync:delay_enter", "linkat:delay_exit"] {
      for when in [1, 2] {
        let names = ["a.hand", "b.hand"]
        for name in names { try make(name, "#!/usr/bin/env -S handsh --seed 1\n" + body) }
        let call = delay.prefix { $0 != ":" }
        let result = try sh(
          "strace -f -o /dev/null -e trace=\(call) -e inject=\(delay)=1500000:when=\(when)"
            + #" "$H" --test --update -j 2 a.hand b.hand > /dev/null 2>&1 & pid=$!; "#
            + #"sleep 1; kill -TERM $(pgrep -P $pid); wait $pid; echo "status $?""#)
        XCTAssertTrue(result.out.contains("status"), result.out + result.err)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
          .filter { $0.contains(".tmp-") }
        XCTAssertEqual(left, [], "temporary files left (\(delay) \(when))")
        for name in names {
          let text = try contents(name)
          XCTAssertTrue(
            text.hasPrefix("#!/usr/bin/env -S handsh --seed 1\n") && text.hasSuffix("\n"),
            "\(name) is not whole")
        }
        for name in left { try? FileManager.default.removeItem(at: url(name)) }
      }
    }
  }

  /// A SIGTERM sent to the worker thread alone (`tgkill`), not to the
  /// process: the worker blocks it, so it waits on that thread, and the
  /// policy must still see it when the worker's write in progress ends.
  /// handsh then ends by SIGTERM after that write, and most of the 400
  /// files are left as they were; a policy that looks only at the
  /// signals the main thread takes loses it, and updates every file.
  func testSIGTERMSentToAWorkerThreadEndsTheParallelUpdate() throws {
    let body = String(repeating: "add\n#> wrong\ndel 1\n", count: 30)
    let names = (1...400).map { "f\($0).hand" }
    for name in names { try make(name, "#!/usr/bin/env -S handsh --seed 1\n" + body) }
    typealias ThreadKill = @convention(c) (pid_t, pid_t, Int32) -> Int32
    guard let symbol = dlsym(nil, "tgkill") else { throw XCTSkip("no tgkill in this libc") }
    let tgkill = unsafeBitCast(symbol, to: ThreadKill.self)
    var sent: (worker: pid_t, result: Int32)?
    let result = try TestProcess.run(
      binary, ["--test", "--update", "-j", "2"] + names, in: folder, stdout: FileHandle.nullDevice,
      timeout: 60
    ) { process in
      let pid = process.processIdentifier
      let deadline = Date().addingTimeInterval(20)
      // The worker is the thread that is not the main one.
      while sent == nil, Date() < deadline {
        let tasks =
          (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        if let worker = tasks.compactMap({ pid_t($0) }).first(where: { $0 != pid }) {
          sent = (worker, tgkill(pid, worker, SIGTERM))
        } else {
          usleep(200)
        }
      }
    }
    XCTAssertEqual(sent?.result, 0, "no worker thread was seen, or tgkill failed")
    XCTAssertEqual(result.signal, SIGTERM, "status \(result.status): \(result.err)")
    let updated = try names.filter { try !contents($0).contains("wrong") }
    XCTAssertLessThan(updated.count, names.count, "every file was updated after the SIGTERM")
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.contains(".tmp-") }
    XCTAssertEqual(left, [], "temporary files left")
  }

  // MARK: - A file-size limit

  /// `prlimit --fsize`: `File too large`, status 1, nothing left behind;
  /// never a death by SIGXFSZ.
  func testFileSizeLimitIsAWriteError() throws {
    let result = try sh(
      #"prlimit --fsize=10000 "$H" -s 1 -q -c '"# + bigSave + #"; save big.hand'"#)
    XCTAssertEqual(result.status, 1, result.err)
    XCTAssertTrue(
      result.err.hasSuffix("error: cannot write big.hand: File too large\n"), result.err)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    // In place (a hard link): the old content stays.
    try make("linked.hand", "old\n")
    XCTAssertEqual(link(path("linked.hand"), path("other.hand")), 0)
    let linked = try sh(
      #"prlimit --fsize=10000 "$H" -s 1 -q -c '"# + bigSave + #"; save linked.hand'"#)
    XCTAssertEqual(linked.status, 1, linked.err)
    XCTAssertTrue(
      linked.err.hasSuffix("error: cannot write linked.hand: File too large\n"), linked.err)
    XCTAssertEqual(try contents("linked.hand"), "old\n")
  }

  // MARK: - Another name of stdout

  /// `save /proc/thread-self/fd/1` and `save o8` while stdout is `> o8`:
  /// written into the stream, in order, o8 never replaced.
  func testAnotherNameOfStdoutIsWrittenIntoTheStream() throws {
    let reference = try sh(#""$H" -s 1 -c 'add; save ref.hand; add' > ref.txt"#)
    XCTAssertEqual(reference.status, 0, reference.err)
    let lines = try contents("ref.txt").split(separator: "\n", omittingEmptySubsequences: false)
    let script = try contents("ref.hand")
    let expected = lines[0] + "\n" + script + lines[1...].joined(separator: "\n")
    for name in ["/proc/thread-self/fd/1", "o8"] {
      try make("o8", "")
      let before = status("o8")?.st_ino
      let result = try sh(#""$H" -s 1 -c 'add; save "# + name + #"; add' > o8"#)
      XCTAssertEqual(result.status, 0, result.err)
      XCTAssertEqual(status("o8")?.st_ino, before, "o8 replaced through \(name)")
      XCTAssertEqual(try contents("o8"), expected, name)
    }
  }

  // MARK: - Links in a shared sticky folder

  /// A link that uid 65534 made in a sticky folder that all may write (as
  /// /tmp): root's `save` and `source` refuse to follow it, as Linux's
  /// protected_symlinks rules; nothing is created or changed. A link the
  /// user owns is followed.
  func testLinksOfOtherUsersInStickyFoldersAreNotFollowed() throws {
    try requireRoot("making a link owned by another user needs root")
    XCTAssertEqual(mkdir(path("shared"), 0o777), 0)
    XCTAssertEqual(chmod(path("shared"), 0o1777), 0)
    try make("victim.hand", "new 1\n")
    XCTAssertEqual(chmod(path("victim.hand"), 0o600), 0)
    XCTAssertEqual(symlink(path("victim.hand"), path("shared/existing")), 0)
    XCTAssertEqual(symlink(path("created.hand"), path("shared/dangling")), 0)
    XCTAssertEqual(lchown(path("shared/existing"), 65534, 65534), 0)
    XCTAssertEqual(lchown(path("shared/dangling"), 65534, 65534), 0)
    let result = try sh(
      #""$H" -s 1 -q -k -c 'add; save shared/existing; save shared/dangling; source shared/existing'"#
    )
    XCTAssertEqual(
      result.err,
      "<command line>:1:6: error: cannot write shared/existing: Permission denied\n"
        + "<command line>:1:28: error: cannot write shared/dangling: Permission denied\n"
        + "<command line>:1:50: error: cannot read shared/existing: Permission denied\n")
    XCTAssertEqual(try contents("victim.hand"), "new 1\n")
    XCTAssertNil(status("created.hand"))
    // The user's own link is followed.
    XCTAssertEqual(symlink(path("mine.hand"), path("shared/mine")), 0)
    let own = try sh(#""$H" -s 1 -q -c 'add; save shared/mine; source shared/mine'"#)
    XCTAssertEqual(own.status, 0, own.err)
    XCTAssertNotNil(status("mine.hand"))
  }

  // MARK: - A file that cannot be renamed over

  /// A bind-mounted file (as in a container): `rename` fails with
  /// `Device or resource busy`, so it is written in place, as `>` does.
  func testBindMountedFileIsWrittenInPlace() throws {
    try requireRoot("a bind mount needs root")
    try make("bound.hand", "old\n")
    try make("source.hand", "old\n")
    guard mount(path("source.hand"), path("bound.hand"), nil, UInt(MS_BIND), nil) == 0 else {
      throw XCTSkip("cannot bind-mount here: \(String(cString: strerror(errno)))")
    }
    let reference = try sh(#""$H" -s 1 -q -c 'add; save ref.hand'"#)
    let result = try sh(#""$H" -s 1 -q -c 'add; save bound.hand'"#)
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(reference.status, 0, reference.err)
    let script = try contents("ref.hand")
    XCTAssertEqual(try contents("bound.hand"), script)
    XCTAssertEqual(try contents("source.hand"), script)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.contains(".tmp-") }
    XCTAssertEqual(left, [])
  }

  // MARK: - A NUL byte in FILE

  /// Always `Invalid argument`, nothing written or read: never the part
  /// before the NUL (here a hard-linked file and a script that exist).
  func testNulByteInFileIsAlwaysInvalid() throws {
    try make("x", "new 1\nadd\n")
    XCTAssertEqual(link(path("x"), path("x2")), 0)
    try Data("add\nsave \"x\0y\"\nsave \"n\0y\"\nsource \"x\0y\"\n".utf8).write(to: url("s.hand"))
    let result = try sh(#""$H" -s 1 -q -k s.hand"#)
    XCTAssertEqual(result.status, 1)
    let lines = result.err.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3, result.err)
    for line in lines { XCTAssertTrue(line.hasSuffix(": Invalid argument"), line) }
    XCTAssertEqual(try contents("x"), "new 1\nadd\n")
    XCTAssertNil(status("n"))
  }

  // MARK: - SIGKILL leaves no temporary file

  /// A new file is written unnamed (`O_TMPFILE`) and named once whole, and
  /// a replaced file gets its temporary name only just before the rename:
  /// a SIGKILL while the content is written leaves nothing behind.
  func testSIGKILLDuringASaveLeavesNoTemporaryFile() throws {
    try requireStrace()
    try make("old.hand", "old\n")
    for name in ["new.hand", "old.hand"] {
      _ = try sh(
        #"strace -f -o /dev/null -e trace=write -e inject=write:signal=SIGKILL:when=1 "#
          + #""$H" -s 1 -q -c '"# + bigSave + "; save \(name)'")
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.contains(".tmp-") }
      XCTAssertEqual(left, [], "SIGKILL while writing \(name)")
    }
    XCTAssertNil(status("new.hand"))
    XCTAssertEqual(try contents("old.hand"), "old\n")
  }

  /// Where an unnamed file cannot be given a name (no /proc, and not the
  /// privilege to name it by its descriptor: strace makes every linkat
  /// fail), a save still works, through a named temporary file.
  func testUnnamedFileThatCannotBeNamedFallsBack() throws {
    try requireStrace()
    try make("old.hand", "old\n")
    let result = try sh(
      #"strace -f -o /dev/null -e trace=linkat -e inject=linkat:error=ENOENT "#
        + #""$H" -s 1 -q -c 'add; save new.hand; save old.hand'"#)
    XCTAssertEqual(result.status, 0, result.err)
    let script = try contents("new.hand")
    XCTAssertTrue(script.hasPrefix("#!/usr/bin/env handsh\n"), script)
    XCTAssertEqual(try contents("old.hand"), script)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      ["new.hand", "old.hand"])
  }

  // MARK: - Arguments without /proc

  /// The Swift runtime finds the arguments through /proc/self/maps; where
  /// that cannot be read (no /proc in a chroot, an I/O error: strace
  /// injects EIO), handsh still runs its `-c` text, never stdin instead,
  /// which silently wrote nothing (the crash sweep found it).
  func testArgumentsNeedNoProc() throws {
    try requireStrace()
    let result = try sh(
      #"strace -f -o /dev/null -P /proc/self/maps -e trace=openat -e inject=openat:error=EIO "#
        + #""$H" -s 1 -c 'add; save p.hand' < /dev/null"#)
    XCTAssertEqual(result.status, 0, result.err)
    XCTAssertEqual(result.out, "7♦\n")
    XCTAssertNotNil(status("p.hand"))
  }

  // MARK: - Helpers

  private func requireStrace() throws {
    guard try sh("strace -f -o /dev/null /bin/true").status == 0 else {
      throw XCTSkip("strace cannot trace here (scripts/bootstrap installs it)")
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
    return result
  }
}
