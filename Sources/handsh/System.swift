#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The thin layer over the C library that the shell needs.
enum System {
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
      let written = Glibc.write(fd, base + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += written
    }
    return nil
  }

  /// Writes a line to stderr, unbuffered.
  static func printError(_ text: String) {
    var line = text
    line += "\n"
    line.withUTF8 { _ = write(2, UnsafeRawBufferPointer($0)) }
  }

  static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}
