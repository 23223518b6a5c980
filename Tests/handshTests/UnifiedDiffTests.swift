import Foundation
import HandKit
import XCTest

@testable import HandshCLI

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
