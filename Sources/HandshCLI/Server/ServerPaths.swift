extension LanguageServer {
  // MARK: Paths and URIs

  /// A file name as a FILE word, as the prompt completes it: in double
  /// quotes (`"` and `\\` escaped) when it holds a space, a tab, `;`, `#`
  /// or `"`, or when the user opened a quote (`opened`: the opening quote
  /// is already typed), and the quote closed.
  static func fileWord(_ name: String, opened: Bool) -> String {
    let special = Set(" \t;#\"".utf8)
    guard opened || name.utf8.contains(where: special.contains) else { return name }
    var word = opened ? "" : "\""
    for character in name {
      if character == "\"" || character == "\\" { word.append("\\") }
      word.append(character)
    }
    word.append("\"")
    return word
  }

  /// The folder of the file a `file:` URI names, where its `source` and
  /// `save` names start; `.` for any other URI.
  static func folder(of uri: String) -> String {
    guard let path = filePath(uri) else { return "." }
    let bytes = Array(path.utf8)
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    return slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
  }

  /// The path of a `file:` URI, percent escapes decoded: `file:///x`,
  /// `file://HOST/x` and `file:/x` alike.
  static func filePath(_ uri: String) -> String? {
    var bytes = Array(uri.utf8)
    let scheme = Array("file:".utf8)
    guard bytes.count > scheme.count,
      String(decoding: bytes[..<scheme.count], as: UTF8.self).lowercased() == "file:"
    else { return nil }
    bytes.removeFirst(scheme.count)
    if bytes.starts(with: Array("//".utf8)) {
      // An authority (`localhost`, or none) before the path.
      bytes.removeFirst(2)
      guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
      bytes.removeFirst(slash)
    }
    guard bytes.first == UInt8(ascii: "/") else { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
        let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
      {
        out.append(high << 4 | low)
        i += 3
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `path` made absolute from `folder` (an absolute path), without `.`
  /// and `..` segments or doubled slashes: what a URI names.
  static func absolute(_ path: String, from folder: String) -> String {
    let whole = path.hasPrefix("/") ? path : folder + "/" + path
    var segments: [Substring] = []
    for segment in whole.split(separator: "/", omittingEmptySubsequences: true) {
      switch segment {
      case ".": continue
      case "..": if !segments.isEmpty { segments.removeLast() }
      default: segments.append(segment)
      }
    }
    return "/" + segments.joined(separator: "/")
  }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  /// A `file:` URI for `path`, every byte but the unreserved ones and `/`
  /// percent-escaped.
  static func fileURI(_ path: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out = Array("file://".utf8)
    for byte in path.utf8 {
      switch byte {
      case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
        out.append(byte)
      default:
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `file` as `source` in a document of `folder` reads it.
  static func resolve(_ file: String, in folder: String) -> String {
    // An empty name names no file, here as anywhere.
    if file.isEmpty || file.hasPrefix("/") { return file }
    return folder.hasSuffix("/") ? folder + file : folder + "/" + file
  }
}
