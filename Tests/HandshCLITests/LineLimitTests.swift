import Foundation
import HandKit
import Testing

@testable import HandshCLI

/// The line limit at its boundary (handsh(1), LIMITS): a line of exactly
/// 1048576 bytes is a line like any other, at the prompt, in a SCRIPT, in
/// `-c` and on stdin; one byte more is refused, and at the prompt it is not
/// kept in the history file either. (Caught the mutant that refused a line
/// of exactly the limit at the prompt, `<` for `<=`, which no test saw: the
/// tests tried only lines far over it.)
struct LineLimitTests {
  static let limit = 1 << 20
  static let tooLong = "error: line is longer than 1048576 bytes\n"

  /// `add # xxx…`: a line of exactly LENGTH bytes that adds a card.
  static func line(length: Int) -> [UInt8] {
    let start = Array("add # ".utf8)
    return start + [UInt8](repeating: UInt8(ascii: "x"), count: length - start.count)
  }

  struct Run: Equatable {
    var out: String
    var err: String
  }

  @Test func theLimitIsOneMebibyte() {
    #expect(lineLimit == 1_048_576)
    #expect(LineParser.tooLongMessage + "\n" == Self.tooLong.dropFirst("error: ".count))
  }

  /// At the prompt: exactly the limit runs; one byte more runs nothing.
  /// Neither is kept in the history file, which keeps lines of at most
  /// 64 KiB (tested at that boundary below).
  @Test func promptBoundary() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let historyPath = folder.appendingPathComponent("history").path
    let fits = Self.line(length: Self.limit)
    let over = Self.line(length: Self.limit + 1)

    let atLimit = try capture { runner in
      var history = HistoryFile(path: historyPath)
      _ = enter(fits, &runner, &history)
      _ = enter(Array("show".utf8), &runner, &history)
    }
    #expect(atLimit == Run(out: "7♥\n1  7♥\n", err: ""))
    let kept = try Data(contentsOf: URL(fileURLWithPath: historyPath))
    // A Bool: a failed == on two 1 MiB collections would make the test
    // library compute their difference, which takes hours.
    let keptOnlyShow = kept == Data("show\n".utf8)
    #expect(keptOnlyShow, "the history file holds \(kept.count) bytes")

    try FileManager.default.removeItem(atPath: historyPath)
    let overLimit = try capture { runner in
      var history = HistoryFile(path: historyPath)
      _ = enter(over, &runner, &history)
      _ = enter(Array("show".utf8), &runner, &history)
    }
    #expect(overLimit.out == "(empty)\n", "the line over the limit ran")
    #expect(overLimit.err.hasSuffix(Self.tooLong), "\(overLimit.err.prefix(200))")
    let afterOver = try Data(contentsOf: URL(fileURLWithPath: historyPath))
    let onlyShow = afterOver == Data("show\n".utf8)
    #expect(onlyShow, "the line over the limit was kept: \(afterOver.count) bytes")
  }

  /// The history file's own bound: a line of exactly 64 KiB is kept; one
  /// byte more runs but is not kept.
  @Test func historyLineBoundary() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let historyPath = folder.appendingPathComponent("history").path
    let fits = Self.line(length: 1 << 16)
    let over = Self.line(length: (1 << 16) + 1)
    let run = try capture { runner in
      var history = HistoryFile(path: historyPath)
      _ = enter(fits, &runner, &history)
      _ = enter(over, &runner, &history)
    }
    #expect(run == Run(out: "7♥\n3♣ 7♥\n", err: ""))
    let kept = try Data(contentsOf: URL(fileURLWithPath: historyPath))
    let keptOnlyTheFirst = kept == Data(fits + [0x0A])
    #expect(keptOnlyTheFirst, "the history file holds \(kept.count) bytes")
  }

  /// A SCRIPT, `-c` and stdin: exactly the limit runs; one more byte is the
  /// line-limit error at that line.
  @Test(arguments: ["script", "stream"])
  func scriptAndStdinBoundary(kind: String) throws {
    func run(_ text: [UInt8]) throws -> Run {
      try capture { runner in
        if kind == "script" {
          _ = runner.runText(text, name: "s.hand")
        } else {
          let file = tmpfile()
          defer { fclose(file) }
          text.withUnsafeBytes { _ = write(fileno(file), $0.baseAddress, $0.count) }
          lseek(fileno(file), 0, SEEK_SET)
          var lines = StreamLines(fd: fileno(file))
          _ = runner.runStream(&lines, name: "s.hand")
        }
      }
    }
    let show = Array("\nshow\n".utf8)
    let fits = try run(Self.line(length: Self.limit) + show)
    #expect(fits == Run(out: "7♥\n1  7♥\n", err: ""))
    // Without a final line break too: the end of the input ends the line.
    let fitsAtEnd = try run(Array("show\n".utf8) + Self.line(length: Self.limit))
    #expect(fitsAtEnd == Run(out: "(empty)\n7♥\n", err: ""))

    let over = try run(Self.line(length: Self.limit + 1) + show)
    #expect(over.out == "")
    #expect(over.err == "s.hand:1:1: " + Self.tooLong)
    let overAtEnd = try run(Array("show\n".utf8) + Self.line(length: Self.limit + 1))
    #expect(overAtEnd.err == "s.hand:2:1: " + Self.tooLong)
  }

  // MARK: - Helpers

  private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-limit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Runs `body` with a runner (seed 42, which deals 7♥ first) writing to
  /// two temporary files.
  private func capture(_ body: (inout Runner) -> Void) throws -> Run {
    let options = try Options(parsing: ["--color=never"])
    let out = tmpfile()
    let err = tmpfile()
    defer {
      fclose(out)
      fclose(err)
    }
    var runner = Runner(options: options, seed: 42, output: fileno(out), errors: fileno(err))
    body(&runner)
    runner.output.flush()
    return Run(out: contents(of: out), err: contents(of: err))
  }

  private func contents(of file: UnsafeMutablePointer<FILE>?) -> String {
    let fd = fileno(file)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    lseek(fd, 0, SEEK_SET)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
