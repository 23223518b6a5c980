import Foundation
import Testing

@testable import HandshCLI

/// The one reader (handsh(1), FILES), in-process: a FIFO is refused
/// without waiting on it when only a regular file will do (golden files,
/// `source`), a folder is `Is a directory`, and a file is read whole.
struct ReaderTests {
  @Test func onlyARegularFileWhenAsked() throws {
    let box = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-reader-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: box, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: box) }
    let fifo = box.appendingPathComponent("ff").path
    #expect(mkfifo(fifo, 0o600) == 0)
    // No writer ever comes: a reader that opened it blocking would hang here.
    let started = Date()
    switch readFile(Array(fifo.utf8), regularOnly: true) {
    case .success: Issue.record("a FIFO was read as a regular file")
    case .failure(let error):
      #expect(error.description == "cannot open '\(fifo)': not a regular file")
      #expect(error.reason == "not a regular file")
    }
    #expect(Date().timeIntervalSince(started) < 2)

    let folder = box.path
    guard case .failure(let error) = readFile(Array(folder.utf8), regularOnly: true) else {
      Issue.record("a folder was read")
      return
    }
    #expect(error.description == "cannot open '\(folder)': Is a directory")

    let file = box.appendingPathComponent("a.hand").path
    try "add\nshow\n".write(toFile: file, atomically: false, encoding: .utf8)
    guard case .success(let text) = readFile(Array(file.utf8), regularOnly: true) else {
      Issue.record("a regular file was refused")
      return
    }
    #expect(text == Array("add\nshow\n".utf8))
  }
}
