// The one file that imports the C library: every other file of the shell
// reaches it through this import (re-exported) and the `Platform` helpers.
#if canImport(Glibc)
  @_exported @preconcurrency import Glibc
#elseif canImport(Musl)
  @_exported @preconcurrency import Musl
#else
  #error("handsh needs a Linux C library (Glibc or Musl)")
#endif

/// The C library's `write`, under a name that `Platform.write` cannot shadow.
private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}

/// The thin layer over the C library that the shell needs.
enum Platform {
  static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// The C library's words for an errno value.
  static func describe(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
  }

  /// Writes all of `bytes` to `fd`; the errno of a failure.
  static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      guard let base = bytes.baseAddress else { return nil }
      let written = writeBytes(fd, base + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += written
    }
    return nil
  }

  /// Writes a line to stderr, unbuffered.
  static func printError(_ text: String, to fd: Int32 = 2) {
    var line = text
    line += "\n"
    line.withUTF8 { _ = write(fd, UnsafeRawBufferPointer($0)) }
  }
}

/// A failed call into the C library: what was tried, on which path, and the
/// errno. Its description is the message handsh prints.
package struct SystemError: Error, Equatable, CustomStringConvertible {
  /// What was being done, as the message says it: `cannot write`, `cannot read`.
  package var operation: String
  /// The path as the user wrote it, already made safe for a terminal.
  package var path: String?
  package var code: Int32

  package init(_ operation: String, path: String? = nil, code: Int32) {
    self.operation = operation
    self.path = path
    self.code = code
  }

  /// `cannot read 'FILE': Is a directory`, or `write error: No space left on device`.
  package var description: String {
    let reason = Platform.describe(code)
    guard let path else { return "\(operation): \(reason)" }
    return "\(operation) '\(path)': \(reason)"
  }
}
