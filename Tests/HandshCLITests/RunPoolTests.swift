import HandKit
import Testing

@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The pool of the language server's runs (handsh(1), EDITORS): at most
/// its size at once, the most recently changed document first, a run
/// cancelled while it waits never started.
@Suite struct RunPoolTests {
  final class Log: @unchecked Sendable {
    let lock = Lock()
    var order: [Int] = []
    var running = 0
    var most = 0
    var released = false
    var blocking = false
  }

  private func waitUntil(_ condition: () -> Bool) {
    for _ in 0..<2000 where !condition() { usleep(1000) }
  }

  @Test func theLatestChangeRunsFirstAndACancelledRunNever() {
    let pool = RunPool(size: 1)
    let log = Log()
    // One run holds the only thread while the others queue.
    let blocker = AnalysisJob(stamp: 0)
    pool.submit(blocker) {
      log.lock.held { log.blocking = true }
      while !log.lock.held({ log.released }) { usleep(1000) }
    }
    // The others queue only once the blocker runs: were it still queued,
    // the pool would rightly start the latest change, 4, before it.
    waitUntil { log.lock.held { log.blocking } }
    var jobs: [AnalysisJob] = []
    for stamp in [1, 3, 2, 4] {
      let job = AnalysisJob(stamp: stamp)
      jobs.append(job)
      pool.submit(job) { log.lock.held { log.order.append(stamp) } }
    }
    jobs[3].cancel()
    log.lock.held { log.released = true }
    waitUntil { log.lock.held { log.order.count == 3 } }
    usleep(20000)
    #expect(log.lock.held { log.order } == [3, 2, 1])
  }

  @Test func atMostItsSizeRunAtOnce() {
    let pool = RunPool(size: 2)
    let log = Log()
    for stamp in 0..<8 {
      pool.submit(AnalysisJob(stamp: stamp)) {
        log.lock.held {
          log.running += 1
          log.most = max(log.most, log.running)
        }
        usleep(5000)
        log.lock.held {
          log.running -= 1
          log.order.append(stamp)
        }
      }
    }
    waitUntil { log.lock.held { log.order.count == 8 } }
    #expect(log.lock.held { log.order.count } == 8)
    #expect(log.lock.held { log.most } == 2)
  }
}
