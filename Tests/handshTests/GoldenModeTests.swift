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
  private var binary: URL!
  private var folder: URL!

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

  private func handsh(_ arguments: [String], in place: URL? = nil) throws -> TestRun {
    try TestProcess.run(binary, arguments, in: place ?? folder)
  }

  /// A copy of the fixtures in the test's own folder: `cases/…`, `empty_folder`.
  private func copyFixtures(to name: String = "copy") throws -> URL {
    let target = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: Self.fixtures, to: target)
    try? FileManager.default.removeItem(at: target.appendingPathComponent("expected"))
    return target
  }

  private func read(_ url: URL) throws -> Data { try Data(contentsOf: url) }

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

  // MARK: Names that are not UTF-8

  /// `folder` + `/` + `name` as a C path: Foundation cannot make or read
  /// names that are not UTF-8, the C library can.
  private func cPath(_ name: [UInt8]) -> [CChar] {
    (Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
  }

  private func create(_ name: [UInt8], _ text: String, mode: mode_t = 0o644) {
    let fd = open(cPath(name), O_WRONLY | O_CREAT | O_EXCL, mode)
    XCTAssertGreaterThanOrEqual(fd, 0, "cannot create \(safeText(name))")
    let bytes = Array(text.utf8)
    XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, bytes.count)
    close(fd)
  }

  /// The bytes of the file `name`; nil when it cannot be read.
  private func contents(_ name: [UInt8]) -> [UInt8]? {
    let fd = open(cPath(name), O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { return count == 0 ? bytes : nil }
      bytes += buffer[..<count]
    }
  }

  /// The names in the folder `name`, sorted.
  private func entries(_ name: String) -> [[UInt8]] {
    guard let stream = opendir(cPath(Array(name.utf8))) else { return [] }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
  }

  private func mode(_ name: [UInt8]) -> mode_t? {
    var status = stat()
    return lstat(cPath(name), &status) == 0 ? status.st_mode & 0o7777 : nil
  }

  /// handsh(1) promises that any name the file system accepts can be
  /// written: `--update` rewrites a failing test whose name is not UTF-8
  /// (as it does any other: atomically, its mode kept), and the report
  /// shows the name with the bad byte as `\xFF`.
  func testUpdateRewritesATestWhoseNameIsNotUTF8() throws {
    XCTAssertEqual(mkdir(cPath(Array("t".utf8)), 0o755), 0)
    let name = Array("t/b".utf8) + [0xFF] + Array(".hand".utf8)
    create(name, "add\n#> x\n", mode: 0o640)
    let report = try handsh(["--test", "t"])
    XCTAssertEqual(report.status, 1, report.err)
    XCTAssertEqual(
      report.out,
      "--- \"t/b\\377.hand\"\n+++ \"t/b\\377.hand\"\n@@ -1,2 +1,2 @@\n add\n-#> x\n+#> 8♠\n"
        + "0 passed, 1 failed\n")

    let result = try handsh(["--test", "--update", "t"])
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.out, "updated t/b\\xFF.hand\n0 passed, 1 updated\n")
    XCTAssertEqual(contents(name), Array("add\n#> 8♠\n".utf8))
    XCTAssertEqual(mode(name), 0o640)
    XCTAssertEqual(
      entries("t"), [Array("b".utf8) + [0xFF] + Array(".hand".utf8)], "no temporary left")
    XCTAssertEqual(try handsh(["--test", "t"]).out, "1 passed, 0 failed\n")
  }

  /// A symbolic link to a name that is not UTF-8: the link stays and that
  /// very target is written, not a look-alike name.
  func testUpdateWritesThroughALinkToANameThatIsNotUTF8() throws {
    let target = Array("c".utf8) + [0xFE] + Array(".hand".utf8)
    create(target, "add\n")
    XCTAssertEqual(
      symlink(target.map { CChar(bitPattern: $0) } + [0], cPath(Array("link.hand".utf8))), 0)
    let result = try handsh(["--test", "--update", "link.hand"])
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(contents(target), Array("add\n#> 8♠\n".utf8))
    XCTAssertEqual(entries("."), [target, Array("link.hand".utf8)])
    let attributes = try FileManager.default.attributesOfItem(
      atPath: folder.appendingPathComponent("link.hand").path)
    XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSymbolicLink)
  }

  /// `--junit FILE` with a FILE that is not UTF-8 (through the shell, as
  /// Foundation passes arguments as strings): written like any other, and a
  /// failure names it made safe.
  func testJUnitToANameThatIsNotUTF8() throws {
    try Data("add\n#> 8♠\n".utf8).write(to: folder.appendingPathComponent("ok.hand"))
    func junit(_ printed: String) throws -> TestRun {
      try TestProcess.run(
        URL(fileURLWithPath: "/bin/sh"),
        ["-c", "exec \"$0\" --test ok.hand --junit \"$(printf '\(printed)')\"", binary.path],
        in: folder)
    }
    let result = try junit("j\\377.xml")
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.out, "1 passed, 0 failed\n")
    let name = Array("j".utf8) + [0xFF] + Array(".xml".utf8)
    let plain = try handsh(["--test", "ok.hand", "--junit", "plain.xml"])
    XCTAssertEqual(plain.status, 0, plain.err)
    let xml = String(decoding: try XCTUnwrap(contents(name)), as: UTF8.self)
    XCTAssertEqual(
      Self.withoutTimes(xml),
      Self.withoutTimes(
        String(decoding: try read(folder.appendingPathComponent("plain.xml")), as: UTF8.self)))
    XCTAssertTrue(xml.contains("<testcase"), xml)

    let failed = try junit("no\\376/j.xml")
    XCTAssertEqual(failed.status, 2)
    XCTAssertEqual(failed.err, "handsh: cannot write 'no\\xFE/j.xml': No such file or directory\n")
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

/// The engine's unified diff against `diff` and `patch` themselves.
final class UnifiedDiffTests: XCTestCase {
  private var folder: URL!
  private var generator = SplitMix64(seed: 9)

  override func setUpWithError() throws { folder = try TestProcess.temporaryFolder() }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func pick<T>(_ items: [T]) -> T { items[Int(generator.next() % UInt64(items.count))] }

  /// `diff -u` of two texts, both labelled `x`.
  private func realDiff(_ old: [UInt8], _ new: [UInt8]) throws -> Data {
    try Data(old).write(to: folder.appendingPathComponent("a"))
    try Data(new).write(to: folder.appendingPathComponent("b"))
    return try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/diff"), ["-u", "--label", "x", "--label", "x", "a", "b"],
      in: folder
    ).stdout
  }

  /// Random golden files, their blocks then broken the ways people break
  /// them (a line changed, lost, added; a block missing or stale): the
  /// report's diff is exactly what `diff -u` prints.
  func testTheDiffsOfGoldenFilesAreWhatDiffPrints() throws {
    let commands = ["add", "add; add", "show", "del 1", "mv 1 2", "undo", "deck", "bogus", "limit"]
    for round in 0..<200 {
      var source = "#!/usr/bin/env -S handsh --seed \(round)\n"
      for _ in 0..<(3 + Int(generator.next() % 12)) { source += pick(commands) + "\n" }
      let right = GoldenFile(text: Array(source.utf8)).run(effects: NoSaves()).updatedText
      // Break it.
      var lines = String(decoding: right, as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false
      ).map(String.init)
      for _ in 0..<(1 + Int(generator.next() % 3)) {
        let index = 1 + Int(generator.next() % UInt64(max(1, lines.count - 2)))
        guard index < lines.count - 1 else { continue }
        switch generator.next() % 4 {
        case 0 where lines[index].hasPrefix("#"): lines.remove(at: index)
        case 1 where lines[index].hasPrefix("#"): lines[index] += " (changed)"
        case 2: lines.insert(pick(["#> 7♥", "#> (empty)", "#2> error: x"]), at: index + 1)
        default: break
        }
      }
      let broken = Array(lines.joined(separator: "\n").utf8)
      let file = GoldenFile(text: broken)
      guard file.diagnostics.isEmpty else { continue }
      let result = file.run(effects: NoSaves())
      let ours = Data(unifiedDiff(broken, result.updatedText, oldName: "x", newName: "x"))
      XCTAssertEqual(
        String(decoding: ours, as: UTF8.self),
        String(decoding: try realDiff(broken, result.updatedText), as: UTF8.self), "round \(round)")
    }
  }

  /// Any two texts, however repetitive: `patch` turns the first into the
  /// second with the engine's diff. (Where several smallest diffs exist,
  /// `diff` may pick another one; each is correct.)
  func testPatchAppliesTheDiffOfAnyTwoTexts() throws {
    func text(_ count: Int) -> [UInt8] {
      var lines: [String] = []
      for _ in 0..<count { lines.append(pick(["add", "show", "#> 7♥", "#> 1  3♣", "", "del 1"])) }
      var bytes = Array(lines.joined(separator: "\n").utf8)
      if generator.next() % 4 != 0 { bytes.append(0x0A) }
      return bytes
    }
    for round in 0..<150 {
      let old = text(Int(generator.next() % 25))
      let new = text(Int(generator.next() % 25))
      let diff = unifiedDiff(old, new, oldName: "x", newName: "x")
      let target = folder.appendingPathComponent("x")
      try Data(old).write(to: target)
      try Data(diff).write(to: folder.appendingPathComponent("x.diff"))
      if diff.isEmpty {
        XCTAssertEqual(old, new)
        continue
      }
      let patch = try TestProcess.run(
        URL(fileURLWithPath: "/usr/bin/patch"), ["-s", "-p0", "-i", "x.diff"], in: folder)
      XCTAssertEqual(patch.status, 0, "round \(round): " + patch.out + patch.err)
      XCTAssertEqual(Array(try Data(contentsOf: target)), new, "round \(round)")
      // The same number of changed lines as diff's: a smallest diff.
      func changes(_ data: Data) -> Int {
        String(decoding: data, as: UTF8.self).split(separator: "\n").filter {
          ($0.hasPrefix("+") && !$0.hasPrefix("+++")) || ($0.hasPrefix("-") && !$0.hasPrefix("---"))
        }.count
      }
      XCTAssertEqual(changes(Data(diff)), changes(try realDiff(old, new)), "round \(round)")
    }
  }
}

private struct NoSaves: GoldenEffects {
  mutating func save(_ script: String, to file: String) -> String? { "not in this test" }
}
