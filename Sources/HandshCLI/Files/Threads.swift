import CHandsh

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The threads of `--test` (`OrderedRun`) and of the language server
/// (`startThread`), and the one lock they share. Every thread is born
/// blocking the signals that end handsh: only the main thread takes them,
/// and the policy waits for every thread's write (handsh(1), SIGNALS).

/// A pthread object where it cannot move (a Swift value may be moved; a
/// mutex or a condition must not be), set up by `start` and ended by `end`.
private final class Pinned<Object> {
  let pointer: UnsafeMutablePointer<Object>
  private let end: (UnsafeMutablePointer<Object>) -> Int32

  init(
    _ object: Object, start: (UnsafeMutablePointer<Object>) -> Int32,
    end: @escaping (UnsafeMutablePointer<Object>) -> Int32
  ) {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: object)
    _ = start(pointer)
    self.end = end
  }

  deinit {
    _ = end(pointer)
    pointer.deallocate()
  }
}

/// A pthread mutex.
final class Lock: @unchecked Sendable {
  private let pinned = Pinned(
    pthread_mutex_t(), start: { pthread_mutex_init($0, nil) }, end: pthread_mutex_destroy)
  /// The mutex itself, for `pthread_cond_wait`.
  var mutex: UnsafeMutablePointer<pthread_mutex_t> { pinned.pointer }

  /// `body`'s result, run while holding the lock.
  func held<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}

/// A pthread condition, and the lock it is waited on with.
final class Condition: @unchecked Sendable {
  let lock = Lock()
  private let pinned = Pinned(
    pthread_cond_t(), start: { pthread_cond_init($0, nil) }, end: pthread_cond_destroy)

  /// Wakes every waiter; called holding `lock`.
  func broadcast() { pthread_cond_broadcast(pinned.pointer) }

  /// CLOCK_REALTIME `seconds` from now: a deadline for `wait(until:)`.
  static func deadline(in seconds: Double) -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
    return timespec(
      tv_sec: Int(now.tv_sec) + nanoseconds / 1_000_000_000,
      tv_nsec: nanoseconds % 1_000_000_000)
  }

  /// Waits for a `broadcast`, holding `lock`, at most until `deadline`
  /// (CLOCK_REALTIME) when given; false when the deadline passed.
  func wait(until deadline: timespec?) -> Bool {
    guard var deadline else {
      pthread_cond_wait(pinned.pointer, lock.mutex)
      return true
    }
    return pthread_cond_timedwait(pinned.pointer, lock.mutex, &deadline) != ETIMEDOUT
  }
}

/// Starts `work` on a thread of its own, or returns nil when no thread can
/// be made. The caller blocks the signals first (`handsh_threads_begin`).
func spawnThread(_ work: @escaping () -> Void) -> pthread_t? {
  /// What the new thread runs, handed over as its context.
  final class Work: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
  }
  var thread = pthread_t()
  let context = Unmanaged.passRetained(Work(work)).toOpaque()
  let created = pthread_create(
    &thread, nil,
    { context in
      if let context { Unmanaged<Work>.fromOpaque(context).takeRetainedValue().run() }
      return nil
    }, context)
  guard created == 0 else {
    Unmanaged<Work>.fromOpaque(context).release()
    return nil
  }
  return thread
}

/// Starts `work` on a detached thread; runs it here when no thread can be
/// made.
func startThread(_ work: @escaping @Sendable () -> Void) {
  handsh_threads_begin()
  let thread = spawnThread(work)
  handsh_threads_end()
  guard let thread else { return work() }
  pthread_detach(thread)
}

/// Starts `work` on a thread of its own, detached; false when no thread
/// can be made (the caller then does without).
func startWorker(_ work: @escaping @Sendable () -> Void) -> Bool {
  handsh_threads_begin()
  let thread = spawnThread(work)
  handsh_threads_end()
  guard let thread else { return false }
  pthread_detach(thread)
  return true
}
