import XCTest

/// What `found` lacks and what it has beyond `expected`, each sorted:
/// `missing: del, top; extra: mv`, or nil when the two are the same. The
/// tests that hold a document to the command or option table say this,
/// not two unordered sets, so "missing: top" says at once what a new
/// command still needs.
func nameDifference(found: Set<String>, expected: Set<String>) -> String? {
  let missing = expected.subtracting(found).sorted()
  let extra = found.subtracting(expected).sorted()
  var parts: [String] = []
  if !missing.isEmpty { parts.append("missing: " + missing.joined(separator: ", ")) }
  if !extra.isEmpty { parts.append("extra: " + extra.joined(separator: ", ")) }
  return parts.isEmpty ? nil : parts.joined(separator: "; ")
}

/// Fails, naming what is missing and what is extra, unless `found` is
/// exactly `expected`; `what` says where the names were found.
func assertSameNames(
  _ found: Set<String>, _ expected: Set<String>, _ what: String,
  file: StaticString = #filePath, line: UInt = #line
) {
  if let difference = nameDifference(found: found, expected: expected) {
    XCTFail("\(what): \(difference)", file: file, line: line)
  }
}

final class NameSetsTests: XCTestCase {
  func testTheDifferenceIsSortedAndNamed() {
    XCTAssertEqual(
      nameDifference(found: ["mv", "add", "zap"], expected: ["top", "add", "del"]),
      "missing: del, top; extra: mv, zap")
    XCTAssertEqual(nameDifference(found: ["add"], expected: ["add", "top"]), "missing: top")
    XCTAssertEqual(nameDifference(found: ["add", "pop"], expected: ["add"]), "extra: pop")
    XCTAssertNil(nameDifference(found: ["add", "del"], expected: ["del", "add"]))
  }
}
