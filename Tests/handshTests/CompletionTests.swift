import Foundation
import HandKit
import XCTest

@testable import HandshCLI

/// The bash, zsh and fish completions in completions/ are generated from the
/// option table (`completionScript(for:)`), in-process; these tests keep the
/// checked-in files equal to what the code generates. scripts/test-completion
/// (run by InstallTests) checks that the scripts complete what they should.
final class CompletionTests: XCTestCase {
  func testCheckedInScriptsAreGenerated() {
    for shell in Shell.allCases {
      assertSnapshot(completionScript(for: shell), path: "completions/\(shell.fileName)")
    }
  }

  /// `handsh --completion-script SHELL` prints the script completions/ holds,
  /// in every GNU form of the option; any other SHELL, or none, is a usage
  /// error (status 2, as every other).
  func testTheBinaryPrintsEachScript() throws {
    let binary = try TestProcess.handshBinary()
    let folder = try TestProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func handsh(_ arguments: [String]) throws -> TestRun {
      try TestProcess.run(
        binary, arguments, in: folder, environment: TestProcess.environment())
    }
    for shell in Shell.allCases {
      let file = TestProcess.repository.appendingPathComponent("completions/\(shell.fileName)")
      let expected = try Data(contentsOf: file)
      for arguments in [
        ["--completion-script", shell.rawValue], ["--completion-script=\(shell.rawValue)"],
        ["--comp", shell.rawValue], ["-q", "--completion-s=\(shell.rawValue)", "x.hand"],
      ] {
        let run = try handsh(arguments)
        XCTAssertEqual(run.status, 0, "\(arguments): \(run.err)")
        XCTAssertEqual(run.stdout, expected, "\(arguments)")
        XCTAssertEqual(run.err, "", "\(arguments)")
      }
    }
    let usage = "Try 'handsh --help' for more information.\n"
    let failures: [([String], String)] = [
      (
        ["--completion-script", "ksh"],
        "handsh: invalid argument 'ksh' for '--completion-script' (expected bash, zsh or fish)\n"
      ),
      (
        ["--completion-script="],
        "handsh: invalid argument '' for '--completion-script' (expected bash, zsh or fish)\n"
      ),
      (["--completion-script"], "handsh: option '--completion-script' requires an argument\n"),
      (
        ["--com", "bash"],
        "handsh: option '--com' is ambiguous; possibilities: '--command' '--completion-script'\n"
      ),
      (
        ["--lsp", "--completion-script", "bash"],
        "handsh: --lsp cannot be used with --completion-script\n"
      ),
    ]
    for (arguments, message) in failures {
      let run = try handsh(arguments)
      XCTAssertEqual(run.status, 2, "\(arguments)")
      XCTAssertEqual(run.out, "", "\(arguments)")
      XCTAssertEqual(run.err, message + usage, "\(arguments)")
    }
  }

  /// Every long option of the table, and every short one, is in every script.
  func testEveryOptionIsCompleted() {
    for shell in Shell.allCases {
      let script = completionScript(for: shell)
      for spec in Options.table {
        let long = shell == .fish ? "-l \(spec.long) " : "--\(spec.long)"
        XCTAssertTrue(script.contains(long), "\(shell): no \(long)")
        if let short = spec.short {
          let name = shell == .fish ? "-s \(short) " : "-\(short)"
          XCTAssertTrue(script.contains(name), "\(shell): no \(name)")
        }
      }
    }
  }

  /// The completions follow the table: an option added to it, with a value
  /// of each kind, is completed by every shell.
  func testANewOptionIsCompletedByItsKind() {
    let extra = [
      OptionSpec(short: "x", long: "xfile", value: "FILE", help: "a file") { _, _ in },
      OptionSpec(short: nil, long: "xmode", value: "MODE", help: "a mode", choices: ["up", "down"])
      {
        _, _ in
      },
    ]
    let table = Options.table + extra
    let bash = completionScript(for: .bash, table: table)
    XCTAssertTrue(bash.contains("--xfile | --xfile=)"), bash)
    XCTAssertTrue(bash.contains("_handsh_add_words \"up down\""), bash)
    let zsh = completionScript(for: .zsh, table: table)
    XCTAssertTrue(zsh.contains("{-x+,--xfile=}'[a file]:FILE:_files'"), zsh)
    XCTAssertTrue(zsh.contains("'--xmode=[a mode]:MODE:(up down)'"), zsh)
    let fish = completionScript(for: .fish, table: table)
    XCTAssertTrue(fish.contains("complete -c handsh -s x -l xfile -r -F -d 'a file'"), fish)
    XCTAssertTrue(fish.contains("complete -c handsh -l xmode -x -a 'up down' -d 'a mode'"), fish)
    XCTAssertEqual(
      Options.table.first { $0.long == "color" }?.valueKind, .choice(["auto", "always", "never"]))
    XCTAssertEqual(Options.table.first { $0.long == "seed" }?.valueKind, .free)
    XCTAssertEqual(Options.table.first { $0.long == "quiet" }?.valueKind, OptionValue.none)
  }

  /// The bash script made for a table with a FILE option completes file
  /// names after it, as `--xfile NAME` and as `--xfile=NAME`, and the zsh and
  /// fish scripts parse (`zsh -n`, `fish --no-execute`).
  func testAFileOptionCompletesFileNames() throws {
    let folder = try TestProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    FileManager.default.createFile(
      atPath: folder.appendingPathComponent("report.xml").path, contents: nil)
    let table =
      Options.table + [
        OptionSpec(short: "x", long: "xfile", value: "FILE", help: "a file") { _, _ in }
      ]
    var scripts: [Shell: URL] = [:]
    for shell in Shell.allCases {
      let url = folder.appendingPathComponent("script.\(shell)")
      try completionScript(for: shell, table: table).write(
        to: url, atomically: true, encoding: .utf8)
      scripts[shell] = url
    }
    let bash = """
      source "$1"
      for line in 'handsh --xfile r' 'handsh -kx r' 'handsh --xfile=r'; do
        read -r -a COMP_WORDS <<<"$line"
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        _handsh handsh "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        echo "${COMPREPLY[*]}"
      done
      """
    let run = try TestProcess.run(
      URL(fileURLWithPath: "/bin/bash"), ["-c", bash, "bash", scripts[.bash]?.path ?? ""],
      in: folder)
    XCTAssertEqual(run.out, "report.xml\nreport.xml\n--xfile=report.xml\n", run.err)
    for (shell, arguments) in [(Shell.zsh, ["-n"]), (.fish, ["--no-execute"])] {
      guard
        let program = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: {
          FileManager.default.isExecutableFile(atPath: $0)
        })
      else {
        XCTFail("\(shell) is not installed: run scripts/bootstrap")
        continue
      }
      let check = try TestProcess.run(
        URL(fileURLWithPath: program), arguments + [scripts[shell]?.path ?? ""], in: folder)
      XCTAssertEqual(check.status, 0, "\(shell): \(check.err)")
    }
  }
}
