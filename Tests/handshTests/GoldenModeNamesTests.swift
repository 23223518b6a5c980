import Foundation
import HandKit
import XCTest

@testable import HandshCLI

/// GoldenModeTests, continued: test files, links and reports whose names are
/// not UTF-8, which Foundation cannot make or read and the C library can.
extension GoldenModeTests {
  // MARK: Names that are not UTF-8

  /// `folder` + `/` + `name` as a C path: Foundation cannot make or read
  /// names that are not UTF-8, the C library can.
  private func cPath(_ name: [UInt8]) -> [CChar] {
    (Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
  }

  private func create(_ name: [UInt8], _ text: String, mode: mode_t = 0o644) {
    let fd = open(cPath(name), O_WRONLY | O_CREAT | O_EXCL, mode)
    XCTAssertGreaterThanOrEqual(fd, 0, "cannot create \(safeText(name))")
    let bytes = Array(text.utf8)
    XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, bytes.count)
    close(fd)
  }

  /// The bytes of the file `name`; nil when it cannot be read.
  private func contents(_ name: [UInt8]) -> [UInt8]? {
    let fd = open(cPath(name), O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { return count == 0 ? bytes : nil }
      bytes += buffer[..<count]
    }
  }

  /// The names in the folder `name`, sorted.
  private func entries(_ name: String) -> [[UInt8]] {
    guard let stream = opendir(cPath(Array(name.utf8))) else { return [] }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
  }

  private func mode(_ name: [UInt8]) -> mode_t? {
    var status = stat()
    return lstat(cPath(name), &status) == 0 ? status.st_mode & 0o7777 : nil
  }

  /// handsh(1) promises that any name the file system accepts can be
  /// written: `--update` rewrites a failing test whose name is not UTF-8
  /// (as it does any other: atomically, its mode kept), and the report
  /// shows the name with the bad byte as `\xFF`.
  func testUpdateRewritesATestWhoseNameIsNotUTF8() throws {
    XCTAssertEqual(mkdir(cPath(Array("t".utf8)), 0o755), 0)
    let name = Array("t/b".utf8) + [0xFF] + Array(".hand".utf8)
    create(name, "add\n#> x\n", mode: 0o640)
    let report = try handsh(["--test", "t"])
    XCTAssertEqual(report.status, 1, report.err)
    XCTAssertEqual(
      report.out,
      "--- \"t/b\\377.hand\"\n+++ \"t/b\\377.hand\"\n@@ -1,2 +1,2 @@\n add\n-#> x\n+#> 8♠\n"
        + "0 passed, 1 failed\n")

    let result = try handsh(["--test", "--update", "t"])
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.out, "updated t/b\\xFF.hand\n0 passed, 1 updated\n")
    XCTAssertEqual(contents(name), Array("add\n#> 8♠\n".utf8))
    XCTAssertEqual(mode(name), 0o640)
    XCTAssertEqual(
      entries("t"), [Array("b".utf8) + [0xFF] + Array(".hand".utf8)], "no temporary left")
    XCTAssertEqual(try handsh(["--test", "t"]).out, "1 passed, 0 failed\n")
  }

  /// A symbolic link to a name that is not UTF-8: the link stays and that
  /// very target is written, not a look-alike name.
  func testUpdateWritesThroughALinkToANameThatIsNotUTF8() throws {
    let target = Array("c".utf8) + [0xFE] + Array(".hand".utf8)
    create(target, "add\n")
    XCTAssertEqual(
      symlink(target.map { CChar(bitPattern: $0) } + [0], cPath(Array("link.hand".utf8))), 0)
    let result = try handsh(["--test", "--update", "link.hand"])
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(contents(target), Array("add\n#> 8♠\n".utf8))
    XCTAssertEqual(entries("."), [target, Array("link.hand".utf8)])
    let attributes = try FileManager.default.attributesOfItem(
      atPath: folder.appendingPathComponent("link.hand").path)
    XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSymbolicLink)
  }

  /// `--junit FILE` with a FILE that is not UTF-8 (through the shell, as
  /// Foundation passes arguments as strings): written like any other, and a
  /// failure names it made safe.
  func testJUnitToANameThatIsNotUTF8() throws {
    try Data("add\n#> 8♠\n".utf8).write(to: folder.appendingPathComponent("ok.hand"))
    func junit(_ printed: String) throws -> TestRun {
      try TestProcess.run(
        URL(fileURLWithPath: "/bin/sh"),
        ["-c", "exec \"$0\" --test ok.hand --junit \"$(printf '\(printed)')\"", binary.path],
        in: folder)
    }
    let result = try junit("j\\377.xml")
    XCTAssertEqual(result.err, "")
    XCTAssertEqual(result.status, 0)
    XCTAssertEqual(result.out, "1 passed, 0 failed\n")
    let name = Array("j".utf8) + [0xFF] + Array(".xml".utf8)
    let plain = try handsh(["--test", "ok.hand", "--junit", "plain.xml"])
    XCTAssertEqual(plain.status, 0, plain.err)
    let xml = String(decoding: try XCTUnwrap(contents(name)), as: UTF8.self)
    XCTAssertEqual(
      Self.withoutTimes(xml),
      Self.withoutTimes(
        String(decoding: try read(folder.appendingPathComponent("plain.xml")), as: UTF8.self)))
    XCTAssertTrue(xml.contains("<testcase"), xml)

    let failed = try junit("no\\376/j.xml")
    XCTAssertEqual(failed.status, 2)
    XCTAssertEqual(failed.err, "handsh: cannot write 'no\\xFE/j.xml': No such file or directory\n")
  }
}
