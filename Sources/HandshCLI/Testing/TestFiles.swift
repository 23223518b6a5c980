import HandKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Finding test files in PATHs, reading them, and rewriting one.
enum TestFiles {
  struct Item {
    /// PATH joined to the rest with one `/`.
    var path: [UInt8]
    /// Why it cannot run (a PATH that does not exist, a folder without
    /// tests, a FIFO); the message after `handsh: `.
    var problem: String?
    /// A problem of a PATH itself (it does not exist, or holds no test):
    /// reported by every part of a `--shard` run, never split off.
    var ofOperand = false
  }

  /// `--shard K/N`: file I of `items` (from 0, in the report's order) goes
  /// to part `I mod N + 1`, and only part K is kept; the problems of a
  /// PATH itself stay in every part.
  static func shard(_ items: [Item], _ shard: Options.Shard?) -> [Item] {
    guard let shard else { return items }
    var kept: [Item] = []
    var index: UInt64 = 0
    for item in items {
      if item.ofOperand {
        kept.append(item)
        continue
      }
      if index % shard.count + 1 == shard.part { kept.append(item) }
      index += 1
    }
    return kept
  }

  /// Every file the PATHs name, folders searched for `*.hand` (skipping
  /// names that start with `.`, not following links to folders), in byte
  /// order of their paths, each file once whatever the names it is found
  /// under (`x.hand ./x.hand`, a hard link): under its first name. What is
  /// not a regular file, and a folder that cannot be listed or searched,
  /// is an error, never skipped in silence.
  static func find(_ paths: [[UInt8]]) -> [Item] {
    var items: [Item] = []
    for operand in paths {
      var base = operand
      while base.count > 1, base.last == UInt8(ascii: "/") { base.removeLast() }
      var status = stat()
      guard Platform.status(of: base, &status, follow: true) else {
        let reason = Platform.describe(errno)
        if Platform.status(of: base, &status, follow: false) {
          // A dangling link (or a loop of links) is a file that cannot be
          // read, as when it is found in a folder.
          items.append(Item(path: base, problem: nil))
          continue
        }
        items.append(
          Item(
            path: base, problem: "cannot open '\(safeText(base))': \(reason)", ofOperand: true))
        continue
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        var found: [Item] = []
        walk(base, into: &found)
        if found.isEmpty {
          found.append(
            Item(path: base, problem: "no .hand files in '\(safeText(base))'", ofOperand: true))
        }
        items += found
      case S_IFREG:
        items.append(Item(path: base, problem: nil))
      default:
        items.append(Item(path: base, problem: notRegular(base)))
      }
    }
    items.sort { $0.path.lexicographicallyPrecedes($1.path) }
    var unique: [Item] = []
    var seen = Set<FileID>()
    for item in items where unique.last?.path != item.path {
      // Whatever it is (a FIFO, a dangling link: the link itself), one
      // thing named twice is reported once.
      var status = stat()
      if Platform.status(of: item.path, &status, follow: true)
        || Platform.status(of: item.path, &status, follow: false)
      {
        guard
          seen.insert(FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))).inserted
        else { continue }
      }
      unique.append(item)
    }
    return unique
  }

  /// A file, whatever the names it goes by.
  struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  private static func notRegular(_ path: [UInt8]) -> String {
    "cannot read '\(safeText(path))': not a regular file"
  }

  private static func walk(_ folder: [UInt8], into items: inout [Item]) {
    let prefix = folder == [UInt8(ascii: "/")] ? folder : folder + [UInt8(ascii: "/")]
    guard let names = Platform.folderEntries(folder) else {
      let reason = Platform.describe(errno)
      items.append(Item(path: folder, problem: "cannot read '\(safeText(folder))': \(reason)"))
      return
    }
    var unsearchable = false
    for name in names where name.first != UInt8(ascii: ".") {
      let path = prefix + name
      var status = stat()
      guard Platform.status(of: path, &status, follow: false) else {
        let code = errno
        if code == ENOENT { continue }  // gone since the folder was listed
        if code == EACCES {
          // A folder that can be listed but not searched: said once.
          if !unsearchable {
            items.append(
              Item(
                path: folder,
                problem: "cannot search '\(safeText(folder))': \(Platform.describe(code))"))
          }
          unsearchable = true
          continue
        }
        items.append(
          Item(path: path, problem: "cannot read '\(safeText(path))': \(Platform.describe(code))"))
        continue
      }
      var kind = status.st_mode & S_IFMT
      if kind == S_IFLNK {
        // A link to a folder is not followed; a link to a file is a file,
        // and so is a broken link (reading it says what is wrong).
        if Platform.status(of: path, &status, follow: true) {
          kind = status.st_mode & S_IFMT
          if kind == S_IFDIR { continue }
        } else {
          kind = S_IFREG
        }
      }
      if kind == S_IFDIR {
        walk(path, into: &items)
      } else if name.count > 5, name.suffix(5).elementsEqual(".hand".utf8) {
        items.append(Item(path: path, problem: kind == S_IFREG ? nil : notRegular(path)))
      }
    }
  }

  /// A test file as it was read: its bytes, and its size and time then.
  struct Snapshot {
    var text: [UInt8]
    var size: Int
    var modified: timespec
  }

  struct ReadProblem: Error {
    var reason: String
  }

  /// The largest golden test handsh reads: 64 MiB (handsh(1), LIMITS),
  /// the most output a test may print, which no larger file could expect.
  static let goldenSizeLimit = goldenOutputLimit

  /// Reads a whole regular file with the one reader, whatever the lengths
  /// of its lines, unless it is over `goldenSizeLimit`. A path that is not a regular file is refused, and never
  /// blocks: opened without waiting, and checked before the first read.
  static func read(_ path: [UInt8]) -> Result<Snapshot, ReadProblem> {
    switch readFile(path, others: .refuse, whole: true, sizeLimit: goldenSizeLimit) {
    case .success(let file):
      return .success(
        Snapshot(
          text: file.bytes, size: Int(file.status.st_size), modified: file.status.st_mtim))
    case .failure(let error):
      return .failure(ReadProblem(reason: error.reason))
    }
  }

  /// Whether the file at `path` is still what `snapshot` read: its size,
  /// its time and its contents.
  static func unchanged(_ path: [UInt8], since snapshot: Snapshot) -> Bool {
    var status = stat()
    guard Platform.status(of: path, &status, follow: true),
      Int(status.st_size) == snapshot.size,
      status.st_mtim.tv_sec == snapshot.modified.tv_sec,
      status.st_mtim.tv_nsec == snapshot.modified.tv_nsec,
      case .success(let now) = read(path)
    else { return false }
    return now.text == snapshot.text
  }

  /// The name a diff's headers give the file at `path`: the path itself
  /// when no symbolic link leads to it; else the file `--update` writes, the
  /// path with every link resolved (to a file or to a folder), written as
  /// the PATH that reached it is: from the current folder, with `./` in
  /// front when the path has it (`./t/link.hand` -> `./t/real.hand`), or
  /// from `/` for an absolute one. So GNU patch, which refuses to patch
  /// through a link, and `git apply` (`-p0`, or by default with `./`),
  /// which refuses a name beyond a link, both take it. A target outside the
  /// current folder gets `..` steps; one whose real path cannot be found
  /// keeps the path.
  static func patchedName(_ path: [UInt8]) -> [UInt8] {
    let slash = UInt8(ascii: "/")
    guard let target = realPath(path) else { return path }
    let absolute = path.first == slash
    var here: [UInt8] = []
    if !absolute {
      guard let current = realPath([0x2E]) else { return path }
      here = current
    }
    // The path as it would be with no link on the way.
    var lexical: [[UInt8]] = absolute ? [] : here.split(separator: slash).map(Array.init)
    for part in path.split(separator: slash) {
      if part.elementsEqual([0x2E]) { continue }
      if part.elementsEqual([0x2E, 0x2E]) {
        if !lexical.isEmpty { lexical.removeLast() }
        continue
      }
      lexical.append(Array(part))
    }
    let targetParts = target.split(separator: slash).map(Array.init)
    guard targetParts != lexical else { return path }
    if absolute { return target }
    let hereParts = here.split(separator: slash).map(Array.init)
    var common = 0
    while common < min(targetParts.count, hereParts.count),
      targetParts[common] == hereParts[common]
    {
      common += 1
    }
    // Under the current folder a plain relative path; elsewhere one with
    // `..` steps.
    let ups = hereParts.count - common
    let rest = Array(targetParts[common...])
    guard !rest.isEmpty else { return path }
    let steps = Array(repeating: [UInt8]("..".utf8), count: ups) + rest
    let relative = Array(steps.joined(separator: [slash]))
    return ups == 0 && path.starts(with: [0x2E, slash]) ? [0x2E, slash] + relative : relative
  }

  /// realpath(3) of a path given as bytes, or nil.
  private static func realPath(_ path: [UInt8]) -> [UInt8]? {
    let resolved: UnsafeMutablePointer<CChar>?? = Platform.withCPath(path) { realpath($0, nil) }
    guard let resolved = resolved ?? nil else { return nil }
    defer { free(resolved) }
    return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }

  /// The error of a file whose updated text would be over
  /// `goldenSizeLimit`: never written, since `--test` would refuse it.
  static func tooLargeToUpdate(_ shown: String) -> String {
    "\(shown): too large to update (\(goldenLimitText))"
  }

  /// The message of a file that changed while the tests ran.
  static let changedMessage = "changed while the tests ran; not updated"

  /// The error line of a file `--update` could not rewrite (`shown`: its
  /// path made safe): `PATH: changed while the tests ran; not updated`, or
  /// `handsh: cannot update 'PATH': REASON`.
  static func updateFailure(_ shown: String, _ problem: String) -> String {
    problem == changedMessage
      ? "\(shown): \(problem)" : "handsh: cannot update '\(shown)': \(problem)"
  }

  /// `--update`: writes `new` over the file at `path` as `save` writes
  /// (atomically, its mode kept), unless it is no longer what `snapshot`
  /// read: checked last, after the new text is written and flushed, right
  /// before the rename. Why not, when it fails. `beforeCheck` is for tests:
  /// it runs right before that check.
  static func rewrite(
    _ path: [UInt8], from snapshot: Snapshot, to new: [UInt8],
    beforeCheck: (() -> Void)? = nil
  ) -> String? {
    var changed = false
    let failure = writeFile(new, to: path) {
      beforeCheck?()
      changed = !unchanged(path, since: snapshot)
      return !changed
    }
    if changed { return changedMessage }
    // The reason as the writer gives it: `(PATH is damaged: …)` included.
    return failure.map(\.reason)
  }
}
