import Foundation
import XCTest

/// Runs the language server's end-to-end tests (`Tests/lsp`; handsh(1),
/// EDITORS) against the `handsh` built next to this test bundle: pytest-lsp
/// (on pygls and lsprotocol) as the client editors are, raw bytes on the
/// server's pipes for its guarantees on bad input, and headless Neovim
/// showing that the diagnostics reach a real editor:
///
///     HANDSH_BIN=<that handsh> python3 -m pytest -q -p no:cacheprovider Tests/lsp
///
/// The test fails, never skips, when pytest-lsp or nvim is missing
/// (scripts/bootstrap installs them), when pytest exits non-zero, and when
/// its output reports nothing as passed. The editor configurations of the
/// man page run in Neovim and in Emacs with eglot
/// (test_editor_configurations.py); a missing Emacs skips its test outside
/// CI, and fails it under CI=true.
final class LanguageServerTests: XCTestCase {
  // The heavy documents of test_hostile.py print 64 MiB each, slowly in a
  // debug build; test_load.py storms the server (reduced).
  static let timeout: TimeInterval = 600

  func testLanguageServerWithRealClients() throws {
    let probe = try PtyTests.python(
      [
        "-c",
        "import pytest, pytest_lsp, pytest_asyncio, lsprotocol; import shutil, sys; "
          + "sys.exit(0 if shutil.which('nvim') else 3)",
      ],
      environment: [:], timeout: 60)
    guard probe.status == 0 else {
      XCTFail(
        """
        the language server tests need python3 with pytest-lsp, and Neovim: \
        pip install pytest-lsp; apt install neovim (scripts/bootstrap does both)
        the probe said (status \(probe.status)):
        \(probe.output)
        """)
      return
    }
    let result = try PtyTests.python(
      ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "Tests/lsp"],
      environment: ["HANDSH_BIN": try TestProcess.handshBinary().path], timeout: Self.timeout)
    if result.timedOut {
      XCTFail(
        "the language server tests took longer than \(Int(Self.timeout)) s:\n\(result.output)")
      return
    }
    XCTAssertEqual(
      result.status, 0,
      "the language server tests failed (status \(result.status)):\n\(result.output)")
    XCTAssertTrue(
      result.output.contains(" passed"),
      "the language server tests passed nothing:\n\(result.output)")
    // Only an editor that is not installed may skip its test, and only
    // outside CI (under CI=true that fails the test).
    let skips = result.output.split(separator: "\n").filter { $0.hasPrefix("SKIPPED") }
    XCTAssertTrue(
      skips.allSatisfy { $0.contains("is not installed") } && (skips.isEmpty || !runningInCI()),
      "a language server test was skipped:\n\(result.output)")
  }
}
