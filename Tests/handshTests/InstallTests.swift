import Foundation
import XCTest

/// The release build that scripts/install and scripts/package install
/// (scripts/build-release: fully static, stripped), built once per test run
/// in its own build folder, since the .build of the running tests is locked.
enum Release {
  static let scratch = TestProcess.repository.appendingPathComponent(".build/install-test").path
  private static let scripts = TestProcess.repository.appendingPathComponent("scripts")

  /// Runs `bash scripts/SCRIPT ARGUMENTS` from the repository root, with
  /// SCRATCH_PATH set; the first run builds, which is slow on a small machine.
  static func script(
    _ script: String, _ arguments: [String] = [], environment: [String: String] = [:],
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> TestRun {
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/bash"), [scripts.appendingPathComponent(script).path] + arguments,
      in: TestProcess.repository,
      environment: environment.merging(["SCRATCH_PATH": scratch]) { a, _ in a }, timeout: 1800)
    XCTAssertFalse(run.timedOut, "\(script) timed out", file: file, line: line)
    return run
  }

  /// Runs `program ARGUMENTS` with an empty environment (`env -i`): nothing
  /// of the toolchain or of the test's environment in reach.
  static func bare(_ program: URL, _ arguments: [String], in folder: URL) throws -> TestRun {
    try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"), ["-i", program.path] + arguments, in: folder)
  }

  /// Whether `binary` is fully static: no dynamic section, so no loader.
  static func isStatic(_ binary: URL) throws -> Bool {
    let readelf = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", binary.path],
      in: binary.deletingLastPathComponent())
    return readelf.out.contains("There is no dynamic section")
  }

  /// The files scripts/install installs, under PREFIX.
  static let installed = [
    "bin/handsh", "share/man/man1/handsh.1", "share/bash-completion/completions/handsh",
    "share/zsh/site-functions/_handsh", "share/fish/vendor_completions.d/handsh.fish",
    "share/vim/vimfiles/ftdetect/hand.vim", "share/vim/vimfiles/ftplugin/hand.vim",
    "share/vim/vimfiles/syntax/hand.vim", "share/nvim/site/ftdetect/hand.vim",
    "share/nvim/site/ftplugin/hand.vim", "share/nvim/site/syntax/hand.vim",
    "share/handsh/install-manifest",
  ]

  /// Every regular file and link under `folder`, relative to it, sorted.
  static func files(under folder: URL) -> [String] {
    let base = folder.resolvingSymlinksInPath().path + "/"
    let walker = FileManager.default.enumerator(
      at: folder.resolvingSymlinksInPath(), includingPropertiesForKeys: [.isDirectoryKey])
    var found: [String] = []
    while let url = walker?.nextObject() as? URL {
      if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { continue }
      found.append(String(url.path.dropFirst(base.count)))
    }
    return found.sorted()
  }
}

/// Installing like any Unix tool: `scripts/install` into a staging DESTDIR,
/// the installed binary static and running with an empty environment, the
/// prompt's pty tests passing against it, and `scripts/uninstall` removing
/// exactly what was installed.
final class InstallTests: XCTestCase {
  private var stage: URL!

  override func setUpWithError() throws {
    stage = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let stage { try? FileManager.default.removeItem(at: stage) }
  }

  /// scripts/install with DESTDIR=stage and PREFIX=/usr; the installed root.
  private func install() throws -> URL {
    let install = try Release.script(
      "install", environment: ["DESTDIR": stage.path, "PREFIX": "/usr"])
    XCTAssertEqual(install.status, 0, install.out + install.err)
    return stage.appendingPathComponent("usr")
  }

  func testInstallIsStaticRunsBareAndUninstallRemovesIt() throws {
    let root = try install()
    // Exactly the listed files, all under DESTDIR/PREFIX: nothing elsewhere.
    XCTAssertEqual(Release.files(under: stage), Release.installed.map { "usr/" + $0 }.sorted())
    let manifest = try String(
      contentsOf: root.appendingPathComponent("share/handsh/install-manifest"), encoding: .utf8)
    XCTAssertEqual(
      Set(manifest.split(separator: "\n").map(String.init)),
      Set(Release.installed.map { "/usr/" + $0 }))
    for (installed, source) in [
      ("share/man/man1/handsh.1", "man/handsh.1"),
      ("share/fish/vendor_completions.d/handsh.fish", "completions/handsh.fish"),
      ("share/vim/vimfiles/syntax/hand.vim", "editors/vim/syntax/hand.vim"),
    ] {
      XCTAssertEqual(
        FileManager.default.contents(atPath: root.appendingPathComponent(installed).path),
        FileManager.default.contents(
          atPath: TestProcess.repository.appendingPathComponent(source).path), installed)
    }

    // Fully static: no dynamic loader, no library of the toolchain or the system.
    let handsh = root.appendingPathComponent("bin/handsh")
    XCTAssertTrue(try Release.isStatic(handsh), "\(handsh.path) is linked dynamically")

    // Run with nothing in reach: an empty environment, no HOME, no PATH.
    let bare = try Release.bare(handsh, ["--seed", "42", "-c", "add; add; deck"], in: stage)
    XCTAssertEqual(bare.status, 0, bare.err)
    XCTAssertEqual(bare.out, "7♥\n3♣ 7♥\n50 in deck, 0 discarded, seed 42\n")
    XCTAssertEqual(bare.err, "")

    let env = ["DESTDIR": stage.path, "PREFIX": "/usr"]
    let uninstall = try Release.script("uninstall", environment: env)
    XCTAssertEqual(uninstall.status, 0, uninstall.out + uninstall.err)
    XCTAssertEqual(Release.files(under: stage), [], "files left after uninstall")
  }

  /// The pty tests of the prompt (Tests/pty), run against the installed
  /// static binary; PtyTests runs them against the debug build. All of
  /// them, not a subset: the static binary brings its own glibc (locale,
  /// the stubbed user lookups), ncurses and readline, and its C prompt code
  /// (signals, the terminal's modes) is optimized, and every file of the
  /// suite drives that prompt.
  func testPromptTestsPassAgainstTheInstalledBinary() throws {
    let handsh = try install().appendingPathComponent("bin/handsh")
    try PtyTests.runSuite(against: handsh)
  }

  /// The release binary holds none of glibc's user lookups (they would load
  /// shared libraries at run time): readline's calls go to the stubs of
  /// Sources/handsh/StaticLink.swift. Checked on the unstripped build.
  func testStaticBinaryHoldsNoUserLookup() throws {
    _ = try install()
    let built = try Release.script("build-release", ["--no-build"])
    XCTAssertEqual(built.status, 0, built.err)
    let binary = built.out.trimmingCharacters(in: .whitespacesAndNewlines)
    let nm = try TestProcess.run(
      URL(fileURLWithPath: "/usr/bin/nm"), [binary], in: stage, timeout: 120)
    XCTAssertEqual(nm.status, 0, nm.err)
    var defined: Set<String> = []
    for line in nm.out.split(separator: "\n") {
      let fields = line.split(separator: " ")
      if fields.count == 3, "TtWw".contains(fields[1]) { defined.insert(String(fields[2])) }
    }
    for symbol in ["getpwnam", "getpwuid", "getpwent", "setpwent", "endpwent"] {
      XCTAssertFalse(defined.contains(symbol), "\(binary) holds glibc's \(symbol)")
      XCTAssertTrue(defined.contains("__wrap_" + symbol), "\(binary) has no stub for \(symbol)")
    }
    XCTAssertTrue(defined.contains("__wrap_dlopen"))
  }

  func testCompletionScripts() throws {
    let run = try Release.script("test-completion")
    XCTAssertEqual(run.status, 0, run.out + run.err)
    XCTAssertTrue(run.out.contains(" passed, 0 failed"), run.out)
  }
}
