import Foundation
import HandKit
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `earlier TIME` and `later TIME` (handsh(1), COMMANDS) end to end, on
/// journals written by hand, whose time lines (`#@ SECONDS`) say when each
/// version was made, the clock going back included: what the binary does
/// is checked against the rule, version by version, so nothing depends on
/// how fast a test runs. And the time lines a journal writes and reads.
final class TimeTravelTests: FolderTests {
  /// Sets NAME's modification time.
  private func setModified(_ name: String, to seconds: Int) {
    var times = [
      timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0),
    ]
    XCTAssertEqual(utimensat(AT_FDCWD, path(name), &times, 0), 0)
  }

  /// A journal written by hand: `count` changes (`add`, now and then a
  /// `new`), branching at random `goto`s, with time lines before some of
  /// them that mostly go forward and now and then back (`backwards`).
  /// Returns its text and each version's time, by the rule: a version takes
  /// the last time line before its line, else `untimed` (FILE's
  /// modification time); version 0 the first time line when it comes before
  /// any change.
  private func journal(
    _ random: inout SplitMix64, count: Int, timed: Bool, backwards: Bool, untimed: Int
  ) -> (text: String, times: [Int]) {
    var text = "#!/usr/bin/env -S handsh --seed 3 --limit 52\n"
    var times = [untimed]
    var sizes = [0]
    var cursor = 0
    var now: Int? = nil
    var clock = 1_700_000_000 + Int(random.next() % 1000)
    for index in 0..<count {
      if timed, index > 0 || random.next() % 2 == 0, random.next() % 3 != 0 {
        if backwards, random.next() % 5 == 0 {
          clock -= Int(random.next() % 400)
        } else {
          clock += Int(random.next() % 200)
        }
        text += "#@ \(clock)\n"
        if times.count == 1, now == nil { times[0] = clock }
        now = clock
      }
      if random.next() % 4 == 0 {
        cursor = Int(random.next() % UInt64(times.count))
        text += "goto \(cursor)\n"
      }
      if random.next() % 9 == 0 || sizes[cursor] == 52 {
        text += "new \(random.next() % 100)\n"
        sizes.append(0)
      } else {
        text += "add\n"
        sizes.append(sizes[cursor] + 1)
      }
      times.append(now ?? untimed)
      cursor = times.count - 1
    }
    return (text, times)
  }

  /// Where the rule sends `earlier SPAN` or `later SPAN` (in seconds) from
  /// version `current`; nil where it fails.
  private func byRule(_ times: [Int], earlier: Bool, from current: Int, span: Int) -> Int? {
    if earlier {
      guard current > 0 else { return nil }
      return (0..<current).last { times[$0] <= times[current] - span } ?? 0
    }
    guard current < times.count - 1 else { return nil }
    let found = times.indices.last { times[$0] <= times[current] + span } ?? 0
    return found > current ? found : current + 1
  }

  /// From random versions of random hand-written journals (the clock going
  /// back or not, a journal with no time line at all), `earlier TIME`
  /// and `later TIME` in every unit go where the rule says, and fail where
  /// it says, with its message.
  func testEarlierAndLaterTimeFollowTheRuleOnHandWrittenJournals() throws {
    var random = SplitMix64(seed: 44)
    let units = [("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    for round in 0..<12 {
      let (timed, backwards) = (round % 4 != 3, round % 2 == 1)
      let untimed = 1_650_000_000
      let (text, times) = journal(
        &random, count: 30 + round * 5, timed: timed, backwards: backwards, untimed: untimed)
      let name = "j\(round).hand"
      try make(name, text)
      setModified(name, to: untimed)
      var commands: [String] = []
      var expected: [Int] = []
      var failures = 0
      for _ in 0..<60 {
        let current = Int(random.next() % UInt64(times.count))
        let earlier = random.next() % 2 == 0
        let (unit, size) = units[Int(random.next() % 4)]
        let amount = 1 + Int(random.next() % (size == 1 ? 400 : 9))
        let word = "\(earlier ? "earlier" : "later") \(amount)\(unit)"
        commands += ["goto \(current)", word, "show"]
        let target = byRule(times, earlier: earlier, from: current, span: amount * size)
        if target == nil { failures += 1 }
        expected.append(target ?? current)
      }
      let run = try handsh([
        "--journal", name, "-q", "-k", "--json", "-c", commands.joined(separator: "\n"),
      ])
      let shown = run.out.split(separator: "\n").compactMap { line -> Int? in
        guard let data = line.data(using: .utf8),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["version"] as? Int
      }
      XCTAssertEqual(shown, expected, "round \(round):\n\(text)")
      let refused = run.err.split(separator: "\n").filter {
        $0.hasSuffix("error: no earlier version") || $0.hasSuffix("error: no later version")
      }
      XCTAssertEqual(refused.count, failures, run.err)
      XCTAssertEqual(run.err.split(separator: "\n").count, failures, run.err)
    }
  }

  /// `earlier N` and `later N` are `goto` C-N and C+N, clamped, and fail
  /// at the ends; a journal writes each as the `goto V` it did.
  func testEarlierAndLaterByCountAreGotosInTheJournal() throws {
    let run = try handsh([
      "--seed", "42", "--journal", "j.hand", "-q", "-c",
      "add; add; add; undo 2; add; earlier; earlier 2; earlier 9; later 3; later",
    ])
    XCTAssertEqual(run.status, 0, run.err)
    let lines = try text("j.hand").split(separator: "\n").filter { !$0.hasPrefix("#") }
    XCTAssertEqual(
      lines,
      [
        "add 7H", "add 3C", "add KH", "undo 2", "add 3C", "goto 3", "goto 1", "goto 0", "goto 3",
        "goto 4",
      ])
    let ends = try handsh(["--journal", "j.hand", "-c", "later; earlier 4; earlier 1s"])
    XCTAssertEqual(ends.status, 1)
    XCTAssertEqual(ends.err, "<command line>:1:1: error: no later version\n")
    let start = try handsh(["--journal", "j.hand", "-q", "-c", "goto 0; earlier 1d"])
    XCTAssertEqual(start.err, "<command line>:1:9: error: no earlier version\n")
  }

  /// A journal writes a time line before the first change of each
  /// session, and before a change made in another second than the version
  /// before it, and nowhere else; the times are the clock's; replayed as a
  /// script, the lines are comments.
  func testAJournalWritesTimeLinesWhereTheSecondChanges() throws {
    let before = Int(Date().timeIntervalSince1970)
    XCTAssertEqual(
      try handsh(["--seed", "4", "--journal", "j.hand", "-q", "-c", "add; add"]).status, 0)
    XCTAssertEqual(try handsh(["--journal", "j.hand", "-q", "-c", "undo; add; goto 1"]).status, 0)
    let after = Int(Date().timeIntervalSince1970)
    let lines = try text("j.hand").split(separator: "\n").map(String.init)
    XCTAssertTrue(lines[1].hasPrefix("#@ "), "\(lines)")
    var times: [Int] = []
    var previous: String?
    for (index, line) in lines.enumerated().dropFirst() {
      if line.hasPrefix("#@ ") {
        let time = Int(line.dropFirst(3)) ?? -1
        XCTAssertTrue((before...after).contains(time), line)
        // Never twice in a row, but for version 0's time and version 1's
        // when the first change came in a later second than the start.
        if previous?.hasPrefix("#@") ?? false {
          XCTAssertEqual(index, 2, "\(lines)")
          XCTAssertLessThan(times.last ?? .max, time, "\(lines)")
        }
        times.append(time)
      }
      previous = line
    }
    let index = try XCTUnwrap(lines.firstIndex(of: "undo 1"))
    XCTAssertTrue(lines[index + 1].hasPrefix("#@ "), "the second session's first change: \(lines)")
    XCTAssertEqual(times.count, lines.filter { $0.hasPrefix("#@") }.count)
    let replayed = try handsh(["-q", "j.hand"])
    XCTAssertEqual(replayed.status, 0, replayed.err)
  }

  /// A time line that is not `#@ SECONDS`, SECONDS from 0 to 4294967295,
  /// stops the resume at its line and column and touches nothing; `#@`
  /// without its space is a comment.
  func testABadTimeLineStopsTheResume() throws {
    let head = "#!/usr/bin/env -S handsh --seed 1 --limit 5\nadd\n"
    for word in ["4294967296", "-1", "1x", "", " 5", "99999999999999999999999"] {
      try make("j.hand", head + "#@ \(word)\nadd\n")
      let run = try handsh(["--journal", "j.hand", "-c", "add"])
      XCTAssertEqual(run.status, 2)
      XCTAssertEqual(
        run.err,
        "handsh: cannot resume from j.hand: 3:4: invalid time '\(word)': expected a whole number"
          + " from 0 to 4294967295\n")
      XCTAssertEqual(try text("j.hand"), head + "#@ \(word)\nadd\n")
    }
    try make("j.hand", head + "#@4294967296\n#@ 4294967295\nadd\n")
    let run = try handsh(["--journal", "j.hand", "-q", "-c", "later 1s"])
    XCTAssertEqual(run.err, "<command line>:1:1: error: no later version\n")
  }
}
