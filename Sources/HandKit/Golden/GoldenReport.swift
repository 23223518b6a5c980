/// How one file of a golden-test run ended, for the report.
public struct GoldenFileReport: Sendable, Equatable {
  public enum Status: Sendable, Equatable {
    case passed
    /// The unified diff to the file as `--update` writes it.
    case failed(diff: [UInt8])
    /// Rewritten by `--update`; the diff of that change.
    case updated(diff: [UInt8])
    /// Malformed, unreadable, or not updated: the messages, as on stderr.
    case error([String])
  }

  /// The path as the report writes it (already made safe).
  public var path: String
  public var status: Status
  /// How long the file took to run.
  public var seconds: Double

  public init(path: String, status: Status, seconds: Double = 0) {
    self.path = path
    self.status = status
    self.seconds = seconds
  }
}

/// The counts a run ends with, and the summary line: `P passed, F failed`,
/// or `P passed, U updated` with `--update`, plus `, E errors` when any.
public struct GoldenSummary: Sendable, Equatable {
  public var passed = 0
  public var failed = 0
  public var updated = 0
  public var errors = 0

  public init(_ reports: [GoldenFileReport]) {
    for report in reports {
      switch report.status {
      case .passed: passed += 1
      case .failed: failed += 1
      case .updated: updated += 1
      case .error: errors += 1
      }
    }
  }

  public func line(update: Bool) -> String {
    var text =
      update ? "\(passed) passed, \(updated) updated" : "\(passed) passed, \(failed) failed"
    if errors == 1 { text += ", 1 error" } else if errors > 1 { text += ", \(errors) errors" }
    return text
  }
}

/// The report in TAP version 14: a plan, one test point per file, and a
/// YAML block under each failure holding its diff or its errors.
public func tapReport(_ reports: [GoldenFileReport], update: Bool) -> [UInt8] {
  var lines = ["TAP version 14", "1..\(reports.count)"]
  for (number, report) in reports.enumerated() {
    let name = "\(number + 1) - " + tapEscaped(report.path)
    switch report.status {
    case .passed, .updated:
      lines.append("ok " + name)
    case .failed(let diff):
      lines.append("not ok " + name)
      lines += ["  ---", "  message: output differs", "  diff: |"]
      lines += textLines(diff).map { "    " + $0 }
      lines.append("  ...")
    case .error(let messages):
      lines.append("not ok " + name)
      lines += ["  ---", "  message: error", "  errors: |"]
      lines += messages.map { "    " + safeText($0.utf8) }
      lines.append("  ...")
    }
  }
  lines.append("# " + GoldenSummary(reports).line(update: update))
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// The report as JUnit XML: one test suite named `handsh`, one test case
/// per file, a failure holding the diff and an error holding the messages.
/// Times are in seconds, to the millisecond.
public func junitReport(_ reports: [GoldenFileReport], seconds: Double) -> [UInt8] {
  let summary = GoldenSummary(reports)
  var lines = [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
    "<testsuites>",
    "  <testsuite name=\"handsh\" tests=\"\(reports.count)\" failures=\"\(summary.failed)\""
      + " errors=\"\(summary.errors)\" time=\"\(milliseconds(seconds))\">",
  ]
  for report in reports {
    let open =
      "    <testcase name=\"\(xmlEscaped(report.path))\" time=\"\(milliseconds(report.seconds))\""
    switch report.status {
    case .passed, .updated:
      lines.append(open + "/>")
    case .failed(let diff):
      lines.append(open + ">")
      lines.append(
        "      <failure message=\"output differs\">"
          + textLines(diff).map(xmlEscaped).joined(separator: "\n") + "</failure>")
      lines.append("    </testcase>")
    case .error(let messages):
      let safe = messages.map { xmlEscaped(safeText($0.utf8)) }
      lines.append(open + ">")
      lines.append(
        "      <error message=\"\(safe.first ?? "error")\">" + safe.joined(separator: "\n")
          + "</error>")
      lines.append("    </testcase>")
    }
  }
  lines += ["  </testsuite>", "</testsuites>"]
  return Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// The lines of a diff as text a report can hold: control characters and
/// invalid UTF-8 written `\xHH`, as in diagnostics.
private func textLines(_ bytes: [UInt8]) -> [String] {
  var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
  if parts.last?.isEmpty == true { parts.removeLast() }
  return parts.map { safeText($0) }
}

/// A TAP description: `#` would start a directive and `\` escapes.
private func tapEscaped(_ text: String) -> String {
  var out = ""
  for character in text {
    if character == "#" || character == "\\" { out.append("\\") }
    out.append(character)
  }
  return out
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
