import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// EndToEndTests, continued: the GNU option forms and usage errors
/// (handsh(1), OPTIONS), and the exit statuses with -k and -n (EXIT STATUS).
extension EndToEndTests {
  // MARK: - Options (handsh(1), OPTIONS)

  // Every option form and usage message is checked in-process
  // (Tests/HandshCLITests/OptionsTests.swift); here only what needs a process.

  /// Usage errors: exit status 2, a `handsh: ` message, nothing run.
  func testUsageErrorsExitWithStatus2() throws {
    try write(Data("add\n".utf8), to: "ok.hand")
    try write(Data("add\n".utf8), to: "other.hand")
    // The arguments, and a text the message must hold.
    let cases: [([String], String)] = [
      (["-x", "ok.hand"], "x"),
      (["--c", "ok.hand"], "--c"),  // ambiguous: --command, --check, --color
      (["ok.hand", "--seed"], "seed"),
      (["--limit", "53", "ok.hand"], "53"),
      (["ok.hand", "other.hand"], "other.hand"),
      (["-c", "add", "-"], "-"),
    ]
    for (arguments, fragment) in cases {
      let label = "handsh \(arguments.joined(separator: " "))"
      let result = try run(["--seed", "42"] + arguments)
      assertNoCrash(result, label)
      XCTAssertEqual(result.status, 2, "\(label): \(result.err)")
      XCTAssertEqual(result.out, "", "\(label) ran something")
      XCTAssertTrue(result.err.hasPrefix("handsh: "), "\(label): \(result.err)")
      XCTAssertTrue(
        result.err.hasSuffix("\nTry 'handsh --help' for more information.\n"), result.err)
      let first = result.err.split(separator: "\n").first.map(String.init) ?? ""
      XCTAssertTrue(first.contains(fragment), "\(label): '\(first)' should mention \(fragment)")
    }
  }

  /// `-c` text with invalid UTF-8 (through the shell: Foundation's
  /// `Process` only passes valid Strings).
  func testCommandTextWithInvalidUTF8() throws {
    let result = try run(
      ["-c", "exec \"$0\" --seed 42 -c \"$(printf 'add \\377')\"", binary.path],
      executable: URL(fileURLWithPath: "/bin/sh"))
    assertNoCrash(result)
    assertOutcome(
      result, out: "", err: "<command line>:1:5: error: invalid UTF-8 in input\n", status: 1)
  }

  /// `-V` and `--help`.
  func testVersionAndHelp() throws {
    for flag in ["-V", "--version"] {
      let result = try run([flag])
      XCTAssertEqual(result.status, 0)
      XCTAssertEqual(result.err, "")
      let text = result.out
      XCTAssertTrue(text.hasPrefix("handsh ") && text.hasSuffix("\n"), text)
      let parts = text.dropFirst("handsh ".count).dropLast().split(
        separator: ".", omittingEmptySubsequences: false)
      XCTAssertEqual(parts.count, 3, "'\(text)' is not handsh X.Y.Z")
      XCTAssertTrue(
        parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } },
        "'\(text)' is not handsh X.Y.Z")
    }

    for flag in ["-h", "--help"] {
      let result = try run([flag, "--seed", "42", "nonexistent.hand"])
      XCTAssertEqual(result.status, 0)
      XCTAssertEqual(result.err, "")
      let lines = result.out.split(separator: "\n").map(String.init)
      let options: [(String?, String)] = [
        ("-c", "--command"), ("-s", "--seed"), ("-l", "--limit"), ("-k", "--keep-going"),
        ("-n", "--check"), ("-q", "--quiet"), ("-i", "--interactive"), (nil, "--echo"),
        (nil, "--json"), (nil, "--ascii"), (nil, "--color"), ("-h", "--help"),
        ("-V", "--version"),
      ]
      for (short, long) in options {
        let line = lines.first {
          $0.split(separator: " ").contains { word in
            word == long || word == long + "," || word.hasPrefix(long + "=")
          }
        }
        XCTAssertNotNil(line, "\(flag) does not list \(long):\n\(result.out)")
        if let short, let line {
          XCTAssertTrue(
            line.split(separator: " ").contains { $0 == short || $0 == short + "," },
            "\(flag) lists \(long) without \(short): '\(line)'")
        }
      }
    }
  }

  // MARK: - Exit statuses, -k, -n (handsh(1), EXIT STATUS)

  /// A syntax error anywhere in a SCRIPT: every error reported, nothing
  /// run, exit status 1, with or without `-k`.
  func testSyntaxErrorsRunNothing() throws {
    let text = "add\nbogus\nsave out.hand\ndel x\nadd; mv 1\n"
    try write(Data(text.utf8), to: "e.hand")
    let expected =
      "e.hand:2:1: error: unknown command 'bogus'\n"
      + "e.hand:4:5: error: invalid position 'x': expected a whole number of 1 or more\n"
      + "e.hand:5:6: error: missing argument (usage: mv A B)\n"
    for arguments in [["--seed", "42", "e.hand"], ["-k", "--seed", "42", "e.hand"]] {
      let result = try run(arguments)
      // Nothing on stdout: nothing ran.
      assertOutcome(result, out: "", err: expected, status: 1, "handsh \(arguments)")
    }
    let command = try run(["--seed", "42", "-c", text])
    XCTAssertEqual(command.out, "")
    XCTAssertEqual(
      command.err, expected.replacingOccurrences(of: "e.hand:", with: "<command line>:"))
    XCTAssertEqual(command.status, 1)
    XCTAssertFalse(exists("out.hand"), "save ran although the script has syntax errors")
  }

  /// The first failed command stops the run with status 1.
  func testFailedCommandStopsTheRun() throws {
    try write(Data("add\ndel 9\nadd\n".utf8), to: "f.hand")
    let result = try run(["--seed", "42", "f.hand"])
    assertOutcome(
      result, out: "7♥\n", err: "f.hand:2:1: error: no card at position 9 (hand has 1 card)\n",
      status: 1)

    let fine = try run(["--seed", "42", "-c", "add; add; show"])
    assertOutcome(fine, out: "7♥\n3♣ 7♥\n1  3♣\n2  7♥\n", err: "", status: 0)
  }

  /// `-k` goes on after failed commands, reports each, and exits 1.
  func testKeepGoingRunsOnAndExits1() throws {
    try write(Data("add\ndel 9\nadd\nundo 5\nshow\n".utf8), to: "k.hand")
    let result = try run(["-k", "--seed", "42", "k.hand"])
    XCTAssertEqual(result.out, "7♥\n3♣ 7♥\n1  3♣\n2  7♥\n")
    XCTAssertEqual(
      result.err,
      "k.hand:2:1: error: no card at position 9 (hand has 1 card)\n"
        + "k.hand:4:1: error: cannot undo 5 steps (only 2)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// `-n` checks the syntax and runs nothing.
  func testCheckRunsNothing() throws {
    try write(Data("add\nsave out.hand\nshow\ndel 9\n".utf8), to: "n.hand")
    let result = try run(["-n", "--seed", "42", "n.hand"])
    assertOutcome(result, out: "", err: "", status: 0)
    XCTAssertFalse(exists("out.hand"), "-n ran save")

    let command = try run(["--check", "--seed", "42", "-c", "add; save out.hand; show"])
    assertOutcome(command, out: "", err: "", status: 0)
    XCTAssertFalse(exists("out.hand"), "-n ran save")

    try write(Data("add\nsave out.hand\nshoe\n".utf8), to: "bad.hand")
    let bad = try run(["-n", "--seed", "42", "bad.hand"])
    assertOutcome(
      bad, out: "", err: "bad.hand:3:1: error: unknown command 'shoe' (did you mean 'show'?)\n",
      status: 1)
    XCTAssertFalse(exists("out.hand"), "-n ran save")
  }
}
