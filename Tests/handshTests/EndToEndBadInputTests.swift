import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// EndToEndTests, continued: bad input (handsh(1), THE LANGUAGE,
/// Diagnostics): invalid UTF-8, NUL bytes, long lines and words, CR, BOM,
/// control characters, empty files.
extension EndToEndTests {
  // MARK: - Bad input (handsh(1), THE LANGUAGE, Diagnostics)

  func testInvalidUTF8() throws {
    // 0xFF; a truncated sequence in a command word; an encoded surrogate;
    // a truncated `♥` at the end of the file.
    let bytes: [UInt8] =
      Array("add ".utf8) + [0xFF, 0x0A] + Array("zz".utf8) + [0xC3, 0x28, 0x0A]
      + Array(" del ".utf8) + [0xED, 0xA0, 0x80, 0x0A] + Array("add ".utf8) + [0xE2, 0x99]
    let result = try runScript(Data(bytes))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:5: error: invalid UTF-8 in input\n"
        + "in.hand:2:1: error: invalid UTF-8 in input\n"
        + "in.hand:3:6: error: invalid UTF-8 in input\n"
        + "in.hand:4:5: error: invalid UTF-8 in input\n")
    XCTAssertEqual(result.status, 1)

    // In a comment, still the line's one error.
    let comment = try runScript(Data(Array("add # ".utf8) + [0xFF, 0x0A]))
    assertNoCrash(comment)
    XCTAssertEqual(comment.out, "")
    XCTAssertTrue(comment.err.hasPrefix("in.hand:1:"), comment.err)
    XCTAssertTrue(comment.err.hasSuffix(": error: invalid UTF-8 in input\n"), comment.err)
    XCTAssertEqual(comment.status, 1)
  }

  func testNULBytes() throws {
    let result = try runScript(
      Data(Array("add".utf8) + [0x00, 0x0A] + Array("de".utf8) + [0, 0x6C, 0x0A]))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:1: error: unknown command 'add\\x00' (did you mean 'add'?)\n"
        + "in.hand:2:1: error: unknown command 'de\\x00l' (did you mean 'del'?)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A comment that fills a line to the line limit (1 MiB), after a command.
  func testLineLimitLongComment() throws {
    let text =
      Data("add # ".utf8) + Data(repeating: UInt8(ascii: "x"), count: (1 << 20) - 6)
      + Data("\nshow\n".utf8)
    let result = try runScript(text)
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n1  7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42", "-"], stdin: text)
    assertNoCrash(streamed)
    assertOutcome(streamed, out: "7♥\n1  7♥\n", err: "", status: 0)
  }

  /// A line of `;` as long as a line may be: a million blank commands.
  func testLineLimitLineOfSemicolons() throws {
    let text = Data(repeating: UInt8(ascii: ";"), count: 1 << 20) + Data("\nadd\n".utf8)
    let result = try runScript(text)
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n", err: "", status: 0)
  }

  /// A word of a million characters, as a command and as a card: the
  /// diagnostic quotes its first 80 and last 32 bytes (handsh(1), Diagnostics).
  func testMillionCharacterWord() throws {
    let word = String(repeating: "y", count: 1_000_000)
    let shown = String(repeating: "y", count: 80) + "…" + String(repeating: "y", count: 32)
    let result = try runScript(Data((word + "\nadd " + word + "\n").utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertTrue(
      result.err == "in.hand:1:1: error: unknown command '\(shown)'\n"
        + "in.hand:2:5: error: invalid card '\(shown)'\n",
      "stderr starts: \(result.err.prefix(80))")
    XCTAssertEqual(result.status, 1)
  }

  /// A number of a thousand digits is out of range for every kind of number;
  /// the diagnostic quotes it shortened (handsh(1), Diagnostics).
  func testThousandDigitNumber() throws {
    let number = String(repeating: "1", count: 1000)
    let digits = String(repeating: "1", count: 80) + "…" + String(repeating: "1", count: 32)
    let result = try runScript(
      Data("del \(number)\nundo \(number)\nlimit \(number)\nnew \(number)\n".utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err,
      "in.hand:1:5: error: invalid position '\(digits)': at most 9223372036854775807\n"
        + "in.hand:2:6: error: invalid count '\(digits)': at most 9223372036854775807\n"
        + "in.hand:3:7: error: invalid limit '\(digits)': expected a whole number from 1 to 52\n"
        + "in.hand:4:5: error: invalid seed '\(digits)': expected a whole number from 0 to 18446744073709551615\n"
    )
    XCTAssertEqual(result.status, 1)
  }

  /// CRLF line ends are ignored.
  func testCRLF() throws {
    let result = try runScript(Data("add\r\nadd\r\ndel 2\r\nshow\r\n".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n3♣ 7♥\n3♣\n1  3♣\n", err: "", status: 0)

    let command = try run(["--seed", "42", "-c", "add\r\nshow\r"])
    assertOutcome(command, out: "7♥\n1  7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42"], stdin: Data("add\r\nshow\r\n".utf8))
    assertOutcome(streamed, out: "7♥\n1  7♥\n", err: "", status: 0)
  }

  /// A lone `\r` inside a line is part of the word, escaped.
  func testLoneCarriageReturn() throws {
    let result = try runScript(Data("add\rx\n".utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    XCTAssertEqual(
      result.err, "in.hand:1:1: error: unknown command 'add\\x0Dx' (did you mean 'add'?)\n")
    XCTAssertEqual(result.status, 1)
  }

  /// A BOM at the start is ignored, also in columns.
  func testByteOrderMark() throws {
    let result = try runScript(Data("\u{FEFF}add\nshow\n".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n1  7♥\n", err: "", status: 0)

    let bogus = try runScript(Data("\u{FEFF}bogus\n".utf8))
    assertOutcome(bogus, out: "", err: "in.hand:1:1: error: unknown command 'bogus'\n", status: 1)

    let streamed = try run(["--seed", "42", "-"], stdin: Data("\u{FEFF}add\n".utf8))
    assertOutcome(streamed, out: "7♥\n", err: "", status: 0)

    let command = try run(["--seed", "42", "-c", "\u{FEFF}add"])
    assertOutcome(command, out: "7♥\n", err: "", status: 0)
  }

  func testOnlySemicolons() throws {
    for text in [";;;;\n", ";;;;", " ; ;\t;;  # nothing\n"] {
      let result = try runScript(Data(text.utf8))
      assertNoCrash(result)
      XCTAssertEqual(result.out, "", "\(text.debugDescription)")
      XCTAssertEqual(result.err, "", "\(text.debugDescription)")
      XCTAssertEqual(result.status, 0, "\(text.debugDescription)")
    }
  }

  /// Control characters, escape sequences, C1 controls and bidirectional
  /// controls in an unknown command come out escaped.
  func testControlCharactersAreEscaped() throws {
    let text =
      "x\u{01}\u{1B}[31my\u{7F}\n" + "zz\u{1B}[2Jzz\n" + "zz\u{9B}zz\n"
      + "zz\u{202E}zz\u{2066}\n" + "zz\u{07}\u{08}\u{0B}\u{0C}zz\n"
    let result = try runScript(Data(text.utf8))
    assertNoCrash(result)
    XCTAssertEqual(result.out, "")
    // Hex may be upper or lower case.
    XCTAssertEqual(
      result.err.lowercased(),
      ("in.hand:1:1: error: unknown command 'x\\x01\\x1B[31my\\x7F'\n"
        + "in.hand:2:1: error: unknown command 'zz\\x1B[2Jzz'\n"
        + "in.hand:3:1: error: unknown command 'zz\\x9Bzz'\n"
        + "in.hand:4:1: error: unknown command 'zz\\u{202E}zz\\u{2066}'\n"
        + "in.hand:5:1: error: unknown command 'zz\\x07\\x08\\x0B\\x0Czz'\n").lowercased())
    XCTAssertFalse(result.stderr.contains(0x1B), "an escape character reached stderr")
    XCTAssertEqual(result.status, 1)
  }

  func testEmptyFile() throws {
    let result = try runScript(Data())
    assertNoCrash(result)
    assertOutcome(result, out: "", err: "", status: 0)
  }

  func testNoFinalNewline() throws {
    let result = try runScript(Data("add\nadd".utf8))
    assertNoCrash(result)
    assertOutcome(result, out: "7♥\n3♣ 7♥\n", err: "", status: 0)

    let streamed = try run(["--seed", "42", "-"], stdin: Data("add\nadd".utf8))
    XCTAssertEqual(streamed.out, "7♥\n3♣ 7♥\n")
    XCTAssertEqual(streamed.status, 0)

    let bad = try runScript(Data("add\nbogus".utf8))
    assertOutcome(bad, out: "", err: "in.hand:2:1: error: unknown command 'bogus'\n", status: 1)
  }
}
