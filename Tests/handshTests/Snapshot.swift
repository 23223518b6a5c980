import Foundation
import HandKit
import XCTest

/// Whether snapshot assertions record instead of checking:
/// `HANDSH_RECORD_SNAPSHOTS=1` (scripts/update-snapshots sets it).
let recordingSnapshots = ProcessInfo.processInfo.environment["HANDSH_RECORD_SNAPSHOTS"] == "1"

/// One assertion that both checks and records, as swift-argument-parser's
/// `assertSnapshot(record:)`: checking, `actual` must equal the file at
/// `path` (relative to the repository) byte for byte; recording, the file
/// is written with `actual` and the assertion passes. A missing file fails
/// when checking, so a snapshot never springs into being unreviewed. A
/// mismatch is shown as a unified diff, by the golden tests' engine.
func assertSnapshot(
  _ actual: String, path: String, record: Bool = recordingSnapshots,
  file: StaticString = #filePath, line: UInt = #line
) {
  let url = TestProcess.repository.appendingPathComponent(path)
  if record {
    do {
      try Data(actual.utf8).write(to: url, options: .atomic)
      print("recorded snapshot \(path)")
    } catch {
      XCTFail("cannot record \(path): \(error)", file: file, line: line)
    }
    return
  }
  guard let data = FileManager.default.contents(atPath: url.path) else {
    XCTFail("no snapshot \(path): record it with scripts/update-snapshots", file: file, line: line)
    return
  }
  guard Array(data) != Array(actual.utf8) else { return }
  // The golden tests' own diff engine shows what changed, as `diff -u` would.
  let diff = unifiedDiff(
    Array(data), Array(actual.utf8), oldName: path + " (file)", newName: path + " (code)")
  XCTFail(
    "\(path) differs from what the code generates:\n"
      + String(decoding: diff, as: UTF8.self)
      + "Review the change and record it with scripts/update-snapshots.", file: file, line: line)
}
