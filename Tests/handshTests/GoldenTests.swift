import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the script cases of `Tests/ScriptCases` against the built `handsh`:
/// what golden tests (`Tests/Golden`, run by `GoldenModeTests` through
/// `handsh --test`) cannot hold: options, stdin, exit statuses and the
/// `SCRIPT:LINE:COLUMN` diagnostics of scripts.
///
/// A case is `NAME.hand` (the script, also fed as stdin) with optional
/// `NAME.args` (one argument a line; default `--seed 42 NAME.hand`) and
/// `NAME.env` (`KEY=VALUE` lines). It runs in `Tests/ScriptCases` with `NO_COLOR`
/// removed, `SWIFT_BACKTRACE=enable=no` and `HANDSH_HISTORY` empty, and must
/// print `NAME.out` on stdout, `NAME.err` on stderr (none when absent) and
/// exit with `NAME.status` (0 when absent). `scripts/update-golden` writes
/// the expected files; this test only reads them.
final class GoldenTests: XCTestCase {
  static let timeout = TestProcess.timeout
  static let minimumCases = 60

  func testScriptCases() throws {
    let binary = try Self.handshBinary()
    let folder = Self.goldenFolder
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".hand") }
      .map { String($0.dropLast(".hand".count)) }
      .sorted()
    XCTAssertGreaterThanOrEqual(
      names.count, Self.minimumCases, "too few script cases in \(folder.path)")

    var failed: [String] = []
    for name in names {
      let problems = try check(name, binary: binary, folder: folder)
      if !problems.isEmpty {
        failed.append(name)
        XCTFail("script case \(name):\n" + problems.joined(separator: "\n"))
      }
    }
    if !failed.isEmpty {
      XCTFail(
        "\(failed.count) of \(names.count) script cases failed: \(failed.joined(separator: " "))\n"
          + "(if the change is intended: scripts/update-golden \(failed.joined(separator: " ")), then review git diff)"
      )
    }
  }

  /// `save` writes exactly the script that handsh(1) describes under save, and running it rebuilds
  /// the same hand, deck order, discard pile and limit.
  func testSaveWritesAReplayableScript() throws {
    let binary = try Self.handshBinary()
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let saved = folder.appendingPathComponent("saved hand;#.hand")

    let session =
      "limit 4; add; add; add 5h; del 2; mv 1 2; new 7; limit 6; add; add 2c; add; del 1; mv 1 2; add; undo"
    // Draw out the whole deck so that its order is compared too.
    let probe =
      ["show", "deck", "limit", "limit 52"] + Array(repeating: "add", count: 49) + ["show", "deck"]
    let original = try run(
      binary,
      [
        "-q", "--seed", "42", "-c",
        session + "; save \"\(saved.path)\"; " + probe.joined(separator: "; "),
      ],
      in: folder)
    XCTAssertEqual(original.status, 0, "stderr: \(original.errText)")
    XCTAssertEqual(original.errText, "")

    let text = try String(contentsOf: saved, encoding: .utf8)
    XCTAssertEqual(
      text,
      "#!/usr/bin/env handsh\nnew 7\nlimit 4\nlimit 6\nadd 4D\nadd 2C\nadd 5H\ndel 1\nmv 1 2\n")

    let replay = folder.appendingPathComponent("replay.hand")
    try Data((text + probe.joined(separator: "\n") + "\n").utf8).write(to: replay)
    let replayed = try run(binary, ["-q", "--seed", "1", replay.path], in: folder)
    XCTAssertEqual(replayed.status, 0, "stderr: \(replayed.errText)")
    XCTAssertEqual(replayed.errText, "")
    XCTAssertEqual(replayed.outText, original.outText)
    XCTAssertTrue(
      replayed.outText.hasPrefix("1  4♦\n2  2♣\n49 in deck, 1 discarded, seed 7\n6\n"),
      replayed.outText)

    // A failed save leaves the older file intact.
    let again = try run(
      binary, ["--seed", "42", "-c", "add; save \"\(saved.path)/x\""], in: folder)
    XCTAssertEqual(again.status, 1)
    XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), text)
  }

  /// `handsh long.hand | head -1` ends at once and says nothing.
  func testClosedPipeEndsQuietly() throws {
    let binary = try Self.handshBinary()
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let command =
      "limit 52; " + Array(repeating: "add", count: 52).joined(separator: "; ")
      + "; " + Array(repeating: "history", count: 300).joined(separator: "; ")
    let pipe = Pipe()
    let result = try run(binary, ["--seed", "1", "-c", command], in: folder, stdout: pipe) {
      _ = pipe.fileHandleForReading.readData(ofLength: 10)
      try? pipe.fileHandleForReading.close()
    }
    XCTAssertFalse(result.timedOut)
    XCTAssertEqual(result.errText, "")
  }

  #if os(Linux)
    /// A write error such as a full disk is reported, with exit status 1.
    func testWriteErrorIsReported() throws {
      guard let full = FileHandle(forWritingAtPath: "/dev/full") else {
        throw XCTSkip("no /dev/full")
      }
      let binary = try Self.handshBinary()
      let folder = try Self.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let result = try run(binary, ["--seed", "1", "-c", "add; show"], in: folder, stdout: full)
      XCTAssertEqual(result.status, 1)
      XCTAssertNotEqual(result.errText, "")
    }
  #endif

  // MARK: - One case

  /// The differences between what case NAME printed and what it should.
  private func check(_ name: String, binary: URL, folder: URL) throws -> [String] {
    func file(_ ext: String) -> URL { folder.appendingPathComponent("\(name).\(ext)") }
    func read(_ ext: String) throws -> Data? {
      FileManager.default.fileExists(atPath: file(ext).path) ? try Data(contentsOf: file(ext)) : nil
    }
    guard let expectedOut = try read("out") else {
      return ["\(name).out is missing (run scripts/update-golden \(name))"]
    }
    let expectedErr = try read("err") ?? Data()
    var expectedStatus: Int32 = 0
    if let data = try read("status") {
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      guard let status = Int32(text) else { return ["\(name).status is not a number: '\(text)'"] }
      expectedStatus = status
    }
    let arguments = try read("args").map(Self.lines) ?? ["--seed", "42", "\(name).hand"]
    var environment: [String: String] = [:]
    for line in try read("env").map(Self.lines) ?? [] where !line.isEmpty {
      let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      environment[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }

    let result = try run(
      binary, arguments, in: folder, stdin: file("hand"), environment: environment)
    var problems: [String] = []
    if result.timedOut {
      problems.append("timed out after \(Int(Self.timeout)) s and was killed")
    }
    if result.status != expectedStatus {
      problems.append("exit status \(result.status), expected \(expectedStatus)")
    }
    if result.stdout != expectedOut {
      problems.append("stdout differs from \(name).out:\n" + Self.diff(expectedOut, result.stdout))
    }
    if result.stderr != expectedErr {
      let source = expectedErr.isEmpty ? "(no \(name).err: stderr must be empty)" : "\(name).err"
      problems.append("stderr differs from \(source):\n" + Self.diff(expectedErr, result.stderr))
    }
    return problems
  }

  // MARK: - Running handsh

  struct Result {
    var stdout: Data
    var stderr: Data
    var status: Int32
    var timedOut: Bool
    var outText: String { String(decoding: stdout, as: UTF8.self) }
    var errText: String { String(decoding: stderr, as: UTF8.self) }
  }

  /// Runs BINARY in FOLDER (see `TestProcess.run`); a status by signal N
  /// reads as 128 + N, as in the shell.
  private func run(
    _ binary: URL, _ arguments: [String], in folder: URL, stdin: URL? = nil,
    environment: [String: String] = [:], stdout: Any? = nil,
    whileRunning: () -> Void = {}
  ) throws -> Result {
    let run = try TestProcess.run(
      binary, arguments, in: folder, stdin: stdin, environment: environment, stdout: stdout
    ) { _ in whileRunning() }
    return Result(
      stdout: run.stdout, stderr: run.stderr, status: run.shellStatus, timedOut: run.timedOut)
  }

  // MARK: - Finding things

  /// `Tests/ScriptCases`, next to this file's folder.
  static var goldenFolder: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("ScriptCases", isDirectory: true)
  }

  static func handshBinary() throws -> URL { try TestProcess.handshBinary() }

  static func temporaryFolder() throws -> URL { try TestProcess.temporaryFolder() }

  static func lines(_ data: Data) -> [String] {
    var parts = Array(data).split(separator: 0x0A, omittingEmptySubsequences: false)
    if parts.last?.isEmpty == true { parts.removeLast() }
    return parts.map { String(decoding: $0, as: UTF8.self) }
  }

  /// A short line diff from the first differing line, with control
  /// characters and invalid UTF-8 made visible.
  static func diff(_ expected: Data, _ actual: Data) -> String {
    func split(_ data: Data) -> [[UInt8]] {
      Array(data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    }
    let old = split(expected)
    let new = split(actual)
    var first = 0
    while first < old.count, first < new.count, old[first] == new[first] { first += 1 }
    var report: [String] = []
    for index in max(0, first - 2)..<first { report.append("  \(visible(old[index]))") }
    let shown = 12
    for line in old[first...].prefix(shown) { report.append("- \(visible(line))") }
    if old.count - first > shown { report.append("- … \(old.count - first - shown) more lines") }
    for line in new[first...].prefix(shown) { report.append("+ \(visible(line))") }
    if new.count - first > shown { report.append("+ … \(new.count - first - shown) more lines") }
    return
      "  (from line \(first + 1); '-' expected, '+' got; a final empty line means the text ended with a newline)\n"
      + report.map { "  " + $0 }.joined(separator: "\n")
  }

  static func visible(_ bytes: [UInt8]) -> String {
    var text = ""
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
      let value = scalar.value
      if value < 0x20 || (0x7F...0x9F).contains(value) {
        text +=
          value == 0x1B
          ? "\\e" : "\\x" + String(value, radix: 16, uppercase: true).leftPadded(to: 2)
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return "\"" + text + "\""
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
