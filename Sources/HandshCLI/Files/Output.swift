import CHandsh

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Buffered standard output: renderers append bytes, and the buffer goes out
/// in large writes, before any read that may block, before a diagnostic, and
/// at the end.
///
/// The one accounting writer: it knows how many bytes each write
/// delivered, so a write cut short goes on from there, never again from the
/// start. At the prompt (`fallback` set), a stdout whose reader went away
/// is said once on the prompt's terminal, and the rest of the results, from
/// the first byte the pipe did not take, goes there: each byte once, and
/// the command and its line run on (handsh(1), THE PROMPT).
struct Output {
  var buffer: [UInt8] = []
  /// Where results go now: stdout, or the prompt's terminal after it.
  private(set) var fd: Int32
  /// The prompt's terminal, while stdout is another file (a pipe).
  var fallback: Int32?
  /// The terminal the prompt is drawn on (stdout itself, or the terminal
  /// results move to), at the prompt only: results cut there are cut at a
  /// line's end, and `^C` is written there.
  var screen: Int32?
  static let flushThreshold = 1 << 16
  /// The errno of the first failed write (a full disk, a closed pipe).
  private(set) var failure: Int32?
  /// Whether the last byte that reached `fd` ended a line (or none did):
  /// a notice, or what follows dropped results, starts on a line of its own.
  private(set) var endsLine = true
  /// A line break owed before the next result (after dropped results left
  /// half a line): written only with a result, so that nothing more goes
  /// into a stream that may still be full when nothing follows.
  var owesLineBreak = false
  /// `--journal`: written before any result (handsh(1), JOURNAL).
  var journal: Journal?

  static let closedNotice = "handsh: standard output is closed; results are now shown here"

  init(fd: Int32 = 1, fallback: Int32? = nil) {
    self.fd = fd
    self.fallback = fallback
    buffer.reserveCapacity(Output.flushThreshold + 4096)
    handsh_results_waiting(0)
  }

  /// Commands since the clock was last looked at, and when results were
  /// last written out.
  private var ticks = 0
  private var flushedAt = 0.0
  /// How long results may wait while a run goes on.
  static let flushDelay = 0.05

  /// Writes the buffer out when its first results have waited
  /// `flushDelay`: the clock is looked at every 256 calls.
  mutating func flushIfDue() {
    // Said first, then a signal that came meanwhile looked at: one that
    // comes after this waits for the next command's end.
    handsh_results_waiting(UInt(buffer.count))
    endIfSignalled()
    ticks &+= 1
    guard ticks & 255 == 0 else { return }
    let now = Platform.monotonicSeconds()
    if buffer.isEmpty {
      flushedAt = now
    } else if now - flushedAt >= Output.flushDelay {
      flush()
      flushedAt = now
    }
  }

  /// Writes the buffer out once it is large.
  mutating func flushIfFull() {
    guard buffer.count >= Output.flushThreshold else { return }
    flush()
  }

  /// Writes the buffer out. What a failed write did not deliver stays in
  /// the buffer (the prompt shows it elsewhere); what it did never does.
  mutating func flush() {
    // Nothing is held for a signal from here: this write may wait.
    handsh_results_waiting(0)
    endIfSignalled()
    // `^C` after what this writes, or now if it writes nothing.
    defer { showEcho() }
    // Write-ahead: the lines of the commands whose results these are reach
    // the journal first; if they cannot, the results are dropped, as the
    // commands will be.
    if let journal, !journal.flushBefore(results: !buffer.isEmpty) {
      buffer.removeAll(keepingCapacity: true)
      return
    }
    guard !buffer.isEmpty else { return }
    if owesLineBreak {
      owesLineBreak = false
      buffer.insert(0x0A, at: 0)
    }
    let delivered = write(buffer)
    if failure == nil {
      buffer.removeAll(keepingCapacity: true)
    } else {
      buffer.removeFirst(min(delivered, buffer.count))
    }
  }

  /// A signal that ends handsh came while results waited here: those
  /// made before it (by the commands that had ended) go out first, as far
  /// as stdout takes them without waiting, the journal's lines before
  /// them; then handsh ends by it (handsh(1), SIGNALS).
  private mutating func endIfSignalled() {
    guard handsh_signal_held() != 0 else { return }
    var count = min(Int(handsh_results_held()), buffer.count)
    if let journal, !journal.flushBefore(results: count > 0) { count = 0 }
    if owesLineBreak, count > 0 {
      buffer.insert(0x0A, at: 0)
      count += 1
    }
    let target = failure == nil ? fd : -1
    buffer.withUnsafeBytes {
      handsh_end_after_results(target, $0.baseAddress, UInt(count))
    }
    // Still here: another thread's write ends handsh as it finishes.
    buffer.removeAll()
  }

  /// Writes `bytes` out; the count delivered. After the first failure
  /// nothing more is written, and the loop stops at its next line
  /// (handsh(1), EXIT STATUS).
  private mutating func write(_ bytes: [UInt8]) -> Int {
    guard failure == nil else { return 0 }
    var delivered = 0
    while delivered < bytes.count {
      var count = 0
      let code = bytes.withUnsafeBytes {
        Platform.write(fd, UnsafeRawBufferPointer(rebasing: $0[delivered...]), delivered: &count)
      }
      if count > 0 { endsLine = bytes[delivered + count - 1] == 0x0A }
      delivered += count
      guard let code else { break }
      guard code == EPIPE, let screen = fallback, screen != fd else {
        failure = code
        if code == EINTR { finishLine(bytes, from: delivered) }
        break
      }
      // The reader is gone: said once, and the rest goes to the terminal;
      // the notice at the start of a line, whatever the reader left.
      // The terminal's cursor, not the pipe's last byte, says whether
      // a line break goes first: results went to the pipe, not there.
      let startsLine = screenEndsLine
      fd = screen
      fallback = nil
      Platform.printError((startsLine ? "" : "\n") + Output.closedNotice, to: screen)
      endsLine = true
      if handsh_prompt_interrupted() != 0 {
        // Control-C (which may have ended the reader too): the results
        // that wait are dropped, as the line being typed would be.
        failure = EINTR
        break
      }
    }
    return delivered
  }
}

// MARK: The screen stays whole

extension Output {
  /// Whether the prompt's terminal has its cursor at the start of a line,
  /// as far as results go: results that go to a pipe leave it there.
  var screenEndsLine: Bool { fd == screen ? endsLine : true }

  /// A write to the prompt's terminal given up on (Control-C, a signal
  /// that ends handsh) inside a line: the rest of that line goes out,
  /// colour reset and line break included, so that the terminal never
  /// keeps part of a character, part of an escape sequence or a colour
  /// on, and `^C`, a notice or the shell's `Terminated` start a line
  /// (handsh(1), THE PROMPT). A line is short; the terminal takes it.
  fileprivate mutating func finishLine(_ bytes: [UInt8], from offset: Int) {
    guard !endsLine, offset < bytes.count, fd == screen else { return }
    let end = bytes[offset...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
    var rest = Array(bytes[offset..<end])
    if rest.last != 0x0A { rest += Array("\u{1B}[0m\n".utf8) }
    Output.writeOnScreen(rest, to: fd)
    endsLine = true
  }

  /// `^C` or `^\`, which the terminal did not echo while the line ran
  /// (so that it never lands inside a line of results), at the start of a
  /// line of the prompt's terminal.
  mutating func showEcho() {
    guard let screen, let echo = handsh_prompt_take_echo() else { return }
    let text = (screenEndsLine ? "" : "\n") + String(cString: echo) + "\n"
    Output.writeOnScreen(Array(text.utf8), to: screen)
    if fd == screen { endsLine = true }
  }

  /// Writes `bytes` whole to the terminal, through the signals that make
  /// other writes give up (a second one gives up on it too).
  fileprivate static func writeOnScreen(_ bytes: [UInt8], to fd: Int32) {
    var done = 0
    var interruptions = 0
    while done < bytes.count, interruptions < 2 {
      let count = bytes.withUnsafeBytes {
        Platform.writeOnce(fd, UnsafeRawBufferPointer(rebasing: $0[done...]))
      }
      if count > 0 {
        done += count
      } else if count < 0, errno == EINTR {
        interruptions += 1
      } else {
        return
      }
    }
  }
}
