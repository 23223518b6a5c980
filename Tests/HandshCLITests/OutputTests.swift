import Foundation
import Testing

@testable import HandshCLI

/// `Output` at the prompt (handsh(1), THE PROMPT): when stdout's reader
/// goes away, the notice is written on the prompt's terminal, where the
/// cursor is at the start of a line (the results went to the pipe), with
/// no line break first, whatever half line the reader was left with; the
/// rest of the results follow it there, each byte once.
struct OutputTests {
  /// What the pipe holds now (its read end is non-blocking).
  private func drain(_ fd: Int32) -> String {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test(arguments: [("abc", ""), ("abc\n", "")])
  func theClosedNoticeStartsALine(delivered: String, before: String) {
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    var results: [Int32] = [0, 0]
    var screen: [Int32] = [0, 0]
    #expect(pipe(&results) == 0 && pipe(&screen) == 0)
    var output = Output(fd: results[1], fallback: screen[1])
    output.buffer = Array(delivered.utf8)
    output.flush()
    #expect(drain(results[0]) == delivered)
    close(results[0])
    output.buffer = Array("def\n".utf8)
    output.flush()
    close(screen[1])
    close(results[1])
    #expect(drain(screen[0]) == before + Output.closedNotice + "\ndef\n")
    close(screen[0])
  }
}
