import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The scripts CI depends on, run against stubs in a temporary folder: a
/// CI that goes green without running the tests, or with snapshot tests
/// turned into recorders, or without the tools a test needs, would hide
/// every other guarantee.
///
/// `.ci/run` runs in a copy of the repository's layout whose
/// `scripts/bootstrap` and `swift` are stubs that log how they were called;
/// `scripts/bootstrap` runs with a PATH of stubs only, whose `apt-get` logs
/// what it was asked to install and does nothing.
final class CITests: XCTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  // MARK: - .ci/run

  /// A failing bootstrap fails CI before anything else runs. (Caught the
  /// mutant `scripts/bootstrap && swift test`, which `set -e` does not stop:
  /// the lint step ran and CI passed without a single test.)
  func testCIFailsWhenBootstrapFails() throws {
    let run = try runCI(bootstrapStatus: 3)
    XCTAssertNotEqual(run.status, 0, "CI passed though bootstrap failed; it ran: \(run.swift)")
    XCTAssertEqual(run.swift, [], "CI went on after bootstrap failed")
  }

  /// Bootstrap, the tests and the lint run, in that order; a failing test
  /// run or lint fails CI.
  func testCIRunsTheTestsThenTheLintAndFailsWithEither() throws {
    let passing = try runCI()
    XCTAssertEqual(passing.status, 0, passing.err)
    XCTAssertEqual(passing.swift.map(\.command), ["test", "format"])

    let failingTests = try runCI(swiftStatus: ["test": 1])
    XCTAssertNotEqual(failingTests.status, 0)
    XCTAssertEqual(failingTests.swift.map(\.command), ["test"])

    let failingLint = try runCI(swiftStatus: ["format": 1])
    XCTAssertNotEqual(failingLint.status, 0)
  }

  /// The lint CI runs is strict, over every folder of Swift sources:
  /// without `--strict`, `swift format lint` exits 0 on its warnings, and CI
  /// goes green on unformatted code. (Caught the mutant that dropped
  /// `--strict` from `.ci/run`.)
  func testCILintsStrictlyEverySource() throws {
    let run = try runCI()
    XCTAssertEqual(run.status, 0, run.err)
    let lint = run.swift.filter { $0.command == "format" }.map(\.arguments)
    XCTAssertEqual(
      lint,
      [["format", "lint", "--strict", "--recursive", "Package.swift", "Sources", "Tests", "Fuzz"]])
  }

  /// `HANDSH_RECORD_SNAPSHOTS=1` in CI's environment does not reach the
  /// tests (it would make every snapshot test record and pass), and the
  /// tests know they run in CI (CI=true), where the snapshot harness refuses
  /// to record. (Caught the mutant that passed the variable through.)
  func testCIKeepsSnapshotTestsChecking() throws {
    let run = try runCI(environment: ["HANDSH_RECORD_SNAPSHOTS": "1", "CI": ""])
    let test = run.swift.first { $0.command == "test" }
    if run.status != 0 {
      // Failing on the variable is as good as unsetting it.
      XCTAssertNil(test, "CI failed on HANDSH_RECORD_SNAPSHOTS, but only after running the tests")
      return
    }
    guard let test else { return XCTFail("CI ran no tests: \(run.swift)") }
    XCTAssertEqual(test.record, "unset", "the tests ran with HANDSH_RECORD_SNAPSHOTS set")
    XCTAssertEqual(test.ci, "true", "the tests ran without CI=true")
  }

  // MARK: - The snapshot harness

  /// Recording under CI fails and writes nothing; outside CI it writes the
  /// file and passes; checking compares byte for byte. (Caught the mutant
  /// that recorded whatever the environment, so that
  /// `HANDSH_RECORD_SNAPSHOTS=1` in CI passed every snapshot test.)
  func testSnapshotsAreNeverRecordedInCI() throws {
    for ci in ["true", "1", "yes"] {
      let failure = snapshotFailure(
        "new\n", path: "s.txt", record: true, environment: ["CI": ci], root: folder)
      XCTAssertNotNil(failure, "recorded under CI=\(ci)")
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("s.txt").path),
        "a snapshot was written under CI=\(ci)")
    }
    for environment in [[:], ["CI": "false"], ["CI": "0"], ["CI": ""]] {
      XCTAssertNil(
        snapshotFailure(
          "new\n", path: "s.txt", record: true, environment: environment, root: folder)
      )
    }
    XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("s.txt")), Data("new\n".utf8))
    // Checking, in CI or not.
    for environment in [[:], ["CI": "true"]] {
      XCTAssertNil(
        snapshotFailure(
          "new\n", path: "s.txt", record: false, environment: environment, root: folder)
      )
      let changed = snapshotFailure(
        "old\n", path: "s.txt", record: false, environment: environment, root: folder)
      XCTAssertTrue(changed?.contains("-new\n+old\n") == true, changed ?? "passed")
      XCTAssertNotNil(
        snapshotFailure(
          "x", path: "none.txt", record: false, environment: environment, root: folder))
    }
  }

  // MARK: - scripts/bootstrap

  /// Bootstrap installs `time` (/usr/bin/time, for the memory bounds of
  /// FileSafetyTests and scripts/bench) and `patch` (for GoldenModeTests'
  /// check of the diffs) when they are missing, and installs nothing when
  /// all is there. (Caught a bootstrap that installed neither, so that the
  /// tests needing them could only fail or skip on a fresh machine.)
  func testBootstrapInstallsTimeAndPatch() throws {
    let missing = try runBootstrap(missing: ["time", "patch"])
    XCTAssertEqual(missing.status, 0, missing.err)
    let install = missing.aptGet.filter { $0.first == "install" }
    XCTAssertEqual(install.count, 1, "apt-get was called as \(missing.aptGet)")
    let packages = Set(install.first ?? [])
    XCTAssertTrue(packages.contains("time"), "time not installed: \(install)")
    XCTAssertTrue(packages.contains("patch"), "patch not installed: \(install)")

    let present = try runBootstrap(missing: [])
    XCTAssertEqual(present.status, 0, present.err)
    XCTAssertEqual(present.aptGet.filter { $0.first == "install" }, [], present.err)
  }

  /// Bootstrap installs `prove` (Debian's perl) and `xmllint`
  /// (libxml2-utils), the consumers GoldenTrustTests reads the TAP and JUnit
  /// reports with, when they are missing; in CI a test whose consumer is
  /// missing fails instead of skipping, so without them CI could not pass.
  func testBootstrapInstallsProveAndXmllint() throws {
    let missing = try runBootstrap(missing: ["prove", "xmllint"])
    XCTAssertEqual(missing.status, 0, missing.err)
    let install = missing.aptGet.filter { $0.first == "install" }
    XCTAssertEqual(install.count, 1, "apt-get was called as \(missing.aptGet)")
    XCTAssertEqual(Set(install.first ?? []), ["install", "perl", "libxml2-utils"])
  }

  /// Bootstrap installs `jq` when it is missing: the manual's JSON examples
  /// are run with it (ManPageConsumerTests), which fails in CI without it.
  func testBootstrapInstallsJq() throws {
    let missing = try runBootstrap(missing: ["jq"])
    XCTAssertEqual(missing.status, 0, missing.err)
    let install = missing.aptGet.filter { $0.first == "install" }
    XCTAssertEqual(
      install.first ?? [], ["install", "jq"], "apt-get was called as \(missing.aptGet)")
  }

  /// A consumer a test needs (prove, xmllint) that is missing fails the
  /// test in CI and skips it elsewhere. (Caught the mutant that skipped
  /// under CI=true too, so that a CI without prove passed without ever
  /// giving the TAP to it.)
  func testAMissingConsumerFailsInCIAndSkipsElsewhere() throws {
    let empty = [folder.path]
    XCTAssertThrowsError(try requiredTool("prove", in: empty, environment: ["CI": "true"])) {
      XCTAssertTrue($0 is MissingTool, "in CI: \($0)")
    }
    for environment in [[:], ["CI": "false"]] {
      XCTAssertThrowsError(try requiredTool("prove", in: empty, environment: environment)) {
        XCTAssertTrue($0 is XCTSkip, "outside CI: \($0)")
      }
    }
    try script("exit 0", at: folder.appendingPathComponent("prove"))
    XCTAssertEqual(
      try requiredTool("prove", in: empty, environment: ["CI": "true"]).path,
      folder.appendingPathComponent("prove").path)
  }

  /// Bootstrap installs Debian's neovim, which the language server's editor
  /// test runs headless, when `nvim` is missing.
  func testBootstrapInstallsNeovim() throws {
    let missing = try runBootstrap(missing: ["nvim"])
    XCTAssertEqual(missing.status, 0, missing.err)
    let install = missing.aptGet.filter { $0.first == "install" }
    XCTAssertTrue(Set(install.first ?? []).contains("neovim"), "neovim not installed: \(install)")
  }

  /// Bootstrap installs Emacs with eglot (Debian's emacs-nox and
  /// elpa-eglot), the other editor whose configuration of the man page the
  /// language server's tests run, when `emacs` is missing, and elpa-eglot
  /// alone when the Emacs there cannot load eglot.
  func testBootstrapInstallsEmacsWithEglot() throws {
    let missing = try runBootstrap(missing: ["emacs"])
    XCTAssertEqual(missing.status, 0, missing.err)
    let install = Set(missing.aptGet.filter { $0.first == "install" }.first ?? [])
    XCTAssertTrue(install.isSuperset(of: ["emacs-nox", "elpa-eglot"]), "\(missing.aptGet)")

    let noEglot = try runBootstrap(missing: ["eglot"])
    XCTAssertEqual(noEglot.status, 0, noEglot.err)
    let eglot = noEglot.aptGet.filter { $0.first == "install" }
    XCTAssertEqual(eglot.first ?? [], ["install", "elpa-eglot"], "\(noEglot.aptGet)")
  }

  // MARK: - Helpers

  struct SwiftCall: Equatable {
    var command: String
    var record: String
    var ci: String
    /// Every argument, the command first.
    var arguments: [String] = []
  }

  struct CIRun {
    var status: Int32
    var err: String
    var swift: [SwiftCall]
  }

  /// Runs a copy of `.ci/run` with a stub bootstrap that exits with
  /// BOOTSTRAPSTATUS and a stub `swift` that logs its first argument and
  /// the snapshot and CI variables, and exits as SWIFTSTATUS says.
  private func runCI(
    bootstrapStatus: Int = 0, swiftStatus: [String: Int] = [:],
    environment: [String: String] = [:]
  ) throws -> CIRun {
    let root = folder.appendingPathComponent("repo-\(UUID().uuidString)")
    let bin = root.appendingPathComponent("bin")
    for name in [".ci", "scripts", "bin"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    try FileManager.default.copyItem(
      at: TestProcess.repository.appendingPathComponent(".ci/run"),
      to: root.appendingPathComponent(".ci/run"))
    let log = root.appendingPathComponent("swift.log")
    let argumentLog = root.appendingPathComponent("arguments.log")
    try script("exit \(bootstrapStatus)", at: root.appendingPathComponent("scripts/bootstrap"))
    let cases = swiftStatus.map { "  \($0.key)) exit \($0.value) ;;" }.joined(separator: "\n")
    try script(
      """
      printf '%s %s %s\\n' "$1" "${HANDSH_RECORD_SNAPSHOTS-unset}" "${CI-unset}" >>'\(log.path)'
      printf '%s\\t' "$@" >>'\(argumentLog.path)'
      echo >>'\(argumentLog.path)'
      case $1 in
      \(cases)
        *) exit 0 ;;
      esac
      """, at: bin.appendingPathComponent("swift"))
    var env = environment
    env["PATH"] = bin.path + ":/usr/bin:/bin"
    let run = try TestProcess.run(
      root.appendingPathComponent(".ci/run"), [], in: root, environment: env)
    XCTAssertFalse(run.timedOut)
    let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    let arguments = ((try? String(contentsOf: argumentLog, encoding: .utf8)) ?? "")
      .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    let calls = logged.split(separator: "\n").enumerated().map { index, line in
      let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
      return SwiftCall(
        command: words[0], record: words.count > 1 ? words[1] : "",
        ci: words.count > 2 ? words[2] : "",
        arguments: index < arguments.count ? arguments[index] : [])
    }
    return CIRun(status: run.shellStatus, err: run.err, swift: calls)
  }

  struct BootstrapRun {
    var status: Int32
    var err: String
    /// The arguments of each `apt-get` call, without `-y`/`-qq` options.
    var aptGet: [[String]]
  }

  /// Runs the repository's scripts/bootstrap as root, with a PATH of stubs
  /// only: every tool it looks for is there except those MISSING names, dpkg reports every package installed except those in
  /// MISSING, every Python module imports, and apt-get logs its arguments.
  private func runBootstrap(missing: Set<String>) throws -> BootstrapRun {
    let bin = folder.appendingPathComponent("stubs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let log = folder.appendingPathComponent("apt-\(UUID().uuidString).log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let present = [
      "pkg-config", "mandoc", "readelf", "strip", "dpkg-deb", "lintian", "zsh", "fish", "dash",
      "strace", "python3", "sudo", "xmllint", "prove", "perl", "git", "jq",
    ]
    for name in present + ["patch", "nvim", "emacs"] where !missing.contains(name) {
      try script("exit 0", at: bin.appendingPathComponent(name))
    }
    if missing.contains("eglot") {
      // Emacs is there, but cannot load eglot.
      try script("exit 1", at: bin.appendingPathComponent("emacs"))
    }
    try script("echo 'VIM - Vi IMproved +syntax'", at: bin.appendingPathComponent("vim"))
    try script("echo 0", at: bin.appendingPathComponent("id"))
    let absent = missing.sorted().joined(separator: " ")
    try script(
      """
      for package in \(absent); do [ "$package" = "$4" ] && exit 1; done
      printf 'install ok installed'
      """, at: bin.appendingPathComponent("dpkg-query"))
    try script(
      """
      words=
      for word in "$@"; do case $word in -*) ;; *) words="$words $word" ;; esac; done
      echo "${words# }" >>'\(log.path)'
      """, at: bin.appendingPathComponent("apt-get"))
    for tool in ["grep", "cat"] {
      XCTAssertEqual(symlink("/bin/" + tool, bin.appendingPathComponent(tool).path), 0)
    }
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/bash"),
      [TestProcess.repository.appendingPathComponent("scripts/bootstrap").path], in: folder,
      environment: ["PATH": bin.path])
    XCTAssertFalse(run.timedOut)
    let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: " ").map(String.init)
    }
    return BootstrapRun(status: run.shellStatus, err: run.err, aptGet: calls)
  }

  /// Writes an executable /bin/sh script with BODY.
  private func script(_ body: String, at url: URL) throws {
    try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
    XCTAssertEqual(chmod(url.path, 0o755), 0)
  }
}
