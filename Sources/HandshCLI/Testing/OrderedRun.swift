import CHandsh

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The files of `--test` run on `jobs` threads of their own while the main
/// thread hands each result on, in the order of the files, as soon as it
/// and every one before it are done (handsh(1), GOLDEN TESTS): a report
/// written as it goes. The main thread runs no file, so it is free to take
/// a signal and to stop the run at once.
///
/// Memory is bounded by the jobs, not the files: a thread takes file I only
/// while fewer than `window` files before it wait to be handed on, so a
/// slow file holds back at most that many results behind it.
final class OrderedRun<Item, Result>: @unchecked Sendable {
  private let items: [Item]
  private let transform: (Item) -> Result
  private let window: Int
  private let condition = Condition()
  /// Guarded by `condition.lock`: the results not yet handed on, the next
  /// file to take, the first file not yet handed on, and whether the run
  /// stopped.
  private var done: [Int: Result] = [:]
  private var next = 0
  private var delivered = 0
  private var stopping = false
  /// When each file was taken, for one that must be reported unfinished.
  private var started: [Int: Double] = [:]

  init(items: [Item], window: Int, transform: @escaping (Item) -> Result) {
    self.items = items
    self.window = max(1, window)
    self.transform = transform
  }

  /// How a run ended: every file handed on, or stopped by `shouldStop`
  /// with the files taken but not handed on (their index, their result
  /// when done, when they were taken), in order.
  enum End {
    case finished
    case stopped([(index: Int, result: Result?, started: Double)])
  }

  /// Runs every file on `jobs` threads, handing each result to `deliver`
  /// on this thread, in order. `shouldStop` is asked whenever a result
  /// comes and at least every 20 ms; once it answers true no result is
  /// handed on any more, and the run returns at once (the threads are left
  /// to the process's end). With no thread to be made, the files run here.
  func run(jobs: Int, shouldStop: () -> Bool, deliver: (Int, Result) -> Void) -> End {
    handsh_threads_begin()
    var threads: [pthread_t] = []
    for _ in 0..<max(1, jobs) {
      guard let thread = spawnThread({ [self] in work() }) else { break }
      threads.append(thread)
    }
    handsh_threads_end()
    guard !threads.isEmpty else {
      for (index, item) in items.enumerated() {
        if shouldStop() { return .stopped([]) }
        deliver(index, transform(item))
      }
      return .finished
    }
    for thread in threads { pthread_detach(thread) }
    return handOn(shouldStop: shouldStop, deliver: deliver)
  }

  /// A thread's work: the next file while the window allows, until none is
  /// left or the run stopped.
  private func work() {
    condition.lock.held {
      while !stopping, next < items.count {
        guard next - delivered < window else {
          _ = condition.wait(until: nil)
          continue
        }
        let index = next
        next += 1
        started[index] = Platform.monotonicSeconds()
        pthread_mutex_unlock(condition.lock.mutex)
        let result = transform(items[index])
        pthread_mutex_lock(condition.lock.mutex)
        done[index] = result
        condition.broadcast()
      }
    }
  }

  /// The main thread's part: results handed on in order as they come.
  private func handOn(shouldStop: () -> Bool, deliver: (Int, Result) -> Void) -> End {
    pthread_mutex_lock(condition.lock.mutex)
    defer { pthread_mutex_unlock(condition.lock.mutex) }
    while delivered < items.count {
      if shouldStop() {
        stopping = true
        condition.broadcast()
        let left = (delivered..<next).map { index in
          (index: index, result: done.removeValue(forKey: index), started: started[index] ?? 0)
        }
        return .stopped(left)
      }
      guard let result = done.removeValue(forKey: delivered) else {
        _ = condition.wait(until: Condition.deadline(in: 0.02))
        continue
      }
      let index = delivered
      started[index] = nil
      delivered += 1
      condition.broadcast()
      pthread_mutex_unlock(condition.lock.mutex)
      deliver(index, result)
      pthread_mutex_lock(condition.lock.mutex)
    }
    return .finished
  }
}
