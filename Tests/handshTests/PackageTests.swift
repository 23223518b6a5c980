import Foundation
import HandshCLI
import XCTest

/// The Debian package (scripts/package): its file list, its control fields,
/// lintian's verdict, and the packaged handsh unpacked into a temporary root
/// (`dpkg -x`) and run from there with an empty environment.
final class PackageTests: XCTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    folder = try TestProcess.temporaryFolder()
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func tool(_ name: String) throws -> URL {
    guard
      let path = ["/usr/bin/\(name)", "/bin/\(name)"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else {
      XCTFail("\(name) is not installed: run scripts/bootstrap")
      throw CocoaError(.fileNoSuchFile)
    }
    return URL(fileURLWithPath: path)
  }

  private func run(_ name: String, _ arguments: [String]) throws -> TestRun {
    try TestProcess.run(try tool(name), arguments, in: folder, timeout: 300)
  }

  /// scripts/package --output folder: the .deb it wrote.
  private func package() throws -> URL {
    let output = folder.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let built = try Release.script("package", ["--output", output.path])
    XCTAssertEqual(built.status, 0, built.out + built.err)
    let arch = try run("dpkg", ["--print-architecture"]).out.trimmingCharacters(
      in: .whitespacesAndNewlines)
    let deb = output.appendingPathComponent("handsh_\(handshVersion)-1_\(arch).deb")
    XCTAssertEqual(built.out, deb.path + "\n")
    // Nothing but the package in the output folder.
    XCTAssertEqual(Release.files(under: output), [deb.lastPathComponent])
    return deb
  }

  static let packaged = [
    "usr/bin/handsh",
    "usr/share/bash-completion/completions/handsh",
    "usr/share/doc/handsh/changelog.Debian.gz",
    "usr/share/doc/handsh/copyright",
    "usr/share/fish/vendor_completions.d/handsh.fish",
    "usr/share/lintian/overrides/handsh",
    "usr/share/man/man1/handsh.1.gz",
    "usr/share/nvim/site/ftdetect/hand.vim",
    "usr/share/nvim/site/ftplugin/hand.vim",
    "usr/share/nvim/site/syntax/hand.vim",
    "usr/share/vim/vimfiles/ftdetect/hand.vim",
    "usr/share/vim/vimfiles/ftplugin/hand.vim",
    "usr/share/vim/vimfiles/syntax/hand.vim",
    "usr/share/zsh/vendor-completions/_handsh",
  ]

  func testPackageFilesFieldsAndLintian() throws {
    let deb = try package()
    // The file list: these files, root-owned, and their folders.
    let contents = try run("dpkg-deb", ["--contents", deb.path])
    XCTAssertEqual(contents.status, 0, contents.err)
    var files: [String] = []
    for line in contents.out.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 6, let path = fields.last else { continue }
      XCTAssertEqual(fields[1], "root/root", String(line))
      if fields[0].hasPrefix("-") {
        files.append(String(path.dropFirst(2)))  // "./usr/..." -> "usr/..."
        let mode = fields[0]
        XCTAssertEqual(
          mode, path.hasSuffix("bin/handsh") ? "-rwxr-xr-x" : "-rw-r--r--", String(line))
      } else {
        XCTAssertEqual(fields[0], "drwxr-xr-x", String(line))
      }
    }
    XCTAssertEqual(files.sorted(), Self.packaged)

    let fields = try run("dpkg-deb", ["--field", deb.path, "Package", "Version", "Section"])
    XCTAssertEqual(
      fields.out, "Package: handsh\nVersion: \(handshVersion)-1\nSection: utils\n", fields.err)

    // lintian: no error and no warning (the overrides are listed and
    // justified in packaging/debian/lintian-overrides).
    let lintian = try run("lintian", [deb.path])
    XCTAssertEqual(lintian.status, 0, lintian.out + lintian.err)
    let remarks = lintian.out.split(separator: "\n").filter {
      $0.hasPrefix("E:") || $0.hasPrefix("W:")
    }
    XCTAssertEqual(remarks, [], lintian.out)
  }

  func testUnpackedPackageRunsWithAnEmptyEnvironment() throws {
    let deb = try package()
    let root = folder.appendingPathComponent("root")
    let unpack = try run("dpkg", ["-x", deb.path, root.path])
    XCTAssertEqual(unpack.status, 0, unpack.err)
    XCTAssertEqual(Release.files(under: root), Self.packaged)

    let handsh = root.appendingPathComponent("usr/bin/handsh")
    XCTAssertTrue(try Release.isStatic(handsh))
    let bare = try Release.bare(handsh, ["--seed", "42", "-c", "add; add; show; deck"], in: folder)
    XCTAssertEqual(bare.status, 0, bare.err)
    XCTAssertEqual(bare.out, "7♥\n3♣ 7♥\n1  3♣\n2  7♥\n50 in deck, 0 discarded, seed 42\n")
    XCTAssertEqual(bare.err, "")
    let version = try Release.bare(handsh, ["--version"], in: folder)
    XCTAssertEqual(version.out, "handsh \(handshVersion)\n")
    // A script from a file, and a usage error, from the unpacked binary.
    let script = folder.appendingPathComponent("deal.hand")
    try "#!/usr/bin/env handsh\nadd; expect 7h\n".write(
      to: script, atomically: true, encoding: .utf8)
    let ran = try Release.bare(handsh, ["-q", "--seed", "42", script.path], in: folder)
    XCTAssertEqual(ran.status, 0, ran.err)
    let usage = try Release.bare(handsh, ["--bogus"], in: folder)
    XCTAssertEqual(usage.status, 2)

    // The manual is the repository's, compressed; the copyright is DEP-5.
    let manual = try run(
      "gzip", ["-dc", root.appendingPathComponent("usr/share/man/man1/handsh.1.gz").path])
    XCTAssertEqual(
      manual.stdout,
      FileManager.default.contents(
        atPath: TestProcess.repository.appendingPathComponent("man/handsh.1").path))
    let copyright = try String(
      contentsOf: root.appendingPathComponent("usr/share/doc/handsh/copyright"), encoding: .utf8)
    XCTAssertTrue(
      copyright.hasPrefix(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
    XCTAssertTrue(copyright.contains("License: GPL-3.0-or-later\n"))
    let changelog = try run(
      "gzip", ["-dc", root.appendingPathComponent("usr/share/doc/handsh/changelog.Debian.gz").path])
    XCTAssertTrue(changelog.out.hasPrefix("handsh (\(handshVersion)-1) "), changelog.out)
  }
}
