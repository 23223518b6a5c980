// The fuzzer's scratch folder and the output files its runners write to.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The folder saves go to: made once, the current folder from then on, and
/// emptied before each input.
/// In memory where there is /dev/shm: the writer flushes every file to disk.
let scratch: String = {
  let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
  var template = Array("\(parent)/handsh-fuzz-XXXXXX".utf8CString)
  guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }),
    chdir(made) == 0
  else { broken("cannot make a scratch folder") }
  // Removed when the fuzzer ends (not after a crash: then it shows what was
  // written).
  atexit {
    emptyScratch()
    _ = rmdir(scratch)
  }
  return String(cString: made)
}()

/// Removes everything in the scratch folder (files and the folders the
/// writer makes, one level deep).
func emptyScratch() {
  guard let folder = opendir(scratch) else { broken("cannot list the scratch folder") }
  defer { closedir(folder) }
  while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
    }
    guard name != ".", name != ".." else { continue }
    let path = scratch + "/" + name
    if unlink(path) != 0 { _ = rmdir(path) }
  }
}

/// Two temporary files a runner writes its stdout and stderr to.
let outputFiles: (out: Int32, err: Int32) = (fileno(tmpfile()), fileno(tmpfile()))

func resetOutput() {
  for fd in [outputFiles.out, outputFiles.err] {
    _ = ftruncate(fd, 0)
    _ = lseek(fd, 0, SEEK_SET)
  }
}

/// Everything in the file `fd` refers to.
func contents(of fd: Int32) -> [UInt8] {
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 14)
  var offset: off_t = 0
  while true {
    let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
    guard count > 0 else { break }
    bytes += chunk[..<count]
    offset += off_t(count)
  }
  return bytes
}

/// The file at `path`, or nil when it cannot be read.
func readBack(_ path: String) -> [UInt8]? {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  return contents(of: fd)
}

/// Names of save's temporary files left in the scratch folder.
func leftovers() -> Int {
  guard let folder = opendir(scratch) else { return 0 }
  defer { closedir(folder) }
  var count = 0
  while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
    }
    if name.contains(".tmp-") { count += 1 }
  }
  return count
}
