import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The longest line handsh reads (handsh(1), DESCRIPTION).
package let lineLimit = LineParser.maximumLineLength

/// Hands on one line's bytes (its `\n` already cut off), as `lineContent`
/// says. False when `body` asks to stop.
private func emit(
  _ bytes: UnsafeBufferPointer<UInt8>, number: Int, ascii: Bool, limit: Int, offset: Int = 0,
  _ body: (LineEvent) -> Bool
) -> Bool {
  guard bytes.count <= limit else { return body(.tooLong(number: number)) }
  let content = lineContent(0..<bytes.count, number: number, in: bytes)
  let line = Line(
    number: number, bytes: UnsafeBufferPointer(rebasing: bytes[content]), isASCII: ascii,
    offset: offset)
  return body(.line(line))
}

/// Where the first `\n` of `text[start...]` is, if there is one. Lines are
/// short, so the first 32 bytes are looked at a word at a time, in line
/// (memchr's set-up costs more than a short line); memchr finds the rest.
@inline(__always)
private func newline(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
  guard start < text.count, let base = text.baseAddress else { return nil }
  var i = start
  let words = min(text.count, start &+ 32)
  while i &+ 8 <= words {
    // A byte of `x` is zero where the text has a `\n`; the lowest set bit
    // of `zero` marks the first (higher ones may be false alarms).
    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
    let zero = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    if zero != 0 { return i &+ zero.trailingZeroBitCount &>> 3 }
    i &+= 8
  }
  return memchr(base + i, 0x0A, text.count - i).map {
    UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
  }
}

/// A whole text in memory: a script file or the `-c` text. Its last line
/// counts even without a final newline. A line longer than `limit` ends the
/// text: `.tooLong` is the last event.
package struct TextLines: LineSource {
  package let text: [UInt8]
  package var limit = lineLimit
  /// The text so far of a file still being read: a last line without its
  /// `\n` is not handed on yet.
  package var partial = false
  /// Where reading starts: the offset of a line's first byte, and its
  /// number.
  private var from = (offset: 0, line: 1)
  /// Where the first line not handed on whole starts, and its number: the
  /// `start` of a later pass over more of the text.
  package private(set) var next = (offset: 0, line: 1)

  package init(text: [UInt8], limit: Int = lineLimit) {
    self.text = text
    self.limit = limit
  }

  /// Makes the next `forEachLine` start at the line that starts at `offset`
  /// (a `Line`'s `offset`) and is numbered `line`, not at the first: a
  /// second pass goes on from where the first paused, not over it again.
  package mutating func start(atOffset offset: Int, line: Int) {
    from = (offset, line)
  }

  package mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    let (limit, from, partial) = (limit, from, partial)
    next = from
    var next = from
    defer { self.next = next }
    text.withUnsafeBufferPointer { text in
      guard from.offset < text.count else { return }
      // Only what this pass reads: a text read in pieces is looked at once.
      let ascii = LineParser.isASCII(UnsafeBufferPointer(rebasing: text[from.offset...]))
      var start = from.offset
      var number = from.line - 1
      while start < text.count {
        let found = newline(in: text, from: start)
        if found == nil, partial { return }
        let end = found ?? text.count
        number += 1
        let bytes = UnsafeBufferPointer(rebasing: text[start..<end])
        guard emit(bytes, number: number, ascii: ascii, limit: limit, offset: start, body),
          bytes.count <= limit
        else { return }
        start = end + 1
        next = (start, number + 1)
      }
    }
  }
}

/// Cuts a stream into lines as its chunks arrive, in time proportional to
/// the bytes fed, whatever the lengths of the lines, and in memory bounded by
/// the line limit: a line is kept only until it is whole, and a line that
/// grows past the limit is reported at once and its bytes dropped up to its
/// `\n` (reading goes on after it, for `-k`).
package struct LineSplitter {
  package let limit: Int
  package private(set) var number = 0
  /// The start of a line whose `\n` has not come yet.
  private var pending: [UInt8] = []
  private var pendingASCII = true
  /// In the middle of a line already reported too long.
  private var skipping = false

  package init(limit: Int = lineLimit) { self.limit = limit }

  /// Hands on the lines that `chunk` completes; at the end of the input
  /// (`final`), also an unfinished last line. False when `body` asked to stop.
  package mutating func feed(
    _ chunk: UnsafeBufferPointer<UInt8>, final: Bool, _ body: (LineEvent) -> Bool
  ) -> Bool {
    var start = 0
    // Finish the line that earlier chunks started (or the one being skipped).
    if skipping || !pending.isEmpty {
      let end = newline(in: chunk, from: 0)
      let piece = UnsafeBufferPointer(rebasing: chunk[0..<(end ?? chunk.count)])
      if skipping {
        guard let end else { return true }
        skipping = false
        start = end + 1
      } else if pending.count + piece.count > limit {
        pending = []
        pendingASCII = true
        number += 1
        skipping = end == nil
        guard body(.tooLong(number: number)) else { return false }
        guard let end else { return true }
        start = end + 1
      } else if end != nil || final {
        pending.append(contentsOf: piece)
        pendingASCII = pendingASCII && LineParser.isASCII(piece)
        number += 1
        let go = pending.withUnsafeBufferPointer {
          emit($0, number: number, ascii: pendingASCII, limit: limit, body)
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
        pendingASCII = true
        guard go else { return false }
        guard let end else { return true }
        start = end + 1
      } else {
        pending.append(contentsOf: piece)
        pendingASCII = pendingASCII && LineParser.isASCII(piece)
        return true
      }
    }
    // Whole lines straight from the chunk.
    let ascii = LineParser.isASCII(UnsafeBufferPointer(rebasing: chunk[start...]))
    while start < chunk.count {
      guard let end = newline(in: chunk, from: start) else { break }
      number += 1
      let bytes = UnsafeBufferPointer(rebasing: chunk[start..<end])
      guard emit(bytes, number: number, ascii: ascii, limit: limit, body) else { return false }
      start = end + 1
    }
    // The start of a line that later chunks finish.
    guard start < chunk.count else { return true }
    let rest = UnsafeBufferPointer(rebasing: chunk[start...])
    if rest.count > limit {
      number += 1
      skipping = !final
      return body(.tooLong(number: number))
    }
    if final {
      number += 1
      return emit(rest, number: number, ascii: ascii, limit: limit, body)
    }
    pending.append(contentsOf: rest)
    pendingASCII = ascii
    return true
  }
}

/// A stream read as lines arrive, each line handed on before the next read.
/// A non-blocking stream is waited on with `poll`. A read error ends the
/// lines and is kept in `failure`: it is never taken for the end of input.
struct StreamLines: LineSource {
  let fd: Int32
  /// The error that ended the reading, if one did (handsh(1), DESCRIPTION).
  private(set) var failure: SystemError?
  /// How the stream is named in the error: `<stdin>`.
  let name: String

  init(fd: Int32, name: String = "<stdin>") {
    self.fd = fd
    self.name = name
  }

  mutating func forEachLine(_ body: (LineEvent) -> Bool) {
    var splitter = LineSplitter()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      guard body(.waiting) else { return }
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK {
          var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          if poll(&ready, 1, -1) >= 0 || errno == EINTR { continue }
        }
        failure = SystemError("cannot read \(name)", code: code)
        return
      }
      let go = chunk.withUnsafeBufferPointer {
        splitter.feed(UnsafeBufferPointer(rebasing: $0[..<count]), final: count == 0, body)
      }
      guard go, count > 0 else { return }
    }
  }
}

/// What the reader does with a file that is not a regular one.
enum OtherFiles {
  /// Reads it as the shell's `<` would, waiting for a FIFO's writer (a
  /// SCRIPT).
  case wait
  /// Refuses it, `not a regular file`, before a byte is read and without
  /// waiting for a writer (golden tests).
  case refuse
  /// Reads it without waiting for a writer: a FIFO with none reads as
  /// empty, and one that has not written yet is waited for with `poll`,
  /// which Ctrl-C at the prompt abandons (`source`).
  case readWithoutWaiting
}

/// The most room `readFile` reserves ahead from a file's size: 16 MiB.
let readAhead = 1 << 24

/// A file as the reader found it: its bytes, and its status when opened
/// (its size and time, for `--update`'s check that it did not change).
struct FileText {
  var bytes: [UInt8]
  var status: stat
}

/// The one reader of every file handsh reads whole: scripts, golden files,
/// `source` (handsh(1), FILES); the history file is read from its end by
/// `tailStart`. Reads the file at `path`, or says why it cannot:
/// - memory grows with what is read, never reserved by the size the file
///   claims, so a huge sparse file costs no more than its first long line;
/// - unless `whole`, reading stops early once a line is longer than the
///   line limit (the text then ends inside that line, which `TextLines`
///   reports), so `handsh /dev/zero` needs no more than the limit in
///   memory; golden files are read `whole`, so `--update` keeps such a
///   line byte for byte;
/// - a folder is `Is a directory`;
/// - what is not a regular file (a FIFO, a device, a socket) is treated as
///   `others` says; the file is opened non-blocking unless that says
///   `wait`, so no open ever hangs on a FIFO with no writer.
/// A failure's operation is `cannot open` when the file cannot be opened
/// or is not one that can be read, `cannot read` when reading it failed.
/// - with a `sizeLimit`, a file larger than that is `tooLarge` (golden
///   tests): a regular file's size is looked at before a byte is read, and
///   one that grows past the limit while it is read stops there;
/// - `observe`, when given, sees the text read so far after each read
///   (`final` once the text is all there) and stops the reading early by
///   answering false: the check of a text runs as it is read, and stops
///   reading at its error limit (`ErrorLimit`), so endless noise ends at
///   once. It may drop from the front of the text what it no longer needs
///   (lines already checked and run), so that the text returned then
///   starts later;
/// - at the prompt, Ctrl-C (or a signal that ends handsh) abandons the
///   reading with `Interrupted system call`, looked at between two reads,
///   so a read that never blocks (an endless device, a growing file) is
///   abandoned too (handsh(1), THE PROMPT).
func readFile(
  _ path: [UInt8], others: OtherFiles = .wait, whole: Bool = false, sizeLimit: Int? = nil,
  observe: (_ text: inout [UInt8], _ final: Bool) -> Bool = { _, _ in true }
) -> Result<FileText, SystemError> {
  let shown = safeText(path)
  // The one way of opening (handsh(1), FILES): a NUL byte, handsh's own
  // stdout, stderr or a descriptor it opened itself, a link in a shared
  // sticky folder that its rule refuses: nothing is read.
  let flags = O_RDONLY | (others == .wait ? 0 : O_NONBLOCK)
  let fd: Int32
  var status: stat
  switch NamedPath.openForReading(path, flags) {
  case .failure(let failure):
    return .failure(
      SystemError(failure.refused ? "cannot read" : "cannot open", path: shown, code: failure.code))
  case .success(let opened): (fd, status) = opened
  }
  defer { close(fd) }
  let kind = status.st_mode & S_IFMT
  // The journal handsh keeps is its own, not a script to run again.
  if ownDescriptorHolds(status) {
    return .failure(SystemError("cannot read", path: shown, code: EBUSY))
  }
  if kind == S_IFDIR { return .failure(SystemError("cannot open", path: shown, code: EISDIR)) }
  if others == .refuse {
    guard kind == S_IFREG else { return .failure(.notRegular("cannot open", path: shown)) }
  }
  if let sizeLimit, kind == S_IFREG, Int(clamping: status.st_size) > sizeLimit {
    return .failure(.tooLarge("cannot read", path: shown))
  }
  if kind == S_IFREG { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
  var text: [UInt8] = []
  // Room for a regular file's text at once, saving the copies and page
  // faults of growing into it, but never more than `readAhead`: a huge
  // (or sparse) file's size reserves nothing beyond that.
  if kind == S_IFREG { text.reserveCapacity(min(Int(clamping: status.st_size), readAhead) + 1) }
  // Made only for a text with no room left (a pipe's): zeroing 64 KiB per
  // file weighed on every golden test run (`scripts/bench`).
  var chunk: [UInt8] = []
  let chunkSize = 1 << 16
  // Where the line being read started.
  var lineStart = 0
  // How many bytes were read, dropped ones included.
  var total = 0
  while true {
    // At the prompt, Ctrl-C or a signal that ends handsh abandons the
    // reading, also when no read ever waits; other signals do not.
    if handsh_prompt_interrupted() != 0 {
      return .failure(SystemError("cannot read", path: shown, code: EINTR))
    }
    // Straight into the text's room when it has some (a regular file's
    // text has room for all of it): its bytes are never copied. Else into
    // a chunk, and the text grows only for bytes that came.
    let from = text.count
    let room = min(text.capacity - text.count, chunkSize)
    var count = 0
    if room > 0 {
      text.append(addingCapacity: room) { span in
        span.withUnsafeMutableBufferPointer { tail, initialized in
          count = read(fd, tail.baseAddress, tail.count)
          if count > 0 { initialized = count }
        }
      }
    } else {
      if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: chunkSize) }
      count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        grow(&text, toHold: text.count + count)
        text.append(contentsOf: chunk[..<count])
      }
    }
    if count < 0 {
      var code = errno
      if code == EAGAIN || code == EWOULDBLOCK {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, -1) >= 0 { continue }
        code = errno
      }
      if code == EINTR { continue }
      return .failure(SystemError("cannot read", path: shown, code: code))
    }
    if count == 0 {
      _ = observe(&text, true)
      return .success(FileText(bytes: text, status: status))
    }
    total += count
    if let sizeLimit, total > sizeLimit {
      return .failure(.tooLarge("cannot read", path: shown))
    }
    if whole { continue }
    // Only the last line break read matters: where the line being read
    // starts. Looked for from the end, so a chunk of short lines costs a
    // few bytes, and one inside a long line is looked at once.
    text.withUnsafeBufferPointer { text in
      var at = text.count
      while at > from {
        at -= 1
        if text[at] == 0x0A {
          lineStart = at + 1
          break
        }
      }
    }
    // The text now ends inside a line too long: the check ends there.
    let ended = text.count - lineStart > lineLimit
    let before = text.count
    let going = observe(&text, ended)
    lineStart -= before - text.count
    if !going || ended { return .success(FileText(bytes: text, status: status)) }
  }
}

/// Gives `text` room for `needed` bytes, twice its room at least, without
/// the peak of an ordinary growth, where the old and the new copy of the
/// whole text are in memory at once: the text moves a mebibyte at a time,
/// and the pages of the old copy that have moved are given back to the
/// system at once (`MADV_DONTNEED`). So memory never holds much more than
/// the text read: the room not yet written to costs nothing (handsh(1),
/// LIMITS). The pages are the reader's own: mutable access makes a text
/// that something else still shared a copy of its own first.
func grow(_ text: inout [UInt8], toHold needed: Int) {
  var bigger: [UInt8] = []
  bigger.reserveCapacity(max(needed, text.capacity * 2))
  let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
  let piece = 1 << 20
  text.withUnsafeMutableBufferPointer { old in
    guard let base = old.baseAddress else { return }
    let address = Int(bitPattern: base)
    var at = 0
    while at < old.count {
      let end = min(at + piece, old.count)
      bigger.append(contentsOf: UnsafeBufferPointer(rebasing: old[at..<end]))
      // Whole pages only, and never the first or the last of the buffer,
      // where the allocator keeps its own words.
      let first = (address + max(at, page) + page - 1) / page * page
      let last = (address + min(end, old.count - page)) / page * page
      if last > first, let start = UnsafeMutableRawPointer(bitPattern: first) {
        _ = madvise(start, last - first, MADV_DONTNEED)
      }
      at = end
    }
  }
  text = bigger
}

/// Where the end of a file worth reading starts, found by reading
/// backwards from its end in chunks: the start of its last `lines` lines,
/// moved later, to the start of a line, when those pass its last `bytes`
/// bytes (a line cut by that bound is left out; `size` when none is left).
/// A last line without its newline counts as a line. Memory and time are
/// bounded by the bounds, not by the file's size: for the history file
/// (handsh(1), FILES), which something else may have made huge. nil with
/// errno set when reading failed.
func tailStart(_ fd: Int32, size: Int, lines: Int, bytes: Int) -> Int? {
  var end = size
  var newlines = 0
  // The earliest newline seen that starts a line (not the file's last byte).
  var earliest: Int?
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while end > 0, size - end < bytes {
    let count = min(chunk.count, end, bytes - (size - end))
    let at = end - count
    var done = 0
    while done < count {
      let got = chunk.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress.map { $0 + done }, count - done, off_t(at + done))
      }
      if got < 0 {
        if errno == EINTR { continue }
        return nil
      }
      // Shorter than fstat said (cut meanwhile): treat the rest as zeros.
      if got == 0 {
        for index in done..<count { chunk[index] = 0 }
        break
      }
      done += got
    }
    // The chunk's newlines (memchr: fast even in a debug build), last first.
    var found: [Int] = []
    chunk.withUnsafeBufferPointer { buffer in
      var from = 0
      while let end = newline(in: UnsafeBufferPointer(rebasing: buffer[..<count]), from: from) {
        found.append(end)
        from = end + 1
      }
    }
    for index in found.reversed() where at + index != size - 1 {
      newlines += 1
      earliest = at + index
      if newlines == lines { return at + index + 1 }
    }
    end = at
  }
  guard end > 0 else { return 0 }
  return earliest.map { $0 + 1 } ?? size
}

/// The end of the file `fd` that `tailStart` bounds, as bytes; nil with
/// errno set when reading failed.
func readTail(_ fd: Int32, lines: Int, bytes: Int) -> [UInt8]? {
  var status = stat()
  guard fstat(fd, &status) == 0 else { return nil }
  let size = Int(status.st_size)
  guard let start = tailStart(fd, size: size, lines: lines, bytes: bytes) else { return nil }
  var text = [UInt8](repeating: 0, count: size - start)
  if let code = Platform.readAll(fd, &text, at: start) {
    errno = code
    return nil
  }
  return text
}
