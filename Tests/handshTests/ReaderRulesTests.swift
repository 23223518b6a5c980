import Foundation
import HandKit
import XCTest

/// The golden tests' reports as CI's readers take them, whatever the size
/// and whatever the names (handsh(1), GOLDEN TESTS, The report): prove
/// after a long YAML value, the JUnit schema Jenkins validates with, JUnit
/// names, a JUnit text node under libxml2's limit, report headers that plain
/// `git apply` and `patch -p0` apply through links, and `--shard K/N`.
final class ReaderRulesTests: FolderTests {
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

  /// The plain report's diff of one file (its stdout without the summary).
  private func plainDiff(_ name: String) throws -> String {
    let plain = try handsh(["--test", name])
    XCTAssertEqual(plain.status, 1, plain.err)
    var lines = plain.out.split(separator: "\n", omittingEmptySubsequences: false)
    lines.removeLast(2)
    return lines.map { $0 + "\n" }.joined()
  }

  // MARK: TAP

  /// A value far over the length of a quoted scalar that prove's YAMLish
  /// reader can take (a 70,000-byte expected line; 2,000 malformed lines)
  /// loses no test after it, and reads back exactly, joined, in prove,
  /// tap.py and PyYAML.
  func testProveKeepsEveryTestAfterALongValue() throws {
    try write("t/a_long.hand", "add\n#> " + String(repeating: "a", count: 70_000) + "\n")
    try write(
      "t/b_bad.hand", "add\n#> 8♠\n" + String(repeating: "# x\n  #> x: y\n", count: 2_000))
    try write("t/c_after.hand", "add\n#> x\n")
    try write("t/d_ok.hand", "add\n#> 8♠\n")
    let bad = try handsh(["--test", "t/b_bad.hand"])
    XCTAssertEqual(bad.status, 2)
    let expected = [
      ["message": "output differs", "diff": try plainDiff("t/a_long.hand")],
      ["message": "error", "errors": bad.err],
      ["message": "output differs", "diff": try plainDiff("t/c_after.hand")],
    ]
    XCTAssertGreaterThan(bad.err.utf8.count, 70_000)
    let run = try shell("\"$0\" --test --tap t > run.tap")
    XCTAssertEqual(run.status, 2, run.err)
    // No line of the TAP holds a quoted scalar prove cannot read.
    let tap = try text("run.tap")
    XCTAssertLessThanOrEqual(
      tap.split(separator: "\n").map(\.utf8.count).max() ?? 0, 30_010)

    let prove = try TestProcess.run(try tool("prove"), ["-e", "cat", "run.tap"], in: folder)
    XCTAssertEqual(prove.status, 1, prove.out + prove.err)
    XCTAssertTrue(prove.out.contains("Failed 3/4 subtests"), prove.out + prove.err)
    XCTAssertFalse((prove.out + prove.err).contains("Bad plan"), prove.out + prove.err)
    XCTAssertFalse((prove.out + prove.err).contains("recursion limit"), prove.out + prove.err)

    // Each value read back: a string, or a list of pieces joined in order.
    let perl = try TestProcess.run(
      try tool("perl"),
      [
        "-MTAP::Parser", "-MJSON::PP", "-e",
        """
        my $p = TAP::Parser->new({tap => do { local $/; open my $f, '<', $ARGV[0] or die; <$f> }});
        while (my $r = $p->next) {
          next unless $r->is_yaml;
          my %d = %{$r->data};
          $_ = ref $_ ? join('', @$_) : $_ for values %d;
          print JSON::PP->new->canonical->encode(\\%d), "\\n";
        }
        print "tests ", scalar $p->tests_run, " failed ", scalar $p->failed,
          " errors ", scalar $p->parse_errors, "\\n";
        """, "run.tap",
      ], in: folder)
    XCTAssertEqual(perl.status, 0, perl.err)
    XCTAssertTrue(perl.out.hasSuffix("tests 4 failed 3 errors 0\n"), String(perl.out.suffix(200)))
    let python = try TestProcess.run(
      try python("tap, yaml"),
      [
        "-c",
        """
        import json, sys, yaml
        from tap.parser import Parser
        def joined(block):
            return {k: "".join(v) if isinstance(v, list) else v for k, v in block.items()}
        for line in Parser().parse_file(sys.argv[1]):
            if line.category == "test" and not line.ok:
                print(json.dumps(joined(line.yaml_block), sort_keys=True, ensure_ascii=False))
        # PyYAML on its own, block by block.
        block = None
        for line in open(sys.argv[1], encoding="utf-8").read().split("\\n"):
            if line == "  ---": block = []
            elif line == "  ...":
                print(json.dumps(joined(yaml.safe_load("\\n".join(block))), sort_keys=True,
                      ensure_ascii=False))
                block = None
            elif block is not None: block.append(line[2:])
        """, "run.tap",
      ], in: folder)
    XCTAssertEqual(python.status, 0, python.err)
    let perlBlocks = perl.out.split(separator: "\n").dropLast()
    let pythonBlocks = python.out.split(separator: "\n")
    for (reader, lines, count) in [
      ("prove", Array(perlBlocks), 3), ("tap.py and PyYAML", Array(pythonBlocks), 6),
    ] {
      XCTAssertEqual(lines.count, count, reader)
      for (index, line) in lines.enumerated() {
        let block =
          try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        XCTAssertEqual(block, expected[index % 3], "\(reader), block \(index)")
      }
    }
  }

  // MARK: JUnit

  private static let schema = TestProcess.repository.appendingPathComponent(
    "Tests/Schemas/junit-10.xsd")

  private func validate(_ report: String) throws {
    let lint = try TestProcess.run(
      try tool("xmllint"), ["--noout", "--schema", Self.schema.path, report], in: folder)
    XCTAssertEqual(lint.status, 0, lint.out + lint.err)
  }

  /// Valid under Jenkins' junit-10.xsd: every kind of test case, and the
  /// report of `--update`.
  func testJUnitIsValidUnderJenkinsSchema() throws {
    try write("t/fail.hand", "add\n#> x\n")
    try write("t/bad.hand", "add\n#>x\n")
    try write("t/skip.hand", "# nothing\n")
    try write("t/ok.hand", "add\n#> 8♠\n")
    try write("t/tab\tname.hand", "add\n#> x\n")
    let run = try handsh(["--test", "--junit", "report.xml", "t"])
    XCTAssertEqual(run.status, 2, run.err)
    try validate("report.xml")
    let update = try handsh(["--test", "--update", "--junit", "update.xml", "t/fail.hand"])
    XCTAssertEqual(update.status, 0, update.err)
    try validate("update.xml")
  }

  /// `ctl<U+0001>.hand` and a file literally named `ctl\x01.hand` get two
  /// names, as in TAP: each `\` is written `\\`.
  func testJUnitNamesNeverCollide() throws {
    try write("t/ctl\u{01}.hand", "add\n#> x\n")
    try write("t/ctl\\x01.hand", "add\n#> x\n")
    let run = try handsh(["--test", "--junit", "report.xml", "--tap", "t"])
    XCTAssertEqual(run.status, 1, run.err)
    let parsed = try TestProcess.run(
      try python("xml.etree.ElementTree"),
      [
        "-c",
        """
        import sys, xml.etree.ElementTree as ET
        for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
            print(case.get("name"))
        """, "report.xml",
      ], in: folder)
    XCTAssertEqual(parsed.out, "t/ctl\\x01.hand\nt/ctl\\\\x01.hand\n", parsed.err)
    XCTAssertEqual(
      run.out.split(separator: "\n").filter { $0.hasPrefix("not ok") },
      ["not ok 1 - t/ctl\\x01.hand", "not ok 2 - t/ctl\\\\x01.hand"])
  }

  /// A diff over libxml2's 10,000,000-byte text node: the JUnit failure is
  /// cut at a line's end with a line saying how many were left out, so
  /// xmllint and junitparser read the report; the plain report keeps it whole.
  func testAHugeDiffLeavesTheJUnitReadable() throws {
    let line = "#> " + String(repeating: "b", count: 999_990) + "\n"
    try write("t/huge.hand", "add\n" + String(repeating: line, count: 11))
    try write("t/small.hand", "add\n#> x\n")
    let started = Date()
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "\"$0\" --test --junit report.xml t > plain.diff", binary.path], in: folder,
      timeout: 300)
    let wall = Date().timeIntervalSince(started)
    XCTAssertEqual(run.status, 1, run.err)
    // The test case's time includes making its diff and its JUnit text,
    // most of the run.
    let xml = try text("report.xml")
    let time = xml.firstMatch(of: /name="t\/huge.hand"[^>]* time="([0-9.]+)"/).flatMap {
      Double($0.1)
    }
    XCTAssertGreaterThan(time ?? 0, wall / 2, "test case time against \(wall) s")
    let plain = try text("plain.diff")
    XCTAssertGreaterThan(plain.utf8.count, 11_000_000)
    XCTAssertEqual(plain.split(separator: "\n").filter { $0.hasPrefix("-#> b") }.count, 11)
    try validate("report.xml")
    let read = try TestProcess.run(
      try python("junitparser"),
      [
        "-c",
        """
        import sys
        from junitparser import JUnitXml
        for suite in JUnitXml.fromfile(sys.argv[1]):
            for case in suite:
                text = case.result[0].text
                print(case.name, len(text.encode()), text.split("\\n")[-1])
        """, "report.xml",
      ], in: folder)
    XCTAssertEqual(read.status, 0, read.err)
    let lines = read.out.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, read.out)
    guard lines.count == 2 else { return }
    let huge = lines[0].split(separator: " ", maxSplits: 2)
    XCTAssertEqual(huge.first, "t/huge.hand")
    XCTAssertLessThanOrEqual(Int(huge[1]) ?? .max, 8 << 20)
    // The diff: 3 header lines, the input line, 11 removed, 1 added; the
    // first 8 of the removed lines fit.
    XCTAssertEqual(huge.last, "[4 more lines left out: the plain report has the whole diff]")
    XCTAssertTrue(lines[1].hasSuffix("+#> 8♠"), String(lines[1]))
  }

  // MARK: Headers

  /// A link `./t/link.hand -> real.hand` under `--test .` is named
  /// `./t/real.hand`, so plain `git apply` applies the report; a PATH that
  /// is a link to a folder gets headers through the folder, which
  /// `git apply -p0` and `patch -p0` take.
  func testPlainGitApplyAndPatchTakeReportsThroughLinks() throws {
    try write("t/real.hand", "add\n#> x\n")
    try write("t/other.hand", "add\n#> y\n")
    try FileManager.default.createSymbolicLink(
      atPath: path("t/link.hand"), withDestinationPath: "real.hand")
    try FileManager.default.createSymbolicLink(atPath: path("via"), withDestinationPath: "t")
    let run = try shell(
      """
      "$0" --test . > dot.diff; "$0" --test via > via.diff
      cp -R t t.orig
      git apply dot.diff && "$0" --test t | tail -1
      rm -r t; cp -R t.orig t
      git apply -p0 via.diff && "$0" --test t | tail -1
      rm -r t; cp -R t.orig t
      patch -s -p0 < via.diff && "$0" --test t | tail -1
      test -L t/link.hand && echo link
      """)
    // t/link.hand and t/real.hand are one file, run once.
    XCTAssertEqual(
      run.out, "2 passed, 0 failed\n2 passed, 0 failed\n2 passed, 0 failed\nlink\n", run.err)
    let dot = try text("dot.diff")
    XCTAssertTrue(dot.hasPrefix("--- ./t/real.hand\n+++ ./t/real.hand\n"), dot)
    XCTAssertTrue(dot.contains("\n--- ./t/other.hand\n"), dot)
    let via = try text("via.diff")
    XCTAssertTrue(via.hasPrefix("--- t/real.hand\n+++ t/real.hand\n"), via)
    XCTAssertTrue(via.contains("\n--- t/other.hand\n"), via)
  }

  // MARK: --shard

  /// File I (from 0, in the report's order) goes to part I mod N + 1; the
  /// parts together run every file once; a part with no file passes.
  func testShardsSplitTheFilesAndTogetherRunEachOnce() throws {
    for name in ["a", "b", "c", "d", "e"] {
      try write("t/\(name).hand", name == "b" ? "add\n#> x\n" : "add\n#> 8♠\n")
    }
    var tap: [String] = []
    for part in 1...3 {
      let run = try handsh(["--test", "--tap", "--shard", "\(part)/3", "t"])
      XCTAssertEqual(run.status, part == 2 ? 1 : 0, run.err)
      tap.append(run.out)
    }
    XCTAssertEqual(
      tap,
      [
        "TAP version 13\n1..2\nok 1 - t/a.hand\nok 2 - t/d.hand\n# 2 passed, 0 failed\n",
        "TAP version 13\n1..2\nnot ok 1 - t/b.hand\n  ---\n  message: \"output differs\"\n"
          + "  diff: \"--- t/b.hand\\n+++ t/b.hand\\n@@ -1,2 +1,2 @@\\n add\\n-#> x\\n+#> 8♠\\n\"\n"
          + "  ...\nok 2 - t/e.hand\n# 1 passed, 1 failed\n",
        "TAP version 13\n1..1\nok 1 - t/c.hand\n# 1 passed, 0 failed\n",
      ])
    let junit = try handsh(["--test", "--shard=3/3", "--junit", "r.xml", "t"])
    XCTAssertEqual(junit.out, "1 passed, 0 failed\n")
    XCTAssertTrue(try text("r.xml").contains("tests=\"1\""))
    let empty = try handsh(["--test", "--shard", "7/9", "t"])
    XCTAssertEqual(empty.status, 0, empty.err)
    XCTAssertEqual(empty.out, "0 passed, 0 failed\n")
    // No .hand file at all is status 2 in every part.
    try FileManager.default.createDirectory(
      at: url("none"), withIntermediateDirectories: true)
    for part in ["1/2", "2/2"] {
      let none = try handsh(["--test", "--shard", part, "none"])
      XCTAssertEqual(none.status, 2, part)
      XCTAssertEqual(none.err, "handsh: no .hand files in 'none'\n", part)
    }
  }

  func testBadShardsAreUsageErrors() throws {
    let cases: [([String], String)] = [
      (
        ["--test", "--shard", "0/3", "x"],
        "invalid shard '0/3': expected K/N, whole numbers with K from 1 to N"
      ),
      (
        ["--test", "--shard", "4/3", "x"],
        "invalid shard '4/3': expected K/N, whole numbers with K from 1 to N"
      ),
      (
        ["--test", "--shard", "a/b", "x"],
        "invalid shard 'a/b': expected K/N, whole numbers with K from 1 to N"
      ),
      (
        ["--test", "--shard", "1/3/", "x"],
        "invalid shard '1/3/': expected K/N, whole numbers with K from 1 to N"
      ),
      (
        ["--test", "--shard", "", "x"],
        "invalid shard '': expected K/N, whole numbers with K from 1 to N"
      ),
      (["--shard", "1/2", "x"], "--shard can only be used with --test"),
      (["--test", "--review", "--shard", "1/2", "x"], "--review cannot be used with --shard"),
      (["--test", "--shard"], "option '--shard' requires an argument"),
    ]
    for (arguments, message) in cases {
      let result = try handsh(arguments)
      XCTAssertEqual(result.status, 2, "\(arguments)")
      XCTAssertEqual(
        result.err, "handsh: \(message)\nTry 'handsh --help' for more information.\n",
        "\(arguments)")
    }
  }

  // MARK: Smaller

  /// A bad value in a shebang is pointed at the value, not the option.
  func testABadShebangValueIsPointedAt() throws {
    for (first, column) in [
      ("#!/usr/bin/env -S handsh --seed ♥", 33), ("#!/usr/bin/env -S handsh --seed=♥", 33),
      ("#!/usr/bin/env -S handsh -s♥", 28), ("#!/usr/bin/env -S handsh -q -l 99", 32),
    ] {
      try write("x.hand", first + "\nadd\n")
      let run = try handsh(["--test", "x.hand"])
      XCTAssertEqual(run.status, 2, first)
      XCTAssertTrue(run.err.hasPrefix("x.hand:1:\(column): error: invalid "), first + run.err)
    }
  }

  func testAHugeJobsCountSaysTheLargest() throws {
    let run = try handsh(["--test", "-j", "99999999999999999999", "x"])
    XCTAssertEqual(run.status, 2)
    XCTAssertEqual(
      run.err,
      "handsh: invalid jobs '99999999999999999999': expected a whole number from 1 to "
        + "18446744073709551615\nTry 'handsh --help' for more information.\n")
  }

  /// The benchmark results in PERFORMANCE.md name the binary from the
  /// repository (or DESTDIR), never by a folder of the machine they ran on.
  func testThePerformanceRecordNamesNoFolderOfTheMachine() throws {
    let record = try String(
      contentsOf: TestProcess.repository.appendingPathComponent("PERFORMANCE.md"),
      encoding: .utf8)
    let binaries = record.split(separator: "\n").filter { $0.hasPrefix("binary ") }
    XCTAssertGreaterThanOrEqual(binaries.count, 2)
    for line in binaries {
      let path = line.dropFirst("binary".count).drop { $0 == " " }
      XCTAssertFalse(path.hasPrefix("/"), String(line))
    }
  }

  /// `save` of a name holding a NUL byte fails in a test, as the real one
  /// would: `Invalid argument`.
  func testSaveOfANameWithANulFailsInATest() throws {
    try write(
      "x.hand", "add\n#> 8♠\nsave a\u{0}b\n#2> error: cannot write a\\x00b: Invalid argument\n")
    let run = try handsh(["--test", "x.hand"])
    XCTAssertEqual(run.out, "1 passed, 0 failed\n", run.out + run.err)
  }
}
