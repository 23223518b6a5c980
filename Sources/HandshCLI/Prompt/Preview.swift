import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The prompt's preview (handsh(1), THE PROMPT): under the line being
/// typed, what Enter would do, from the core's forecast of the line
/// (`Session.forecast`, which an editor's hover asks too), worked out on a
/// copy of the session: no version made, no seed drawn, no file read or
/// written. The C side draws and erases it; this answers what it says.
final class Preview {
  /// The session as the last line left it (a copy: a value).
  var session: Session
  let ascii: Bool
  /// The CPU time a preview may take; one that would take more shows none.
  static let budget = 0.010
  /// The versions and cursor of a session, and the length of a line, whose
  /// preview went over the budget: no line as long is tried again until a
  /// line changes the session, so a slow preview never slows each key.
  private var tooSlowAt: (count: Int, cursor: Int, length: Int)?

  init(session: Session, ascii: Bool) {
    self.session = session
    self.ascii = ascii
  }

  /// Whether the preview is shown at all: on a terminal (stdin and
  /// stdout), with a `TERM` that draws (not `dumb`), unless `--no-preview`
  /// or `HANDSH_PREVIEW=0` turn it off.
  static func wanted(_ options: Options) -> Bool {
    guard !options.noPreview, Platform.environment("HANDSH_PREVIEW") != "0" else { return false }
    guard Platform.isTerminal(0), Platform.isTerminal(1) else { return false }
    guard let term = Platform.environment("TERM"), !term.isEmpty, term != "dumb" else {
      return false
    }
    return true
  }

  /// What the row under `line` shows: nil for nothing.
  func text(for line: [UInt8]) -> String? {
    // A paste holding line breaks runs as several lines: not one to foretell.
    if line.contains(0x0A) || line.contains(0x0D) { return nil }
    let history = session.history
    if let slow = tooSlowAt, (slow.count, slow.cursor) == (history.count, history.cursor),
      line.count >= slow.length
    {
      return nil
    }
    let start = Preview.cpuSeconds()
    let forecast = line.withUnsafeBufferPointer { bytes in
      session.forecast(bytes) { Preview.cpuSeconds() - start > Preview.budget }
    }
    if Preview.cpuSeconds() - start > Preview.budget {
      tooSlowAt = (history.count, history.cursor, line.count)
      return nil
    }
    return forecast.preview(ascii: ascii)
  }

  /// The CPU time this thread has used, in seconds.
  private static func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  /// Hands the preview to the prompt's C side, which calls it after keys
  /// until handsh_prompt_end.
  func install(dim: Bool) {
    handsh_prompt_preview(
      { context, line in
        guard let context else { return nil }
        let preview = Unmanaged<Preview>.fromOpaque(context).takeUnretainedValue()
        let bytes = Array(UnsafeRawBufferPointer(start: line, count: strlen(line)))
        guard let text = preview.text(for: bytes) else { return nil }
        return strdup(text)
      }, Unmanaged.passUnretained(self).toOpaque(), dim ? 1 : 0)
  }
}
