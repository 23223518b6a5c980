/// The options a golden test runs with (handsh(1), GOLDEN TESTS): the
/// command line's, then the file's own shebang line on top.
public struct GoldenSettings: Sendable, Equatable {
  public var seed: UInt64 = 0
  public var limit = Session.defaultLimit
  public var ascii = false
  public var json = false
  public var echo = false
  public var quiet = false

  public init(
    seed: UInt64 = 0, limit: Int = Session.defaultLimit, ascii: Bool = false, json: Bool = false,
    echo: Bool = false, quiet: Bool = false
  ) {
    self.seed = seed
    self.limit = limit
    self.ascii = ascii
    self.json = json
    self.echo = echo
    self.quiet = quiet
  }
}

/// Which stream a line of output went to.
public enum GoldenStream: Sendable, Equatable {
  case stdout, stderr
}

/// One line of output, as a block holds it: `#> TEXT` or `#2> TEXT`.
public struct OutputLine: Sendable, Equatable {
  public var stream: GoldenStream
  /// The text, without the line break.
  public var text: [UInt8]

  public init(_ stream: GoldenStream, _ text: [UInt8]) {
    self.stream = stream
    self.text = text
  }

  public init(_ stream: GoldenStream, _ text: String) {
    self.init(stream, Array(text.utf8))
  }

  /// The line as a test file holds it, without the line break.
  public var marked: [UInt8] {
    var line = Array((stream == .stdout ? "#>" : "#2>").utf8)
    if !text.isEmpty {
      line.append(UInt8(ascii: " "))
      line += text
    }
    return line
  }
}

/// A problem that keeps a file from running: `PATH:LINE:COLUMN: error: MESSAGE`.
public typealias GoldenDiagnostic = LineDiagnostic

/// A golden test file, read into input lines and the blocks of expected
/// output under them (handsh(1), GOLDEN TESTS). Every byte of the text is
/// kept, so that an update can rewrite the blocks and nothing else.
public struct GoldenFile: Sendable {
  public let text: [UInt8]
  /// The settings the file runs with: the defaults given, then its shebang.
  public let settings: GoldenSettings
  /// Malformed lines and options: when there are any, the file does not run.
  public let diagnostics: [GoldenDiagnostic]
  /// The input lines, in order, each with its expected block.
  public let inputs: [Input]
  let lines: [PhysicalLine]
  /// Whether new lines end in `\r\n`: the file's first line break does.
  let crlf: Bool

  /// An input line and the block of expected output right under it.
  public struct Input: Sendable {
    /// The 1-based line number.
    public let number: Int
    public let expected: [OutputLine]
    /// The physical lines (0-based) of the input line and of its block.
    let line: Int
    let block: Range<Int>
  }

  /// A line of the text: where its content and its line break lie.
  struct PhysicalLine: Sendable {
    /// The first byte, after a byte-order mark on line 1.
    let start: Int
    /// The end of the content, before `\r\n` or `\n`.
    let contentEnd: Int
    /// After the line break (the text's end for a last line without one).
    let end: Int
    /// Where the line starts in the text, byte-order mark included.
    let rawStart: Int
    /// The bytes before the `\n`, a `\r` or a byte-order mark included: what
    /// the line limit counts.
    let length: Int
  }

  public init(text: [UInt8], defaults: GoldenSettings = GoldenSettings()) {
    self.text = text
    var lines: [PhysicalLine] = []
    var crlf: Bool?
    // Cut as every text is; a line too long is reported at its run.
    text.withUnsafeBufferPointer { buffer in
      var cut = SourcedLines(buffer)
      cut.keepsLongLines = true
      while let line = cut.next() {
        let newline = line.range.upperBound < buffer.count
        if crlf == nil, newline { crlf = line.content.upperBound < line.range.upperBound }
        lines.append(
          PhysicalLine(
            start: line.content.lowerBound, contentEnd: line.content.upperBound,
            end: newline ? line.range.upperBound + 1 : buffer.count,
            rawStart: line.range.lowerBound, length: line.range.count))
      }
    }
    self.lines = lines
    self.crlf = crlf ?? false

    var diagnostics: [GoldenDiagnostic] = []
    var settings = defaults
    if let first = lines.first {
      let content = Array(text[first.start..<first.contentEnd])
      if content.starts(with: Array("#!".utf8)) {
        do throws(GoldenDiagnostic) {
          try ShebangOptions.apply(content, to: &settings)
        } catch {
          diagnostics.append(error)
        }
      }
    }
    self.settings = settings

    var inputs: [Input] = []
    var current: (line: Int, expected: [OutputLine])?
    var orphan = false
    func close(at end: Int) {
      guard let open = current else { return }
      inputs.append(
        Input(
          number: open.line + 1, expected: open.expected, line: open.line,
          block: (open.line + 1)..<end))
      current = nil
    }
    for (index, line) in lines.enumerated() {
      let content = text[line.start..<line.contentEnd]
      switch GoldenFile.classify(content) {
      case .expected(let output):
        if current != nil {
          current?.expected.append(output)
        } else if !orphan {
          orphan = true
          diagnostics.append(
            GoldenDiagnostic(
              line: index + 1, column: 1,
              message: "expected output must directly follow the line that prints it"))
        }
      case .malformed(let column, let message):
        diagnostics.append(GoldenDiagnostic(line: index + 1, column: column, message: message))
        if current == nil { orphan = true }
      case .input:
        close(at: index)
        current = (index, [])
        orphan = false
      case .other:
        close(at: index)
        orphan = false
      }
    }
    close(at: lines.count)
    self.inputs = inputs
    self.diagnostics = diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
  }

  enum Kind {
    case input
    case expected(OutputLine)
    case malformed(column: Int, message: String)
    /// Blank or a comment.
    case other
  }

  static func classify(_ content: ArraySlice<UInt8>) -> Kind {
    let hash = UInt8(ascii: "#")
    let space = UInt8(ascii: " ")
    let first = content.startIndex
    // A marker starts the line: `#>` or `#2>`. Read byte by byte, with no
    // allocation: every line of every golden test comes here.
    if content.first == hash {
      let stream: GoldenStream
      let end: Int
      if content.count >= 2, content[first + 1] == UInt8(ascii: ">") {
        (stream, end) = (.stdout, first + 2)
      } else if content.count >= 3, content[first + 1] == UInt8(ascii: "2"),
        content[first + 2] == UInt8(ascii: ">")
      {
        (stream, end) = (.stderr, first + 3)
      } else {
        return .other
      }
      if end == content.endIndex { return .expected(OutputLine(stream, [])) }
      if content[end] == space {
        return .expected(OutputLine(stream, Array(content[(end + 1)...])))
      }
      let marker = stream == .stdout ? "#>" : "#2>"
      return .malformed(
        column: end - first + 1,
        message:
          "malformed expected output: '\(marker)' must be followed by a space or the end of the line"
      )
    }
    guard let start = content.firstIndex(where: { $0 != space && $0 != 0x09 }) else {
      return .other
    }
    guard content[start] == hash else { return .input }
    // An indented marker would check nothing: a typo, never a comment.
    let rest = content[start...]
    for marker in ["#2>", "#>"] where rest.starts(with: marker.utf8) {
      return .malformed(
        column: start - content.startIndex + 1,
        message: "malformed expected output: '\(marker)' must start the line")
    }
    return .other
  }

  /// Whether the file has no input line: it checks nothing, so it is
  /// skipped rather than passed.
  public var checksNothing: Bool { inputs.isEmpty }

  /// The content of input line `input`, for the parser.
  public func content(of input: Input) -> Range<Int> {
    lines[input.line].start..<lines[input.line].contentEnd
  }

  /// Whether an input line is longer than handsh reads (handsh(1), DESCRIPTION).
  func isTooLong(_ input: Input) -> Bool {
    lines[input.line].length > LineParser.maximumLineLength
  }
}

extension GoldenFile {
  /// Writes `block` as `--update` writes a test's expected block under its
  /// input line, whose bytes (its line break included) end at byte `end`:
  /// each output line marked and ended with the file's line break, after a
  /// break that ends the input line when it has none (the file's last
  /// line). The one writer of a block: `--update`, `--review` and an
  /// editor's code actions.
  func writeBlock(_ block: [OutputLine], after end: Int, to out: inout [UInt8]) {
    let eol: [UInt8] = crlf ? [0x0D, 0x0A] : [0x0A]
    if text[..<end].last != 0x0A, !block.isEmpty { out += eol }
    for output in block { out += output.marked + eol }
  }
}
