import HandKit

/// Code actions (handsh(1), EDITORS): accepting a differing block, every
/// block, or making a file with no expectations a golden test; each built
/// from the document's last finished run, never by running it again.
extension LanguageServer {
  mutating func codeActions(_ params: JSON) -> JSON? {
    guard let uri = params["textDocument"]?["uri"]?.string, let document = answering(uri),
      let start = position(params["range"]?["start"]), let end = position(params["range"]?["end"])
    else { return nil }
    let table = document.table
    let from = table.offset(of: start, encoding)
    let to = max(from, table.offset(of: end, encoding))
    // The blocks whose input line or expected lines the range overlaps, its
    // end excluded: a range from column 0 of the line after a block does
    // not touch it. A cursor (an empty range) touches the block it is in.
    let text = table.text
    func touches(_ bytes: Range<Int>) -> Bool {
      if from < to { return bytes.overlaps(from..<to) }
      return bytes.contains(from)
        || from == bytes.upperBound && from == text.count && text.last != 0x0A
    }
    var differing = document.differing.filter { index in
      let bytes = document.bytes(ofInput: index)
      return touches(bytes.lowerBound..<bytes.upperBound)
    }
    // The block of the diagnostic the range touches comes first, preferred.
    if let touched = differing.firstIndex(where: {
      touches(document.file.content(of: document.file.inputs[$0]))
    }) {
      differing.insert(differing.remove(at: touched), at: 0)
    }
    let only = params["context"]?["only"]?.array?.compactMap(\.string)
    func wanted(_ kind: String) -> Bool {
      guard let only else { return true }
      return only.contains { kind == $0 || kind.hasPrefix($0 + ".") }
    }
    var actions: [JSON] = []
    func action(
      _ title: String, kind: String, _ edit: (range: Range<Int>, text: [UInt8])?,
      preferred: HandDocument.DocumentDiagnostic? = nil
    ) {
      guard let edit else { return }
      let change = JSON.object([
        ("range", json(table.range(of: edit.range, encoding))),
        ("newText", .string(String(decoding: edit.text, as: UTF8.self))),
      ])
      var fields: [(String, JSON)] = [("title", .string(title)), ("kind", .string(kind))]
      if let preferred {
        fields.append(("diagnostics", .array([diagnosticJSON(preferred, table, uri: uri)])))
        fields.append(("isPreferred", .bool(true)))
      }
      fields.append(("edit", .object([("changes", .object([(uri, .array([change]))]))])))
      actions.append(.object(fields))
    }
    if wanted("quickfix") {
      for (order, index) in differing.enumerated() {
        let content = document.file.content(of: document.file.inputs[index])
        let diagnostic =
          order == 0 ? document.diagnostics.first { $0.range == content } : nil
        action(
          "Accept the actual output (line \(document.file.inputs[index].number))",
          kind: "quickfix", document.acceptEdit(index), preferred: diagnostic)
      }
      if !differing.isEmpty {
        action("Accept every block in this file", kind: "quickfix", document.acceptEdit(nil))
      }
    }
    if wanted("source") {
      // A file with no expectations: one action for the whole file, from
      // the output its run kept.
      action(
        "Add the output as expectations (make this a golden test)", kind: "source",
        document.expectationsEdit())
    }
    return .array(actions)
  }
}
