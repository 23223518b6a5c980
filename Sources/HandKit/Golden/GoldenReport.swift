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
    for report in reports {
      kept += report.kept
      switch report.status {
      case .passed: passed += 1
      case .failed: failed += 1
      case .updated: updated += 1
      case .skipped: skipped += 1
      case .error: errors += 1
      }
    }
  }

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
/// indicator).
public func tapReport(_ reports: [GoldenFileReport], update: Bool) -> [UInt8] {
  var lines = ["TAP version 13", "1..\(reports.count)"]
  for (number, report) in reports.enumerated() {
    let name = "\(number + 1) - " + tapName(report.name)
    switch report.status {
    case .passed:
      lines.append("ok " + name)
    case .updated:
      lines.append("ok " + name + " # updated")
    case .skipped:
      lines.append("ok " + name + " # SKIP " + skipReason)
    case .failed(let diff):
      lines.append("not ok " + name)
      lines += [
        "  ---", "  message: " + yamlQuoted("output differs"),
        "  diff: " + yamlQuoted(textLines(diff).map { $0 + "\n" }.joined()), "  ...",
      ]
    case .error(let messages):
      lines.append("not ok " + name)
      lines += [
        "  ---", "  message: " + yamlQuoted("error"),
        "  errors: " + yamlQuoted(messages.map { reportText($0.utf8) + "\n" }.joined()), "  ...",
      ]
    }
  }
  lines.append("# " + GoldenSummary(reports).line(update: update))
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// The report as JUnit XML: one test suite named `handsh`, one test case
/// per file, a failure holding the diff, an error holding the messages, a
/// skipped file marked so, and an updated one saying so. Times are in
/// seconds, to the millisecond.
public func junitReport(_ reports: [GoldenFileReport], seconds: Double) -> [UInt8] {
  let summary = GoldenSummary(reports)
  // On both: a consumer that reads either never recounts (nor sums the
  // cases' times into the run's).
  let totals =
    "tests=\"\(reports.count)\" failures=\"\(summary.failed)\" errors=\"\(summary.errors)\""
    + " skipped=\"\(summary.skipped)\" time=\"\(milliseconds(seconds))\""
  var lines = [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
    "<testsuites \(totals)>",
    "  <testsuite name=\"handsh\" \(totals)>",
  ]
  for report in reports {
    let path = xmlEscaped(reportText(report.path.utf8))
    let open =
      "    <testcase classname=\"handsh\" name=\"\(path)\" file=\"\(path)\""
      + " time=\"\(milliseconds(report.seconds))\""
    switch report.status {
    case .passed:
      lines.append(open + "/>")
    case .updated:
      lines += [open + ">", "      <system-out>updated</system-out>", "    </testcase>"]
    case .skipped:
      lines += [
        open + ">", "      <skipped message=\"\(skipReason)\"/>", "    </testcase>",
      ]
    case .failed(let diff):
      lines.append(open + ">")
      lines.append(
        "      <failure message=\"output differs\" type=\"golden\">"
          + textLines(diff).map(xmlEscaped).joined(separator: "\n") + "</failure>")
      lines.append("    </testcase>")
    case .error(let messages):
      let safe = messages.map { xmlEscaped(reportText($0.utf8)) }
      lines.append(open + ">")
      lines.append(
        "      <error message=\"\(safe.first ?? "error")\" type=\"\(xmlEscaped(report.errorType))\">"
          + safe.joined(separator: "\n") + "</error>")
      lines.append("    </testcase>")
    }
  }
  lines += ["  </testsuite>", "</testsuites>"]
  return Array((lines.joined(separator: "\n") + "\n").utf8)
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
/// `x # TODO.hand` as an expected failure), the rest made safe as in
/// diagnostics. Cut at those two bytes, which are never part of a longer
/// UTF-8 sequence.
func tapName(_ path: [UInt8]) -> String {
  var out = ""
  var start = 0
  for (index, byte) in path.enumerated() where byte == 0x5C || byte == 0x23 {
    out += reportText(path[start..<index]) + (byte == 0x5C ? "\\\\" : "\\x23")
    start = index + 1
  }
  return out + reportText(path[start...])
}

/// A YAML double-quoted scalar: `\`, `"`, and the line breaks and tabs
/// escaped (the text is otherwise printable: made safe as in diagnostics).
func yamlQuoted(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": out += "\\\\"
    case "\"": out += "\\\""
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}

private func xmlEscaped(_ text: String) -> String {
  var out = ""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&apos;"
    // A parser turns these into spaces inside an attribute (its value is
    // normalised) unless they are written as references.
    case "\t": out += "&#9;"
    case "\n": out += "&#10;"
    case "\r": out += "&#13;"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}

/// Seconds to the millisecond: `0.012`.
private func milliseconds(_ seconds: Double) -> String {
  let total = max(0, Int((seconds * 1000).rounded()))
  let fraction = String(total % 1000)
  return "\(total / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
