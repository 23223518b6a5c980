import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One run of a document's text (handsh(1), EDITORS): queued in the
/// `RunPool`, run on one of its threads, cancelled when a newer text
/// replaces it or the document closes; the server takes its result once
/// it is done, waiting for it a moment at most, never longer.
final class AnalysisJob: @unchecked Sendable {
  /// Broadcast when the run is done.
  private let changed = Condition()
  private var done = false
  private var cancelled = false
  private var result: Finished?

  /// A finished run: the document, the files it read (as `source`
  /// resolved them), and its diagnostics written on the run's thread.
  struct Finished {
    var analysis: HandDocument
    var read: [String]
    var diagnostics: [UInt8]
  }

  /// When its document last changed: the pool runs the latest first.
  let stamp: Int

  init(stamp: Int) { self.stamp = stamp }

  /// Asked by the run every 256 commands and inside a `source`d file: it
  /// stops when a newer text came.
  var isCancelled: Bool { changed.lock.held { cancelled } }

  func cancel() { changed.lock.held { cancelled = true } }

  /// Called by the run's thread when it ends (nil: it was cancelled).
  func finish(_ finished: Finished?) {
    changed.lock.held {
      result = finished
      done = true
      changed.broadcast()
    }
  }

  /// Whether the run is over.
  var isDone: Bool { changed.lock.held { done } }

  /// The result, waiting for it at most `seconds`; nil when it is not
  /// done by then, or was cancelled.
  func result(waiting seconds: Double) -> Finished? {
    changed.lock.held {
      let deadline = Condition.deadline(in: seconds)
      while !done, seconds > 0 {
        if !changed.wait(until: deadline) { break }
      }
      return done ? result : nil
    }
  }
}

/// At most as many runs at once as there are cores (handsh(1), EDITORS):
/// its threads, started as they are needed, take the queued run whose
/// document changed last; a run cancelled while it waits never starts.
final class RunPool: @unchecked Sendable {
  private let changed = Condition()
  private var queue: [(job: AnalysisJob, work: @Sendable () -> Void)] = []
  private var threads = 0
  private var idle = 0
  let size: Int

  init(size: Int = RunPool.cores) { self.size = max(1, size) }

  /// The cores this process may run on.
  static var cores: Int {
    let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
    return online > 0 ? min(Int(online), 64) : 1
  }

  /// Queues `work`, the run of `job`; runs cancelled meanwhile are dropped.
  func submit(_ job: AnalysisJob, _ work: @escaping @Sendable () -> Void) {
    let start = changed.lock.held { () -> Bool in
      queue.removeAll { $0.job.isCancelled }
      queue.append((job, work))
      changed.broadcast()
      guard idle == 0, threads < size else { return false }
      threads += 1
      return true
    }
    if start, !startWorker({ [self] in self.work() }) {
      changed.lock.held { threads -= 1 }
    }
  }

  /// The queued runs, for tests: how many wait.
  var waiting: Int { changed.lock.held { queue.count } }

  /// One thread of the pool: the latest run, again and again. It runs at
  /// a lower priority than the server's own thread, so that a request is
  /// answered at once even when every core is busy with runs.
  private func work() {
    // On Linux a nice value is the calling thread's, not the process's.
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    while true {
      let next = changed.lock.held { () -> (@Sendable () -> Void) in
        while true {
          queue.removeAll { $0.job.isCancelled }
          if let latest = queue.indices.max(by: { queue[$0].job.stamp < queue[$1].job.stamp }) {
            return queue.remove(at: latest).work
          }
          idle += 1
          _ = changed.wait(until: nil)
          idle -= 1
        }
      }
      next()
    }
  }
}
