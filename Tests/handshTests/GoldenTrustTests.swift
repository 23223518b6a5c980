import Foundation
import HandKit
import XCTest

@testable import HandshCLI

/// Golden tests as CI, editors and reviewers use them (handsh(1), GOLDEN
/// TESTS): the reports read by the real consumers (`prove`, an XML parser,
/// GNU `patch`), hermetic tests, files that are not regular, one file named
/// twice, long lines, the change check, and `PATH:LINE` for editors.
final class GoldenTrustTests: FolderTests {
  override func tearDownWithError() throws {
    guard let folder else { return }
    // Folders a test made unreadable, or too deep for one path: as rm does it.
    _ = try? TestProcess.run(
      URL(fileURLWithPath: "/bin/chmod"), ["-R", "u+rwx", folder.path], in: folder)
    _ = try? TestProcess.run(
      URL(fileURLWithPath: "/bin/rm"), ["-rf", folder.path], in: URL(fileURLWithPath: "/"))
  }

  private func handsh(_ arguments: [String], timeout: TimeInterval) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: folder, timeout: timeout)
  }

  /// A consumer: missing, it skips the test, and fails it in CI.
  private func tool(_ name: String) throws -> URL { try requiredTool(name) }

  // MARK: The consumers

  /// `prove` (Test::Harness, 3.44 on Debian 12) reads the TAP: version 13.
  func testProveReadsTheTAP() throws {
    let prove = try tool("prove")
    let golden = TestProcess.repository.appendingPathComponent("Tests/Golden").path
    let tap = try handsh(["--test", "--tap", golden])
    XCTAssertEqual(tap.status, 0, tap.err)
    try tap.stdout.write(to: folder.appendingPathComponent("ok.tap"))
    let passing = try TestProcess.run(prove, ["-e", "cat", "ok.tap"], in: folder)
    XCTAssertEqual(passing.status, 0, passing.out + passing.err)
    XCTAssertTrue(passing.out.contains("All tests successful"), passing.out)

    // Failures, a skip, an update: prove counts them as TAP says.
    try write("t/fail.hand", "add\n#> x\n")
    try write("t/skip.hand", "# nothing to run\n")
    try write("t/pass.hand", "add\n#> 8♠\n")
    let failing = try shell("\"$0\" --test --tap t > fail.tap")
    XCTAssertEqual(failing.status, 1)
    let failed = try TestProcess.run(prove, ["-v", "-e", "cat", "fail.tap"], in: folder)
    XCTAssertEqual(failed.status, 1)
    XCTAssertFalse(failed.out.contains("Parse errors"), failed.out)
    XCTAssertTrue(failed.out.contains("Failed 1/3 subtests"), failed.out)
    XCTAssertTrue(failed.out.contains("ok 3 - t/skip.hand # SKIP no input lines"), failed.out)
    let updated = try shell("\"$0\" --test --update --tap t > update.tap")
    XCTAssertEqual(updated.status, 0, updated.err)
    XCTAssertEqual(
      try text("update.tap"),
      """
      TAP version 13
      1..3
      ok 1 - t/fail.hand # updated
      ok 2 - t/pass.hand
      ok 3 - t/skip.hand # SKIP no input lines
      # 1 passed, 1 updated, 1 skipped

      """)
    let read = try TestProcess.run(prove, ["-e", "cat", "update.tap"], in: folder)
    XCTAssertEqual(read.status, 0, read.out + read.err)
  }

  /// The JUnit file is well-formed XML whatever the tests hold (U+FFFF
  /// included), and its attributes read back.
  func testJUnitIsWellFormedAndReadsBack() throws {
    let nonchars = String(
      String.UnicodeScalarView([0xFFFF, 0xFFFE, 0xFDD0].compactMap(Unicode.Scalar.init)))
    try write("t/a b&<c>.hand", "add\n#> \(nonchars) x\n")
    try write("t/bad\(nonchars.prefix(1)).hand", "add\n#>x\(nonchars)\n")
    try write("t/ok.hand", "add\n#> 8♠\n")
    try write("t/skip.hand", "# nothing\n")
    let result = try handsh(["--test", "--junit", "report.xml", "t"])
    XCTAssertEqual(result.status, 2)
    let xml = try Data(contentsOf: folder.appendingPathComponent("report.xml"))
    XCTAssertNil(
      String(decoding: xml, as: UTF8.self).unicodeScalars.first { $0.value & 0xFFFE == 0xFFFE })
    let check = """
      import sys, xml.etree.ElementTree as ET
      suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
      print(suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("errors"))
      for case in suite.findall("testcase"):
          kinds = [child.tag + ":" + (child.get("type") or child.get("message") or "")
                   for child in case]
          print(case.get("classname"), case.get("name"), case.get("file") is None,
                " ".join(kinds))
      """
    let parsed = try TestProcess.run(
      try tool("python3"), ["-c", check, "report.xml"], in: folder)
    XCTAssertEqual(parsed.status, 0, parsed.err)
    XCTAssertEqual(
      parsed.out,
      """
      handsh 4 1 1
      handsh t/a b&<c>.hand True failure:golden
      handsh t/bad\\u{FFFF}.hand True error:malformed
      handsh t/ok.hand True 
      handsh t/skip.hand True skipped:no input lines

      """)
    // --update says so in JUnit too.
    let update = try handsh(["--test", "--update", "--junit", "update.xml", "t/a b&<c>.hand"])
    XCTAssertEqual(update.status, 0, update.err)
    let updated = try text("update.xml")
    XCTAssertTrue(updated.contains(#"name="t/a b&amp;&lt;c&gt;.hand" time="#), updated)
    XCTAssertTrue(
      updated.contains(">\n      <system-out>updated</system-out>\n    </testcase>"), updated)
    // Last, so that a missing xmllint skips (outside CI) nothing else.
    let lint = try TestProcess.run(try tool("xmllint"), ["--noout", "report.xml"], in: folder)
    XCTAssertEqual(lint.status, 0, lint.err)
  }

  /// `patch -p0 < report` makes the tests pass whatever their names.
  func testPatchAppliesTheReportWhateverTheNames() throws {
    let patch = try tool("patch")
    let names: [[UInt8]] = [
      Array("a b.hand".utf8), Array("t\tab.hand".utf8), Array("q\"uote.hand".utf8),
      Array("back\\slash.hand".utf8), Array("c\u{1}trl.hand".utf8), Array("n\non.hand".utf8),
      Array("n".utf8) + [0xFF] + Array("on.hand".utf8), Array("h#ash ♥.hand".utf8),
      Array("c1\u{85}.hand".utf8),
    ]
    XCTAssertEqual(mkdir(folder.appendingPathComponent("t").path, 0o755), 0)
    for name in names {
      let path = Array(folder.appendingPathComponent("t").path.utf8) + [0x2F] + name
      let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
      XCTAssertGreaterThanOrEqual(fd, 0, safeText(name))
      let text = Array("add\n#> x\n".utf8)
      XCTAssertEqual(text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, text.count)
      close(fd)
    }
    let report = try shell("\"$0\" --test t > report.diff")
    XCTAssertEqual(report.status, 1, report.err)
    let applied = try TestProcess.run(patch, ["-p0", "-s", "-i", "report.diff"], in: folder)
    XCTAssertEqual(applied.status, 0, applied.out + applied.err)
    let again = try handsh(["--test", "t"])
    XCTAssertEqual(again.out, "\(names.count) passed, 0 failed\n", again.err)
    XCTAssertEqual(again.status, 0)
  }

  // MARK: Hermetic tests

  /// A test writes no file: its `save` goes to its own memory (nothing left
  /// behind, no new test found next time), and `save /dev/stdout` goes into
  /// its blocks, never into the report that stdout is redirected to.
  func testATestWritesNoFile() throws {
    try write("t/a.hand", "add\nsave game.hand\nsave t/new.hand\nsave /dev/stdout\n")
    // /dev is read-only for these runs: a writer bug cannot touch the
    // machine's /dev/stdout.
    let (sh, script) = TestProcess.withReadOnlyDev(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "\"$0\" --test --update --tap t > report.tap", binary.path])
    let first = try TestProcess.run(sh, script, in: folder)
    XCTAssertEqual(first.status, 0, first.err)
    XCTAssertTrue(
      try text("report.tap").hasPrefix("TAP version 13\n1..1\nok 1 - t/a.hand # updated\n"))
    XCTAssertEqual(
      try text("t/a.hand"),
      "add\n#> 8♠\nsave game.hand\nsave t/new.hand\nsave /dev/stdout\n"
        + "#> #!/usr/bin/env handsh\n#> new 0\n#> limit 5\n#> add 8S\n")
    let (guarded, arguments) = TestProcess.withReadOnlyDev(binary, ["--test", "t"])
    let second = try TestProcess.run(guarded, arguments, in: folder)
    XCTAssertEqual(second.out, "1 passed, 0 failed\n", second.err)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      ["report.tap", "t"])
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: folder.appendingPathComponent("t").path), ["a.hand"])
  }

  // MARK: Nothing skipped in silence

  /// A FIFO is an error, never opened, so it never blocks the run: named
  /// on the command line or found in a folder.
  func testAFIFOIsAnErrorAndNeverBlocks() throws {
    try write("t/ok.hand", "add\n#> 8♠\n")
    XCTAssertEqual(mkfifo(folder.appendingPathComponent("t/x.hand").path, 0o644), 0)
    XCTAssertEqual(mkfifo(folder.appendingPathComponent("fifo").path, 0o644), 0)
    let result = try handsh(["--test", "t", "fifo"], timeout: 10)
    XCTAssertFalse(result.timedOut, "a FIFO blocked the run")
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.out, "1 passed, 0 failed, 2 errors\n")
    XCTAssertEqual(
      result.err,
      "handsh: cannot read 'fifo': not a regular file\n"
        + "handsh: cannot read 't/x.hand': not a regular file\n")
  }

  /// A folder that can be listed but not searched is an error. (Root
  /// searches every folder: as root, the run is made as `nobody`.)
  func testAFolderThatCannotBeSearchedIsAnError() throws {
    try write("t/ok.hand", "add\n#> 8♠\n")
    try write("t/sub/x.hand", "add\n#> 8♠\n")
    try write("t/closed/y.hand", "add\n#> 8♠\n")
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
    XCTAssertEqual(chmod(folder.appendingPathComponent("t").path, 0o755), 0)
    XCTAssertEqual(chmod(folder.appendingPathComponent("t/sub").path, 0o644), 0)
    XCTAssertEqual(chmod(folder.appendingPathComponent("t/closed").path, 0), 0)
    let result: TestRun
    if getuid() == 0 {
      let setpriv = try tool("setpriv")
      result = try TestProcess.run(
        setpriv,
        ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "--test", "t"],
        in: folder)
    } else {
      result = try handsh(["--test", "t"])
    }
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.out, "1 passed, 0 failed, 2 errors\n")
    XCTAssertEqual(
      result.err,
      "handsh: cannot read 't/closed': Permission denied\n"
        + "handsh: cannot search 't/sub': Permission denied\n")
  }

  /// Tests deeper than the longest path the system opens are an error.
  func testTestsDeeperThanThePathLimitAreAnError() throws {
    // Made relative to each folder in turn: no path may be that long.
    let make = """
      import os
      os.mkdir("t")
      with open("t/top.hand", "w") as top:
          top.write("add\\n#> 8♠\\n")
      fd = os.open("t", os.O_RDONLY)
      for i in range(50):
          name = "%0100d" % i
          os.mkdir(name, dir_fd=fd)
          inner = os.open(name, os.O_RDONLY, dir_fd=fd)
          os.close(fd)
          fd = inner
      os.close(os.open("deep.hand", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
      """
    let deep = try TestProcess.run(try tool("python3"), ["-c", make], in: folder)
    XCTAssertEqual(deep.status, 0, deep.err)
    let result = try handsh(["--test", "t"])
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.out, "1 passed, 0 failed, 1 error\n")
    XCTAssertTrue(result.err.contains("File name too long"), result.err)
  }

  /// One file named twice, under another spelling or a hard link, runs
  /// once, under its first name: the report is the same whatever `-j`.
  func testOneFileNamedTwiceRunsOnce() throws {
    try write("x.hand", "add\n")
    try write("t/y.hand", "add\n")
    XCTAssertEqual(
      link(
        folder.appendingPathComponent("t/y.hand").path,
        folder.appendingPathComponent("t/z.hand").path), 0)
    for jobs in ["1", "4"] {
      try write("x.hand", "add\n")
      try write("t/y.hand", "add\n")
      let result = try handsh(
        ["--test", "--update", "-j", jobs, "x.hand", "./x.hand", "x.hand", "t", "t/z.hand"])
      XCTAssertEqual(result.err, "", jobs)
      XCTAssertEqual(
        result.out, "updated ./x.hand\nupdated t/y.hand\n0 passed, 2 updated\n", "-j \(jobs)")
      XCTAssertEqual(try text("x.hand"), "add\n#> 8♠\n")
      XCTAssertEqual(try text("t/z.hand"), "add\n#> 8♠\n")
    }
  }

  // MARK: Whole files

  /// A line over the 1 MiB limit is not run (its block is the error) and
  /// `--update` keeps it, and everything after it, byte for byte.
  func testALineOverTheLimitIsKeptByUpdate() throws {
    let long = "show " + String(repeating: "x", count: (1 << 20) + 300_000)
    let file = "add\n" + long + "\nadd\n"
    try write("long.hand", file)
    let result = try handsh(["--test", "--update", "long.hand"])
    XCTAssertEqual(result.status, 0, result.err)
    XCTAssertEqual(result.out, "updated long.hand\n0 passed, 1 updated\n")
    let updated = try text("long.hand")
    XCTAssertTrue(
      updated == "add\n#> 8♠\n" + long
        + "\n#2> error: line is longer than 1048576 bytes\nadd\n#> J♣ 8♠\n",
      String(updated.prefix(40)) + "…" + String(updated.suffix(80)))
    XCTAssertEqual(try handsh(["--test", "long.hand"]).out, "1 passed, 0 failed\n")
  }

  // MARK: The change check

  /// The check that the file did not change runs last: after the new text
  /// is written and flushed to its temporary file, right before the rename
  /// (the file is still unnamed, `O_TMPFILE`: it gets its temporary name
  /// only after the check). An edit made while the new text was being
  /// written is kept.
  func testTheChangeCheckRunsRightBeforeTheRename() throws {
    try write("x.hand", "add\n")
    let path = Array(folder.appendingPathComponent("x.hand").path.utf8)
    guard case .success(let snapshot) = TestFiles.read(path) else { return XCTFail("unread") }
    let new = "add\n#> 8♠\n"
    var checked = false
    let problem = TestFiles.rewrite(path, from: snapshot, to: Array(new.utf8)) {
      checked = true
      // The new text is already written, whole, to an unnamed file in the
      // folder, open in this process; no temporary name exists yet.
      let names = (try? FileManager.default.contentsOfDirectory(atPath: self.folder.path)) ?? []
      XCTAssertEqual(names, ["x.hand"])
      let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
      let unnamed = open.filter {
        let target =
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? ""
        return target.hasPrefix(self.folder.path + "/#") && target.hasSuffix("(deleted)")
      }
      XCTAssertEqual(unnamed.count, 1, "\(open)")
      let content = unnamed.first.flatMap {
        try? Data(contentsOf: URL(fileURLWithPath: "/proc/self/fd/" + $0))
      }
      XCTAssertEqual(content.map { String(decoding: $0, as: UTF8.self) }, new)
      // Someone saves the file in an editor, just now.
      try? Data("add\n#> mine\n".utf8).write(to: self.folder.appendingPathComponent("x.hand"))
    }
    XCTAssertTrue(checked)
    XCTAssertEqual(problem, TestFiles.changedMessage)
    XCTAssertEqual(try text("x.hand"), "add\n#> mine\n")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["x.hand"])
    XCTAssertEqual(
      TestFiles.updateFailure("x.hand", TestFiles.changedMessage),
      "x.hand: changed while the tests ran; not updated")
  }

  // MARK: The report for editors and terminals

  /// `PATH:LINE: output differs` on stderr for each failing block, before
  /// that file's diff; the diff is coloured only when colour is on.
  func testEachFailingBlockIsNamedOnStderrForEditors() throws {
    try write("t/a.hand", "add\n#> x\nshow\n#> 1  8♠\nadd\n")
    try write("t/b.hand", "add\n#> 8♠\n")
    let result = try shell("\"$0\" --test t 2>&1")
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.out,
      """
      t/a.hand:1: output differs
      t/a.hand:5: output differs
      --- t/a.hand
      +++ t/a.hand
      @@ -1,5 +1,6 @@
       add
      -#> x
      +#> 8♠
       show
       #> 1  8♠
       add
      +#> J♣ 8♠
      1 passed, 1 failed

      """)
    let colored = try handsh(["--test", "--color=always", "t/a.hand"])
    XCTAssertTrue(colored.out.contains("\u{1B}[31m-#> x\u{1B}[0m\n"), colored.out)
    XCTAssertTrue(colored.out.contains("\u{1B}[32m+#> 8♠\u{1B}[0m\n"), colored.out)
    XCTAssertTrue(colored.out.contains("\u{1B}[36m@@ -1,5 +1,6 @@\u{1B}[0m\n"), colored.out)
    XCTAssertTrue(colored.out.hasPrefix("--- t/a.hand\n+++ t/a.hand\n"), colored.out)
    let plain = try handsh(["--test", "t/a.hand"])
    XCTAssertFalse(plain.out.contains("\u{1B}"), plain.out)
  }

  /// `--review` cannot run without a terminal, nor with the options that
  /// decide for it.
  func testReviewUsageErrors() throws {
    let cases: [([String], String)] = [
      (["--review", "x"], "--review can only be used with --test"),
      (["--test", "--review", "--update", "x"], "--review cannot be used with --update"),
      (["--test", "--review", "--tap", "x"], "--review cannot be used with --tap"),
      (["--test", "--review", "--junit", "j.xml", "x"], "--review cannot be used with --junit"),
      (["--test", "--review", "x"], "--review needs a terminal: stdin and stderr"),
    ]
    for (arguments, message) in cases {
      let result = try handsh(arguments)
      XCTAssertEqual(result.status, 2, "\(arguments)")
      XCTAssertEqual(result.out, "", "\(arguments)")
      XCTAssertEqual(
        result.err, "handsh: \(message)\nTry 'handsh --help' for more information.\n",
        "\(arguments)")
    }
  }
}
