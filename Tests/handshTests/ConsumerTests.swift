import Foundation
import HandKit
import XCTest

/// The golden tests' reports read by the consumers CI uses (handsh(1),
/// GOLDEN TESTS): TAP by `prove` (TAP::Parser) and tap.py, JUnit by
/// xml.etree, xmllint and junitparser, the diff by GNU `patch` and
/// `git apply`. Each name and each value reads back exactly, and no name
/// can turn a failure into a pass.
final class ConsumerTests: FolderTests {
  /// A tool on the PATH (as scripts/bootstrap installs it): missing, a skip,
  /// and a failure in CI.
  private func tool(_ name: String) throws -> URL {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return try requiredTool(name, in: path.split(separator: ":").map(String.init))
  }

  /// Python with `modules` importable: otherwise a skip, and a failure in CI.
  private func python(_ modules: String) throws -> URL {
    let python = try tool("python3")
    let check = try TestProcess.run(python, ["-c", "import " + modules], in: folder)
    guard check.status == 0 else {
      let why = "python3 cannot import \(modules) (scripts/bootstrap installs it)"
      if runningInCI() { throw MissingTool(description: why) }
      throw XCTSkip(why)
    }
    return python
  }

  private func runPython(_ modules: String, _ script: String, _ arguments: [String]) throws
    -> TestRun
  {
    let run = try TestProcess.run(try python(modules), ["-c", script] + arguments, in: folder)
    XCTAssertEqual(run.status, 0, run.err)
    return run
  }

  // MARK: TAP

  /// A failing test whose name holds `# TODO` or `# SKIP` is a failure for
  /// every harness: `#` is written `\x23`, never `\#` that TAP 13 does not
  /// know, and `\` is written `\\`.
  func testNoNameReadsAsADirective() throws {
    try write("t/x # TODO later.hand", "add\n#> x\n")
    try write("t/y # SKIP no.hand", "add\n#> x\n")
    try write("t/back\\slash.hand", "add\n#> x\n")
    try write("t/ok.hand", "add\n#> 8♠\n")
    let run = try shell("\"$0\" --test --tap t > run.tap")
    XCTAssertEqual(run.status, 1, run.err)
    let tap = try text("run.tap")
    let points = tap.split(separator: "\n").filter { $0.hasPrefix("ok") || $0.hasPrefix("not ok") }
    XCTAssertEqual(
      points,
      [
        #"not ok 1 - t/back\\slash.hand"#, "ok 2 - t/ok.hand",
        #"not ok 3 - t/x \x23 TODO later.hand"#, #"not ok 4 - t/y \x23 SKIP no.hand"#,
      ])

    // tap.py: its description stops at the first `#`.
    let tappy = try TestProcess.run(
      try python("tap"),
      ["-c", "import sys; from tap.main import main; sys.exit(main(sys.argv))", "run.tap"],
      in: folder)
    XCTAssertEqual(tappy.status, 1, tappy.out + tappy.err)
    XCTAssertFalse((tappy.out + tappy.err).contains("expected failure"), tappy.out + tappy.err)
    XCTAssertFalse((tappy.out + tappy.err).contains("skipped="), tappy.out + tappy.err)
    let read = try runPython(
      "tap",
      """
      import sys
      from tap.parser import Parser
      for line in Parser().parse_file(sys.argv[1]):
          if line.category == "test":
              print(line.ok, line.todo, line.skip, line.description)
      """, ["run.tap"])
    XCTAssertEqual(
      read.out,
      """
      False False False - t/back\\\\slash.hand
      True False False - t/ok.hand
      False False False - t/x \\x23 TODO later.hand
      False False False - t/y \\x23 SKIP no.hand

      """)

    // prove (TAP::Parser): three failures, no TODO, no skip.
    let prove = try tool("prove")
    let proved = try TestProcess.run(prove, ["-e", "cat", "run.tap"], in: folder)
    XCTAssertEqual(proved.status, 1, proved.out + proved.err)
    XCTAssertTrue(proved.out.contains("Failed 3/4 subtests"), proved.out)
    let counts = try TestProcess.run(
      try tool("perl"),
      [
        "-MTAP::Parser", "-e",
        """
        my $p = TAP::Parser->new({tap => do { local $/; open my $f, '<', $ARGV[0] or die; <$f> }});
        while (my $r = $p->next) {
          print join(' ', $r->is_ok ? 1 : 0, $r->has_todo ? 1 : 0, $r->has_skip ? 1 : 0), "\\n"
            if $r->is_test;
        }
        printf "failed %d todo %d skipped %d\\n", scalar $p->failed, scalar $p->todo,
          scalar $p->skipped;
        """, "run.tap",
      ], in: folder)
    XCTAssertEqual(counts.status, 0, counts.err)
    XCTAssertEqual(counts.out, "0 0 0\n1 0 0\n0 0 0\n0 0 0\nfailed 3 todo 0 skipped 0\n")
  }

  /// Each value of a failure's YAML block reads back exactly in prove's
  /// YAMLish reader and in tap.py's (PyYAML), whatever its first character:
  /// the diff of a test named ` lead.hand` starts with a space.
  func testTheYAMLReadsBackExactlyInBothReaders() throws {
    try write(" lead.hand", "add\n#>x\n")
    try write("q\"uo\\te\tx.hand", "  add\n#> \\ \" x\n")
    try write("bad\t\\\".hand", "add\n#>x\n")
    // In the report's order (bytes).
    let names = [" lead.hand", "bad\t\\\".hand", "q\"uo\\te\tx.hand"]
    var expected: [[String: String]] = []
    for name in names {
      let plain = try TestProcess.run(binary, ["--test", name], in: folder)
      if plain.status == 2 {
        expected.append(["message": "error", "errors": plain.err])
      } else {
        XCTAssertEqual(plain.status, 1, plain.err)
        var diff = plain.out.split(separator: "\n", omittingEmptySubsequences: false)
        diff.removeLast(2)  // the summary and the empty piece after it
        expected.append(
          ["message": "output differs", "diff": diff.map { $0 + "\n" }.joined()])
      }
    }
    // The errors of ` lead.hand` start with a space.
    XCTAssertTrue(expected[0]["errors"]?.hasPrefix(" lead.hand:2:3: ") == true, "\(expected)")
    let run = try TestProcess.run(binary, ["--test", "--tap"] + names, in: folder)
    XCTAssertEqual(run.status, 2, run.err)
    try run.stdout.write(to: folder.appendingPathComponent("run.tap"))

    let perl = try TestProcess.run(
      try tool("perl"),
      [
        "-MTAP::Parser", "-MJSON::PP", "-e",
        """
        my $p = TAP::Parser->new({tap => do { local $/; open my $f, '<', $ARGV[0] or die; <$f> }});
        while (my $r = $p->next) {
          print JSON::PP->new->canonical->encode($r->data), "\\n" if $r->is_yaml;
        }
        """, "run.tap",
      ], in: folder)
    XCTAssertEqual(perl.status, 0, perl.err)
    let python = try runPython(
      "tap, yaml",
      """
      import json, sys
      from tap.parser import Parser
      for line in Parser().parse_file(sys.argv[1]):
          if line.category == "test" and not line.ok:
              print(json.dumps(line.yaml_block, sort_keys=True, ensure_ascii=False))
      """, ["run.tap"])
    for (reader, output) in [("prove", perl.stdout), ("tap.py", python.stdout)] {
      let blocks = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
      }
      XCTAssertEqual(blocks.count, names.count, reader)
      for (block, want) in zip(blocks, expected) {
        XCTAssertEqual(block, want, reader)
      }
    }
  }

  // MARK: JUnit

  /// A tab in a name or a message reads back as a tab, not as the space an
  /// XML parser makes of a raw one in an attribute.
  func testJUnitAttributesReadBackExactly() throws {
    try write("t/a\tb.hand", "add\n#> x\n")
    try write("t/c\td.hand", "add\n#>x\n")
    let run = try TestProcess.run(binary, ["--test", "--junit", "report.xml", "t"], in: folder)
    XCTAssertEqual(run.status, 2, run.err)
    let xml = try text("report.xml")
    XCTAssertTrue(xml.contains(#"name="t/a&#9;b.hand" time="#), xml)
    XCTAssertFalse(xml.contains("\t"), xml)
    let parsed = try runPython(
      "xml.etree.ElementTree",
      """
      import sys, xml.etree.ElementTree as ET
      for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
          print(repr(case.get("name")), *[repr(child.get("message")) for child in case])
      """, ["report.xml"])
    XCTAssertEqual(
      parsed.out,
      """
      't/a\\tb.hand' 'output differs'
      't/c\\td.hand' "t/c\\td.hand:2:3: error: malformed expected output: \
      '#>' must be followed by a space or the end of the line"

      """)
    let lint = try TestProcess.run(
      try tool("xmllint"), ["--xpath", "string(//testcase[1]/@name)", "report.xml"], in: folder)
    XCTAssertEqual(lint.status, 0, lint.err)
    XCTAssertEqual(lint.out, "t/a\tb.hand\n")
  }

  /// `<testsuites>` and `<testsuite>` carry every total and the run's own
  /// time: a reader never recounts. Jenkins' schema allows `skipped` on the
  /// suite only.
  func testJUnitTotalsOnBothElements() throws {
    try write("t/fail.hand", "add\n#> x\n")
    try write("t/bad.hand", "add\n#>x\n")
    try write("t/skip.hand", "# nothing\n")
    try write("t/skip2.hand", "\n")
    try write("t/ok.hand", "add\n#> 8♠\n")
    let run = try TestProcess.run(binary, ["--test", "--junit", "report.xml", "t"], in: folder)
    XCTAssertEqual(run.status, 2, run.err)
    let parsed = try runPython(
      "xml.etree.ElementTree",
      """
      import sys, xml.etree.ElementTree as ET
      root = ET.parse(sys.argv[1]).getroot()
      for element in (root, root.find("testsuite")):
          print(element.tag, [element.get(key) for key in
                ("tests", "failures", "errors", "skipped")], element.get("time") is not None)
      """, ["report.xml"])
    XCTAssertEqual(
      parsed.out,
      """
      testsuites ['5', '1', '1', None] True
      testsuite ['5', '1', '1', '2'] True

      """)
    // junitparser reads the totals as written, time included (it would
    // recount them all on asking the root for the `skipped` it lacks).
    let xml = try text("report.xml")
    guard let time = xml.firstMatch(of: /<testsuites [^>]*time="([0-9.]+)"/)?.1 else {
      return XCTFail(xml)
    }
    let junit = try runPython(
      "junitparser",
      """
      import sys
      from junitparser import JUnitXml
      xml = JUnitXml.fromfile(sys.argv[1])
      print(xml.tests, xml.failures, xml.errors, "%.3f" % xml.time)
      for suite in xml:
          print(suite.tests, suite.failures, suite.errors, suite.skipped, "%.3f" % suite.time)
      """, ["report.xml"])
    XCTAssertEqual(junit.out, "5 1 1 \(time)\n5 1 1 2 \(time)\n")
  }

  // MARK: The diff through a link

  /// A test named through a symbolic link: the headers name the file that
  /// `--update` writes, from where the tests ran, so GNU patch and
  /// `git apply` change that file and leave the link a link.
  func testPatchAndGitApplyChangeTheTargetOfALink() throws {
    try write("t/real.hand", "add\n#> x\n")
    try write("u/deep/other.hand", "add\n#> y\n")
    let fm = FileManager.default
    try fm.createSymbolicLink(
      atPath: folder.appendingPathComponent("t/link.hand").path, withDestinationPath: "real.hand")
    // A chain: t/sub/chain.hand -> ../../u/hop.hand -> deep/other.hand
    try fm.createDirectory(
      at: folder.appendingPathComponent("t/sub"), withIntermediateDirectories: true)
    try fm.createSymbolicLink(
      atPath: folder.appendingPathComponent("u/hop.hand").path,
      withDestinationPath: "deep/other.hand")
    try fm.createSymbolicLink(
      atPath: folder.appendingPathComponent("t/sub/chain.hand").path,
      withDestinationPath: "../../u/hop.hand")
    let report = try shell("\"$0\" --test t/link.hand t/sub/chain.hand > report.diff")
    XCTAssertEqual(report.status, 1, report.err)
    // PATH:LINE keeps the name given.
    XCTAssertEqual(
      report.err, "t/link.hand:1: output differs\nt/sub/chain.hand:1: output differs\n")
    let diff = try text("report.diff")
    XCTAssertTrue(diff.hasPrefix("--- t/real.hand\n+++ t/real.hand\n"), diff)
    XCTAssertTrue(diff.contains("\n--- u/deep/other.hand\n+++ u/deep/other.hand\n"), diff)

    let copy = folder.appendingPathComponent("copy")
    try fm.createDirectory(at: copy, withIntermediateDirectories: true)
    let copied = try TestProcess.run(
      URL(fileURLWithPath: "/bin/cp"), ["-a", "t", "u", "copy"], in: folder)
    XCTAssertEqual(copied.status, 0, copied.err)

    let patched = try TestProcess.run(
      try tool("patch"), ["-p0", "-s", "-i", "report.diff"], in: folder)
    XCTAssertEqual(patched.status, 0, patched.out + patched.err)
    let gitApply = try TestProcess.run(
      try tool("git"), ["apply", "-p0", "../report.diff"], in: copy)
    XCTAssertEqual(gitApply.status, 0, gitApply.out + gitApply.err)
    for root in [folder!, copy] {
      let again = try TestProcess.run(
        binary, ["--test", "t/link.hand", "t/sub/chain.hand"], in: root)
      XCTAssertEqual(again.out, "2 passed, 0 failed\n", root.path + again.err)
      XCTAssertEqual(
        try fm.destinationOfSymbolicLink(atPath: root.appendingPathComponent("t/link.hand").path),
        "real.hand")
    }
  }
}
