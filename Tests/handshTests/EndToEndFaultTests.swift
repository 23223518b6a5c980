import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// EndToEndTests, continued: faults while saving and opening (handsh(1),
/// EXIT STATUS, save): missing and read-only folders, a failed save, SIGTERM
/// mid-save, a script that is a folder, missing or a FIFO.
extension EndToEndTests {
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
}
