import Foundation
import XCTest

/// What another user, a fault or a signal can do meanwhile (handsh(1),
/// FILES, SIGNALS): a link to a folder planted in a sticky folder is
/// refused like a link to a file; an in-place write that could not be
/// undone is not made; a path as long as Linux takes is replaced like any
/// other; every catchable signal that ends handsh waits for the write in
/// progress; a failed `fchown` writes in place instead of changing the
/// owner. Each test failed on the binary before the one way of opening.
final class MeanwhileTests: XCTestCase, FolderTestCase {
  var folder: URL!
  var binary: URL!

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
    XCTAssertEqual(chmod(folder.path, 0o777), 0)
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func handsh(_ arguments: [String], unprivileged: Bool = false) throws -> TestRun {
    let (executable, words) =
      unprivileged
      ? try TestProcess.unprivileged(binary, arguments) : (binary!, arguments)
    return try TestProcess.run(executable, words, in: folder)
  }

  /// `sticky/dirlink -> victim`, planted by another user (uid 65534) in a
  /// 1777 folder: `save` through it (over a file, or a new one) and
  /// `source` through it are refused, and the victim folder is untouched.
  func testALinkToAFolderInAStickyFolderIsRefused() throws {
    try requireRoot("only root can plant a link owned by another user")
    try write("victim/x.hand", "victim\n")
    try FileManager.default.createDirectory(at: url("sticky"), withIntermediateDirectories: true)
    XCTAssertEqual(chmod(path("sticky"), 0o1777), 0)
    XCTAssertEqual(symlink("../victim", path("sticky/dirlink")), 0)
    XCTAssertEqual(lchown(path("sticky/dirlink"), 65534, 65534), 0)
    for (command, message) in [
      ("add; save sticky/dirlink/x.hand", "cannot write sticky/dirlink/x.hand: Permission denied"),
      (
        "add; save sticky/dirlink/new.hand",
        "cannot write sticky/dirlink/new.hand: Permission denied"
      ),
      ("source sticky/dirlink/x.hand", "cannot read sticky/dirlink/x.hand: Permission denied"),
    ] {
      let result = try handsh(["-q", "-c", command])
      XCTAssertEqual(result.status, 1, command)
      XCTAssertTrue(result.err.contains(message), result.err)
    }
    XCTAssertEqual(try text("victim/x.hand"), "victim\n")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("victim")), ["x.hand"])
  }

  /// A hard-linked file the user may write but not read: its old content
  /// could not be put back, so it is not written at all (as vim will not
  /// write a file it cannot back up); before, it was rewritten in place.
  func testAnInPlaceTargetThatCannotBeReadIsNotWritten() throws {
    try requireRoot("only root can run handsh as another user")
    try make("t.hand", "old content\n")
    XCTAssertEqual(link(path("t.hand"), path("t2.hand")), 0)
    XCTAssertEqual(chown(path("t.hand"), 65534, 65534), 0)
    XCTAssertEqual(chmod(path("t.hand"), 0o200), 0)
    let result = try handsh(["-q", "-c", "add; save t.hand"], unprivileged: true)
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.err.contains("cannot write t.hand: Permission denied"), result.err)
    XCTAssertEqual(try contents("t2.hand"), "old content\n")
  }

  /// A hard-linked file over 64 MiB: its old content is not kept in
  /// memory, so it is not written in place: `File too large`, unchanged.
  func testAnInPlaceTargetOver64MiBIsNotWritten() throws {
    try make("big.hand", "# old\n")
    XCTAssertEqual(truncate(path("big.hand"), (64 << 20) + 1), 0)
    XCTAssertEqual(link(path("big.hand"), path("big2.hand")), 0)
    let result = try handsh(["-q", "-c", "add; save big.hand"])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.err.contains("cannot write big.hand: File too large"), result.err)
    XCTAssertEqual(status("big.hand")?.st_size, (64 << 20) + 1)
    let head = try FileHandle(forReadingFrom: url("big.hand")).read(upToCount: 6)
    XCTAssertEqual(head, Data("# old\n".utf8))
  }

  /// A path of 4,095 bytes, the longest Linux takes: made, then replaced
  /// (before, the temporary name pushed the path past PATH_MAX).
  func testThe4095BytePathIsReplacedLikeAnyOther() throws {
    var parts: [String] = []
    let base = folder.path + "/"
    while base.utf8.count + parts.joined(separator: "/").utf8.count < 3800 {
      parts.append(String(repeating: "d", count: 200))
    }
    let directory = base + parts.joined(separator: "/")
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
    let target = directory + "/" + String(repeating: "x", count: 4095 - directory.utf8.count - 1)
    XCTAssertEqual(target.utf8.count, 4095)
    for script in ["add; save \(target)", "add; add; save \(target)"] {
      let result = try handsh(["--seed", "42", "-q", "-c", script])
      XCTAssertEqual(result.err, "")
      XCTAssertEqual(result.status, 0)
    }
    let saved = try String(contentsOfFile: target, encoding: .utf8)
    XCTAssertEqual(saved.split(separator: "\n").filter { $0.hasPrefix("add ") }.count, 2)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).count, 1)
  }

  /// Signals beyond SIGTERM, SIGHUP, SIGQUIT and SIGINT, sent in the middle
  /// of an in-place write of a 1.2 MB hard-linked file (strace delivers
  /// each at the fifth `write`): handsh ends by that very signal, and the
  /// file holds the new script whole (before: the new script, then old
  /// lines). Real-time signals are in the policy too.
  func testEverySignalThatEndsHandshWaitsForTheWrite() throws {
    let strace = try requiredTool("strace")
    try make("gen.hand", String(repeating: "limit 6; limit 5\n", count: 20_000))
    let old = String(repeating: "# an old line of the file\n", count: 50_000)
    for (name, number) in [
      ("SIGUSR1", SIGUSR1), ("SIGALRM", SIGALRM), ("SIGPWR", SIGPWR), ("40", Int32(40)),
    ] {
      try make("t.hand", old)
      try? FileManager.default.removeItem(at: url("t2.hand"))
      XCTAssertEqual(link(path("t.hand"), path("t2.hand")), 0)
      let result = try TestProcess.run(
        strace,
        [
          "-f", "-o", "/dev/null", "-e", "inject=write:signal=\(name):when=5", binary.path,
          "-q", "-c", "source gen.hand; save t.hand",
        ], in: folder)
      XCTAssertEqual(result.signal, number, "\(name): \(result.err)")
      let saved = try contents("t.hand")
      XCTAssertTrue(saved.hasPrefix("#!/usr/bin/env handsh\n"), name)
      XCTAssertFalse(saved.contains("# an old line"), "\(name): old lines after the new script")
    }
  }

  /// `source` of handsh's own stdout or stderr, by any name, is `Bad file
  /// descriptor` at once: before, `handsh so.hand | cat` with `source
  /// /dev/stdout` waited on its own pipe for ever. stdin stays a script
  /// that may be sourced.
  func testSourceOfItsOwnOutputIsABadDescriptor() throws {
    try make("so.hand", "add\nsource /dev/stdout\n")
    let piped = try shell("\"$0\" --seed 42 so.hand | cat")
    XCTAssertFalse(piped.timedOut)
    XCTAssertTrue(
      piped.err.contains("so.hand:2:1: error: cannot read /dev/stdout: Bad file descriptor"),
      piped.err)
    for name in ["/dev/stderr", "/proc/self/fd/1", "/proc/thread-self/fd/2"] {
      let result = try shell("\"$0\" -c 'source \(name)' 2>&1 | cat")
      XCTAssertFalse(result.timedOut, name)
      XCTAssertTrue(result.out.contains("cannot read \(name): Bad file descriptor"), result.out)
    }
    let stdin = try shell("echo show | \"$0\" -c 'source /dev/stdin'")
    XCTAssertEqual(stdin.out, "(empty)\n")
    XCTAssertEqual(stdin.status, 0)
  }
}
