import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process around `LanguageServer`: reads stdin as it comes, hands
/// every frame that has arrived to the server at once, writes its messages
/// to stdout, and sends the diagnostics when no more input is waiting, so a
/// change that a newer one replaces is never run. Ends after `exit` (status
/// 0 after `shutdown`, else 1) or at the end of stdin; nothing else ends it.
enum ServerLoop {
  static func serve(ascii: Bool) -> Int32 {
    // A client that closed our stdout gets nothing more; the server still
    // reads until `exit` or the end of its input.
    signal(SIGPIPE, SIG_IGN)
    var server = LanguageServer(
      ascii: ascii, readFile: readTestSource, listFolder: { folderNames($0) })
    server.interrupted = { bytesWaiting(0) }
    server.locate = { locateFile($0) }
    // Documents run on threads of their own, which wake this loop through
    // a pipe when they are done: requests are answered meanwhile.
    var wake: [Int32] = [-1, -1]
    if pipe(&wake) == 0 {
      for fd in wake {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      }
      let writeEnd = wake[1]
      server.pool = RunPool()
      server.finished = {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
      }
    }
    let wakeEnd = wake[0]
    if let folder = workingFolder() { server.workingFolder = folder }
    var reader = FrameReader()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var ended = false
    while !ended {
      if wakeEnd >= 0 {
        // Until the client writes or a run is done.
        var pollers = [
          pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
          pollfd(fd: wakeEnd, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&pollers, 2, -1) < 0, errno == EINTR { continue }
        if pollers[1].revents != 0 {
          var drained = [UInt8](repeating: 0, count: 64)
          while read(wakeEnd, &drained, drained.count) > 0 {}
          if !waiting(0) { send(server.publish()) }
        }
        if pollers[0].revents == 0 { continue }
      }
      // Everything available now (up to 4 MiB, so that a client that never
      // pauses is still answered), then the frames it holds.
      var got = false
      var round = 0
      repeat {
        let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count > 0 {
          chunk.withUnsafeBytes { reader.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
          got = true
          round += count
        } else if count == 0 {
          ended = true
        } else if errno == EAGAIN || errno == EWOULDBLOCK {
          // A non-blocking stdin is waited on, as a blocking one is.
          var poller = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
          _ = poll(&poller, 1, -1)
        } else if errno != EINTR {
          Platform.printError(
            "handsh: cannot read the client's messages: \(Platform.describe(errno))")
          ended = true
        }
      } while !ended && round < 1 << 22 && waiting(0)
      var frames: [Frame] = []
      while let frame = reader.next() { frames.append(frame) }
      if !frames.isEmpty { send(server.handle(frames)) }
      if let status = server.exitStatus { return status }
      if !got, !ended { continue }
      if !waiting(0) { send(server.publish()) }
    }
    // At the end of stdin: what the client last changed is still shown.
    if !server.shutDown {
      send(server.publish(interruptible: false, within: LanguageServer.closing))
    }
    return server.shutDown ? 0 : 1
  }

  /// The absolute path of the working folder, when it has one.
  private static func workingFolder() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    guard bytes.first == UInt8(ascii: "/") else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether input is waiting on `fd` right now.
  private static func waiting(_ fd: Int32) -> Bool {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, 0) > 0 && poller.revents & Int16(POLLIN | POLLHUP) != 0
  }

  /// Whether bytes are waiting to be read on `fd` (not merely its end,
  /// which `poll` reports as readable too).
  private static func bytesWaiting(_ fd: Int32) -> Bool {
    var count: Int32 = 0
    if ioctl(fd, UInt(FIONREAD), &count) == 0 { return count > 0 }
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, 0) > 0 && poller.revents & Int16(POLLIN) != 0
  }

  /// Writes messages to stdout, each with its `Content-Length` header.
  private static func send(_ messages: [JSON]) {
    guard !messages.isEmpty else { return }
    var out: [UInt8] = []
    for message in messages { frame(message, into: &out) }
    out.withUnsafeBytes { _ = Platform.write(1, $0) }
  }

  static func frame(_ message: JSON, into out: inout [UInt8]) {
    let body = message.bytes
    out += Array("Content-Length: \(body.count)\r\n\r\n".utf8)
    out += body
  }

  /// The regular file that `path` names, walked as `source` opens it
  /// (NamedPath: links followed a component at a time, then `..`): its
  /// folder's absolute path (that folder's descriptor's link in /proc) and
  /// its name; nil when nothing, or no regular file, is there.
  static func locateFile(_ path: String) -> String? {
    guard case .success(.entry(let entry)) = NamedPath.walk(Array(path.utf8)),
      let status = entry.status, status.st_mode & S_IFMT == S_IFREG
    else { return nil }
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = buffer.withUnsafeMutableBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars -> Int in
        guard let base = chars.baseAddress else { return -1 }
        return readlink("/proc/self/fd/\(entry.folder)", base, chars.count - 1)
      }
    }
    guard count > 0, buffer[0] == UInt8(ascii: "/") else { return nil }
    let folder = String(decoding: buffer[..<count], as: UTF8.self)
    let name = String(decoding: entry.name, as: UTF8.self)
    return folder == "/" ? "/" + name : folder + "/" + name
  }
}
