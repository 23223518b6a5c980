/// What a golden test's `save` and `source` do: the effects of a test on
/// the world. A test never writes a file (handsh(1), GOLDEN TESTS).
public protocol GoldenEffects {
  /// Keeps `script` under the name `file`; the reason when it cannot.
  mutating func save(_ script: String, to file: String) -> String?
  /// Reads the script `file` for `source`.
  mutating func read(_ file: String) -> Result<[UInt8], ReadFailure>
}

extension GoldenEffects {
  /// Effects that read no files: every `source` fails, as for a file that
  /// is not there.
  public mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    .failure(ReadFailure("No such file or directory"))
  }
}

/// The memory of one test: the files its `save`s wrote, by name as written,
/// where a later `source` of the same test finds them first. Any other
/// `source` goes to `readFile`, the real file (the shell passes its reader;
/// the core has none). Nothing is seen by another test or left behind.
public struct GoldenMemory: GoldenEffects, Sendable {
  public private(set) var files: [String: [UInt8]] = [:]
  let readFile: @Sendable (String) -> Result<[UInt8], ReadFailure>

  public init(
    readFile: @escaping @Sendable (String) -> Result<[UInt8], ReadFailure> = { _ in
      .failure(ReadFailure("No such file or directory"))
    }
  ) {
    self.readFile = readFile
  }

  /// Fails only where no file could ever be written: an empty name, one
  /// that names a folder (ends in `/`), or one that holds a NUL byte, which
  /// no file name can. The reasons are the C library's.
  public mutating func save(_ script: String, to file: String) -> String? {
    if file.isEmpty { return "No such file or directory" }
    if file.hasSuffix("/") { return "Is a directory" }
    if file.utf8.contains(0) { return "Invalid argument" }
    files[file] = Array(script.utf8)
    return nil
  }

  /// What this test saved under the name `file`; nil when it saved nothing
  /// there.
  public func saved(_ file: String) -> [UInt8]? { files[file] }

  public mutating func read(_ file: String) -> Result<[UInt8], ReadFailure> {
    if let bytes = files[file] { return .success(bytes) }
    return readFile(file)
  }
}
