import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(Glibc)
  private let systemRead = Glibc.read
  private let systemWrite = Glibc.write
#elseif canImport(Darwin)
  private let systemRead = Darwin.read
  private let systemWrite = Darwin.write
#endif

/// Runs the built `handsh` end to end: stdin as a stream, the GNU option
/// forms and usage errors (handsh(1), OPTIONS), bad input (THE LANGUAGE, OUTPUT), faults while
/// saving and opening (COMMANDS, EXIT STATUS), and the exit statuses.
///
/// Every test works in its own temporary folder; every process gets
/// `SWIFT_BACKTRACE=enable=no` and is killed (and the test failed) after
/// `timeout` seconds. Saving's replay, a closed pipe and `/dev/full` are
/// in `GoldenTests`.
final class EndToEndTests: XCTestCase {
  static let timeout = TestProcess.timeout

  /// This test's folder; handsh runs in it.
  private var folder: URL!
  private var binary: URL!
  private var previousSigpipe: sighandler_t?

  override func setUpWithError() throws {
    binary = try GoldenTests.handshBinary()
    folder = try GoldenTests.temporaryFolder()
    // Writing to a pipe whose reader is gone must fail the test, not kill it.
    previousSigpipe = signal(SIGPIPE, SIG_IGN)
  }

  override func tearDownWithError() throws {
    if let previousSigpipe { signal(SIGPIPE, previousSigpipe) }
    if let folder {
      _ = chmod(folder.path, 0o755)
      try? FileManager.default.removeItem(at: folder)
    }
  }

  // MARK: - Streaming stdin (handsh(1), DESCRIPTION)

  /// `(echo add; sleep 2; echo show) | handsh --seed 42`: the first hand
  /// line comes out while stdin is still open.
  func testPipedStdinRunsEachLineAsItArrives() throws {
    try checkStreaming(["--seed", "42"])
  }

  /// `-` as SCRIPT reads stdin the same way.
  func testDashReadsStdinLineByLine() throws {
    try checkStreaming(["--seed", "42", "-"])
    try checkStreaming(["-", "--seed=42"])
  }

  /// On stdin, a line with a syntax error runs none of its commands and
  /// stops the run like a failed command (unless `-k`).
  func testStdinSyntaxErrorStopsLikeAFailedCommand() throws {
    let text = Data("add\nadd; bogus\nadd\n".utf8)
    let stopped = try run(["--seed", "42", "-"], stdin: text)
    assertOutcome(
      stopped, out: "7♥\n", err: "<stdin>:2:6: error: unknown command 'bogus'\n", status: 1)

    let kept = try run(["-k", "--seed", "42", "-"], stdin: text)
    assertOutcome(
      kept, out: "7♥\n3♣ 7♥\n", err: "<stdin>:2:6: error: unknown command 'bogus'\n", status: 1)
  }

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

  // MARK: - Bad input (handsh(1), THE LANGUAGE, Diagnostics)

  func testInvalidUTF8() throws {
    // 0xFF; a truncated sequence in a command word; an encoded surrogate;
    // a truncated `♥` at the end of the file.
    let bytes: [UInt8] =
      Array("add ".utf8) + [0xFF, 0x0A] + Array("zz".utf8) + [0xC3, 0x28, 0x0A]
      + Array(" del ".utf8) + [0xED, 0xA0, 0x80, 0x0A] + Array("add ".utf8) + [0xE2, 0x99]
    let result = try runScript(Data(bytes))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:5: error: invalid UTF-8 in input\n"
        + "in.hand:2:1: error: invalid UTF-8 in input\n"
        + "in.hand:3:6: error: invalid UTF-8 in input\n"
        + "in.hand:4:5: error: invalid UTF-8 in input\n")
    XCTAssertEqual(result.status, 1)

    // In a comment, still the line's one error.
    let comment = try runScript(Data(Array("add # ".utf8) + [0xFF, 0x0A]))
    assertNoCrash(comment)
    XCTAssertEqual(comment.out, "")
    XCTAssertTrue(comment.err.hasPrefix("in.hand:1:"), comment.err)
    XCTAssertTrue(comment.err.hasSuffix(": error: invalid UTF-8 in input\n"), comment.err)
    XCTAssertEqual(comment.status, 1)
  }

  func testNULBytes() throws {
    let result = try runScript(
      Data(Array("add".utf8) + [0x00, 0x0A] + Array("de".utf8) + [0, 0x6C, 0x0A]))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:1: error: unknown command 'add\\x00' (did you mean 'add'?)\n"
        + "in.hand:2:1: error: unknown command 'de\\x00l' (did you mean 'del'?)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A comment that fills a line to the line limit (1 MiB), after a command.
  func testLineLimitLongComment() throws {
    let text =
      Data("add # ".utf8) + Data(repeating: UInt8(ascii: "x"), count: (1 << 20) - 6)
      + Data("\nshow\n".utf8)
    let result = try runScript(text)
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n1  7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42", "-"], stdin: text)
    assertNoCrash(streamed)
    assertOutcome(streamed, out: "7♥\n1  7♥\n", err: "", status: 0)
  }

  /// A line of `;` as long as a line may be: a million blank commands.
  func testLineLimitLineOfSemicolons() throws {
    let text = Data(repeating: UInt8(ascii: ";"), count: 1 << 20) + Data("\nadd\n".utf8)
    let result = try runScript(text)
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n", err: "", status: 0)
  }

  /// A word of a million characters, as a command and as a card: the
  /// diagnostic quotes its first 80 and last 32 bytes (handsh(1), Diagnostics).
  func testMillionCharacterWord() throws {
    let word = String(repeating: "y", count: 1_000_000)
    let shown = String(repeating: "y", count: 80) + "…" + String(repeating: "y", count: 32)
    let result = try runScript(Data((word + "\nadd " + word + "\n").utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertTrue(
      result.err == "in.hand:1:1: error: unknown command '\(shown)'\n"
        + "in.hand:2:5: error: invalid card '\(shown)'\n",
      "stderr starts: \(result.err.prefix(80))")
    XCTAssertEqual(result.status, 1)
  }

  /// A number of a thousand digits is out of range for every kind of number;
  /// the diagnostic quotes it shortened (handsh(1), Diagnostics).
  func testThousandDigitNumber() throws {
    let number = String(repeating: "1", count: 1000)
    let digits = String(repeating: "1", count: 80) + "…" + String(repeating: "1", count: 32)
    let result = try runScript(
      Data("del \(number)\nundo \(number)\nlimit \(number)\nnew \(number)\n".utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:5: error: invalid position '\(digits)': at most 9223372036854775807\n"
        + "in.hand:2:6: error: invalid count '\(digits)': at most 9223372036854775807\n"
        + "in.hand:3:7: error: invalid limit '\(digits)': expected a whole number from 1 to 52\n"
        + "in.hand:4:5: error: invalid seed '\(digits)': expected a whole number from 0 to 18446744073709551615\n"
    )
    XCTAssertEqual(result.status, 1)
  }

  /// CRLF line ends are ignored.
  func testCRLF() throws {
    let result = try runScript(Data("add\r\nadd\r\ndel 2\r\nshow\r\n".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n3♣ 7♥\n3♣\n1  3♣\n", err: "", status: 0)

    let command = try run(["--seed", "42", "-c", "add\r\nshow\r"])
    assertOutcome(command, out: "7♥\n1  7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42"], stdin: Data("add\r\nshow\r\n".utf8))
    assertOutcome(streamed, out: "7♥\n1  7♥\n", err: "", status: 0)
  }

  /// A lone `\r` inside a line is part of the word, escaped.
  func testLoneCarriageReturn() throws {
    let result = try runScript(Data("add\rx\n".utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err, "in.hand:1:1: error: unknown command 'add\\x0Dx' (did you mean 'add'?)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A BOM at the start is ignored, also in columns.
  func testByteOrderMark() throws {
    let result = try runScript(Data("\u{FEFF}add\nshow\n".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n1  7♥\n", err: "", status: 0)

    let bogus = try runScript(Data("\u{FEFF}bogus\n".utf8))
    assertOutcome(bogus, out: "", err: "in.hand:1:1: error: unknown command 'bogus'\n", status: 1)

    let streamed = try run(["--seed", "42", "-"], stdin: Data("\u{FEFF}add\n".utf8))
    assertOutcome(streamed, out: "7♥\n", err: "", status: 0)

    let command = try run(["--seed", "42", "-c", "\u{FEFF}add"])
    assertOutcome(command, out: "7♥\n", err: "", status: 0)
  }

  func testOnlySemicolons() throws {
    for text in [";;;;\n", ";;;;", " ; ;\t;;  # nothing\n"] {
      let result = try runScript(Data(text.utf8))
      assertNoCrash(result)
      XCTAssertEqual(result.out, "", "\(text.debugDescription)")
      XCTAssertEqual(result.err, "", "\(text.debugDescription)")
      XCTAssertEqual(result.status, 0, "\(text.debugDescription)")
    }
  }

  /// Control characters, escape sequences, C1 controls and bidirectional
  /// controls in an unknown command come out escaped.
  func testControlCharactersAreEscaped() throws {
    let text =
      "x\u{01}\u{1B}[31my\u{7F}\n" + "zz\u{1B}[2Jzz\n" + "zz\u{9B}zz\n"
      + "zz\u{202E}zz\u{2066}\n" + "zz\u{07}\u{08}\u{0B}\u{0C}zz\n"
    let result = try runScript(Data(text.utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    // Hex may be upper or lower case.
    XCTAssertEqual(
      result.err.lowercased(),
      ("in.hand:1:1: error: unknown command 'x\\x01\\x1B[31my\\x7F'\n"
        + "in.hand:2:1: error: unknown command 'zz\\x1B[2Jzz'\n"
        + "in.hand:3:1: error: unknown command 'zz\\x9Bzz'\n"
        + "in.hand:4:1: error: unknown command 'zz\\u{202E}zz\\u{2066}'\n"
        + "in.hand:5:1: error: unknown command 'zz\\x07\\x08\\x0B\\x0Czz'\n").lowercased())
    XCTAssertFalse(result.stderr.contains(0x1B), "an escape character reached stderr")
    XCTAssertEqual(result.status, 1)
  }

  func testEmptyFile() throws {
    let result = try runScript(Data())
    assertNoCrash(result)
    assertOutcome(result, out: "", err: "", status: 0)
  }

  func testNoFinalNewline() throws {
    let result = try runScript(Data("add\nadd".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n3♣ 7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42", "-"], stdin: Data("add\nadd".utf8))
    XCTAssertEqual(streamed.out, "7♥\n3♣ 7♥\n")
    XCTAssertEqual(streamed.status, 0)

    let bad = try runScript(Data("add\nbogus".utf8))
    assertOutcome(bad, out: "", err: "in.hand:2:1: error: unknown command 'bogus'\n", status: 1)
  }

  // MARK: - Faults (handsh(1), EXIT STATUS, save)

  func testSaveIntoMissingFolder() throws {
    let result = try run(["--seed", "42", "-c", "add; save missing/x.hand; show"])
    assertNoCrash(result)
    XCTAssertEqual(result.out, "7♥\n")
    XCTAssertEqual(
      result.err,
      "<command line>:1:6: error: cannot write missing/x.hand: No such file or directory\n")
    XCTAssertEqual(result.status, 1)
    XCTAssertFalse(exists("missing"))
    XCTAssertEqual(try temporaryFiles(), [])
  }

  func testSaveOntoAFolder() throws {
    let target = folder.appendingPathComponent("d", isDirectory: true)
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
    let inside = Data("keep me\n".utf8)
    try inside.write(to: target.appendingPathComponent("inside.hand"))

    let result = try run(["--seed", "42", "-c", "add; save d; show"])
    assertNoCrash(result)
    assertOutcome(
      result, out: "7♥\n", err: "<command line>:1:6: error: cannot write d: Is a directory\n",
      status: 1)

    var isFolder: ObjCBool = false
    XCTAssertTrue(FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder))
    XCTAssertTrue(isFolder.boolValue, "d is no longer a folder")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: target.path), ["inside.hand"])
    XCTAssertEqual(try Data(contentsOf: target.appendingPathComponent("inside.hand")), inside)
    XCTAssertEqual(try temporaryFiles(), [])
    XCTAssertEqual(try temporaryFiles(in: "d"), [])
  }

  /// A folder without write permission, holding a file the user may not
  /// write either: `Permission denied`, nothing changed. (A file they may
  /// write is written in place: SaveAuditTests.) Root writes anyway, so as
  /// root handsh runs as `nobody` through setpriv (or the test is skipped);
  /// the file is read-only so that the test means the same as any user.
  func testSaveIntoReadOnlyFolder() throws {
    let readOnly = folder.appendingPathComponent("ro", isDirectory: true)
    try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: false)
    let older = Data("#!/usr/bin/env handsh\nnew 1\nlimit 5\nadd AS\n".utf8)
    try older.write(to: readOnly.appendingPathComponent("x.hand"))
    XCTAssertEqual(chmod(readOnly.appendingPathComponent("x.hand").path, 0o444), 0)
    XCTAssertEqual(chmod(readOnly.path, 0o555), 0)
    defer { _ = chmod(readOnly.path, 0o755) }

    var arguments = ["--seed", "42", "-c", "add; save ro/x.hand; show"]
    var executable: URL? = nil
    if getuid() == 0 {
      let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
      let drop = ["--reuid=65534", "--regid=65534", "--clear-groups"]
      guard FileManager.default.isExecutableFile(atPath: setpriv.path),
        try run(drop + ["/bin/true"], executable: setpriv).status == 0
      else {
        throw XCTSkip(
          "running as root, where folder permissions do not stop writes, and setpriv cannot drop to uid 65534"
        )
      }
      XCTAssertEqual(chmod(folder.path, 0o755), 0)
      executable = setpriv
      arguments = drop + [binary.path] + arguments
    }
    let result = try run(arguments, executable: executable)
    assertNoCrash(result)
    XCTAssertEqual(result.out, "7♥\n")
    XCTAssertEqual(
      result.err, "<command line>:1:6: error: cannot write ro/x.hand: Permission denied\n")
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(try Data(contentsOf: readOnly.appendingPathComponent("x.hand")), older)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: readOnly.path), ["x.hand"])
  }

  /// A failed save leaves an older file at that path byte-identical:
  /// saving to `x.hand/y` fails (not a folder) and `x.hand` is untouched,
  /// and an older file whose folder is made unreachable is untouched too.
  func testFailedSaveLeavesOlderFileIntact() throws {
    let older = Data("#!/usr/bin/env handsh\nnew 1\nlimit 5\nadd AS\n".utf8)
    try write(older, to: "x.hand")
    let result = try run(["--seed", "42", "-c", "add; save x.hand/y"])
    assertNoCrash(result)
    XCTAssertEqual(
      result.err, "<command line>:1:6: error: cannot write x.hand/y: Not a directory\n")
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("x.hand")), older)
    XCTAssertEqual(try temporaryFiles(), [])

    // An empty FILE is a failed save, not a syntax error.
    let empty = try run(["--seed", "42", "-c", "add; save \"\"; show"])
    assertNoCrash(empty)
    XCTAssertEqual(empty.out, "7♥\n")
    XCTAssertTrue(empty.err.hasPrefix("<command line>:1:6: error: cannot write : "), empty.err)
    XCTAssertEqual(empty.status, 1)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["x.hand"])
  }

  /// SIGTERM in the middle of many saves to one path: afterwards the path
  /// holds nothing or a complete save, and no temporary file is left.
  func testSigtermDuringSaveLeavesNoPartialFile() throws {
    let reference = try run(["-q", "--seed", "42", "-c", "add; save reference.hand"])
    XCTAssertEqual(reference.status, 0, reference.err)
    let complete = try Data(contentsOf: folder.appendingPathComponent("reference.hand"))
    XCTAssertEqual(
      String(decoding: complete, as: UTF8.self), "#!/usr/bin/env handsh\nnew 42\nlimit 5\nadd 7H\n")

    try write(
      Data(("add\n" + String(repeating: "save out/OUT\n", count: 20_000)).utf8), to: "loop.hand")
    let out = folder.appendingPathComponent("out", isDirectory: true)
    var killed = 0
    for delay in [100, 60, 150, 230] {
      try? FileManager.default.removeItem(at: out)
      try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
      let result = try run(["-q", "--seed", "42", "loop.hand"]) { process in
        usleep(useconds_t(delay * 1000))
        process.terminate()
      }
      XCTAssertFalse(result.timedOut)
      if result.signal == SIGTERM {
        killed += 1
      } else {
        XCTAssertEqual(result.status, 0, "neither killed nor finished: \(result.err)")
      }
      let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
      XCTAssertTrue(names == [] || names == ["OUT"], "after SIGTERM at \(delay) ms: \(names)")
      if names == ["OUT"] {
        XCTAssertEqual(
          try Data(contentsOf: out.appendingPathComponent("OUT")), complete,
          "a partial file after SIGTERM at \(delay) ms")
      }
    }
    XCTAssertGreaterThan(killed, 0, "no run was still saving when SIGTERM came")
  }

  func testScriptThatIsAFolder() throws {
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("adir"), withIntermediateDirectories: false)
    let result = try run(["--seed", "42", "adir"])
    assertNoCrash(result)
    assertOutcome(result, out: "", err: "handsh: cannot open 'adir': Is a directory\n", status: 2)
  }

  func testScriptThatDoesNotExist() throws {
    let result = try run(["--seed", "42", "x.hand"])
    assertNoCrash(result)
    assertOutcome(
      result, out: "", err: "handsh: cannot open 'x.hand': No such file or directory\n", status: 2)
  }

  /// A FIFO as SCRIPT is read to its end, then checked and run: a syntax
  /// error written late still stops everything.
  func testScriptThatIsAFIFO() throws {
    let good = try runFIFO(chunks: ["add\n", "add\nshow\n"])
    assertNoCrash(good)
    assertOutcome(good, out: "7♥\n3♣ 7♥\n1  3♣\n2  7♥\n", err: "", status: 0)

    let late = try runFIFO(chunks: ["add\n", "show\nbogus\n"])
    assertNoCrash(late)
    // Nothing on stdout: the FIFO was read to its end before anything ran.
    assertOutcome(
      late, out: "", err: "fifo.hand:3:1: error: unknown command 'bogus'\n", status: 1)
  }

  // MARK: - Helpers

  typealias Outcome = TestRun

  /// Runs handsh (or EXECUTABLE) in this test's folder (see `TestProcess.run`).
  private func run(
    _ arguments: [String], stdin: Data? = nil, executable: URL? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    whileRunning: (Process) -> Void = { _ in }
  ) throws -> Outcome {
    var input: URL? = nil
    if let stdin {
      let url = folder.appendingPathComponent(".stdin-\(UUID().uuidString)")
      try stdin.write(to: url)
      input = url
    }
    defer { input.map { try? FileManager.default.removeItem(at: $0) } }
    let result = try TestProcess.run(
      executable ?? binary, arguments, in: folder, stdin: input, whileRunning: whileRunning)
    if result.timedOut {
      XCTFail(
        "\(arguments) timed out after \(Int(Self.timeout)) s and was killed", file: file, line: line
      )
    }
    return result
  }

  private func makeProcess(_ arguments: [String], executable: URL?) -> Process {
    let process = Process()
    process.executableURL = executable ?? binary
    process.arguments = arguments
    process.currentDirectoryURL = folder
    process.environment = TestProcess.environment()
    return process
  }

  /// Writes TEXT as `in.hand` and runs `handsh --seed 42 in.hand`.
  private func runScript(_ text: Data, file: StaticString = #filePath, line: UInt = #line) throws
    -> Outcome
  {
    try write(text, to: "in.hand")
    return try run(["--seed", "42", "in.hand"], file: file, line: line)
  }

  /// Runs `handsh --seed 42 fifo.hand` where `fifo.hand` is a FIFO that
  /// another thread writes CHUNKS into, 300 ms apart.
  private func runFIFO(chunks: [String]) throws -> Outcome {
    let path = folder.appendingPathComponent("fifo.hand").path
    unlink(path)
    XCTAssertEqual(mkfifo(path, 0o600), 0, "mkfifo: \(String(cString: strerror(errno)))")
    let written = DispatchSemaphore(value: 0)
    let writer = Thread {
      let fd = open(path, O_WRONLY)
      if fd >= 0 {
        for (index, chunk) in chunks.enumerated() {
          if index > 0 { usleep(300_000) }
          let bytes = Array(chunk.utf8)
          _ = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        }
        close(fd)
      }
      written.signal()
    }
    writer.start()
    let result = try run(["--seed", "42", "fifo.hand"])
    if written.wait(timeout: .now() + 2) == .timedOut {
      // handsh never opened the FIFO: open its other end to free the writer.
      XCTFail("handsh did not read the FIFO")
      let fd = open(path, O_RDONLY | O_NONBLOCK)
      _ = written.wait(timeout: .now() + 5)
      if fd >= 0 { close(fd) }
    }
    return result
  }

  /// Runs handsh with ARGUMENTS and stdin a pipe: `add` first, then, only
  /// once its hand line has come out, `show` and the end of input.
  private func checkStreaming(
    _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let label = "handsh \(arguments.joined(separator: " "))"
    let scratch = try GoldenTests.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let errURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let errHandle = try FileHandle(forWritingTo: errURL)
    defer { try? errHandle.close() }

    let input = Pipe()
    let output = Pipe()
    let process = makeProcess(arguments, executable: nil)
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errHandle
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    try process.run()
    defer {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    let reader = output.fileHandleForReading.fileDescriptor

    try input.fileHandleForWriting.write(contentsOf: Data("add\n".utf8))
    var received = Self.read(reader, until: Data("7♥\n".utf8), seconds: 3)
    XCTAssertEqual(
      String(decoding: received, as: UTF8.self), "7♥\n",
      "\(label): the first hand line did not come out within 3 s while stdin stayed open",
      file: file, line: line)

    try input.fileHandleForWriting.write(contentsOf: Data("show\n".utf8))
    try input.fileHandleForWriting.close()
    received += Self.read(reader, until: nil, seconds: Self.timeout)
    let timedOut = TestProcess.wait(process, done)
    XCTAssertFalse(timedOut, "\(label) timed out and was killed", file: file, line: line)
    XCTAssertEqual(
      String(decoding: received, as: UTF8.self), "7♥\n1  7♥\n", label, file: file, line: line)
    XCTAssertEqual(
      try String(contentsOf: errURL, encoding: .utf8), "", label, file: file, line: line)
    XCTAssertEqual(process.terminationReason, .exit, label, file: file, line: line)
    XCTAssertEqual(process.terminationStatus, 0, label, file: file, line: line)
  }

  /// Reads FD until the bytes end with SUFFIX (or, without one, until end
  /// of file), or SECONDS pass.
  private static func read(_ fd: Int32, until suffix: Data?, seconds: TimeInterval) -> Data {
    var data = Data()
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while Date() < deadline {
      if let suffix, data.count >= suffix.count, data.suffix(suffix.count) == suffix { break }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(1, min(100, deadline.timeIntervalSinceNow * 1000)))
      guard poll(&poller, 1, left) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return data
  }

  @discardableResult
  private func write(_ data: Data, to name: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  private func exists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
  }

  /// Names of save's temporary files (`.NAME.tmp-*`) left in a folder.
  private func temporaryFiles(in subfolder: String? = nil) throws -> [String] {
    let url = subfolder.map { folder.appendingPathComponent($0) } ?? folder!
    return try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
      $0.hasPrefix(".") && $0.contains(".tmp-")
    }
  }

  /// No crash: ended by exit (not a signal) with status 0, 1 or 2, in time.
  /// Checks all three results of a run at once: stdout, stderr and status.
  private func assertOutcome(
    _ result: Outcome, out: String, err: String, status: Int32, _ label: String = "",
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(result.out, out, "\(label) stdout", file: file, line: line)
    XCTAssertEqual(result.err, err, "\(label) stderr", file: file, line: line)
    XCTAssertEqual(result.status, status, "\(label) status", file: file, line: line)
  }

  private func assertNoCrash(
    _ result: Outcome, _ label: String = "", file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertFalse(result.timedOut, "\(label) timed out", file: file, line: line)
    XCTAssertNil(
      result.signal, "\(label) was killed by signal \(result.signal ?? 0)", file: file, line: line)
    XCTAssertTrue(
      [0, 1, 2].contains(result.status), "\(label) exit status \(result.status)", file: file,
      line: line)
  }

  private func assertSame(
    _ result: Outcome, _ expected: Outcome, _ label: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    assertNoCrash(result, label, file: file, line: line)
    XCTAssertEqual(result.status, expected.status, "\(label): exit status", file: file, line: line)
    if result.stdout != expected.stdout {
      XCTFail(
        "\(label): stdout\n" + GoldenTests.diff(expected.stdout, result.stdout), file: file,
        line: line)
    }
    if result.stderr != expected.stderr {
      XCTFail(
        "\(label): stderr\n" + GoldenTests.diff(expected.stderr, result.stderr), file: file,
        line: line)
    }
  }
}
