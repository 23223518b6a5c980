import Foundation
import HandKit
import XCTest

@testable import HandshCLI

/// `handsh --test`, `--update`, `-j`, `--tap`, `--junit` (handsh(1), GOLDEN
/// TESTS) against the built binary: the project's own golden suite, and the
/// deliberately failing and malformed files of `Tests/GoldenFixtures`, whose
/// report, `--update` result, TAP and JUnit output are kept in
/// `Tests/GoldenFixtures/expected` (written by `scripts/update-golden`).
final class GoldenModeTests: XCTestCase {
  var binary: URL!
  var folder: URL!

  static let repository = TestProcess.repository
  static let fixtures = repository.appendingPathComponent("Tests/GoldenFixtures")
  static let expected = fixtures.appendingPathComponent("expected")

  override func setUpWithError() throws {
    binary = try TestProcess.handshBinary()
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  func handsh(_ arguments: [String], in place: URL? = nil) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: place ?? folder)
  }

  /// A copy of the fixtures in the test's own folder: `cases/…`, `empty_folder`.
  func copyFixtures(to name: String = "copy") throws -> URL {
    let target = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: Self.fixtures, to: target)
    try? FileManager.default.removeItem(at: target.appendingPathComponent("expected"))
    return target
  }

  func read(_ url: URL) throws -> Data { try Data(contentsOf: url) }

  // MARK: The project's own suite

  func testTheProjectsGoldenSuitePasses() throws {
    let golden = Self.repository.appendingPathComponent("Tests/Golden").path
    // Some of them `save /dev/stdout`: /dev is read-only for the run.
    let (guarded, arguments) = TestProcess.withReadOnlyDev(
      try TestProcess.handshBinary(), ["--test", golden])
    let result = try TestProcess.run(guarded, arguments, in: folder)
    XCTAssertEqual(result.status, 0, result.out + result.err)
    XCTAssertEqual(result.err, "")
    let count = try FileManager.default.contentsOfDirectory(atPath: golden)
      .filter { $0.hasSuffix(".hand") }.count
    XCTAssertGreaterThanOrEqual(count, 40)
    XCTAssertEqual(result.out, "\(count) passed, 0 failed\n")
  }

  /// examples/golden: a test a newcomer can run, break and bless.
  func testTheExampleGoldenTestPassesBreaksAndIsBlessed() throws {
    let examples = Self.repository.appendingPathComponent("examples/golden")
    XCTAssertEqual(try handsh(["--test", examples.path]).out, "1 passed, 0 failed\n")
    let copy = folder.appendingPathComponent("deal.hand")
    let text = try String(contentsOf: examples.appendingPathComponent("deal.hand"), encoding: .utf8)
    let broken = text.replacingOccurrences(of: "#> 7♥\n", with: "#> 8♥\n")
    XCTAssertNotEqual(broken, text)
    try Data(broken.utf8).write(to: copy)
    let report = try handsh(["--test", "deal.hand"])
    XCTAssertEqual(report.status, 1)
    XCTAssertTrue(report.out.contains("\n-#> 8♥\n+#> 7♥\n"), report.out)
    XCTAssertEqual(try handsh(["--test", "--update", "deal.hand"]).status, 0)
    XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), text)
  }

  // MARK: The fixtures' report

  private let fixtureArguments = ["--test", "cases", "empty_folder", "nonexistent"]

  func testReportOfTheFixtures() throws {
    let copy = try copyFixtures()
    let result = try handsh(fixtureArguments, in: copy)
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.stdout, try read(Self.expected.appendingPathComponent("report.out")))
    XCTAssertEqual(result.stderr, try read(Self.expected.appendingPathComponent("report.err")))
    // A test writes no file: its save went to its own memory.
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: copy.appendingPathComponent("saved.hand").path))
  }

  func testTheReportIsTheSameWhateverTheJobs() throws {
    let copy = try copyFixtures()
    let one = try handsh(["-j", "1"] + fixtureArguments, in: copy)
    for jobs in ["2", "5", "64"] {
      let many = try handsh(["--jobs=" + jobs] + fixtureArguments, in: copy)
      XCTAssertEqual(many.stdout, one.stdout, "-j \(jobs)")
      XCTAssertEqual(many.stderr, one.stderr, "-j \(jobs)")
      XCTAssertEqual(many.status, one.status, "-j \(jobs)")
    }
  }

  func testTAP() throws {
    let result = try handsh(fixtureArguments + ["--tap"], in: try copyFixtures())
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.stdout, try read(Self.expected.appendingPathComponent("tap.out")))
  }

  func testJUnit() throws {
    let copy = try copyFixtures()
    let result = try handsh(fixtureArguments + ["--junit", "report.xml"], in: copy)
    XCTAssertEqual(result.status, 2)
    let xml = String(decoding: try read(copy.appendingPathComponent("report.xml")), as: UTF8.self)
    XCTAssertEqual(
      Self.withoutTimes(xml),
      String(decoding: try read(Self.expected.appendingPathComponent("junit.xml")), as: UTF8.self))
    // The report on stdout does not change.
    XCTAssertEqual(result.stdout, try read(Self.expected.appendingPathComponent("report.out")))
  }

  /// JUnit XML with every `time="…"` written `time="T"`.
  static func withoutTimes(_ xml: String) -> String {
    xml.replacingOccurrences(
      of: #"time="[0-9]+\.[0-9]{3}""#, with: #"time="T""#, options: .regularExpression)
  }

  // MARK: --update and patch

  func testUpdateIsTheReportAppliedWithPatch() throws {
    let patched = try copyFixtures(to: "patched")
    let updated = try copyFixtures(to: "updated")
    let report = try handsh(fixtureArguments, in: patched)
    let patchFile = folder.appendingPathComponent("report.diff")
    try report.stdout.write(to: patchFile)
    let patch = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/patch"), ["-p0", "-s", "-i", patchFile.path], in: patched)
    XCTAssertEqual(patch.status, 0, patch.out + patch.err)

    let update = try handsh(fixtureArguments + ["--update"], in: updated)
    XCTAssertEqual(update.status, 2, "errors remain: malformed files are not rewritten")
    XCTAssertEqual(update.stdout, try read(Self.expected.appendingPathComponent("update.out")))
    for name in try Self.files(under: updated) {
      XCTAssertEqual(
        try read(patched.appendingPathComponent(name)),
        try read(updated.appendingPathComponent(name)),
        name)
    }
    // Now they pass, and a second update changes nothing.
    let again = try handsh(["--test", "--update", "cases"], in: updated)
    XCTAssertTrue(again.out.hasSuffix(" passed, 0 updated, 1 skipped, 4 errors\n"), again.out)
    let check = try handsh(
      ["--test", "cases/crlf.hand", "cases/failing.hand", "cases/long.hand"], in: updated)
    XCTAssertEqual(check.status, 0)
  }

  /// Every diff of the report is what `diff -u` prints for the same change.
  func testEachDiffIsWhatDiffPrints() throws {
    let original = try copyFixtures(to: "original")
    let updated = try copyFixtures(to: "updated")
    let report = try handsh(fixtureArguments, in: original)
    _ = try handsh(fixtureArguments + ["--update"], in: updated)
    let text = report.stdout
    var diffs: [String: Data] = [:]
    var current: String?
    for line in Array(text).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
      let string = String(decoding: line, as: UTF8.self)
      if string.hasPrefix("--- ") {
        // A name with a space is quoted, as git quotes it.
        current = String(string.dropFirst(4)).replacingOccurrences(of: "\"", with: "")
        diffs[current ?? ""] = Data()
      } else if string.hasSuffix(" failed, 1 skipped, 6 errors") {
        current = nil
      }
      if let current { diffs[current]?.append(contentsOf: line + [0x0A]) }
    }
    XCTAssertEqual(diffs.count, 8)
    for (path, diff) in diffs {
      let label = path.contains(" ") ? "\"\(path)\"" : path
      let real = try TestProcess.run(
        URL(fileURLWithPath: "/usr/bin/diff"),
        [
          "-u", "--label", label, "--label", label, original.appendingPathComponent(path).path,
          updated.appendingPathComponent(path).path,
        ], in: folder)
      XCTAssertEqual(real.status, 1, path)
      XCTAssertEqual(real.stdout, diff, path)
    }
  }

  func testUpdateKeepsTheModeAndWritesAtomically() throws {
    let file = folder.appendingPathComponent("x.hand")
    try Data("add\n".utf8).write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: file.path)
    let result = try handsh(["--test", "--update", "x.hand"])
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.out, "updated x.hand\n0 passed, 1 updated\n")
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "add\n#> 8♠\n")
    let mode =
      try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    XCTAssertEqual(mode, 0o750)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path), ["x.hand"],
      "no temporary file left")
  }

  /// `--update` writes as `save` does: a symbolic link stays and its
  /// target is written; hard links stay together.
  func testUpdateWritesThroughLinksAsSaveDoes() throws {
    let real = folder.appendingPathComponent("real")
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
    try Data("add\n#> x\n".utf8).write(to: real.appendingPathComponent("t.hand"))
    XCTAssertEqual(symlink("real/t.hand", folder.appendingPathComponent("link.hand").path), 0)
    try Data("add\n".utf8).write(to: folder.appendingPathComponent("h1.hand"))
    XCTAssertEqual(
      link(
        folder.appendingPathComponent("h1.hand").path,
        real.appendingPathComponent("h2.hand").path), 0)
    let result = try handsh(["--test", "--update", "link.hand", "h1.hand"])
    XCTAssertEqual(result.status, 0, result.err)
    let attributes = try FileManager.default.attributesOfItem(
      atPath: folder.appendingPathComponent("link.hand").path)
    XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSymbolicLink)
    XCTAssertEqual(
      try String(contentsOf: real.appendingPathComponent("t.hand"), encoding: .utf8),
      "add\n#> 8♠\n")
    XCTAssertEqual(
      try String(contentsOf: real.appendingPathComponent("h2.hand"), encoding: .utf8),
      "add\n#> 8♠\n")
  }

  /// A test writes no file, whatever `-j`: its saves stay in its own
  /// memory, so nothing is left behind and no later run finds a new test.
  func testSavesInParallelWriteNoFile() throws {
    let tests = folder.appendingPathComponent("t")
    try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
    for i in 0..<40 {
      let lines = (0..<20).map { "save t/f\(i)_\($0).hand\nsave out/f\(i)_\($0).hand\n" }.joined()
      try Data(lines.utf8).write(to: tests.appendingPathComponent("t\(i).hand"))
    }
    for _ in 0..<2 {
      let result = try handsh(["--test", "-j", "8", "t"])
      XCTAssertEqual(result.status, 0, result.err)
      XCTAssertEqual(result.out, "40 passed, 0 failed\n")
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tests.path).count, 40)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["t"])
  }

  /// `--help` and `--version` win over `--record`, as over every option.
  func testHelpAndVersionWinOverRecord() throws {
    let version = try handsh(["--record", "r.hand", "--version"])
    XCTAssertEqual(version.status, 0, version.err)
    XCTAssertTrue(version.out.hasPrefix("handsh "))
    XCTAssertEqual(try handsh(["--help", "--record", "r.hand"]).status, 0)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("r.hand").path),
      "no recording without a session")
  }

  func testAFileThatChangedSinceItWasReadIsNotOverwritten() throws {
    let file = folder.appendingPathComponent("x.hand")
    let path = Array(file.path.utf8)
    try Data("add\n".utf8).write(to: file)
    guard case .success(let snapshot) = TestFiles.read(path) else { return XCTFail("unread") }
    try Data("add\n#> changed by someone\n".utf8).write(to: file)
    let problem = TestFiles.rewrite(path, from: snapshot, to: Array("add\n#> 8♠\n".utf8))
    XCTAssertEqual(problem, TestFiles.changedMessage)
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "add\n#> changed by someone\n")
    guard case .success(let now) = TestFiles.read(path) else { return XCTFail("unread") }
    XCTAssertNil(TestFiles.rewrite(path, from: now, to: Array("add\n#> 8♠\n".utf8)))
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "add\n#> 8♠\n")
  }

  func testAMebibyteLineIsKept() throws {
    let long = "# " + String(repeating: "x", count: (1 << 20) - 2)
    let file = folder.appendingPathComponent("long.hand")
    try Data((long + "\nadd\n").utf8).write(to: file)
    let result = try handsh(["--test", "--update", "long.hand"])
    XCTAssertEqual(result.status, 0, result.err)
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), long + "\nadd\n#> 8♠\n")
  }

  // MARK: Finding files

  func testPathsAreFoundSortedSkippingDotNamesAndLinksToFolders() throws {
    let tests = folder.appendingPathComponent("t")
    let manager = FileManager.default
    for name in ["b", "a/z", "a/.hidden", ".dot", "a/B"] {
      try manager.createDirectory(
        at: tests.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    for name in [
      "b/1.hand", "a/z/2.hand", "a/.hidden/3.hand", ".dot/4.hand", "a/B/5.hand", "a/.6.hand",
      "a/7.txt", "a/8.hand",
    ] {
      try Data("show\n#> (empty)\n".utf8).write(to: tests.appendingPathComponent(name))
    }
    try manager.createSymbolicLink(
      atPath: tests.appendingPathComponent("a/link").path, withDestinationPath: "../b")
    try manager.createSymbolicLink(
      atPath: tests.appendingPathComponent("a/file.hand").path, withDestinationPath: "../b/1.hand")
    try manager.createSymbolicLink(
      atPath: tests.appendingPathComponent("a/broken.hand").path, withDestinationPath: "nowhere")
    // t/b/1.hand is the file the link t/a/file.hand names: it runs once,
    // under its first name in byte order.
    let result = try handsh(["--tap", "--test", "t//", "t/b/1.hand"])
    XCTAssertEqual(
      result.out,
      """
      TAP version 13
      1..5
      ok 1 - t/a/8.hand
      ok 2 - t/a/B/5.hand
      not ok 3 - t/a/broken.hand
        ---
        message: "error"
        errors: "handsh: cannot read 't/a/broken.hand': No such file or directory\\n"
        ...
      ok 4 - t/a/file.hand
      ok 5 - t/a/z/2.hand
      # 4 passed, 0 failed, 1 error

      """)
    XCTAssertEqual(result.err, "handsh: cannot read 't/a/broken.hand': No such file or directory\n")
    XCTAssertEqual(result.status, 2)
  }

  func testAFolderWithoutTestsAndAMissingPathAreErrors() throws {
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("none"), withIntermediateDirectories: true)
    let result = try handsh(["--test", "none", "missing.hand"])
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.out, "0 passed, 0 failed, 2 errors\n")
    XCTAssertEqual(
      result.err,
      "handsh: cannot open 'missing.hand': No such file or directory\nhandsh: no .hand files in 'none'\n"
    )
  }

  /// A file the user may not read is an error (status 2). Root reads every
  /// file: as root, the test runs handsh as uid 65534.
  func testAnUnreadableFileIsAnError() throws {
    let file = folder.appendingPathComponent("secret.hand")
    try Data("add\n".utf8).write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
    XCTAssertEqual(chmod(folder.path, 0o755), 0)
    let (executable, arguments) = try TestProcess.unprivileged(binary, ["--test", "secret.hand"])
    let result = try TestProcess.run(executable, arguments, in: folder)
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.err, "handsh: cannot read 'secret.hand': Permission denied\n")
  }

  func testAFileNamedOnTheCommandLineRunsWhateverItsName() throws {
    // A file named on the command line runs whatever its name.
    try Data("add\n#> 8♠\n".utf8).write(to: folder.appendingPathComponent("test.txt"))
    let result = try handsh(["--test", "test.txt"])
    XCTAssertEqual(result.out, "1 passed, 0 failed\n")
    XCTAssertEqual(result.status, 0)
  }

  func testStatusIsOneWhenATestFails() throws {
    try Data("add\n".utf8).write(to: folder.appendingPathComponent("a.hand"))
    let result = try handsh(["--test", "--seed", "42", "a.hand"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.out, "--- a.hand\n+++ a.hand\n@@ -1 +1,2 @@\n add\n+#> 7♥\n0 passed, 1 failed\n")
  }

  func testCommandLineOptionsApplyAndTheShebangWins() throws {
    try Data("#!/usr/bin/env -S handsh --seed 1\nadd\n".utf8).write(
      to: folder.appendingPathComponent("a.hand"))
    try Data("add\n".utf8).write(to: folder.appendingPathComponent("b.hand"))
    let result = try handsh(["--test", "--update", "--seed", "42", "--ascii", "a.hand", "b.hand"])
    XCTAssertEqual(result.status, 0)
    let one = try handsh(["--seed", "1", "--ascii", "-c", "add"])
    XCTAssertEqual(
      try String(contentsOf: folder.appendingPathComponent("a.hand"), encoding: .utf8),
      "#!/usr/bin/env -S handsh --seed 1\nadd\n#> \(one.out)")
    XCTAssertEqual(
      try String(contentsOf: folder.appendingPathComponent("b.hand"), encoding: .utf8),
      "add\n#> 7H\n")
  }

  // MARK: Usage errors

  func testUsageErrors() throws {
    let cases: [([String], String)] = [
      (["--test"], "--test needs at least one PATH"),
      (["--test", "-"], "--test cannot read tests from stdin ('-')"),
      (["--test", "-c", "add", "x"], "--test cannot be used with -c"),
      (["--test", "-i", "x"], "--test cannot be used with -i"),
      (["--test", "-k", "x"], "--test cannot be used with -k"),
      (["--test", "-n", "x"], "--test cannot be used with -n"),
      (["--test", "--record", "r", "x"], "--test cannot be used with --record"),
      (["--update", "x"], "--update can only be used with --test"),
      (["--tap", "x"], "--tap can only be used with --test"),
      (["--junit", "j.xml", "x"], "--junit can only be used with --test"),
      (["-j", "2", "x"], "-j can only be used with --test"),
      (
        ["--test", "-j", "0", "x"],
        "invalid jobs '0': expected a whole number from 1 to 18446744073709551615"
      ),
      (
        ["--test", "-jx", "x"],
        "invalid jobs 'x': expected a whole number from 1 to 18446744073709551615"
      ),
      (["--record", "r.hand", "x.hand"], "--record cannot be used with a SCRIPT ('x.hand')"),
      (["--record", "r.hand", "-c", "add"], "--record cannot be used with -c"),
      (["--record", "r.hand"], "--record needs the prompt: stdin and stdout or stderr a terminal"),
    ]
    for (arguments, message) in cases {
      let result = try handsh(arguments)
      XCTAssertEqual(result.status, 2, "\(arguments)")
      XCTAssertEqual(result.out, "", "\(arguments)")
      XCTAssertEqual(
        result.err, "handsh: \(message)\nTry 'handsh --help' for more information.\n",
        "\(arguments)")
    }
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("r.hand").path))
  }

  func testOptionParsingInProcess() throws {
    let options = try Options(parsing: [
      "--test", "-j3", "--update", "a", "b", "--tap", "--junit=x.xml",
    ])
    XCTAssertEqual(options.paths, [Array("a".utf8), Array("b".utf8)])
    XCTAssertEqual(options.jobs, 3)
    XCTAssertTrue(options.update && options.tap)
    XCTAssertEqual(options.junit, Array("x.xml".utf8))
    XCTAssertNil(options.script)
    XCTAssertEqual(Mode(options, stdin: true, stdout: true, stderr: true), .test)
  }

  // MARK: Helpers

  /// The regular files under `root`, as relative paths.
  static func files(under root: URL) throws -> [String] {
    var names: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let name = enumerator?.nextObject() as? String {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(
        atPath: root.appendingPathComponent(name).path, isDirectory: &isFolder), !isFolder.boolValue
      {
        names.append(name)
      }
    }
    return names.sorted()
  }
}
