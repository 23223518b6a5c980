/// The text of `help` and `help COMMAND`, from the command table
/// (`CommandName.entry`).
public func helpText(_ topic: CommandName?) -> String {
  guard let topic else {
    let width = CommandName.allCases.map { $0.usage.count }.max() ?? 0
    var lines = ["Commands (separate them with ; or new lines; # starts a comment):"]
    for name in CommandName.allCases {
      let padding = String(repeating: " ", count: width - name.usage.count)
      lines.append("  \(name.usage)\(padding)  \(name.summary)")
    }
    lines.append("Type 'help COMMAND' for more about one command.")
    return lines.joined(separator: "\n") + "\n"
  }
  return ([topic.usage, "  " + topic.summary] + topic.details.map { "  " + $0 })
    .joined(separator: "\n") + "\n"
}
