/// How many columns a terminal gives text (handsh(1), THE PROMPT): the one
/// measure the prompt's pointer uses to put each mark under its text.
///
/// A terminal is assumed to draw as the C library's wcwidth(3) says, which
/// is what readline assumes when it draws the line being edited:
/// - wide East Asian characters and emoji drawn as pictures (`漢`, `😀`)
///   take two columns (`wideRanges`);
/// - combining marks, format characters and variation selectors take none:
///   U+FE0F after a character adds no column of its own, so `♥️` takes one
///   column, as `♥` does (a terminal that draws it two columns wide shifts
///   the marks after it by one);
/// - the conjoining vowels and final consonants of Hangul take none, as
///   they join the syllable before them;
/// - a tab runs to the next multiple of 8 (`columns(of:from:)`);
/// - control characters take none: they never reach a terminal unescaped
///   (`safeText` writes them `\xHH`, which then takes four columns).
/// Every other character takes one column.
public func columns(of scalar: Unicode.Scalar) -> Int {
  let value = scalar.value
  if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
  if let width = exceptionalWidth(value) { return width }
  switch scalar.properties.generalCategory {
  case .nonspacingMark, .enclosingMark, .format: return 0
  default: break
  }
  return isWide(value) ? 2 : 1
}

/// The columns of `text` when it starts at column `start` (0-based) of the
/// terminal: where a tab ends depends on where it starts. Returns the
/// column after it, less `start`.
public func columns<Text: StringProtocol>(of text: Text, from start: Int = 0) -> Int {
  var column = start
  for scalar in text.unicodeScalars {
    column = scalar == "\t" ? nextTabStop(after: column) : column + columns(of: scalar)
  }
  return column - start
}

/// The column a tab at `column` runs to: the next multiple of 8.
public func nextTabStop(after column: Int) -> Int { (column / 8 + 1) * 8 }

/// Where wcwidth(3) departs from the general category: the soft hyphen and
/// the prepended concatenation marks are drawn, the Hangul jamo that join
/// a syllable are not.
private func exceptionalWidth(_ value: UInt32) -> Int? {
  switch value {
  case 0x00AD, 0x0600...0x0605, 0x06DD, 0x070F, 0x0890...0x0891, 0x08E2, 0x110BD, 0x110CD:
    return 1
  case 0x1160...0x11FF, 0xD7B0...0xD7FF:
    return 0
  default:
    return nil
  }
}

private func isWide(_ value: UInt32) -> Bool {
  // Binary search: the ranges are sorted and do not overlap.
  var low = 0
  var high = wideRanges.count
  while low < high {
    let middle = (low + high) / 2
    let range = wideRanges[middle]
    if value < range.lowerBound {
      high = middle
    } else if value > range.upperBound {
      low = middle + 1
    } else {
      return true
    }
  }
  return false
}

/// The characters wcwidth(3) of glibc 2.36 (Unicode 14) gives two columns:
/// East Asian Wide and Fullwidth, and emoji with a picture presentation of
/// their own.
private let wideRanges: [ClosedRange<UInt32>] = [
  0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A,
  0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
  0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653,
  0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
  0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
  0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
  0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA,
  0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
  0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E,
  0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
  0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C,
  0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x2E99,
  0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFB,
  0x3000...0x3029, 0x302E...0x303E, 0x3041...0x3096,
  0x309B...0x30FF, 0x3105...0x312F, 0x3131...0x318E,
  0x3190...0x31E3, 0x31F0...0x321E, 0x3220...0xA48C,
  0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3,
  0xF900...0xFA6D, 0xFA70...0xFAD9, 0xFE10...0xFE19,
  0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B,
  0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE3,
  0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5,
  0x18D00...0x18D08, 0x1AFF0...0x1AFF3, 0x1AFF5...0x1AFFB,
  0x1AFFD...0x1AFFE, 0x1B000...0x1B122, 0x1B150...0x1B152,
  0x1B164...0x1B167, 0x1B170...0x1B2FB, 0x1F004...0x1F004,
  0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
  0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
  0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F320,
  0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393,
  0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0,
  0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440,
  0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E,
  0x1F550...0x1F567, 0x1F57A...0x1F57A, 0x1F595...0x1F596,
  0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5,
  0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7,
  0x1F6DD...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC,
  0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A,
  0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FA74,
  0x1FA78...0x1FA7C, 0x1FA80...0x1FA86, 0x1FA90...0x1FAAC,
  0x1FAB0...0x1FABA, 0x1FAC0...0x1FAC5, 0x1FAD0...0x1FAD9,
  0x1FAE0...0x1FAE7, 0x1FAF0...0x1FAF6, 0x20000...0x2A6DF,
  0x2A700...0x2B738, 0x2B740...0x2B81D, 0x2B820...0x2CEA1,
  0x2CEB0...0x2EBE0, 0x2F800...0x2FA1D, 0x30000...0x3134A,
]
