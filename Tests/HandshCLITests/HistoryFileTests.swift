import Foundation
import Testing

@testable import HandshCLI

/// The history file's bounded work (handsh(1), FILES), in-process: a file
/// that something else made huge is read from its end only and cut back at
/// the first line, a line over 64 KiB is not kept, and a lock held by
/// another program is waited on for at most 2 seconds. Each test has its
/// own temporary folder.
struct HistoryFileTests {
  private func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("handsh-history-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private func size(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : -1
  }

  /// A 400 MB file of NUL bytes (no line in its last 64 MiB): nothing is
  /// loaded, and the first line entered cuts the file back to that line.
  @Test func aHugeFileIsReadFromItsEndAndCutBack() throws {
    let box = try folder()
    defer { try? FileManager.default.removeItem(at: box) }
    let path = box.appendingPathComponent("h").path
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    #expect(truncate(path, 400 << 20) == 0)
    guard case .success(let lines) = HistoryFile.readLines(path) else {
      Issue.record("the file could not be read")
      return
    }
    #expect(lines.isEmpty, "a 64 MiB line was loaded")
    #expect(HistoryFile.append(Array("add".utf8), to: path, keeping: 1000) == nil)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "add\n")
  }

  /// 1500 lines, then a line more: the file holds the last 1000; the
  /// lines loaded are those.
  @Test func aLongFileIsCutToItsLast1000Lines() throws {
    let box = try folder()
    defer { try? FileManager.default.removeItem(at: box) }
    let path = box.appendingPathComponent("h").path
    let old = (0..<1500).map { "limit # \($0)\n" }.joined()
    try old.write(toFile: path, atomically: false, encoding: .utf8)
    guard case .success(let lines) = HistoryFile.readLines(path) else {
      Issue.record("the file could not be read")
      return
    }
    #expect(lines.count == 1000)
    #expect(lines.first.map { String(decoding: $0, as: UTF8.self) } == "limit # 500")
    #expect(HistoryFile.append(Array("show".utf8), to: path, keeping: 1000) == nil)
    let kept = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(kept.count == 1000)
    #expect(kept.first == "limit # 501")
    #expect(kept.last == "show")
  }

  /// A line over 64 KiB runs (the prompt's business) but is not kept.
  @Test func aLineOver64KiBIsNotKept() throws {
    let box = try folder()
    defer { try? FileManager.default.removeItem(at: box) }
    let path = box.appendingPathComponent("h").path
    var history = HistoryFile(path: path)
    history.add(Array("limit #".utf8) + [UInt8](repeating: 0x78, count: 1 << 16))
    history.add(Array("show".utf8))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "show\n")
  }

  /// Another program holds the lock for 5 seconds: the append gives up
  /// after about 2, writes nothing, and says `.locked`.
  @Test func aHeldLockIsWaitedOnForAtMost2Seconds() throws {
    let box = try folder()
    defer { try? FileManager.default.removeItem(at: box) }
    let path = box.appendingPathComponent("h").path
    try "show\n".write(toFile: path, atomically: false, encoding: .utf8)
    let holder = open(path, O_RDONLY)
    #expect(holder >= 0)
    #expect(flock(holder, LOCK_EX) == 0)
    let release = Thread {
      sleep(5)
      close(holder)
    }
    release.start()
    let started = Date()
    let problem = HistoryFile.append(Array("deck".utf8), to: path, keeping: 1000)
    let waited = Date().timeIntervalSince(started)
    #expect(problem == .locked(path: path))
    #expect(waited >= 1.9 && waited < 4, "waited \(waited) s")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "show\n")
  }

  /// Another user's link in a sticky folder (`/tmp`'s rule) to a file of
  /// root's: the history file is not followed there (before, root's typed
  /// line was appended to the victim); it is reported as unusable, and the
  /// victim is untouched. Needs root, to plant a link owned by another user.
  @Test(.enabled(if: getuid() == 0)) func anotherUsersLinkInAStickyFolderIsRefused() throws {
    let box = try folder()
    defer { try? FileManager.default.removeItem(at: box) }
    let sticky = box.appendingPathComponent("sticky").path
    #expect(mkdir(sticky, 0o777) == 0)
    #expect(chmod(sticky, 0o1777) == 0)
    let victim = box.appendingPathComponent("victim").path
    try "root's\n".write(toFile: victim, atomically: false, encoding: .utf8)
    let link = sticky + "/h"
    #expect(symlink(victim, link) == 0)
    #expect(lchown(link, 65534, 65534) == 0)
    guard case .unusable(let problem) = HistoryFile.kind(of: link) else {
      Issue.record("the link was taken for a usable history file")
      return
    }
    #expect(problem.description.hasSuffix("Permission denied"), "\(problem)")
    #expect(HistoryFile.append(Array("add".utf8), to: link, keeping: 1000) != nil)
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's\n")
  }

  /// A lasting write fault, at any moment of the cut of a full file: the
  /// file holds whole lines, at most 1000, the old ones in order. (The
  /// faults themselves are injected by strace in Tests/pty.) Here: the cut
  /// of a file that something else made hold 1500 lines, whose folder
  /// refuses a new file, is made in place and leaves the last 1000.
  @Test func theCutInAFolderThatRefusesANewFileIsMadeInPlace() throws {
    let box = try folder()
    defer {
      chmod(box.path, 0o755)
      try? FileManager.default.removeItem(at: box)
    }
    let path = box.appendingPathComponent("h").path
    try (0..<1500).map { "limit # \($0)\n" }.joined().write(
      toFile: path, atomically: false, encoding: .utf8)
    var before = stat()
    #expect(stat(path, &before) == 0)
    #expect(chmod(box.path, 0o555) == 0)
    #expect(HistoryFile.append(Array("show".utf8), to: path, keeping: 1000) == nil)
    let kept = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(kept.count == 1000)
    #expect(kept.first == "limit # 501")
    #expect(kept.last == "show")
    var after = stat()
    #expect(stat(path, &after) == 0)
    if getuid() != 0 { #expect(after.st_ino == before.st_ino, "not cut in place") }
  }
}
