import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One run of a document's text on a thread of its own (handsh(1),
/// EDITORS): the server hands out its result once it is done, waits for it
/// a while when asked to, and cancels it when a newer text replaces it.
final class AnalysisJob: @unchecked Sendable {
  /// Broadcast when the run is done.
  private let changed = Condition()
  private var done = false
  private var cancelled = false
  private var result: HandDocument?

  /// Asked by the run now and then: it stops when a newer text came.
  var isCancelled: Bool { changed.lock.held { cancelled } }

  func cancel() { changed.lock.held { cancelled = true } }

  /// Called by the run's thread when it ends (nil: it was cancelled).
  func finish(_ analysis: HandDocument?) {
    changed.lock.held {
      result = analysis
      done = true
      changed.broadcast()
    }
  }

  /// The result, waiting for it at most `seconds` (nil: until it is done);
  /// nil when it is not done by then, or was cancelled.
  func result(waiting seconds: Double?) -> HandDocument? {
    changed.lock.held {
      if let seconds {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while !done, seconds > 0 {
          if !changed.wait(until: deadline) { break }
        }
      } else {
        while !done { _ = changed.wait(until: nil) }
      }
      return done ? result : nil
    }
  }
}
