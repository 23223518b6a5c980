// The input as what a client sends `handsh --lsp`.

@testable import HandKit
@testable import HandshCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The language server (`handsh --lsp`) fed the input three ways: as the
/// byte stream of a client (framing, then JSON, then dispatch), cut into
/// chunks at random and whole, which must give the same frames; as one
/// JSON body; and as the text of a document that is opened, edited and
/// asked about at positions the input chooses. Every message the server
/// writes must read back equal through its own JSON reader, and every
/// request must get exactly one response with its id.
func fuzzServer(_ input: [UInt8]) {
  let frames = fuzzFraming(input)
  fuzzServerStream(input, frames: frames)
  fuzzServerDocument(input)
}

/// The `initialize` request each server is sent first.
private var initialize: JSON {
  .object([
    ("jsonrpc", .string("2.0")), ("id", .int(0)), ("method", .string("initialize")),
    ("params", .object([])),
  ])
}

/// Every message the server writes must read back equal through its own
/// JSON reader.
private func roundTrip(_ messages: [JSON]) {
  for message in messages {
    guard case .success(let back) = JSONReader.parse(message.bytes), back == message else {
      broken("a message of the server does not read back")
    }
  }
}

/// The input as a client's byte stream, through `FrameReader` whole and in
/// chunks at random (the same frames), and followed by a message that must
/// be read whatever came before when the input names no Content-Length.
/// Returns the frames.
private func fuzzFraming(_ input: [UInt8]) -> [Frame] {
  var whole = FrameReader()
  whole.feed(input)
  var frames: [Frame] = []
  while let frame = whole.next() { frames.append(frame) }
  var chunked = FrameReader()
  var random = SplitMix64(seed: UInt64(input.count) ^ 0x15F)
  var start = 0
  var again: [Frame] = []
  while start < input.count {
    let end = min(input.count, start + Int(random.next() % 64))
    chunked.feed(Array(input[start..<end]))
    while let frame = chunked.next() { again.append(frame) }
    start = end
  }
  while let frame = chunked.next() { again.append(frame) }
  // A header block is only complete once its body is: chunking may hand
  // on a bad header earlier, never different frames.
  guard frames == again else { broken("frames differ when fed in chunks") }
  // Whatever came before, bytes that name no Content-Length cost no later
  // message: reading starts again at the next Content-Length header.
  let lowered = input.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
  if !lowered.contains(Array("content-length".utf8)) {
    let probe = Array(#"{"jsonrpc":"2.0","id":"probe","method":"x"}"#.utf8)
    var resync = FrameReader()
    resync.feed(input + Array("Content-Length: \(probe.count)\r\n\r\n".utf8) + probe)
    var last: Frame?
    while let frame = resync.next() { last = frame }
    guard last == .body(probe) else { broken("a message after bad bytes was lost") }
  }
  return frames
}

/// The frames handed to a server, each request answered exactly once; then
/// the input as one JSON body.
private func fuzzServerStream(_ input: [UInt8], frames: [Frame]) {
  var server = LanguageServer(
    ascii: input.first.map { $0 & 1 == 1 } ?? false,
    readFile: { _ in .failure(ReadFailure("No such file or directory")) }, listFolder: { _ in [] })
  roundTrip(server.handle(initialize))
  for frame in frames {
    let out = server.handle(frame)
    roundTrip(out)
    if case .body(let body) = frame, case .success(let message) = JSONReader.parse(body),
      let id = message["id"], message["method"]?.string != nil
    {
      let answers = out.filter { $0["id"] == id && ($0["result"] != nil || $0["error"] != nil) }
      guard answers.count == 1 else { broken("a request got \(answers.count) responses") }
    }
  }
  roundTrip(server.publish())
  if case .success(let value) = JSONReader.parse(input) {
    guard case .success(let back) = JSONReader.parse(value.bytes), back == value else {
      broken("JSON does not read back")
    }
    roundTrip(server.handle(value))
  }
}

/// The input as the text of a document, opened, asked about where its bytes
/// say, and edited.
private func fuzzServerDocument(_ input: [UInt8]) {
  var document = LanguageServer(
    ascii: false, readFile: { _ in .failure(ReadFailure("No such file or directory")) },
    listFolder: { _ in [] })
  _ = document.handle(initialize)
  let uri = JSON.string("file:///fuzz/doc.hand")
  let text = String(decoding: input, as: UTF8.self)
  _ = document.handle(
    .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/didOpen")),
      (
        "params",
        .object([
          (
            "textDocument",
            .object([("uri", uri), ("version", .int(1)), ("text", .string(text))])
          )
        ])
      ),
    ]))
  roundTrip(document.publish())
  func position(_ a: UInt8, _ b: UInt8) -> JSON {
    .object([("line", .int(Int(a % 16))), ("character", .int(Int(b % 40)))])
  }
  let picks = Array(input.prefix(12)) + Array(repeating: 0, count: max(0, 12 - input.count))
  let at = position(picks[0], picks[1])
  let range = JSON.object([("start", at), ("end", position(picks[2], picks[3]))])
  let identifier = JSON.object([("uri", uri)])
  for (number, method) in [
    "textDocument/hover", "textDocument/completion", "textDocument/definition",
    "textDocument/inlayHint", "textDocument/codeAction",
  ].enumerated() {
    let out = document.handle(
      .object([
        ("jsonrpc", .string("2.0")), ("id", .int(number + 1)), ("method", .string(method)),
        (
          "params",
          .object([
            ("textDocument", identifier), ("position", at), ("range", range),
            ("context", .object([("diagnostics", .array([]))])),
          ])
        ),
      ]))
    roundTrip(out)
    guard out.count == 1, out.first?["result"] != nil else { broken("\(method) failed") }
  }
  _ = document.handle(
    .object([
      ("jsonrpc", .string("2.0")), ("method", .string("textDocument/didChange")),
      (
        "params",
        .object([
          ("textDocument", .object([("uri", uri), ("version", .int(2))])),
          (
            "contentChanges",
            .array([
              .object([
                (
                  "range",
                  .object([
                    ("start", position(picks[4], picks[5])), ("end", position(picks[6], picks[7])),
                  ])
                ),
                ("text", .string(String(decoding: input.suffix(8), as: UTF8.self))),
              ])
            ])
          ),
        ])
      ),
    ]))
  roundTrip(document.publish())
}
