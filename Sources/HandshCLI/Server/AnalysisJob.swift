import CHandsh
import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of a document's text on a thread of its own (handsh(1),
/// EDITORS): the server hands out its result once it is done, waits for it
/// a while when asked to, and cancels it when a newer text replaces it.
final class AnalysisJob: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private let changed: UnsafeMutablePointer<pthread_cond_t>
  private var done = false
  private var cancelled = false
  private var result: HandDocument?

  init() {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
    changed = .allocate(capacity: 1)
    changed.initialize(to: pthread_cond_t())
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    changed.deallocate()
    pthread_mutex_destroy(lock)
    lock.deallocate()
  }

  /// Asked by the run now and then: it stops when a newer text came.
  var isCancelled: Bool {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return cancelled
  }

  func cancel() {
    pthread_mutex_lock(lock)
    cancelled = true
    pthread_mutex_unlock(lock)
  }

  /// Called by the run's thread when it ends (nil: it was cancelled).
  func finish(_ analysis: HandDocument?) {
    pthread_mutex_lock(lock)
    result = analysis
    done = true
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(lock)
  }

  /// The result, waiting for it at most `seconds` (nil: until it is done);
  /// nil when it is not done by then, or was cancelled.
  func result(waiting seconds: Double?) -> HandDocument? {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    if let seconds {
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
      var deadline = timespec()
      deadline.tv_sec = now.tv_sec + nanoseconds / 1_000_000_000
      deadline.tv_nsec = nanoseconds % 1_000_000_000
      while !done, seconds > 0 {
        if pthread_cond_timedwait(changed, lock, &deadline) == ETIMEDOUT { break }
      }
    } else {
      while !done { pthread_cond_wait(changed, lock) }
    }
    return done ? result : nil
  }
}

/// Starts `work` on a detached thread that blocks the signals that end
/// handsh (only the main thread takes them); runs it here when no thread
/// can be made.
func startThread(_ work: @escaping @Sendable () -> Void) {
  final class Box: @unchecked Sendable {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
  }
  var thread = pthread_t()
  let context = Unmanaged.passRetained(Box(work)).toOpaque()
  handsh_threads_begin()
  let created = pthread_create(
    &thread, nil,
    { context in
      if let context { Unmanaged<Box>.fromOpaque(context).takeRetainedValue().work() }
      return nil
    }, context)
  handsh_threads_end()
  guard created == 0 else {
    Unmanaged<Box>.fromOpaque(context).release()
    work()
    return
  }
  pthread_detach(thread)
}
