import HandKit
import Testing

@testable import HandshCLI

/// The language server's protocol side (handsh(1), EDITORS): framing, the
/// JSON reader and writer, and the dispatcher, in-process.
@Suite struct ServerTests {
  private func frames(_ bytes: [UInt8]) -> [Frame] {
    var reader = FrameReader()
    reader.feed(bytes)
    var found: [Frame] = []
    while let frame = reader.next() { found.append(frame) }
    return found
  }

  private func framed(_ body: String) -> [UInt8] {
    Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
  }

  @Test func framesAreCutByContentLengthWhateverTheChunks() {
    let stream = framed("{}") + Array("content-length:  5 \r\nContent-Type: x\r\n\r\n[1,2]".utf8)
    #expect(frames(stream) == [.body(Array("{}".utf8)), .body(Array("[1,2]".utf8))])
    var reader = FrameReader()
    var found: [Frame] = []
    for byte in stream {
      reader.feed([byte])
      while let frame = reader.next() { found.append(frame) }
    }
    #expect(found == frames(stream))
  }

  @Test func badHeadersAreReportedAndReadingGoesOn() {
    // A header block right after a bad one is read; bytes that start no
    // header are passed over up to the next Content-Length.
    let stream =
      Array("Content-Length: x\r\n\r\n".utf8) + Array("Content-Type: y\r\n\r\n".utf8)
      + Array("Bogus\r\n\r\n".utf8) + framed("1")
    #expect(
      frames(stream) == [
        .badHeader("invalid Content-Length"), .badHeader("no Content-Length header"),
        .body(Array("1".utf8)),
      ])
    // A body too large is answered, then reading starts at the next header.
    #expect(
      frames(Array("Content-Length: 999999999999\r\n\r\n{\"a\":1}".utf8) + framed("2"))
        == [.tooLarge(999_999_999_999), .body(Array("2".utf8))])
  }

  /// After a header with no usable length, whose body's end is unknown,
  /// reading starts again at the next `Content-Length:` header, also one
  /// glued to that body, and a header's name is all of what precedes its
  /// colon: the same frames whatever the chunks.
  @Test func readingStartsAgainAtTheNextContentLength() {
    let body = #"{"jsonrpc":"2.0","id":1,"method":"x"}"#
    for bad in [
      "Content-Type: a\r\n\r\n\(body)", "Content-Length: -1\r\n\r\n\(body)",
      "Content-Length: 123456789012345678901\r\n\r\n\(body)", "\(body)\r\n\r\n",
      // Bytes that start no message, right before a header, or a line
      // before it.
      "junk\(body)", "add\n", "a:b\r\n\r\nxyz",
    ] {
      let stream = Array(bad.utf8) + framed("[1]") + framed("[2]")
      let found = frames(stream)
      #expect(
        found.count >= 3
          && found.dropLast(2).allSatisfy {
            if case .badHeader = $0 { true } else { false }
          },
        "\(bad)")
      #expect(Array(found.suffix(2)) == [.body(Array("[1]".utf8)), .body(Array("[2]".utf8))])
      var reader = FrameReader()
      var chunked: [Frame] = []
      for byte in stream {
        reader.feed([byte])
        while let frame = reader.next() { chunked.append(frame) }
      }
      #expect(chunked == found, "\(bad)")
    }
    let named = Array("Content-Length: 2\r\nX-Content-Length: 40\r\n\r\n{}".utf8)
    #expect(frames(named + framed("3")) == [.body(Array("{}".utf8)), .body(Array("3".utf8))])
  }

  @Test func jsonReadsStrictlyAndWritesBackExactly() throws {
    let text = #"{"a":[1,-2.5e3,true,null],"b":"\u00e9\ud83c\udca1\n\"\\","c":{}}"#
    let value = try JSONReader.parse(Array(text.utf8)).get()
    #expect(value["b"]?.string == "é🂡\n\"\\")
    #expect(try JSONReader.parse(value.bytes).get() == value)
    for bad in ["", "{", "[1,]", "01", "\"\u{1}\"", "tru", "{\"a\" 1}", "1 2", "\"\\x\""] {
      #expect(throws: JSONError.self) { try JSONReader.parse(Array(bad.utf8)).get() }
    }
    // A lone surrogate reads as U+FFFD; deep nesting is an error, not a crash.
    #expect(try JSONReader.parse(Array(#""\ud800x""#.utf8)).get() == .string("\u{FFFD}x"))
    #expect(throws: JSONError.self) {
      try JSONReader.parse(Array(repeating: UInt8(ascii: "["), count: 100_000)).get()
    }
  }

  @Test func everyRequestGetsOneResponseAndExitEndsIt() {
    var server = LanguageServer(
      ascii: false, readFile: { _ in .failure(ReadFailure("No such file or directory")) },
      listFolder: { _ in [] })
    func send(_ text: String) -> [JSON] { server.handle(.body(Array(text.utf8))) }
    #expect(
      send(#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#).first?["error"]?["code"]
        == .int(-32002))
    #expect(
      send(#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#).first?["result"] != nil)
    #expect(
      send(#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#).first?["error"]?["code"] == .int(-32601))
    #expect(send("{").first?["error"]?["code"] == .int(-32700))
    #expect(send("[]").first?["error"]?["code"] == .int(-32600))
    // Positions beyond the protocol's range are invalid params, not a trap.
    _ = send(
      #"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"u","text":"add\n"}}}"#
    )
    let huge = #"{"line":9223372036854775807,"character":0}"#
    #expect(
      send(
        #"{"jsonrpc":"2.0","id":5,"method":"textDocument/inlayHint","params":{"textDocument":{"uri":"u"},"range":{"start":"#
          + huge + #","end":"# + huge + "}}}"
      ).first?["error"]?["code"] == .int(-32602))
    #expect(server.exitStatus == nil)
    #expect(send(#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#).last?["result"] == .null)
    #expect(send(#"{"jsonrpc":"2.0","method":"exit"}"#).isEmpty)
    #expect(server.exitStatus == 0)
  }

  /// A run for diagnostics stops when newer input is waiting, sends
  /// nothing, and runs again once that input is read.
  @Test func diagnosticsWorkIsAbandonedWhenNewerInputWaits() {
    var server = LanguageServer(
      ascii: false, readFile: { _ in .failure(ReadFailure("No such file or directory")) },
      listFolder: { _ in [] })
    _ = server.handle(.body(Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.utf8)))
    let text = String(repeating: "add\n", count: 2000)
    let open = JSON.object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/didOpen")),
      (
        "params",
        .object([
          (
            "textDocument",
            .object([("uri", .string("u")), ("version", .int(1)), ("text", .string(text))])
          )
        ])
      ),
    ])
    _ = server.handle(open)
    server.interrupted = { true }
    #expect(server.publish().isEmpty)
    // A request is answered whole, interrupted or not.
    let hint = server.handle(
      .body(
        Array(
          #"{"jsonrpc":"2.0","id":2,"method":"textDocument/inlayHint","params":{"textDocument":{"uri":"u"}}}"#
            .utf8)))
    #expect(hint.first?["result"]?.array?.count == 5)
    server.interrupted = { false }
    let sent = server.publish()
    #expect(sent.count == 1)
    #expect(sent.first?["params"]?["version"] == .int(1))
  }

  /// A request that the client cancels in the same read is answered as
  /// cancelled (-32800), not worked on; every other one still is.
  @Test func aCancelledRequestIsAnsweredAsCancelled() {
    var server = LanguageServer(
      ascii: false, readFile: { _ in .failure(ReadFailure("No such file or directory")) },
      listFolder: { _ in [] })
    _ = server.handle(.body(Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.utf8)))
    let out = server.handle([
      .body(Array(#"{"jsonrpc":"2.0","id":5,"method":"shutdown"}"#.utf8)),
      .body(Array(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}"#.utf8)),
      .body(Array(#"{"jsonrpc":"2.0","id":6,"method":"nope"}"#.utf8)),
    ])
    #expect(out.map { $0["error"]?["code"] } == [.int(-32800), .int(-32601)])
    #expect(!server.shutDown)
  }

  @Test func fileURIsAndFolders() {
    #expect(LanguageServer.filePath("file:///tmp/a%20b/x.hand") == "/tmp/a b/x.hand")
    #expect(LanguageServer.folder(of: "file:///tmp/a%20b/x.hand") == "/tmp/a b")
    #expect(LanguageServer.folder(of: "untitled:Untitled-1") == ".")
    #expect(LanguageServer.fileURI("/tmp/a b/#x.hand") == "file:///tmp/a%20b/%23x.hand")
    #expect(LanguageServer.resolve("y.hand", in: "/tmp") == "/tmp/y.hand")
    #expect(LanguageServer.resolve("/etc/y", in: "/tmp") == "/etc/y")
    #expect(LanguageServer.resolve("", in: "/tmp") == "")
    // One slash, or a host: files too. A definition's path is absolute and
    // normalised.
    #expect(LanguageServer.filePath("file:/x.hand") == "/x.hand")
    #expect(LanguageServer.filePath("file://localhost/x.hand") == "/x.hand")
    #expect(LanguageServer.filePath("file:x.hand") == nil)
    #expect(LanguageServer.absolute("./inc.hand", from: "/w/d") == "/w/d/inc.hand")
    #expect(LanguageServer.absolute("/a/b/../../c/./x", from: "/w") == "/c/x")
    #expect(LanguageServer.absolute("../../../x", from: "/w") == "/x")
  }
}
