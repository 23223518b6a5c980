import Foundation
import XCTest

/// Whether snapshot assertions record instead of checking:
/// `HANDSH_RECORD_SNAPSHOTS=1` (scripts/update-snapshots sets it).
let recordingSnapshots = ProcessInfo.processInfo.environment["HANDSH_RECORD_SNAPSHOTS"] == "1"

/// One assertion that both checks and records, as swift-argument-parser's
/// `assertSnapshot(record:)`: checking, `actual` must equal the file at
/// `path` (relative to the repository) byte for byte; recording, the file
/// is written with `actual` and the assertion passes. A missing file fails
/// when checking, so a snapshot never springs into being unreviewed.
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
  let expected = String(decoding: data, as: UTF8.self)
  guard expected != actual else { return }
  let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
  let first =
    zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    ?? min(old.count, new.count)
  XCTFail(
    """
    \(path) differs from what the code generates, first at line \(first + 1):
      file: \(first < old.count ? String(old[first]) : "(end of file)")
      code: \(first < new.count ? String(new[first]) : "(end of file)")
    Review the change and record it with scripts/update-snapshots.
    """, file: file, line: line)
}
