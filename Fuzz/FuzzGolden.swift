// The input as a golden test, and what `--update` makes of it.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `save` in a golden test: into the scratch folder, under a name made safe.
struct ScratchSaves: GoldenEffects {
  mutating func save(_ script: String, to file: String) -> String? {
    let name = file.utf8.prefix(100).filter { $0 != UInt8(ascii: "/") }
    let bad = name.isEmpty || name == Array(".".utf8) || name == Array("..".utf8)
    let path = Array("saved-".utf8) + (bad ? Array("f".utf8) : Array(name))
    return writeFile(Array(script.utf8), to: path).map { Platform.describe($0.code) }
  }
}

/// The bytes as a golden test, and what `--update` makes of them.
func fuzzGolden(_ input: [UInt8], _ settings: GoldenSettings) {
  let file = GoldenFile(text: input, defaults: settings)
  for diagnostic in file.diagnostics { _ = diagnostic.text(path: "t.hand") }
  guard file.diagnostics.isEmpty else { return }
  let result = file.run(effects: ScratchSaves())
  let updated = result.updatedText
  let diff = result.diff(path: "t.hand")
  if result.passed {
    guard updated == input, diff.isEmpty else { broken("a passing test would be rewritten") }
  }
  let report = GoldenFileReport(
    path: "t.hand", status: result.passed ? .passed : .updated(diff: diff))
  _ = tapReport([report], update: true)
  _ = junitReport([report], seconds: 0)

  // As --update writes it, through the writer.
  let path = Array("t.hand".utf8)
  if let failure = writeFile(input, to: path) { broken("cannot write t.hand: \(failure)") }
  guard case .success(let snapshot) = TestFiles.read(path) else { broken("cannot read t.hand") }
  if let problem = TestFiles.rewrite(path, from: snapshot, to: updated) {
    broken("--update cannot rewrite t.hand: \(problem)")
  }
  guard readBack("t.hand") == updated else { broken("t.hand does not hold the updated text") }
  guard leftovers() == 0 else { broken("a temporary file was left") }

  let again = GoldenFile(text: updated, defaults: settings)
  guard again.diagnostics.isEmpty else {
    broken("the updated test is malformed: \(again.diagnostics.map { $0.message })")
  }
  guard again.run(effects: ScratchSaves()).passed else { broken("the updated test fails") }

  // The bound of a test's output, made small: the run stops at the line
  // that passed it, with every block before it as the unbounded run's,
  // that line's and the later ones empty; else it is the unbounded run.
  let limit = 1 + Int(input.count > 1 ? input[1] : 0) * 16
  let bounded = file.run(effects: ScratchSaves(), outputLimit: limit) { _, _, _ in true }
  let lines = bounded.overflow ?? file.inputs.count
  guard bounded.actual.count == file.inputs.count,
    Array(bounded.actual[..<lines]) == Array(result.actual[..<lines]),
    bounded.actual[lines...].allSatisfy(\.isEmpty)
  else { broken("the bounded run differs from the unbounded one") }
  let through = min(lines + 1, file.inputs.count)
  let printed = result.actual[..<through].joined().reduce(0) { $0 + $1.text.count + 1 }
  if bounded.overflow == nil {
    guard printed <= limit, bounded.passed == result.passed else {
      broken("output over the bound of \(limit) bytes was not stopped")
    }
  } else {
    guard printed > limit, !bounded.passed else {
      broken("a run under the bound of \(limit) bytes was stopped")
    }
  }
}
