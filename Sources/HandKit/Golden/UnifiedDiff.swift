/// A unified diff of two texts, exactly as `diff -u` prints it, with three
/// lines of context: `--- OLD` and `+++ NEW` (no dates), hunks headed
/// `@@ -START,COUNT +START,COUNT @@`, and `\ No newline at end of file` after
/// a last line without one. Empty when the texts are the same.
///
/// `isAnchor` marks lines that the caller knows both texts hold alike, in
/// the same order, and that equal no other kind of line (a golden test's
/// input lines and comments, around the blocks that change): the search
/// then runs between them, so its cost grows with the largest change, not
/// with the number of changes.
public func unifiedDiff(
  _ old: [UInt8], _ new: [UInt8], oldName: String, newName: String, context: Int = 3,
  isAnchor: ((ArraySlice<UInt8>) -> Bool)? = nil
) -> [UInt8] {
  let a = splitKeepingBreaks(old)
  let b = splitKeepingBreaks(new)
  let edits = editScript(a, b, isAnchor: isAnchor)
  guard edits.contains(where: { $0 != .same }) else { return [] }

  var out = Array("--- \(oldName)\n+++ \(newName)\n".utf8)
  // Walk the script, with each edit's position in both texts.
  var positions: [(edit: Edit, old: Int, new: Int)] = []
  positions.reserveCapacity(edits.count)
  var (i, j) = (0, 0)
  for edit in edits {
    positions.append((edit, i, j))
    switch edit {
    case .same:
      i += 1
      j += 1
    case .delete: i += 1
    case .insert: j += 1
    }
  }
  let changes = positions.indices.filter { positions[$0].edit != .same }
  var k = 0
  while k < changes.count {
    // A hunk: changes whose gaps of unchanged lines are at most 2 * context.
    var last = k
    while last + 1 < changes.count, changes[last + 1] - changes[last] - 1 <= 2 * context {
      last += 1
    }
    let start = max(0, changes[k] - context)
    let end = min(positions.count, changes[last] + context + 1)
    let hunk = positions[start..<end]
    let oldCount = hunk.filter { $0.edit != .insert }.count
    let newCount = hunk.filter { $0.edit != .delete }.count
    let first = positions[start]
    out += Array(
      "@@ -\(range(first.old, oldCount)) +\(range(first.new, newCount)) @@\n".utf8)
    var index = start
    while index < end {
      if positions[index].edit == .same {
        line(" ", a[positions[index].old], &out)
        index += 1
        continue
      }
      // A run of changes: its deletions, then its insertions.
      var runEnd = index
      while runEnd < end, positions[runEnd].edit != .same { runEnd += 1 }
      for p in positions[index..<runEnd] where p.edit == .delete { line("-", a[p.old], &out) }
      for p in positions[index..<runEnd] where p.edit == .insert { line("+", b[p.new], &out) }
      index = runEnd
    }
    k = last + 1
  }
  return out
}

/// `START,COUNT`, or `START` alone when COUNT is 1; an empty range starts at
/// the line before it, as `diff` writes it.
private func range(_ index: Int, _ count: Int) -> String {
  switch count {
  case 0: "\(index),0"
  case 1: "\(index + 1)"
  default: "\(index + 1),\(count)"
  }
}

private func line(_ mark: String, _ text: ArraySlice<UInt8>, _ out: inout [UInt8]) {
  out += Array(mark.utf8)
  out += text
  if text.last != 0x0A { out += Array("\n\\ No newline at end of file\n".utf8) }
}

/// The lines of `text`, each with its `\n` (the last may have none).
private func splitKeepingBreaks(_ text: [UInt8]) -> [ArraySlice<UInt8>] {
  var lines: [ArraySlice<UInt8>] = []
  var start = 0
  while start < text.count {
    let end = text[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? text.count
    lines.append(text[start..<end])
    start = end
  }
  return lines
}

enum Edit: Equatable {
  case same, delete, insert
}

/// A shortest edit script from `a` to `b` (Myers' O(ND) algorithm), after
/// setting aside the lines the two share at the start and at the end.
func editScript(
  _ a: [ArraySlice<UInt8>], _ b: [ArraySlice<UInt8>],
  isAnchor: ((ArraySlice<UInt8>) -> Bool)? = nil
) -> [Edit] {
  var prefix = 0
  while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
  var suffix = 0
  while suffix < a.count - prefix, suffix < b.count - prefix,
    a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
  {
    suffix += 1
  }
  let x = Array(a[prefix..<(a.count - suffix)])
  let y = Array(b[prefix..<(b.count - suffix)])
  // Which lines of each text change; then each run of changed lines slides
  // down past equal lines, as `diff` places it (`#>` `#>` less one loses
  // the second).
  var deleted = [Bool](repeating: false, count: a.count)
  var inserted = [Bool](repeating: false, count: b.count)
  var (i, j) = (prefix, prefix)
  for edit in anchoredEdits(x, y, isAnchor) {
    switch edit {
    case .same:
      i += 1
      j += 1
    case .delete:
      deleted[i] = true
      i += 1
    case .insert:
      inserted[j] = true
      j += 1
    }
  }
  slideDown(&deleted, a)
  slideDown(&inserted, b)
  var edits: [Edit] = []
  (i, j) = (0, 0)
  while i < a.count || j < b.count {
    if i < a.count, deleted[i] {
      edits.append(.delete)
      i += 1
    } else if j < b.count, inserted[j] {
      edits.append(.insert)
      j += 1
    } else {
      edits.append(.same)
      i += 1
      j += 1
    }
  }
  return edits
}

/// Moves each run of changed lines down while its first line equals the
/// unchanged line after it (the text left unchanged stays the same),
/// merging with the runs it meets.
private func slideDown(_ changed: inout [Bool], _ lines: [ArraySlice<UInt8>]) {
  var i = 0
  while i < lines.count {
    guard changed[i] else {
      i += 1
      continue
    }
    var start = i
    var end = i
    while end < lines.count, changed[end] { end += 1 }
    while end < lines.count, lines[start] == lines[end] {
      changed[start] = false
      changed[end] = true
      start += 1
      end += 1
      while end < lines.count, changed[end] { end += 1 }
    }
    i = end
  }
}

/// Myers' script between consecutive anchors, when both texts hold the
/// same anchors in the same order; else over the whole.
private func anchoredEdits(
  _ a: [ArraySlice<UInt8>], _ b: [ArraySlice<UInt8>],
  _ isAnchor: ((ArraySlice<UInt8>) -> Bool)?
) -> [Edit] {
  guard let isAnchor else { return myers(a, b) }
  let anchorsA = a.indices.filter { isAnchor(a[$0]) }
  let anchorsB = b.indices.filter { isAnchor(b[$0]) }
  guard anchorsA.count == anchorsB.count,
    zip(anchorsA, anchorsB).allSatisfy({ a[$0] == b[$1] })
  else { return myers(a, b) }
  var edits: [Edit] = []
  edits.reserveCapacity(max(a.count, b.count))
  var (i, j) = (0, 0)
  for (anchorA, anchorB) in zip(anchorsA + [a.count], anchorsB + [b.count]) {
    edits += myers(Array(a[i..<anchorA]), Array(b[j..<anchorB]))
    if anchorA < a.count { edits.append(.same) }
    (i, j) = (anchorA + 1, anchorB + 1)
  }
  return edits
}

/// The most edits Myers' search looks for (its saved states: about 4M ints).
private let maximumSearch = 2000

private func myers(_ a: [ArraySlice<UInt8>], _ b: [ArraySlice<UInt8>]) -> [Edit] {
  let n = a.count
  let m = b.count
  if n == 0 { return Array(repeating: .insert, count: m) }
  if m == 0 { return Array(repeating: .delete, count: n) }
  let offset = n + m + 1
  var v = [Int](repeating: 0, count: 2 * offset + 1)
  // trace[d] holds v[-d...d] as it was before step d.
  var trace: [[Int]] = []
  search: for d in 0...(n + m) {
    // The saved states grow as d²: past this many edits, as `diff` gives up
    // on a minimal script for a huge change, take all of a out and b in.
    guard d <= maximumSearch else {
      return Array(repeating: .delete, count: n) + Array(repeating: .insert, count: m)
    }
    trace.append(Array(v[(offset - d)...(offset + d)]))
    for k in stride(from: -d, through: d, by: 2) {
      var x =
        (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        ? v[offset + k + 1] : v[offset + k - 1] + 1
      var y = x - k
      while x < n, y < m, a[x] == b[y] {
        x += 1
        y += 1
      }
      v[offset + k] = x
      if x >= n, y >= m { break search }
    }
  }
  // Walk back from the end through the saved states.
  var edits: [Edit] = []
  var (x, y) = (n, m)
  for d in stride(from: trace.count - 1, through: 0, by: -1) {
    let saved = trace[d]
    func at(_ k: Int) -> Int { saved[k + d] }
    let k = x - y
    guard d > 0 else {
      while x > 0, y > 0 {
        edits.append(.same)
        x -= 1
        y -= 1
      }
      break
    }
    let down = k == -d || (k != d && at(k - 1) < at(k + 1))
    let previousK = down ? k + 1 : k - 1
    let previousX = at(previousK)
    let previousY = previousX - previousK
    while x > previousX, y > previousY {
      edits.append(.same)
      x -= 1
      y -= 1
    }
    edits.append(down ? .insert : .delete)
    x = previousX
    y = previousY
  }
  return edits.reversed()
}

/// A path as a diff's `---` and `+++` lines name it, so that `patch -p0`
/// finds the file whatever its name: as it is, or, when it holds a space, a
/// tab, `"`, `\`, a control character or bytes that are not UTF-8, in
/// double quotes with C escapes (`\"`, `\\`, `\t`, `\n`, and `\ooo` for the
/// bytes of other control characters and for bytes that are not UTF-8), as
/// git writes such names.
public func quotedPath(_ path: [UInt8]) -> String {
  var quoted: [UInt8] = [UInt8(ascii: "\"")]
  var needsQuotes = false
  func octal(_ byte: UInt8) {
    quoted += [
      UInt8(ascii: "\\"), UInt8(ascii: "0") + byte >> 6, UInt8(ascii: "0") + (byte >> 3) & 7,
      UInt8(ascii: "0") + byte & 7,
    ]
  }
  var rest = path[...]
  while let first = rest.first {
    var decoder = UTF8()
    var iterator = rest.makeIterator()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else {
      needsQuotes = true
      octal(first)
      rest = rest.dropFirst()
      continue
    }
    let width = UTF8.width(scalar)
    let bytes = rest.prefix(width)
    rest = rest.dropFirst(width)
    switch scalar.value {
    case 0x22, 0x5C:
      needsQuotes = true
      quoted += [UInt8(ascii: "\\"), UInt8(truncatingIfNeeded: scalar.value)]
    case 0x09:
      needsQuotes = true
      quoted += Array("\\t".utf8)
    case 0x0A:
      needsQuotes = true
      quoted += Array("\\n".utf8)
    case 0x00...0x1F, 0x7F...0x9F:
      needsQuotes = true
      for byte in bytes { octal(byte) }
    case 0x20:
      needsQuotes = true
      quoted += bytes
    default:
      quoted += bytes
    }
  }
  guard needsQuotes else { return String(decoding: path, as: UTF8.self) }
  quoted.append(UInt8(ascii: "\""))
  return String(decoding: quoted, as: UTF8.self)
}
