import CHandsh
import HandKit

// MARK: Pointing at a failed command or a syntax error

/// The rows that point at the failed command of a line holding several
/// (handsh(1), THE PROMPT), for a terminal `handsh_terminal_columns` wide:
/// they go to stderr before `error: MESSAGE`.
package func failurePointer(line: [UInt8], command span: Range<Int>) -> [String] {
  pointerRows(line: line, marks: [span], width: terminalWidth())
}

/// The rows that point at every syntax error of `line` (one echo of the
/// line, marks under each offending word), or none when it has none.
package func syntaxPointer(line: [UInt8], width: Int) -> [String] {
  var bytes = line
  let marks = LineParser.parse(bytes: &bytes).compactMap { item -> Range<Int>? in
    guard case .error(let error) = item else { return nil }
    return offendingWord(in: line, column: error.column)
  }
  return marks.isEmpty ? [] : pointerRows(line: line, marks: marks, width: width)
}

/// The columns of the terminal on stderr; 0 when unknown (no window).
func terminalWidth() -> Int { Int(handsh_terminal_columns(2)) }

/// The rows that show `line` as it was typed, indented by two spaces and
/// made safe as diagnostics are (a tab runs to the next multiple of 8), with
/// `^` under each column of the byte ranges `marks`. On a terminal `width`
/// columns wide (0: any width), a line that does not fit in its first
/// `width - 1` columns is shown as windows around
/// the marks, cut with `…`, one echo and one row of marks for each window,
/// so that each mark stays under its text on one row.
package func pointerRows(line: [UInt8], marks: [Range<Int>], width: Int) -> [String] {
  let indent = 2
  let cells = pointerCells(line, marks: marks, from: indent)
  let total = cells.last.map { $0.start + $0.width } ?? 0
  // The last column stays free: a row that fills the terminal makes some
  // of them wrap before the line break.
  let room = width > indent + 1 ? width - indent - 1 : Int.max
  guard total > room else {
    return rows(cells, window: 0..<total, indent: indent, total: total)
  }
  // The marked runs, in columns, gathered into windows that each fit.
  var runs: [Range<Int>] = []
  for cell in cells where cell.marked {
    let end = cell.start + max(cell.width, 1)
    if let last = runs.last, last.upperBound >= cell.start {
      runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, end)
    } else {
      runs.append(cell.start..<end)
    }
  }
  let inner = max(room - 2, 1)  // `…` at both ends
  var groups: [Range<Int>] = []
  for run in runs {
    if let last = groups.last, run.upperBound - last.lowerBound <= inner {
      groups[groups.count - 1] = last.lowerBound..<run.upperBound
    } else {
      groups.append(run)
    }
  }
  return groups.flatMap { group in
    rows(
      cells, window: window(around: group, total: total, room: room), indent: indent, total: total)
  }
}

/// The columns of a window of at most `room` columns (its `…` included)
/// that shows `group`, or as much of its start as fits, with context
/// on both sides.
private func window(around group: Range<Int>, total: Int, room: Int) -> Range<Int> {
  let inner = max(room - 2, 1)
  var start = group.lowerBound
  if group.count < inner { start = max(0, start - (inner - group.count) / 2) }
  if start == 0 { return 0..<min(total, room - 1) }
  if start + inner >= total { return max(1, total - (room - 1))..<total }
  return start..<(start + inner)
}

/// One character as the terminal draws it: its text (with the marks that
/// combine with it), its first column, its columns.
private struct Cell {
  var text: String
  var start: Int
  var width: Int
  var marked: Bool
}

private func pointerCells(_ line: [UInt8], marks: [Range<Int>], from indent: Int) -> [Cell] {
  // Cut the line where marks start and end: each piece is marked or not.
  var cuts = Set([0, line.count])
  for mark in marks {
    cuts.insert(min(max(mark.lowerBound, 0), line.count))
    cuts.insert(min(max(mark.upperBound, 0), line.count))
  }
  let bounds = cuts.sorted()
  var cells: [Cell] = []
  var column = 0
  for (lower, upper) in zip(bounds, bounds.dropFirst()) where lower < upper {
    let marked = marks.contains { $0.contains(lower) }
    for scalar in safeText(line[lower..<upper]).unicodeScalars {
      if scalar == "\t" {
        // As the terminal would draw the whole line: blanks to the tab stop.
        let end = nextTabStop(after: indent + column) - indent
        while column < end {
          cells.append(Cell(text: " ", start: column, width: 1, marked: marked))
          column += 1
        }
        continue
      }
      let width = HandKit.columns(of: scalar)
      if width == 0, !cells.isEmpty,
        cells[cells.count - 1].start + cells[cells.count - 1].width == column
      {
        cells[cells.count - 1].text.unicodeScalars.append(scalar)
        continue
      }
      cells.append(Cell(text: String(scalar), start: column, width: width, marked: marked))
      column += width
    }
  }
  return cells
}

/// The echo of the cells in `window` and the row of marks under it.
private func rows(_ cells: [Cell], window: Range<Int>, indent: Int, total: Int) -> [String] {
  let margin = String(repeating: " ", count: indent)
  var echo = margin
  var marks = margin
  var column = window.lowerBound
  if window.lowerBound > 0 {
    echo += "…"
    marks += " "
  }
  for cell in cells
  where cell.start >= window.lowerBound && cell.start + cell.width <= window.upperBound {
    if cell.width == 0, cell.start >= window.upperBound { continue }
    let gap = String(repeating: " ", count: cell.start - column)
    echo += gap + cell.text
    marks += gap + String(repeating: cell.marked ? "^" : " ", count: cell.width)
    column = cell.start + cell.width
  }
  if window.upperBound < total { echo += "…" }
  while marks.hasSuffix(" ") { marks.removeLast() }
  // A mark on what takes no column (a lone combining mark) still shows.
  if marks.count <= indent + (window.lowerBound > 0 ? 1 : 0),
    let first = cells.first(where: { $0.marked && window.contains($0.start) })
  {
    marks += String(repeating: " ", count: first.start - window.lowerBound) + "^"
  }
  return [echo, marks]
}

/// The byte range of the word at `column` (1-based, in Unicode scalars, each
/// byte of invalid UTF-8 counting one, as syntax errors give it): up to a
/// blank, `;` or `#`, or a double-quoted word to its closing quote.
private func offendingWord(in line: [UInt8], column: Int) -> Range<Int> {
  var offset = 0
  var counted = 1
  while counted < column, offset < line.count {
    let byte = line[offset]
    let width = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
    offset = min(offset + width, line.count)
    counted += 1
  }
  guard offset < line.count else { return max(0, line.count - 1)..<line.count }
  var end = offset + 1
  if line[offset] == UInt8(ascii: "\"") {
    while end < line.count {
      let byte = line[end]
      end += 1
      if byte == UInt8(ascii: "\\"), end < line.count {
        end += 1
      } else if byte == UInt8(ascii: "\"") {
        break
      }
    }
  } else {
    while end < line.count, ![0x20, 0x09, UInt8(ascii: ";"), UInt8(ascii: "#")].contains(line[end])
    {
      end += 1
    }
  }
  return offset..<min(end, line.count)
}
