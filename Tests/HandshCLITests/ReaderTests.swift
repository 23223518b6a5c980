import Foundation
import Testing

@testable import HandshCLI

/// The one reader (handsh(1), FILES), in-process: a FIFO is refused
/// without waiting on it when only a regular file will do (golden files,
/// `source`), a folder is `Is a directory`, and a file is read whole.
struct ReaderTests {
  @Test func onlyARegularFileWhenAsked() throws {
    let box = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: box) }
    let fifo = box.appendingPathComponent("ff").path
    #expect(mkfifo(fifo, 0o600) == 0)
    // No writer ever comes: a reader that opened it blocking would hang here.
    let started = Date()
    switch readFile(Array(fifo.utf8), others: .refuse) {
    case .success: Issue.record("a FIFO was read as a regular file")
    case .failure(let error):
      #expect(error.description == "cannot open '\(fifo)': not a regular file")
      #expect(error.reason == "not a regular file")
    }
    #expect(Date().timeIntervalSince(started) < 2)

    let folder = box.path
    guard case .failure(let error) = readFile(Array(folder.utf8), others: .refuse) else {
      Issue.record("a folder was read")
      return
    }
    #expect(error.description == "cannot open '\(folder)': Is a directory")

    let file = box.appendingPathComponent("a.hand").path
    try "add\nshow\n".write(toFile: file, atomically: false, encoding: .utf8)
    guard case .success(let read) = readFile(Array(file.utf8), others: .refuse) else {
      Issue.record("a regular file was refused")
      return
    }
    #expect(read.bytes == Array("add\nshow\n".utf8))
    #expect(read.status.st_size == 9)
  }

  /// `source`'s way: a FIFO with no writer is read as empty at once, never
  /// waited on; a folder is still `Is a directory`.
  @Test func aFIFOWithNoWriterReadsAsEmptyWithoutWaiting() throws {
    let box = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: box) }
    let fifo = box.appendingPathComponent("ff").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let started = Date()
    guard case .success(let read) = readFile(Array(fifo.utf8), others: .readWithoutWaiting)
    else {
      Issue.record("a FIFO with no writer was refused")
      return
    }
    #expect(read.bytes.isEmpty)
    #expect(Date().timeIntervalSince(started) < 2)
    guard case .failure(let error) = readFile(Array(box.path.utf8), others: .readWithoutWaiting)
    else {
      Issue.record("a folder was read")
      return
    }
    #expect(error.reason == "Is a directory")
  }

  /// A line over the limit: a script's read stops soon after it (bounded
  /// memory); a golden file's `whole` read keeps every byte, for `--update`.
  @Test func aLongLineStopsAReadUnlessWhole() throws {
    let box = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: box) }
    let file = box.appendingPathComponent("long.hand").path
    var text = [UInt8](repeating: UInt8(ascii: "x"), count: lineLimit + 3 * 65536)
    text += Array("\nadd\n".utf8)
    #expect(FileManager.default.createFile(atPath: file, contents: Data(text)))
    guard case .success(let cut) = readFile(Array(file.utf8)),
      case .success(let whole) = readFile(Array(file.utf8), others: .refuse, whole: true)
    else {
      Issue.record("the file was not read")
      return
    }
    #expect(cut.bytes.count > lineLimit)
    #expect(cut.bytes.count < text.count)
    #expect(whole.bytes == text)
  }

  /// A size limit holds for a file that grows while it is read, not only
  /// for the size it has when opened: here the file is 100 bytes when
  /// opened (under the limit of 4 KiB), and gains 1000 bytes after each
  /// read, up to 50 000. The read stops as soon as what it read passes the
  /// limit, and says `too large`.
  @Test func aFileThatGrowsPastTheSizeLimitWhileReadIsTooLarge() throws {
    let box = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: box) }
    let file = box.appendingPathComponent("growing.hand").path
    let line = Array("add\n".utf8)
    #expect(
      FileManager.default.createFile(
        atPath: file, contents: Data(Array(repeating: line, count: 25).joined())))
    let appender = open(file, O_WRONLY | O_APPEND)
    #expect(appender >= 0)
    defer { close(appender) }
    let more = Array(Array(repeating: line, count: 250).joined())
    var grown = 0
    let result = readFile(Array(file.utf8), others: .refuse, sizeLimit: 4096) { _, _ in
      if grown < 50 {
        grown += 1
        more.withUnsafeBytes { #expect(write(appender, $0.baseAddress, $0.count) == 1000) }
      }
      return true
    }
    switch result {
    case .success(let read):
      Issue.record("read \(read.bytes.count) bytes past the limit of 4096")
    case .failure(let error):
      #expect(error.description.hasPrefix("cannot read '\(file)': too large"))
    }
    #expect(grown < 10)
  }

  /// A fresh folder of this test's own.
  private func temporaryFolder() throws -> URL {
    let box = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-reader-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: box, withIntermediateDirectories: true)
    return box
  }

  /// A second pass over a text starts at the line where the first paused,
  /// with that line's number, and the first line still loses its
  /// byte-order mark.
  @Test func textLinesStartAtAGivenLine() {
    func read(_ lines: inout TextLines) -> [(Int, String, Int)] {
      var seen: [(Int, String, Int)] = []
      lines.forEachLine { event in
        if case .line(let line) = event {
          seen.append((line.number, String(decoding: line.bytes, as: UTF8.self), line.offset))
        }
        return true
      }
      return seen
    }
    var lines = TextLines(text: Array("\u{FEFF}add\r\nshow\ndeck".utf8))
    let all = read(&lines)
    #expect(all.map(\.0) == [1, 2, 3])
    #expect(all.map(\.1) == ["add", "show", "deck"])
    #expect(all.map(\.2) == [0, 8, 13])
    lines.start(atOffset: 8, line: 2)
    let rest = read(&lines)
    #expect(rest.map(\.0) == [2, 3])
    #expect(rest.map(\.1) == ["show", "deck"])
    lines.start(atOffset: 0, line: 1)
    #expect(read(&lines).map(\.1) == ["add", "show", "deck"])
  }
}
