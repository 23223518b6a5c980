import CHandsh
import HandKit

// The C library is imported by each file that calls it, and re-exported by
// none, so the top of a file says whether it reaches the C library; the
// helpers of `Platform` keep the calls of the others few.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
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

  /// Writes all of `bytes` to `fd`; the errno of a failure. A non-blocking
  /// `fd` (a pipe another program set so) is waited on with `poll`, as a
  /// blocking one would be, never given up on with `EAGAIN`.
  static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var delivered = 0
    return write(fd, bytes, delivered: &delivered)
  }

  /// `write`, saying in `delivered` how many bytes went out, also when it
  /// fails: a write cut short goes on from there, never again from the
  /// start (handsh(1), THE PROMPT).
  static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, delivered offset: inout Int)
    -> Int32?
  {
    offset = 0
    while offset < bytes.count {
      guard let base = bytes.baseAddress else { return nil }
      let written = writeBytes(fd, base + offset, bytes.count - offset)
      if written < 0 {
        // At the prompt, Control-C or a signal that ends handsh abandons a
        // write that blocks (handsh(1), THE PROMPT); other signals do not.
        var code = errno
        if code == EAGAIN || code == EWOULDBLOCK {
          // A non-blocking descriptor is waited on, as a blocking one is.
          var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          if poll(&ready, 1, -1) >= 0 { continue }
          code = errno
        }
        if code == EINTR, !Platform.mayGiveUp() { continue }
        return code
      }
      offset += written
      // A signal that cut a write short is seen here, not as EINTR.
      if offset < bytes.count, Platform.mayGiveUp() { return EINTR }
    }
    return nil
  }

  /// One write(2) of `bytes` to `fd`: the count written, or -1 (errno says
  /// why).
  static func writeOnce(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
    return writeBytes(fd, base, bytes.count)
  }

  /// Whether a write cut short by a signal is given up on: at the prompt,
  /// after Control-C or a signal that ends handsh, but never inside a
  /// critical section, whose file must end whole (handsh(1), SIGNALS).
  static func mayGiveUp() -> Bool {
    handsh_prompt_interrupted() != 0 && handsh_in_critical() == 0
  }

  /// Runs `body` as a critical section of the signal policy: no signal
  /// ends handsh until it returns (handsh(1), SIGNALS).
  static func critical<T>(_ body: () -> T) -> T {
    handsh_critical_begin()
    defer { handsh_critical_end() }
    return body()
  }

  /// Runs `body` with SIGPIPE held off this thread, so that a write into a
  /// pipe or FIFO whose reader is gone fails with `EPIPE` instead of ending
  /// handsh; a SIGPIPE that `body` caused is taken back before the signal
  /// is let through again.
  static func withoutSIGPIPE<T>(_ body: () -> T) -> T {
    var pipe = sigset_t()
    var previous = sigset_t()
    sigemptyset(&pipe)
    sigaddset(&pipe, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &pipe, &previous)
    var pendingBefore = sigset_t()
    sigpending(&pendingBefore)
    let result = body()
    var pendingAfter = sigset_t()
    sigpending(&pendingAfter)
    if sigismember(&pendingAfter, SIGPIPE) == 1, sigismember(&pendingBefore, SIGPIPE) != 1 {
      var none = timespec()
      while sigtimedwait(&pipe, nil, &none) < 0 && errno == EINTR {}
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    return result
  }

  /// Writes a line to stderr, unbuffered.
  static func printError(_ text: String, to fd: Int32 = 2) {
    var line = text
    line += "\n"
    line.withUTF8 { _ = write(fd, UnsafeRawBufferPointer($0)) }
  }
}

extension Platform {
  /// Seconds on a clock that only goes forward.
  /// The system clock, in whole seconds since 1970 (UTC): when a version
  /// is made (handsh(1), Versions).
  static let clock = TimeSource {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME_COARSE, &now)
    return Int(now.tv_sec)
  }

  static func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  /// `bytes` written whole at `offset` of `fd` with `pwrite`, never moving
  /// its offset; the errno of a failure.
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32? {
    var done = 0
    while done < bytes.count {
      guard let base = bytes.baseAddress else { return nil }
      let count = pwrite(fd, base + done, bytes.count - done, off_t(offset + done))
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      done += count
    }
    return nil
  }

  /// `bytes` filled from `offset` of `fd` with `pread`, cut short where the
  /// file ends; the errno of a failure.
  static func readAll(_ fd: Int32, _ bytes: inout [UInt8], at offset: Int) -> Int32? {
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(offset + done))
      }
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      if count == 0 { break }
      done += count
    }
    if done < bytes.count { bytes.removeSubrange(done...) }
    return nil
  }

  /// The CPUs online: the default of `-j`.
  static func processorCount() -> Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  /// `stat` (or `lstat`, not following a final link) of a path given as bytes.
  static func status(of path: [UInt8], _ status: inout stat, follow: Bool) -> Bool {
    withCPath(path) { follow ? stat($0, &status) == 0 : lstat($0, &status) == 0 } ?? false
  }

  /// The names in a folder (without `.` and `..`), or nil with errno set.
  static func folderEntries(_ path: [UInt8]) -> [[UInt8]]? {
    guard let folder = withCPath(path, { opendir($0) }) ?? nil else { return nil }
    defer { closedir(folder) }
    var names: [[UInt8]] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        Array(raw.prefix { $0 != 0 })
      }
      if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
    }
    return names
  }

  /// `body` given `path` as a C string (cut at a NUL byte, as C reads it).
  static func withCPath<T>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T? {
    (path + [0]).withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { $0.baseAddress.map(body) }
    }
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
  /// Words for a failure that has no errno of its own (`not a regular file`).
  package var detail: String?

  package init(_ operation: String, path: String? = nil, code: Int32, detail: String? = nil) {
    self.operation = operation
    self.path = path
    self.code = code
    self.detail = detail
  }

  /// A file that is not a regular one where only one will do: a FIFO, a
  /// device, a socket (its errno, for callers that need one, is `EINVAL`).
  package static func notRegular(_ operation: String, path: String) -> SystemError {
    SystemError(operation, path: path, code: EINVAL, detail: "not a regular file")
  }

  /// A golden test over the size limit (handsh(1), GOLDEN TESTS).
  package static func tooLarge(_ operation: String, path: String) -> SystemError {
    SystemError(
      operation, path: path, code: EFBIG, detail: "too large for a golden test (\(goldenLimitText))"
    )
  }

  /// The reason as a message gives it: the system's words for the errno,
  /// or the detail.
  package var reason: String { detail ?? Platform.describe(code) }

  /// `cannot read 'FILE': Is a directory`, or `write error: No space left on device`.
  package var description: String {
    guard let path else { return "\(operation): \(reason)" }
    return "\(operation) '\(path)': \(reason)"
  }
}
