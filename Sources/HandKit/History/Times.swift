/// When each version was made (handsh(1), Versions, and `earlier` and
/// `later`): whole seconds since 1970 (UTC), as the shell's clock said when
/// the version was made, or as a journal's time lines say. Kept in 4 bytes
/// a version, as an unsigned 32-bit number: a time before 1970 counts as
/// 1970, one after 2106-02-07 06:28:15 as that second.
extension History {
  /// The latest second a version's time can hold.
  public static let latestTime = Int(UInt32.max)

  /// `seconds` as the store keeps it: clamped to 0...`latestTime`.
  @inline(__always)
  static func storedTime(_ seconds: Int) -> UInt32 { UInt32(clamping: seconds) }

  /// When version `number` (0 to `count - 1`) was made.
  @inline(__always)
  public func time(of number: Int) -> Int { Int(store.time(number).pointee) }

  /// Sets when version 0 was made: a resumed journal's first time line
  /// (handsh(1), JOURNAL) says when its session started.
  public mutating func setStartTime(_ seconds: Int) {
    own()
    store.time(0).pointee = History.storedTime(seconds)
    if count == 1 { newestTime = History.storedTime(seconds) }
    // Whether the clock went back at version 1 may change with it; above 1
    // nothing does.
    guard count > 1, clockWentBack <= 1 else { return }
    clockWentBack = time(of: 1) < time(of: 0) ? 1 : 0
  }

  /// `earlier TIME`: the highest-numbered version below `current` made at
  /// or before `deadline`, or 0 when none was. Bisection over the versions
  /// from `clockWentBack` on, where times never decrease; below it (the
  /// clock went back), one look at each version, from the highest down.
  public func latest(below current: Int, madeBy deadline: Int) -> Int {
    latest(in: 0..<max(current, 0), madeBy: deadline) ?? 0
  }

  /// `later TIME`: the highest-numbered version made at or before
  /// `deadline`, or when that is not above `current`, `current + 1` (the
  /// caller checks that there is one).
  public func latest(above current: Int, madeBy deadline: Int) -> Int {
    let found = latest(in: (current + 1)..<count, madeBy: deadline) ?? current + 1
    return max(found, current + 1)
  }

  /// The highest-numbered version in `range` made at or before `deadline`.
  func latest(in range: Range<Int>, madeBy deadline: Int) -> Int? {
    var steps = 0
    return latest(in: range, madeBy: deadline, steps: &steps)
  }

  /// `latest(in:madeBy:)`, counting in `steps` the times it looks at (the
  /// tests bound them: bisection is what keeps them few).
  func latest(in range: Range<Int>, madeBy deadline: Int, steps: inout Int) -> Int? {
    guard !range.isEmpty, range.lowerBound >= 0, range.upperBound <= count else { return nil }
    let sorted = max(range.lowerBound, clockWentBack)
    if sorted < range.upperBound {
      // Times never decrease from `sorted` on: the last one not after
      // `deadline`, by bisection.
      var (low, high) = (sorted, range.upperBound)
      while low < high {
        let middle = low + (high - low) / 2
        steps += 1
        if time(of: middle) <= deadline { low = middle + 1 } else { high = middle }
      }
      if low > sorted { return low - 1 }
    }
    var number = min(sorted, range.upperBound)
    while number > range.lowerBound {
      number -= 1
      steps += 1
      if time(of: number) <= deadline { return number }
    }
    return nil
  }
}
