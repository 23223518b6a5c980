import Foundation
import HandKit
import XCTest

/// `--journal FILE` (handsh(1), JOURNAL), end to end: random sessions split
/// over several runs end in exactly the tree of one uninterrupted run; a
/// write that fails changes nothing; a torn last line is dropped; anything
/// else wrong stops the resume with its line and column; the usage errors
/// and refusals; and write-ahead: a command's line reaches FILE before its
/// result reaches stdout.
final class JournalTests: FolderTests {
  /// A random session of `count` commands: branches, gotos, `earlier` and
  /// `later` (a day, across the whole test's versions, goes as far as
  /// they go), news, limits, a sourced file and commands that fail (run
  /// with -k); none prints
  /// under -q, so a run's output is what its last check prints.
  private func randomSession(_ generator: inout SystemRandomNumberGenerator, count: Int)
    -> [String]
  {
    let choices = [
      "add", "add", "add", "add 5s", "del 1", "mv 1 2", "undo", "undo 2", "redo", "redo 2",
      "new 7", "new 99", "limit 3", "limit 6", "del 9", "source inc.hand", "earlier", "earlier 3",
      "later", "later 2", "earlier 1d", "later 1d",
    ]
    return (0..<count).map { _ in
      Int.random(in: 0..<10, using: &generator) == 0
        ? "goto \(Int.random(in: 0..<12, using: &generator))"
        : choices.randomElement(using: &generator)!
    }
  }

  /// Random sessions, each split at random points into several `--journal`
  /// runs, end in exactly the tree and cursor of one uninterrupted run:
  /// `history`, `--json history` and what `redo` does next agree.
  func testSplitSessionsEndInTheTreeOfOneRun() throws {
    try make("inc.hand", "add; add\nundo\n")
    var generator = SystemRandomNumberGenerator()
    for round in 0..<12 {
      let commands = randomSession(&generator, count: 40)
      let whole = try handsh(["--seed", "5", "-k", "-q", "-c", commands.joined(separator: "\n")])
      XCTAssertFalse(whole.timedOut)
      var cuts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
        Int.random(in: 0...commands.count, using: &generator)
      }
      cuts = ([0] + cuts.sorted() + [commands.count])
      let journal = "j\(round).hand"
      for (index, (start, end)) in zip(cuts, cuts.dropFirst()).enumerated() {
        let part = commands[start..<end].joined(separator: "\n")
        let seed = index == 0 ? ["--seed", "5"] : []
        let run = try handsh(["--journal", journal] + seed + ["-k", "-q", "-c", part])
        XCTAssertNotEqual(run.status, 2, run.err)
      }
      // Each check is kept by the journal too: the one run makes them all.
      var before = commands
      for check in ["history", "redo; history", "undo; redo 2; history"] {
        let split = try handsh(["--journal", journal, "-k", "-q", "--json", "-c", check])
        let one = try handsh([
          "--seed", "5", "-k", "-q", "--json", "-c", before.joined(separator: "\n"),
        ])
        let checked = try handsh(
          ["--seed", "5", "-k", "-q", "--json", "-c", (before + [check]).joined(separator: "\n")])
        XCTAssertEqual(
          split.out, String(checked.out.dropFirst(one.out.count)),
          "round \(round), \(check): \(commands)")
        XCTAssertFalse(split.out.isEmpty)
        before.append(check)
      }
      // The journal is a script that rebuilds the same versions.
      let replayed = try handsh(["-q", journal])
      XCTAssertEqual(replayed.status, 0, replayed.err)
    }
  }

  /// Every write to FILE failing from the first on (a full disk): the
  /// commands fail and change nothing, their results never show, and FILE
  /// still ends with a whole line.
  func testACommandWhoseLineCannotBeWrittenChangesNothing() throws {
    let strace = try requiredTool("strace")
    XCTAssertEqual(
      try handsh(["--journal", "j.hand", "--seed", "42", "-q", "-c", "add"]).status, 0)
    let before = try text("j.hand")
    let run = try TestProcess.run(
      strace,
      [
        "-f", "-o", "/dev/null", "-e", "inject=pwrite64:error=ENOSPC:when=1+", binary.path,
        "--journal", "j.hand", "-i", "-c", "add; add",
      ], in: folder, stdin: try stdinFile("show\nhistory\n"))
    XCTAssertEqual(
      run.err, "<command line>:1:1: error: cannot write journal j.hand: No space left on device\n")
    XCTAssertFalse(run.out.contains("3♣ 7♥"), run.out)
    // -i goes on at the version the journal holds.
    XCTAssertTrue(run.out.hasPrefix("1  7♥\n 0  start     (empty)\n*1  add 7♥    7♥\n"), run.out)
    XCTAssertEqual(try text("j.hand"), before)
  }

  private func stdinFile(_ text: String) throws -> URL {
    let url = url("stdin-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  /// A last line without its line break (power lost in an append) is
  /// dropped, said once, FILE cut back; anything else wrong stops the
  /// resume at its line and column, status 2, FILE untouched.
  func testResumeDropsATornLineAndRefusesAnythingElse() throws {
    try make("j.hand", "#!/usr/bin/env -S handsh --seed 42 --limit 5\nadd 7H\nadd 3")
    let torn = try handsh(["--journal", "j.hand", "-q", "-c", "show"])
    XCTAssertEqual(torn.err, "handsh: j.hand: dropped an incomplete last line 'add 3'\n")
    XCTAssertEqual(torn.out, "1  7♥\n")
    XCTAssertEqual(try text("j.hand"), "#!/usr/bin/env -S handsh --seed 42 --limit 5\nadd 7H\n")
    for (body, message) in [
      ("add 7H\nsave x.hand\n", "3:1: not a journal command 'save'"),
      ("add 7H\n  del 4\n", "3:3: no card at position 4 (hand has 1 card)"),
      ("add 7H\nadd 7H\n", "3:1: 7H is in the hand"),
      ("add 7H\nmv 1\n", "3:1: missing argument (usage: mv A B)"),
    ] {
      let text = "#!/usr/bin/env -S handsh --seed 42 --limit 5\n" + body
      try make("bad.hand", text)
      let run = try handsh(["--journal", "bad.hand", "-q", "-c", "show"])
      XCTAssertEqual(run.status, 2)
      XCTAssertEqual(run.err, "handsh: cannot resume from bad.hand: \(message)\n")
      XCTAssertEqual(try self.text("bad.hand"), text)
    }
    try make("bad.hand", "add 7H\n")
    let headless = try handsh(["--journal", "bad.hand", "-c", "show"])
    XCTAssertEqual(headless.status, 2)
    XCTAssertTrue(
      headless.err.hasPrefix("handsh: cannot resume from bad.hand: 1:1: "), headless.err)
  }

  /// The usage errors and refusals, each status 2, FILE untouched.
  func testUsageErrorsAndRefusals() throws {
    XCTAssertEqual(try handsh(["--journal", "j.hand", "--seed", "1", "-c", "add"]).status, 0)
    XCTAssertEqual(status("j.hand").map { $0.st_mode & 0o777 }, 0o600)
    let before = try text("j.hand")
    for (arguments, message) in [
      (["--journal", "j.hand", "--seed", "2", "-c", "add"], "--seed cannot be used with an"),
      (["--journal", "j.hand", "-l", "3", "-c", "add"], "--limit cannot be used with an"),
      (["--journal", "j.hand", "-n", "-c", "add"], "--journal cannot be used with -n"),
      (["--journal", "j.hand", "--test", "x.hand"], "--journal cannot be used with --test"),
      (["--journal", "j.hand", "--lsp"], "--lsp cannot be used with --journal"),
    ] {
      let run = try handsh(arguments)
      XCTAssertEqual(run.status, 2, "\(arguments)")
      XCTAssertTrue(run.err.hasPrefix("handsh: \(message)"), run.err)
    }
    XCTAssertEqual(try text("j.hand"), before)
    XCTAssertEqual(mkfifo(path("fifo"), 0o600), 0)
    try FileManager.default.createDirectory(at: url("dir"), withIntermediateDirectories: false)
    for (name, reason) in [("fifo", "not a regular file"), ("dir", "Is a directory")] {
      let run = try handsh(["--journal", name, "-c", "add"])
      XCTAssertEqual(run.status, 2)
      XCTAssertEqual(run.err, "handsh: cannot use journal \(name): \(reason)\n")
    }
  }

  /// Write-ahead, as strace sees it: each line reaches FILE (pwrite64 on
  /// its descriptor) before the result it explains is written to stdout.
  func testALineReachesTheJournalBeforeItsResult() throws {
    let strace = try requiredTool("strace")
    let run = try TestProcess.run(
      strace,
      [
        // -s 256: a write may start with time lines (`#@ SECONDS`).
        "-f", "-s", "256", "-o", "trace", "-e", "trace=pwrite64,write", "-e", "signal=none",
        binary.path,
        "--journal", "j.hand", "--seed", "42", "-c", "add; add; show; add",
      ], in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    let calls = try text("trace").split(separator: "\n").filter {
      $0.contains("pwrite64(") || $0.contains("write(1,")
    }
    let journal = calls.firstIndex { $0.contains("pwrite64(") && $0.contains("add 3C") }
    let result = calls.firstIndex { $0.contains("write(1,") }
    XCTAssertNotNil(journal, "\(calls)")
    XCTAssertNotNil(result, "\(calls)")
    if let journal, let result { XCTAssertLessThan(journal, result, "\(calls)") }
    let last = calls.lastIndex { $0.contains("pwrite64(") && $0.contains("add KH") }
    let lastResult = calls.lastIndex { $0.contains("write(1,") }
    if let last, let lastResult { XCTAssertLessThan(last, lastResult, "\(calls)") }
  }

  /// `scripts/journal-kill`, reduced: SIGKILL, then in turn every catchable
  /// signal that ends handsh, at a random moment of a long script, then a
  /// resume; every hand line the reader got is a version of the resumed
  /// tree (the whole loop is 1,000 runs).
  func testAKillAtAnyMomentLosesNothingShown() throws {
    let result = try journalKill(["--runs", "17"])
    XCTAssertTrue(result.hasSuffix("17 passed, 0 failed\n"), result)
    // A loop that showed nothing proves nothing.
    let shown = Int(result.split(separator: " ").first ?? "") ?? 0
    XCTAssertGreaterThan(shown, 0, result)
  }

  /// `scripts/journal-kill --compaction`, reduced: signals land while FILE
  /// is compacted again and again (cursor moves on stdin); the resumed
  /// tree is the model's first versions.
  func testASignalDuringCompactionLosesNothing() throws {
    let result = try journalKill(["--runs", "2", "--compaction", "--signals", "KILL,TERM"])
    XCTAssertTrue(result.hasSuffix("2 passed, 0 failed\n"), result)
  }

  private func journalKill(_ arguments: [String]) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let result = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      [root.appendingPathComponent("scripts/journal-kill").path] + arguments + [
        "--bin", binary.path,
      ], in: folder, timeout: 300)
    XCTAssertFalse(result.timedOut)
    XCTAssertEqual(result.status, 0, result.out + result.err)
    return result.out
  }

  /// A text with a syntax error further on runs nothing, and so writes
  /// nothing to the journal, though its first commands ran ahead while it
  /// was checked; a clean text's lines are all there.
  func testNothingOfATextWithASyntaxErrorIsKept() throws {
    let head = "#!/usr/bin/env -S handsh --seed 42 --limit 5\n"
    let bad = try handsh(["--journal", "j.hand", "--seed", "42", "-c", "add; add\nadd\nbogus"])
    XCTAssertEqual(bad.status, 1)
    XCTAssertEqual(bad.out, "")
    XCTAssertEqual(try text("j.hand"), head)
    let good = try handsh(["--journal", "j.hand", "-q", "-c", "add; add\nadd"])
    XCTAssertEqual(good.status, 0, good.err)
    // The time lines (`#@ SECONDS`) aside: TimeTravelTests has them.
    let changes = try text("j.hand").split(separator: "\n").filter { !$0.hasPrefix("#@ ") }
    XCTAssertEqual(changes.joined(separator: "\n") + "\n", head + "add 7H\nadd 3C\nadd KH\n")
  }
}
