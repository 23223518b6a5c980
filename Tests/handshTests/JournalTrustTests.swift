import Foundation
import XCTest

/// `--journal FILE` held to a database log's standard (handsh(1), JOURNAL):
/// only a journal is resumed, read in pieces; every flush is checked, and
/// a failed one is a located failed write that stops a batch run; FILE is
/// never an input of its own session; another program's lock is named as
/// such; a FILE that could not be made whole is not left behind; a short
/// write leaves whole lines only; nothing later on a line runs after a
/// failed journal write.
final class JournalTrustTests: FolderTests {
  let head = "#!/usr/bin/env -S handsh --seed 42 --limit 5\n"

  /// NAME's text without its time lines (`#@ SECONDS`): what these tests
  /// hold FILE to is its changes; `JournalTimeTests` holds the times.
  func changes(_ name: String) throws -> String {
    try text(name).split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("#@ ") }.joined(separator: "\n")
  }

  /// Runs the binary with `stdin` written to a file of the test's folder as
  /// its standard input.
  private func handsh(_ arguments: [String], stdin: String) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: folder, stdin: stdinFile(stdin))
  }

  /// `text` in a new file of the test's folder, to be a run's stdin.
  private func stdinFile(_ text: String) throws -> URL {
    let url = url("stdin-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  /// handsh under strace, with `faults` injected (`-e inject=…`).
  private func faulted(_ faults: [String], _ arguments: [String], stdin: String? = nil) throws
    -> TestRun
  {
    let strace = try requiredTool("strace")
    let input = try stdin.map(stdinFile)
    return try TestProcess.run(
      strace,
      ["-f", "-o", "/dev/null"] + faults.flatMap { ["-e", "inject=" + $0] }
        + [binary.path] + arguments, in: folder, stdin: input)
  }

  /// 41.1: a file that is not a journal is refused, never replaced: one
  /// with no line break at all, whatever its size, and one whose line 1 is
  /// not a journal's (with a bad limit or seed too: 47.7).
  func testOnlyAJournalIsResumed() throws {
    var cases = [
      ("notes.txt", "my notes"), ("long.txt", String(repeating: "x", count: 3 << 20)),
      ("text.txt", "hello\nworld\n"),
    ]
    for limit in ["0", "53", "12345678901234567890", "05", ""] {
      cases.append(("l\(limit).hand", "#!/usr/bin/env -S handsh --seed 1 --limit \(limit)\nadd\n"))
    }
    cases.append(("s.hand", "#!/usr/bin/env -S handsh --seed 123456789012345678901 --limit 5\n"))
    for (name, body) in cases {
      try make(name, body)
      let run = try handsh(["--journal", name, "-q", "-c", "add"])
      XCTAssertEqual(run.status, 2, name)
      XCTAssertEqual(run.err, "handsh: cannot resume from \(name): 1:1: not a handsh journal\n")
      XCTAssertEqual(try text(name), body, name)
    }
    // 47.7: a bare `limit` and a `new` without its seed are no journal's.
    for (body, message) in [
      ("limit", "2:1: not a journal command 'limit'"),
      ("new", "2:1: not a journal command 'new'"),
    ] {
      try make("b.hand", head + body + "\n")
      let run = try handsh(["--journal", "b.hand", "-q", "-c", "add"])
      XCTAssertEqual(run.status, 2)
      XCTAssertEqual(run.err, "handsh: cannot resume from b.hand: \(message)\n")
      XCTAssertEqual(try changes("b.hand"), head + body + "\n")
    }
  }

  /// 41.1: an empty FILE is a missing one; a torn tail of at most 64 bytes
  /// is dropped and shown, made safe; a longer one is an error that
  /// touches nothing.
  func testTheTornTailRule() throws {
    try make("e.hand", "")
    let empty = try handsh(["--journal", "e.hand", "--seed", "42", "-q", "-c", "add; show"])
    XCTAssertEqual(empty.status, 0, empty.err)
    XCTAssertEqual(try changes("e.hand"), head + "add 7H\n")
    try make("t.hand", head + "add 7H\ndel\u{1B}1")
    let torn = try handsh(["--journal", "t.hand", "-q", "-c", "show"])
    XCTAssertEqual(torn.err, "handsh: t.hand: dropped an incomplete last line 'del\\x1B1'\n")
    XCTAssertEqual(try changes("t.hand"), head + "add 7H\n")
    let long = head + "add 7H\n" + String(repeating: "#", count: 65)
    try make("l.hand", long)
    let refused = try handsh(["--journal", "l.hand", "-q", "-c", "show"])
    XCTAssertEqual(refused.status, 2)
    XCTAssertEqual(
      refused.err,
      "handsh: cannot resume from l.hand: 3:1: incomplete last line of 65 bytes (more than 64)\n")
    XCTAssertEqual(try changes("l.hand"), long)
    // A tail after a line that does not resume is that line's error.
    try make("b.hand", head + "del 1\nadd")
    let bad = try handsh(["--journal", "b.hand", "-q", "-c", "show"])
    XCTAssertEqual(
      bad.err, "handsh: cannot resume from b.hand: 2:1: no card at position 1 (hand has 0 cards)\n"
    )
    XCTAssertEqual(try changes("b.hand"), head + "del 1\nadd")
  }

  /// 41.2: resuming reads FILE in pieces: a journal followed by a 1 GB line
  /// (sparse) under a 600 MB address-space limit is the located error.
  func testResumeReadsInPieces() throws {
    let prlimit = try requiredTool("prlimit")
    try make("big.hand", head + "add 7H\n")
    XCTAssertEqual(truncate(path("big.hand"), 1 << 30), 0)
    let run = try TestProcess.run(
      prlimit, ["--as=600000000", binary.path, "--journal", "big.hand", "-q", "-c", "show"],
      in: folder)
    XCTAssertEqual(run.status, 2, run.err)
    XCTAssertEqual(
      run.err, "handsh: cannot resume from big.hand: 3:1: line is longer than 1048576 bytes\n")
    XCTAssertEqual(status("big.hand")?.st_size, 1 << 30)
  }

  /// 41.3: a failed fdatasync is a failed write: status 1, said at the
  /// first command whose line it may have lost, FILE cut back to what was
  /// on disk.
  func testAFailedFlushIsAFailedWrite() throws {
    XCTAssertEqual(
      try handsh(["--journal", "d.hand", "--seed", "42", "-q", "-c", "add"]).status, 0)
    let run = try faulted(
      ["fdatasync:error=EIO:when=1+"], ["--journal", "d.hand", "-q", "-c", "show\n  add; add"])
    XCTAssertEqual(run.status, 1)
    XCTAssertEqual(
      run.err, "<command line>:2:3: error: cannot write journal d.hand: Input/output error\n")
    XCTAssertEqual(try changes("d.hand"), head + "add 7H\n")
  }

  /// 41.3, 47.2: the flushes are there, on FILE's descriptor, after its
  /// last write; and a FILE handsh makes has its folder flushed.
  func testTheFlushesAreThere() throws {
    let strace = try requiredTool("strace")
    let run = try TestProcess.run(
      strace,
      [
        "-f", "-o", "trace", "-e", "trace=openat,pwrite64,fdatasync,fsync", binary.path,
        "--journal", "n.hand", "--seed", "42", "-q", "-c", "add; add",
      ], in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    let calls = try changes("trace").split(separator: "\n").map(String.init)
    let opened = calls.first { $0.contains("n.hand") && $0.contains("O_CREAT") }
    let fd = opened.flatMap { $0.split(separator: "=").last }.map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    XCTAssertNotNil(fd, "\(calls)")
    guard let fd else { return }
    let lastWrite = calls.lastIndex { $0.contains("pwrite64(\(fd),") }
    let lastSync = calls.lastIndex { $0.contains("fdatasync(\(fd))") }
    XCTAssertNotNil(lastWrite, "\(calls)")
    XCTAssertNotNil(lastSync, "\(calls)")
    if let lastWrite, let lastSync { XCTAssertLessThan(lastWrite, lastSync) }
    let folderOpen = calls.firstIndex { $0.contains("O_DIRECTORY") && $0.contains("\".\"") }
    XCTAssertNotNil(folderOpen, "\(calls)")
    XCTAssertTrue(calls.contains { $0.hasPrefix("fsync(") || $0.contains(" fsync(") }, "\(calls)")
  }

  /// 41.5: on stdin the run stops at the first command whose line the
  /// journal could not write; with -k it goes on without the journal,
  /// saying so once.
  func testStdinStopsAtAFailedJournalWrite() throws {
    let input = "add\nadd; add\nadd\nshow\n"
    // Line 1's line write is the first pwrite; the second fails.
    let stopped = try faulted(
      ["pwrite64:error=ENOSPC:when=2+"], ["--journal", "s.hand", "--seed", "42", "-q", "-"],
      stdin: input)
    XCTAssertEqual(stopped.status, 1)
    XCTAssertEqual(
      stopped.err, "<stdin>:1:1: error: cannot write journal s.hand: No space left on device\n")
    XCTAssertEqual(stopped.out, "")
    XCTAssertEqual(try changes("s.hand"), head)
  }

  /// 41.5 with -k: the run goes on without the journal, said once.
  func testKeepGoingGoesOnWithoutTheJournal() throws {
    let strace = try requiredTool("strace")
    // Lines a moment apart, so each is its own write.
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c",
        "(echo add; sleep 0.3; echo 'add; add'; sleep 0.3; echo add; echo show) | \(strace.path)"
          + " -f -o /dev/null -e inject=pwrite64:error=ENOSPC:when=3 \"$0\" --journal s.hand"
          + " --seed 42 -k -",
        binary.path,
      ], in: folder)
    XCTAssertEqual(run.status, 1)
    XCTAssertEqual(
      run.err,
      "<stdin>:2:1: error: cannot write journal s.hand: No space left on device\n"
        + "handsh: going on without the journal s.hand (-k): it is no longer kept\n")
    XCTAssertEqual(run.out, "7♥\n3♣ 7♥\n1  3♣\n2  7♥\n")
    XCTAssertEqual(try changes("s.hand"), head + "add 7H\n")
  }

  /// 41.6: FILE as its own session's stdin is refused, never read.
  func testFileIsNoInputOfItsOwnSession() throws {
    XCTAssertEqual(
      try handsh(["--journal", "j.hand", "--seed", "42", "-q", "-c", "add"]).status, 0)
    let before = try changes("j.hand")
    for extra in [["-k", "-"], ["-i", "-c", "show"]] {
      let run = try TestProcess.run(
        binary, ["--journal", "j.hand", "-q"] + extra, in: folder, stdin: url("j.hand"))
      XCTAssertFalse(run.timedOut)
      XCTAssertEqual(run.status, 2)
      XCTAssertEqual(run.err, "handsh: cannot read <stdin>: Device or resource busy\n")
    }
    let script = try handsh(["--journal", "j.hand", "-q", "j.hand"])
    XCTAssertEqual(script.status, 2)
    XCTAssertEqual(script.err, "handsh: cannot read 'j.hand': Device or resource busy\n")
    XCTAssertEqual(try changes("j.hand"), before)
  }

  /// 41.7: a lock another program holds (`flock -s`, as another user's
  /// shell may take on a 0644 journal) is no handsh's.
  func testAnotherProgramsLockIsNamed() throws {
    let flock = try requiredTool("flock")
    XCTAssertEqual(
      try handsh(["--journal", "j.hand", "--seed", "42", "-q", "-c", "add"]).status, 0)
    let before = try changes("j.hand")
    for mode in ["-s", "-x"] {
      let holder = Process()
      holder.executableURL = flock
      holder.arguments = [mode, path("j.hand"), "sleep", "5"]
      try holder.run()
      defer {
        holder.terminate()
        holder.waitUntilExit()
      }
      // The lock is taken when `sleep` runs.
      var run = try handsh(["--journal", "j.hand", "-q", "-c", "add"])
      for _ in 0..<50 where run.status == 0 {
        usleep(20_000)
        run = try handsh(["--journal", "j.hand", "-q", "-c", "undo"])
      }
      XCTAssertEqual(run.status, 2, mode)
      XCTAssertEqual(run.err, "handsh: cannot use journal j.hand: locked by another program\n")
    }
    XCTAssertTrue(try changes("j.hand").hasPrefix(before))
  }

  /// 41.10: a FILE that could not be made whole is not left behind.
  func testAFailedCreateLeavesNothing() throws {
    for fault in ["pwrite64:error=ENOSPC:when=1", "fdatasync:error=EIO:when=1", "fsync:error=EIO"] {
      let run = try faulted([fault], ["--journal", "new.hand", "-q", "-c", "add"])
      XCTAssertEqual(run.status, 2, fault)
      XCTAssertTrue(run.err.hasPrefix("handsh: cannot use journal new.hand: "), run.err)
      XCTAssertNil(status("new.hand"), fault)
    }
  }

  /// 47.1: a short write (`ulimit -f`: part of it stored, then EFBIG)
  /// leaves FILE with whole lines only, and none of the failed commands.
  func testAShortWriteLeavesWholeLines() throws {
    let commands = Array(repeating: "add; undo", count: 300).joined(separator: "\n")
    let run = try shell(
      "ulimit -f 1; trap '' XFSZ; \"$0\" --journal f.hand --seed 42 -q -c '\(commands)'")
    XCTAssertEqual(run.status, 1, run.err)
    XCTAssertTrue(
      run.err.hasSuffix("cannot write journal f.hand: File too large\n"), run.err)
    let kept = try changes("f.hand")
    XCTAssertEqual(kept, head)
  }

  /// 47.5: nothing later on a line runs after a failed journal write: not a
  /// `save`.
  func testNothingLaterOnTheLineRuns() throws {
    let run = try faulted(
      ["pwrite64:error=EIO:when=2"], ["--journal", "s.hand", "--seed", "42", "-"],
      stdin: "add; save out.hand; add\n")
    XCTAssertEqual(run.status, 1)
    XCTAssertEqual(run.err, "<stdin>:1:1: error: cannot write journal s.hand: Input/output error\n")
    XCTAssertNil(status("out.hand"))
    XCTAssertEqual(try changes("s.hand"), head)
  }

  /// 47.5: a line stops at the command whose journal write failed, not
  /// only at its next `save` or `source`: a long line's lines fill a
  /// buffer and are written midway (the write fails), and none of the
  /// `new`s after it runs, seen as no getrandom(2) after the failed write.
  func testALongLineStopsAtAFailedJournalWrite() throws {
    let strace = try requiredTool("strace")
    try make(
      "stdin",
      String(repeating: "add; undo; ", count: 8000) + String(repeating: "new; ", count: 20)
        + "add\n")
    let run = try TestProcess.run(
      strace,
      [
        "-f", "-o", "trace", "-e", "trace=pwrite64,getrandom", "-e",
        "inject=pwrite64:error=EIO:when=2", binary.path, "--journal", "s.hand", "--seed", "42",
        "-q", "-",
      ], in: folder, stdin: url("stdin"))
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.err.hasSuffix("cannot write journal s.hand: Input/output error\n"), run.err)
    let calls = try changes("trace").split(separator: "\n")
    let failed = calls.firstIndex { $0.contains("pwrite64(") && $0.contains("INJECTED") }
    XCTAssertNotNil(failed, "\(calls)")
    guard let failed else { return }
    let after = calls[failed...].filter { $0.contains("getrandom(") }
    XCTAssertEqual(after, [], "commands ran after the failed write")
    XCTAssertEqual(try changes("s.hand"), head)
  }

  /// 47.6: `save` never replaces the journal: by its name, a hard link to
  /// it, or /proc/self/fd/N.
  func testSaveNeverReplacesTheJournal() throws {
    XCTAssertEqual(
      try handsh(["--journal", "j.hand", "--seed", "42", "-q", "-c", "add"]).status, 0)
    XCTAssertEqual(link(path("j.hand"), path("hard.hand")), 0)
    var names = ["j.hand", "hard.hand"]
    names += (3..<8).map { "/proc/self/fd/\($0)" }
    for name in names {
      let run = try handsh(["--journal", "j.hand", "-q", "-c", "save \(name); add"])
      XCTAssertEqual(run.status, 1, name)
      XCTAssertTrue(run.err.contains("cannot write \(name): "), run.err)
    }
    XCTAssertEqual(try changes("j.hand"), head + "add 7H\n")
  }

  /// 47.4: a checked SCRIPT's held results, more than one buffer of them
  /// (64 KiB), go out after their journal lines: the first write of
  /// results follows the first write of a change's line.
  func testHeldResultsLargerThanABufferFollowTheirLines() throws {
    let strace = try requiredTool("strace")
    try make(
      "big.hand", "new 1\n" + String(repeating: "add; add; add\nundo; undo; undo\n", count: 3000))
    let run = try TestProcess.run(
      strace,
      [
        "-f", "-o", "trace", "-e", "trace=pwrite64,write", "-e", "signal=none", binary.path,
        "--journal", "j.hand", "--seed", "42", "big.hand",
      ], in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    XCTAssertGreaterThan(run.out.utf8.count, 1 << 16)
    let calls = try changes("trace").split(separator: "\n")
    let line = calls.firstIndex { $0.contains("pwrite64(") && $0.contains("add ") }
    let result = calls.firstIndex { $0.contains("write(1,") }
    XCTAssertNotNil(line)
    XCTAssertNotNil(result)
    if let line, let result { XCTAssertLessThan(line, result) }
  }

  /// 47.8: `history` stops at the first failed write of its output.
  func testHistoryStopsAtTheFirstFailedWrite() throws {
    let strace = try requiredTool("strace")
    let commands = Array(repeating: "add; undo", count: 20000).joined(separator: "; ")
    try make("h.hand", commands + "\nhistory\n")
    let run = try TestProcess.run(
      strace,
      [
        "-f", "-o", "trace", "-e", "trace=write", "-e", "inject=write:error=ENOSPC:when=2+",
        binary.path, "--journal", "j.hand", "--seed", "42", "-q", "h.hand",
      ], in: folder)
    XCTAssertEqual(run.status, 1)
    let writes = try changes("trace").split(separator: "\n").filter { $0.contains("write(1,") }
    XCTAssertEqual(writes.count, 2, "\(writes.count) writes to stdout")
  }

  /// 41.4: FILE renamed away, replaced (as `sed -i` does) or removed while
  /// in use: what was kept is written to FILE when nothing is there, else
  /// to the first free FILE.N, said, and the session ends with status 2.
  func testTheNameStaysTheJournals() throws {
    for (swap, kept) in [
      ("cp g g.new; mv g.new g", "g.1"), ("rm g", "g"), ("mv g moved; : > g; : > g.1", "g.2"),
    ] {
      for name in ["g", "g.1", "g.2", "moved", "g.new"] { unlink(path(name)) }
      XCTAssertEqual(try handsh(["--journal", "g", "--seed", "42", "-q", "-c", "add"]).status, 0)
      let run = try shell(
        "(echo add; sleep 0.6; echo add; sleep 0.6; echo show) 2>/dev/null |"
          + " \"$0\" --journal g - & p=$!;"
          + " sleep 0.3; \(swap); wait $p")
      XCTAssertEqual(run.status, 2, swap)
      XCTAssertEqual(
        run.err,
        "handsh: journal g was removed or replaced while in use; kept as \(kept)\n", swap)
      XCTAssertEqual(run.out, "3♣ 7♥\nK♥ 3♣ 7♥\n", swap)
      XCTAssertEqual(try changes(kept), head + "add 7H\nadd 3C\nadd KH\n", swap)
      let resumed = try handsh(["--journal", kept, "-q", "-c", "show"])
      XCTAssertEqual(resumed.out, "1  K♥\n2  3♣\n3  7♥\n", swap)
    }
  }

  /// 41.9: FILE grows with the versions, not the commands: a long run of
  /// cursor moves is compacted (to a file that resumes to the same tree,
  /// redo children and current version as a plain run of the script).
  func testCursorMovesAreCompacted() throws {
    let moves = Array(repeating: "undo; redo", count: 100_000).joined(separator: "\n")
    let script = "add; add; add; undo 2; add; goto 3; undo\n" + moves + "\n"
    try make("moves.hand", script)
    let run = try handsh(["--journal", "c.hand", "--seed", "42", "-q", "moves.hand"])
    XCTAssertEqual(run.status, 0, run.err)
    let size = status("c.hand")?.st_size ?? 0
    XCTAssertLessThan(size, 1 << 20)
    XCTAssertEqual(
      try changes("c.hand"),
      head + "add 7H\nadd 3C\nadd KH\ngoto 1\nadd 3C\ngoto 3\ngoto 2\n")
    // Each check moves the kept cursor too: the plain run makes them all.
    var before = script
    for check in ["history", "redo; history", "undo; redo; history"] {
      try make("plain.hand", before)
      let plain = try handsh(["--seed", "42", "-q", "plain.hand"])
      try make("plain.hand", before + check + "\n")
      let checked = try handsh(["--seed", "42", "-q", "plain.hand"])
      let resumed = try handsh(["--journal", "c.hand", "-q", "-c", check])
      XCTAssertEqual(resumed.out, String(checked.out.dropFirst(plain.out.count)), check)
      XCTAssertFalse(resumed.out.isEmpty)
      before += check + "\n"
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      ["c.hand", "moves.hand", "plain.hand"])
  }
}
