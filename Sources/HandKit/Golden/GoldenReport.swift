/// How one file of a golden-test run ended, for the report.
public struct GoldenFileReport: Sendable, Equatable {
  public enum Status: Sendable, Equatable {
    case passed
    /// The unified diff to the file as `--update` writes it.
    case failed(diff: [UInt8])
    /// Rewritten by `--update` or `--review`; the diff of that change.
    case updated(diff: [UInt8])
    /// No input line: the file checks nothing, so it neither passes nor fails.
    case skipped
    /// Malformed, unreadable, or not updated: the messages, as on stderr.
    case error([String])
  }

  /// The path as the report writes it (already made safe).
  public var path: String
  /// The path as found, byte for byte: TAP escapes it its own way.
  public var name: [UInt8]
  public var status: Status
  /// How long the file took to run.
  public var seconds: Double
  /// For an error: what kind, as JUnit's `type` says it (`malformed`,
  /// `unreadable`, `not updated`).
  public var errorType: String
  /// With `--review`: the differing blocks kept as they were.
  public var kept: Int

  public init(
    path: String, status: Status, seconds: Double = 0, errorType: String = "malformed",
    kept: Int = 0, name: [UInt8]? = nil
  ) {
    self.path = path
    self.name = name ?? Array(path.utf8)
    self.status = status
    self.seconds = seconds
    self.errorType = errorType
    self.kept = kept
  }
}

/// The counts a run ends with, and the summary line: `P passed, F failed`,
/// or `P passed, U updated` with `--update` (`P passed, U updated, K kept`
/// with `--review`), plus `, S skipped` and `, E errors` when any.
public struct GoldenSummary: Sendable, Equatable {
  public var passed = 0
  public var failed = 0
  public var updated = 0
  public var skipped = 0
  public var errors = 0
  public var kept = 0

  public enum Mode: Sendable {
    case test, update, review
  }

  public init(_ reports: [GoldenFileReport]) {
    for report in reports { add(report) }
  }

  /// Counts one more file: a report written as it goes keeps no list.
  public mutating func add(_ report: GoldenFileReport) {
    kept += report.kept
    switch report.status {
    case .passed: passed += 1
    case .failed: failed += 1
    case .updated: updated += 1
    case .skipped: skipped += 1
    case .error: errors += 1
    }
  }

  /// How many files were counted.
  public var files: Int { passed + failed + updated + skipped + errors }

  public func line(update: Bool) -> String { line(update ? .update : .test) }

  public func line(_ mode: Mode) -> String {
    var text: String
    switch mode {
    case .test: text = "\(passed) passed, \(failed) failed"
    case .update: text = "\(passed) passed, \(updated) updated"
    case .review: text = "\(passed) passed, \(updated) updated, \(kept) kept"
    }
    if skipped > 0 { text += ", \(skipped) skipped" }
    if errors == 1 { text += ", 1 error" } else if errors > 1 { text += ", \(errors) errors" }
    return text
  }
}

/// Why a file with no input line is skipped, in TAP and JUnit.
let skipReason = "no input lines"

/// The report in TAP version 13 (the version every harness reads): a plan,
/// one test point per file, and a YAML block under each failure holding its
/// diff or its errors. Each value of that block is one double-quoted
/// scalar, the one form that both prove's YAMLish reader and a full YAML
/// parser read back exactly, whatever its first character (a block scalar
/// loses a leading space, and prove's reader knows no indentation
/// indicator); a longer one than that reader can match is a list of such
/// scalars (`tapValue`).
public func tapReport(_ reports: [GoldenFileReport], update: Bool) -> [UInt8] {
  var out = tapHeader(count: reports.count)
  for (number, report) in reports.enumerated() { out += tapLines(report, number: number + 1) }
  return out + tapFooter(GoldenSummary(reports), update: update)
}

/// The start of the TAP: the version and the plan.
public func tapHeader(count: Int) -> [UInt8] {
  Array("TAP version 13\n1..\(count)\n".utf8)
}

/// One file's test point (number `number`, from 1), with its YAML block
/// when it failed: written as soon as the file has finished.
public func tapLines(_ report: GoldenFileReport, number: Int) -> [UInt8] {
  var lines: [String] = []
  let name = "\(number) - " + tapName(report.name)
  switch report.status {
  case .passed:
    lines.append("ok " + name)
  case .updated:
    lines.append("ok " + name + " # updated")
  case .skipped:
    lines.append("ok " + name + " # SKIP " + skipReason)
  case .failed(let diff):
    lines.append("not ok " + name)
    lines += ["  ---"] + tapValue("message", "output differs")
    lines += tapValue("diff", textLines(diff).map { $0 + "\n" }.joined()) + ["  ..."]
  case .error(let messages):
    lines.append("not ok " + name)
    lines += ["  ---"] + tapValue("message", "error")
    lines += tapValue("errors", messages.map { reportText($0.utf8) + "\n" }.joined())
    lines += ["  ..."]
  }
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// The closing comment of the TAP: the summary line.
public func tapFooter(_ summary: GoldenSummary, update: Bool) -> [UInt8] {
  Array(("# " + summary.line(update: update) + "\n").utf8)
}

/// The most bytes between the quotes of a scalar in the TAP. prove's YAMLish
/// reader matches a quoted scalar with a regular expression that Perl stops
/// after 32,766 repetitions (65,534 since Perl 5.30), one per character:
/// past it, the reader fails and every later test is lost.
public let tapPieceBytes = 30_000

/// One key of a YAML block, as lines: `  KEY: "VALUE"`, or when the quoted
/// value would be longer than `tapPieceBytes`, `  KEY:` and a list of
/// quoted pieces (`    - "…"`), each at most that long, cut after a line
/// break where the piece holds one (else between two characters), which
/// joined in order give the value. In a piece each `:` is written `\x3a`:
/// prove's reader takes a list item whose first word ends in `:` for a key.
func tapValue(_ key: String, _ text: String) -> [String] {
  var whole: [UInt8] = []
  for scalar in text.unicodeScalars {
    yamlEscape(scalar, into: &whole)
    if whole.count > tapPieceBytes { break }
  }
  guard whole.count > tapPieceBytes else {
    return ["  \(key): \"" + String(decoding: whole, as: UTF8.self) + "\""]
  }
  var lines = ["  \(key):"]
  func emit<Bytes: Collection<UInt8>>(_ piece: Bytes) {
    lines.append("    - \"" + String(decoding: piece, as: UTF8.self) + "\"")
  }
  var piece: [UInt8] = []
  var lineEnd: Int?
  var escaped: [UInt8] = []
  for scalar in text.unicodeScalars {
    escaped.removeAll(keepingCapacity: true)
    if scalar == ":" {
      escaped += Array("\\x3a".utf8)
    } else {
      yamlEscape(scalar, into: &escaped)
    }
    if piece.count + escaped.count > tapPieceBytes {
      if let end = lineEnd, end < piece.count {
        emit(piece[..<end])
        piece.removeFirst(end)
      } else {
        emit(piece)
        piece.removeAll(keepingCapacity: true)
      }
      lineEnd = nil
    }
    piece += escaped
    if scalar == "\n" { lineEnd = piece.count }
  }
  if !piece.isEmpty { emit(piece) }
  return lines
}

/// The report as JUnit XML, valid under the schema Jenkins' xUnit plugin
/// validates with (`junit-10.xsd`): one test suite named `handsh`, one test
/// case per file, a failure holding the diff, an error holding the
/// messages, a skipped file marked so, and an updated one saying so. Times
/// are in seconds, to the millisecond. `bodies`: each case's body as
/// `junitCaseBody` made it, when the runner made it while it timed the case.
public func junitReport(
  _ reports: [GoldenFileReport], seconds: Double, bodies: [[String]]? = nil
) -> [UInt8] {
  var out = junitHeader(GoldenSummary(reports), seconds: seconds)
  for (index, report) in reports.enumerated() {
    let body = bodies.flatMap { index < $0.count ? $0[index] : nil } ?? junitCaseBody(report)
    out += junitCase(report, body: body)
  }
  return out + junitFooter
}

/// The start of the JUnit report, with the run's totals (known only at its
/// end: a runner that writes the cases as they finish writes this last).
public func junitHeader(_ summary: GoldenSummary, seconds: Double) -> [UInt8] {
  // On both: a consumer that reads either never recounts (nor sums the
  // cases' times into the run's). That schema allows `skipped` only on the
  // suite.
  let totals =
    "tests=\"\(summary.files)\" failures=\"\(summary.failed)\" errors=\"\(summary.errors)\""
  let time = " time=\"\(milliseconds(seconds))\""
  let lines = [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
    "<testsuites \(totals)\(time)>",
    "  <testsuite name=\"handsh\" \(totals) skipped=\"\(summary.skipped)\"\(time)>",
  ]
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// One file's `<testcase>`, its body as `junitCaseBody` made it.
public func junitCase(_ report: GoldenFileReport, body: [String]) -> [UInt8] {
  let open =
    "    <testcase classname=\"handsh\" name=\"\(xmlEscaped(junitName(report.name)))\""
    + " time=\"\(milliseconds(report.seconds))\""
  let lines = body.isEmpty ? [open + "/>"] : [open + ">"] + body + ["    </testcase>"]
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// The end of the JUnit report.
public let junitFooter = Array("  </testsuite>\n</testsuites>\n".utf8)

/// The lines inside one file's `<testcase>`: none for a pass.
public func junitCaseBody(_ report: GoldenFileReport) -> [String] {
  switch report.status {
  case .passed:
    return []
  case .updated:
    return ["      <system-out>updated</system-out>"]
  case .skipped:
    return ["      <skipped message=\"\(skipReason)\"/>"]
  case .failed(let diff):
    let text = junitText(
      textLines(diff).map(xmlEscaped), note: "the plain report has the whole diff")
    return ["      <failure message=\"output differs\" type=\"golden\">" + text + "</failure>"]
  case .error(let messages):
    let safe = messages.map { xmlEscaped(reportText($0.utf8)) }
    let text = junitText(safe, note: "the standard error has them all")
    let type = xmlEscaped(report.errorType)
    return [
      "      <error message=\"\(safe.first ?? "error")\" type=\"\(type)\">" + text + "</error>"
    ]
  }
}

/// The most bytes of one text node in the JUnit report: libxml2 (xmllint,
/// and readers on lxml such as junitparser) rejects a whole document with a
/// text node over 10,000,000 bytes.
public let junitTextBytes = 8 << 20

/// Escaped lines joined as one text node, cut at a line's end to at most
/// `junitTextBytes`, and then followed by `[N more lines left out: NOTE]`.
func junitText(_ lines: [String], note: String) -> String {
  var kept = 0
  var bytes = 0
  for line in lines {
    let more = line.utf8.count + (kept == 0 ? 0 : 1)
    if bytes + more > junitTextBytes - 200 { break }
    bytes += more
    kept += 1
  }
  guard kept < lines.count else { return lines.joined(separator: "\n") }
  let left = lines.count - kept
  let said = "[\(left) more line\(left == 1 ? "" : "s") left out: \(note)]"
  return (lines[..<kept] + [said]).joined(separator: "\n")
}

/// A JUnit test case's name: as in TAP, each `\` written `\\`, the rest
/// made safe as in diagnostics, so that no two files share a name
/// (`ctl<U+0001>.hand` is `ctl\x01.hand`, a file named so `ctl\\x01.hand`).
func junitName(_ path: [UInt8]) -> String { escapedName(path, hash: false) }

/// A name as TAP and JUnit write it: each `\` written `\\`, with `hash`
/// each `#` written `\x23`, each character U+0080–U+009F written
/// `\u{HHHH}` (never `\xHH`, which stands for a byte of invalid UTF-8: a
/// file named with U+0085 and one named with the byte 0x85 stay apart),
/// the rest made safe as in diagnostics. Cut only between characters: the
/// bytes it looks for are never inside a longer UTF-8 sequence.
func escapedName(_ path: [UInt8], hash: Bool) -> String {
  var out = ""
  var start = 0
  var index = 0
  while index < path.count {
    let byte = path[index]
    var replacement: String?
    var width = 1
    if byte == 0x5C {
      replacement = "\\\\"
    } else if hash, byte == 0x23 {
      replacement = "\\x23"
    } else if byte == 0xC2, index + 1 < path.count, (0x80...0x9F).contains(path[index + 1]) {
      let digits = String(path[index + 1], radix: 16, uppercase: true)
      replacement = "\\u{00" + digits + "}"
      width = 2
    }
    guard let replacement else {
      index += 1
      continue
    }
    out += reportText(path[start..<index]) + replacement
    index += width
    start = index
  }
  return out + reportText(path[start...])
}

/// The lines of a diff as text a report can hold: made safe as in
/// diagnostics.
private func textLines(_ bytes: [UInt8]) -> [String] {
  var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
  if parts.last?.isEmpty == true { parts.removeLast() }
  return parts.map { reportText($0) }
}

/// Text made safe as in diagnostics, and then sure to hold no character
/// that XML or YAML forbids (the noncharacters among them), whatever the
/// diagnostics' table: a report that a consumer rejects reports nothing.
func reportText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
  let safe = safeText(bytes)
  guard safe.unicodeScalars.contains(where: isForbiddenInReports) else { return safe }
  var out = ""
  for scalar in safe.unicodeScalars {
    guard isForbiddenInReports(scalar) else {
      out.unicodeScalars.append(scalar)
      continue
    }
    var digits = String(scalar.value, radix: 16, uppercase: true)
    while digits.utf8.count < 4 { digits = "0" + digits }
    out += "\\u{" + digits + "}"
  }
  return out
}

/// Control characters (tab aside), and the noncharacters: U+FDD0–U+FDEF and
/// the last two code points of every plane.
private func isForbiddenInReports(_ scalar: Unicode.Scalar) -> Bool {
  let value = scalar.value
  return (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value)
    || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
}

/// A TAP description: each `\` written `\\` and each `#` written `\x23`
/// (never `\#`, which only TAP 14 and Test::Harness read: a harness that
/// knows no escape would read a directive into the name, a failing
/// `x # TODO.hand` as an expected failure), U+0080–U+009F as `\u{HHHH}`,
/// the rest made safe as in diagnostics.
func tapName(_ path: [UInt8]) -> String { escapedName(path, hash: true) }

/// One character of a YAML double-quoted scalar, escaped if need be.
private func yamlEscape(_ scalar: Unicode.Scalar, into out: inout [UInt8]) {
  switch scalar {
  case "\\": out += [0x5C, 0x5C]
  case "\"": out += [0x5C, 0x22]
  case "\n": out += [0x5C, UInt8(ascii: "n")]
  case "\r": out += [0x5C, UInt8(ascii: "r")]
  case "\t": out += [0x5C, UInt8(ascii: "t")]
  default: UTF8.encode(scalar) { out.append($0) }
  }
}

private func xmlEscaped(_ text: String) -> String {
  // Byte by byte: each byte escaped is ASCII, never part of a longer UTF-8
  // sequence, and a diff of megabytes is escaped in one pass.
  var out: [UInt8] = []
  out.reserveCapacity(text.utf8.count + 64)
  for byte in text.utf8 {
    switch byte {
    case UInt8(ascii: "&"): out += "&amp;".utf8
    case UInt8(ascii: "<"): out += "&lt;".utf8
    case UInt8(ascii: ">"): out += "&gt;".utf8
    case UInt8(ascii: "\""): out += "&quot;".utf8
    case UInt8(ascii: "'"): out += "&apos;".utf8
    // A parser turns these into spaces inside an attribute (its value is
    // normalised) unless they are written as references.
    case 0x09: out += "&#9;".utf8
    case 0x0A: out += "&#10;".utf8
    case 0x0D: out += "&#13;".utf8
    default: out.append(byte)
    }
  }
  return String(decoding: out, as: UTF8.self)
}

/// Seconds to the millisecond: `0.012`.
private func milliseconds(_ seconds: Double) -> String {
  let total = max(0, Int((seconds * 1000).rounded()))
  let fraction = String(total % 1000)
  return "\(total / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
