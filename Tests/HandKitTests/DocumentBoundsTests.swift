import Testing

@testable import HandKit

/// The bounds of one run of an editor's document (handsh(1), EDITORS): a
/// budget of commands, `source`d ones counted; a stop asked inside a
/// `source`d file; replies of bounded size.
@Suite struct DocumentBoundsTests {
  /// `f1.hand` sources `f2.hand` `count` times on one line, and so on down
  /// to an empty file: `count` to the power `levels` commands.
  private func bomb(levels: Int, count: Int) -> @Sendable (String) -> Result<[UInt8], ReadFailure> {
    { name in
      guard name.hasPrefix("f"), let level = Int(name.dropFirst().prefix { $0 != "." }) else {
        return .failure(ReadFailure("No such file or directory"))
      }
      if level > levels { return .success([]) }
      return .success(
        Array(String(repeating: "source f\(level + 1).hand; ", count: count).utf8) + [0x0A])
    }
  }

  @Test func aRunStopsAfterItsCommandsOnTheLineItReached() {
    let doc = HandDocument(
      text: Array("add\nsource f1.hand\nadd\n".utf8), read: bomb(levels: 4, count: 100),
      commands: 5000)
    #expect(doc.complete)
    #expect(doc.diagnostics.map(\.message) == [GoldenBounds.exhaustedText])
    #expect(doc.diagnostics.first?.range == 4..<18)
    #expect(GoldenBounds.exhaustedText == "analysis stopped: more than 10,000,000 commands")
    // Within the budget, the same file runs whole.
    let small = HandDocument(
      text: Array("add\nsource f1.hand\nadd\n".utf8), read: bomb(levels: 2, count: 10),
      commands: 5000)
    #expect(small.diagnostics.isEmpty)
  }

  @Test func aStopIsHeardInsideOneSourcedLine() {
    // One line of 100 x 100 x 100 sources: the stop is asked within it.
    final class Counter: @unchecked Sendable { var asked = 0 }
    let counter = Counter()
    let doc = HandDocument(
      text: Array("source f1.hand\n".utf8), read: bomb(levels: 3, count: 100),
      stop: {
        counter.asked += 1
        return counter.asked > 3
      })
    #expect(!doc.complete)
    #expect(counter.asked == 4)
  }

  @Test func aStopIsHeardWhileALargeSourcedFileIsChecked() {
    let large = Array(String(repeating: "add; del 1\n", count: 100_000).utf8)
    final class Counter: @unchecked Sendable { var asked = 0 }
    let counter = Counter()
    let doc = HandDocument(
      text: Array("source large.hand\n".utf8), read: { _ in .success(large) },
      stop: {
        counter.asked += 1
        return true
      })
    #expect(!doc.complete)
    #expect(counter.asked == 1)
  }

  @Test func aMessageHoldsAt64KiBCutAtALinesEnd() {
    let message = (1...20_000).map { "#> line \($0)" }.joined(separator: "\n")
    let cut = HandDocument.cut(message)
    #expect(cut.utf8.count <= 64 << 10)
    let lines = cut.split(separator: "\n")
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix("#> line ") })
    #expect(lines.last == "[\(20_000 - lines.count + 1) more lines]")
    // One line longer than the bound is cut within it.
    let long = HandDocument.cut(String(repeating: "♥", count: 40_000))
    #expect(long.utf8.count <= 64 << 10)
    #expect(long.hasSuffix("\n[1 more line]"))
  }

  @Test func aDocumentGetsAtMost10000Diagnostics() {
    let doc = HandDocument(text: Array(String(repeating: "del 1\n", count: 10_005).utf8))
    #expect(doc.diagnostics.count == 10_001)
    #expect(doc.diagnostics.last?.message == "[5 more problems not shown]")
    // A block that prints some 300 KB: one diagnostic, cut.
    let big = HandDocument(
      text: Array((String(repeating: "add; undo; ", count: 5000) + "history\n#> x\n").utf8))
    #expect(big.diagnostics.count == 1)
    #expect(big.diagnostics.allSatisfy { $0.message.utf8.count <= 64 << 10 })
    #expect(big.diagnostics.first?.message.hasSuffix(" more lines]") == true)
  }

  @Test func theSourceActionComesFromTheRunNotARunAgain() {
    final class Counter: @unchecked Sendable { var reads = 0 }
    let counter = Counter()
    let doc = HandDocument(
      text: Array("#!/usr/bin/env -S handsh --seed 42\nsource a.hand\n".utf8),
      read: { _ in
        counter.reads += 1
        return .success(Array("add\n".utf8))
      })
    #expect(counter.reads == 1)
    let edit = doc.expectationsEdit()
    #expect(counter.reads == 1)
    #expect(edit.map { String(decoding: $0.text, as: UTF8.self) } == "#> 7♥\n")
  }
}
