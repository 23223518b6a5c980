import Foundation
import XCTest

/// Installing like any Unix tool (issue 4): `scripts/install` into a
/// staging DESTDIR, the installed binary running with the Swift toolchain
/// out of reach, and `scripts/uninstall` removing exactly what was installed.
final class InstallTests: XCTestCase {
  private let scripts = TestProcess.repository.appendingPathComponent("scripts")

  private func bash(
    _ script: String, _ arguments: [String] = [], environment: [String: String] = [:]
  )
    throws -> TestRun
  {
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/bash"), [scripts.appendingPathComponent(script).path] + arguments,
      in: TestProcess.repository, environment: environment, timeout: 1200)
    XCTAssertFalse(run.timedOut, "\(script) timed out")
    return run
  }

  func testInstallRunsWithoutTheToolchainAndUninstallRemovesIt() throws {
    let stage = try TestProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: stage) }
    // Its own build folder: the one of the running tests is locked by them.
    let scratch = TestProcess.repository.appendingPathComponent(".build/install-test").path
    let env = ["DESTDIR": stage.path, "PREFIX": "/usr", "SCRATCH_PATH": scratch]
    let install = try bash("install", environment: env)
    XCTAssertEqual(install.status, 0, install.out + install.err)

    let root = stage.appendingPathComponent("usr")
    let installed = [
      "bin/handsh", "share/man/man1/handsh.1", "share/bash-completion/completions/handsh",
      "share/zsh/site-functions/_handsh",
    ]
    for path in installed {
      XCTAssertTrue(
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path), path)
    }
    let handsh = root.appendingPathComponent("bin/handsh")

    // No library from the toolchain's folder: the standard library is static.
    let ldd = try TestProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [handsh.path], in: stage)
    XCTAssertEqual(ldd.status, 0, ldd.err)
    XCTAssertFalse(
      ldd.out.contains("swift"), "the installed binary links the toolchain:\n\(ldd.out)")
    XCTAssertTrue(ldd.out.contains("libreadline"), ldd.out)

    // Run with nothing of the toolchain in reach: an empty environment.
    let bare = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["-i", "PATH=/usr/bin:/bin", handsh.path, "--seed", "42", "-c", "add; add; deck"], in: stage)
    XCTAssertEqual(bare.status, 0, bare.err)
    XCTAssertEqual(bare.out, "7♥\n3♣ 7♥\n50 in deck, 0 discarded, seed 42\n")

    let uninstall = try bash("uninstall", environment: env)
    XCTAssertEqual(uninstall.status, 0, uninstall.out + uninstall.err)
    for path in installed + ["share/handsh/install-manifest"] {
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path),
        "\(path) is still there after uninstall")
    }
  }

  func testBashCompletion() throws {
    let run = try bash("test-completion")
    XCTAssertEqual(run.status, 0, run.out + run.err)
    XCTAssertTrue(run.out.contains(" passed, 0 failed"), run.out)
  }
}
