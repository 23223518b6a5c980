/// The command name to suggest for an unknown `word` (handsh(1), THE LANGUAGE, Syntax errors): the nearest
/// name within one edit of the word in lowercase, or two for words of four or
/// more characters; ties go to the earlier command.
package func suggestion(for word: String) -> CommandName? {
  let lowered = Array(
    word.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32) ?? $0 : $0 })
  let allowed = lowered.count >= 4 ? 2 : 1
  var best: (name: CommandName, distance: Int)?
  for name in CommandName.allCases {
    let target = Array(name.rawValue.unicodeScalars)
    guard abs(target.count - lowered.count) <= allowed else { continue }
    let distance = editDistance(lowered, target)
    if distance <= allowed, distance < (best?.distance ?? .max) { best = (name, distance) }
  }
  return best?.name
}

/// The optimal-string-alignment distance: insertions, deletions,
/// substitutions and swaps of neighbours, no part edited twice.
func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var before = [Int](repeating: 0, count: b.count + 1)
  var previous = Array(0...b.count)
  var row = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    row[0] = i
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      var value = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        value = min(value, before[j - 2] + 1)
      }
      row[j] = value
    }
    (before, previous, row) = (previous, row, before)
  }
  return previous[b.count]
}
