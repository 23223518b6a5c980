import Foundation
import XCTest

@testable import HandshCLI

/// The bash, zsh and fish completions in completions/ are generated from the
/// option table (`completionScript(for:)`), in-process; these tests keep the
/// checked-in files equal to what the code generates. scripts/test-completion
/// (run by InstallTests) checks that the scripts complete what they should.
final class CompletionTests: XCTestCase {
  func testCheckedInScriptsAreGenerated() {
    for shell in Shell.allCases {
      assertSnapshot(completionScript(for: shell), path: "completions/\(shell.fileName)")
    }
  }

  /// Every long option of the table, and every short one, is in every script.
  func testEveryOptionIsCompleted() {
    for shell in Shell.allCases {
      let script = completionScript(for: shell)
      for spec in Options.table {
        let long = shell == .fish ? "-l \(spec.long) " : "--\(spec.long)"
        XCTAssertTrue(script.contains(long), "\(shell): no \(long)")
        if let short = spec.short {
          let name = shell == .fish ? "-s \(short) " : "-\(short)"
          XCTAssertTrue(script.contains(name), "\(shell): no \(name)")
        }
      }
    }
  }

  /// The completions follow the table: an option added to it, with a value
  /// of each kind, is completed by every shell.
  func testANewOptionIsCompletedByItsKind() {
    let extra = [
      OptionSpec(short: "x", long: "xfile", value: "FILE", help: "a file") { _, _ in },
      OptionSpec(short: nil, long: "xmode", value: "MODE", help: "a mode", choices: ["up", "down"])
      {
        _, _ in
      },
    ]
    let table = Options.table + extra
    let bash = completionScript(for: .bash, table: table)
    XCTAssertTrue(bash.contains("--xfile | --xfile=)"), bash)
    XCTAssertTrue(bash.contains("_handsh_add_words \"up down\""), bash)
    let zsh = completionScript(for: .zsh, table: table)
    XCTAssertTrue(zsh.contains("{-x+,--xfile=}'[a file]:FILE:_files'"), zsh)
    XCTAssertTrue(zsh.contains("'--xmode=[a mode]:MODE:(up down)'"), zsh)
    let fish = completionScript(for: .fish, table: table)
    XCTAssertTrue(fish.contains("complete -c handsh -s x -l xfile -r -F -d 'a file'"), fish)
    XCTAssertTrue(fish.contains("complete -c handsh -l xmode -x -a 'up down' -d 'a mode'"), fish)
    XCTAssertEqual(
      Options.table.first { $0.long == "color" }?.valueKind, .choice(["auto", "always", "never"]))
    XCTAssertEqual(Options.table.first { $0.long == "seed" }?.valueKind, .free)
    XCTAssertEqual(Options.table.first { $0.long == "quiet" }?.valueKind, OptionValue.none)
  }
}
