import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// handsh: all of it lives in HandshCLI, so that tests run it in-process;
// this is only where the process starts and ends.

// A closed pipe ends handsh at once and quietly, whatever the parent set.
signal(SIGPIPE, SIG_DFL)
// The one signal policy, before anything is opened or any thread exists.
Handsh.startSignalPolicy()
// The arguments as the kernel gave them: bytes, not lossily decoded Strings.
// (argc can be 0 where the kernel allows an execve with an empty argv.)
// Kept by handsh's own constructor first: the Swift runtime's need /proc.
let arguments =
  Handsh.processArguments()
  ?? (1..<max(1, Int(CommandLine.argc))).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
      .map { $0.map { UInt8(bitPattern: $0) } } ?? []
  }
exit(Handsh.run(arguments: arguments))
