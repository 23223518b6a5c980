import Foundation
import HandKit
import XCTest

/// Whether snapshot assertions record instead of checking:
/// `HANDSH_RECORD_SNAPSHOTS=1` (scripts/update-snapshots sets it).
let recordingSnapshots = ProcessInfo.processInfo.environment["HANDSH_RECORD_SNAPSHOTS"] == "1"

/// Whether the tests run in CI: `CI` set and not empty, `false` or `0`, as
/// CI services and .ci/run set it.
func runningInCI(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
  guard let value = environment["CI"] else { return false }
  return !["", "false", "0"].contains(value.lowercased())
}

/// One assertion that both checks and records, as swift-argument-parser's
/// `assertSnapshot(record:)`: checking, `actual` must equal the file at
/// `path` (relative to the repository) byte for byte; recording, the file
/// is written with `actual` and the assertion passes. A missing file fails
/// when checking, so a snapshot never springs into being unreviewed. A
/// mismatch is shown as a unified diff, by the golden tests' engine.
/// In CI, recording is refused and fails: a recorder passes whatever the
/// code generates, so a stray `HANDSH_RECORD_SNAPSHOTS=1` would hide a
/// changed snapshot.
func assertSnapshot(
  _ actual: String, path: String, record: Bool = recordingSnapshots,
  file: StaticString = #filePath, line: UInt = #line
) {
  if let failure = snapshotFailure(actual, path: path, record: record) {
    XCTFail(failure, file: file, line: line)
  }
}

/// `assertSnapshot`'s work: nil when it passes, else why it fails. `root`
/// is the folder `path` is relative to.
func snapshotFailure(
  _ actual: String, path: String, record: Bool,
  environment: [String: String] = ProcessInfo.processInfo.environment,
  root: URL = TestProcess.repository
) -> String? {
  let url = root.appendingPathComponent(path)
  if record {
    guard !runningInCI(environment) else {
      return "not recording \(path) in CI (CI=\(environment["CI"] ?? "")): "
        + "unset HANDSH_RECORD_SNAPSHOTS; record with scripts/update-snapshots, outside CI"
    }
    do {
      try Data(actual.utf8).write(to: url, options: .atomic)
      print("recorded snapshot \(path)")
      return nil
    } catch {
      return "cannot record \(path): \(error)"
    }
  }
  guard let data = FileManager.default.contents(atPath: url.path) else {
    return "no snapshot \(path): record it with scripts/update-snapshots"
  }
  guard Array(data) != Array(actual.utf8) else { return nil }
  // The golden tests' own diff engine shows what changed, as `diff -u` would.
  let diff = unifiedDiff(
    Array(data), Array(actual.utf8), oldName: path + " (file)", newName: path + " (code)")
  return "\(path) differs from what the code generates:\n"
    + String(decoding: diff, as: UTF8.self)
    + "Review the change and record it with scripts/update-snapshots."
}
