import HandKit

extension Shell {
  /// The file in completions/ that holds the script.
  package var fileName: String {
    switch self {
    case .bash: "handsh.bash"
    case .zsh: "_handsh"
    case .fish: "handsh.fish"
    }
  }
}

/// What an option's value is, as the completions see it: derived from the
/// option table, so that an option added there is completed everywhere.
package enum OptionValue: Equatable, Sendable {
  /// A flag: no value.
  case none
  /// A number or a text: nothing to offer.
  case free
  /// A file name.
  case file
  /// One of these words.
  case choice([String])
}

extension OptionSpec {
  /// The kind of value the option takes: its `choices` when it has them, a
  /// file for the metavariable `FILE`, else a free text or number.
  package var valueKind: OptionValue {
    guard let value else { return .none }
    if !choices.isEmpty { return .choice(choices) }
    return value == "FILE" ? .file : .free
  }

  /// `--help`, `--version` and `--completion-script` print and exit:
  /// nothing goes with them.
  fileprivate var endsTheRun: Bool {
    long == "help" || long == "version" || long == "completion-script"
  }
  /// `-c TEXT` takes the place of the SCRIPT operand.
  fileprivate var replacesScript: Bool { long == "command" }
}

/// The completion script for `shell`, made from the option table
/// (`Options.table`): options, their short and long names, their help, and
/// the words or files their values take; and for the operand, directories
/// and `.hand` files. `handsh --completion-script SHELL` prints it, and
/// scripts/install installs what it prints; completions/ holds the same
/// scripts, and a snapshot test keeps them equal (scripts/update-snapshots
/// rewrites them).
package func completionScript(for shell: Shell, table: [OptionSpec] = Options.table) -> String {
  switch shell {
  case .bash: bashCompletion(table)
  case .zsh: zshCompletion(table)
  case .fish: fishCompletion(table)
  }
}

private let generatedNote =
  "Generated from the option table (Sources/HandKit/Options/Options.swift) by\n"
  + "scripts/update-snapshots: do not edit by hand."

// MARK: - bash

/// The bash completion script: what it completes, `_handsh` (the
/// completer), the helpers it calls, and the `complete` line.
private func bashCompletion(_ table: [OptionSpec]) -> String {
  """
  # bash completion for handsh(1)                            -*- shell-script -*-
  #
  # Installed as share/bash-completion/completions/handsh; or sourced from
  # ~/.bashrc:   . /path/to/completions/handsh.bash
  #
  # Completes the options; the words of an option that takes one of a few,
  # as `--option WORD` and as `--option=WORD`; file names after an option
  # that takes a FILE; nothing after an option that takes a number or a
  # text; and directories and .hand files for the SCRIPT argument.
  #
  # \(generatedNote.replacingAll("\n", with: "\n# "))

  \(bashCompleter(table))

  \(bashHelpers(table))

  complete -F _handsh handsh

  """
}

/// What `case $prev` (a value in the next word) and `case $cur` (a value
/// after `=` in the same word) complete for each option that takes a
/// value: its words, file names, or nothing.
private func bashValueCases(_ valued: [OptionSpec]) -> (next: [String], attached: [String]) {
  var valueCases: [String] = []
  var attachedCases: [String] = []
  var free: [String] = []
  var files: [String] = []
  for spec in valued {
    switch spec.valueKind {
    case .choice(let words):
      let list = words.joined(separator: " ")
      valueCases.append(
        """
                    --\(spec.long) | --\(spec.long)=)
                        _handsh_add_words "\(list)" "$cur" ""
                        return 0
                        ;;
        """)
      attachedCases.append(
        """
                    --\(spec.long)=*)
                        # `--\(spec.long)=WORD` as one word, when '=' is not a word break
                        _handsh_add_words "\(list)" "${cur#--\(spec.long)=}" "--\(spec.long)="
                        return 0
                        ;;
        """)
    case .file: files.append(spec.long)
    case .free, .none: free.append(spec.long)
    }
  }
  if !files.isEmpty {
    valueCases.append(
      """
                  \(files.map { "--\($0) | --\($0)=" }.joined(separator: " | ")))
                      compopt -o filenames 2>/dev/null || true
                      _handsh_add_lines "$(compgen -f -- "$cur")"
                      return 0
                      ;;
      """)
    attachedCases.append(
      """
                  \(files.map { "--\($0)=*" }.joined(separator: " | ")))
                      _handsh_add_lines "$(compgen -f -- "${cur#*=}")" "${cur%%=*}="
                      return 0
                      ;;
      """)
  }
  if !free.isEmpty {
    valueCases.append(
      """
                  \(free.map { "--\($0) | --\($0)=" }.joined(separator: " | ")))
                      return 0 # a text or a number: nothing to offer
                      ;;
      """)
    attachedCases.append(
      """
                  \(free.map { "--\($0)=*" }.joined(separator: " | ")))
                      return 0
                      ;;
      """)
  }
  return (valueCases, attachedCases)
}

/// `_handsh`: the option words, the values of the options, and after
/// them (or `--`) the SCRIPT operand.
private func bashCompleter(_ table: [OptionSpec]) -> String {
  let valued = table.filter { $0.value != nil }
  let longValued = valued.map { "--" + $0.long }.joined(separator: " | ")
  let (valueCases, attachedCases) = bashValueCases(valued)
  let names = table.flatMap { spec in
    (spec.short.map { ["-\($0)"] } ?? []) + ["--" + spec.long]
  }
  return """
    _handsh()
    {
        local cur prev i
        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=
        ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

        # With '=' in COMP_WORDBREAKS (bash's default), `--color=al` arrives as
        # the three words `--color`, `=` and `al`, and `--color=` as `--color`
        # and `=`, the current word.
        if [[ $cur == = ]]; then
            prev=$prev=
            cur=
        elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
            prev=${COMP_WORDS[COMP_CWORD - 2]}=
        fi

        # After `--` (not the value of an option), every word is the SCRIPT.
        local options_done=
        for ((i = 1; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
                --) options_done=1; break ;;
                \(longValued)) ((i++)) ;;
                -[!-]*) _handsh_wants_value "${COMP_WORDS[i]}" && ((i++)) ;;
            esac
        done

        if [[ -z $options_done ]]; then
            # A short option that takes a value, last in its group, is its
            # long option.
            [[ $prev == -[!-]* ]] && _handsh_wants_value "$prev" && prev=$(_handsh_long "$prev")
            case $prev in
    \(valueCases.joined(separator: "\n"))
            esac

            case $cur in
    \(attachedCases.joined(separator: "\n"))
                -*)
                    _handsh_add_words "\(names.joined(separator: " "))" "$cur" ""
                    return 0
                    ;;
            esac
        fi

        # SCRIPT: directories and .hand files.
        compopt -o filenames 2>/dev/null || true
        local name
        while IFS= read -r name; do
            COMPREPLY+=("$name")
        done < <(compgen -d -- "$cur")
        while IFS= read -r name; do
            [[ -d $name ]] || COMPREPLY+=("$name")
        done < <(compgen -f -X '!*.hand' -- "$cur")
        return 0
    }
    """
}

/// The shell functions `_handsh` calls: short option groups, their long
/// options, and adding words and lines to COMPREPLY.
private func bashHelpers(_ table: [OptionSpec]) -> String {
  let valued = table.filter { $0.value != nil }
  let shortValued = valued.compactMap(\.short).map(String.init).joined(separator: " | ")
  let shortFlags = table.filter { $0.value == nil }.compactMap(\.short).map(String.init)
    .joined(separator: " | ")
  return """
    # _handsh_wants_value WORD: is WORD a group of short options, such as -kql,
    # whose last letter is an option that takes its value from the next word?
    _handsh_wants_value()
    {
        local word=$1 k
        for ((k = 1; k < ${#word}; k++)); do
            case ${word:k:1} in
                \(shortValued)) ((k == ${#word} - 1)); return ;;
                \(shortFlags)) ;;
                *) return 1 ;;
            esac
        done
        return 1
    }

    # _handsh_long WORD: the long option of the last letter of WORD.
    _handsh_long()
    {
        case ${1: -1} in
    \(valued.compactMap { spec in spec.short.map { "        \($0)) echo --\(spec.long) ;;" } }.joined(separator: "\n"))
        esac
    }

    # _handsh_add_words WORDS CUR PREFIX: adds each of WORDS that starts with CUR
    # to COMPREPLY, with PREFIX in front.
    _handsh_add_words()
    {
        local word
        for word in $1; do
            [[ $word == "$2"* ]] && COMPREPLY+=("$3$word")
        done
        return 0
    }

    # _handsh_add_lines LINES PREFIX: adds each line of LINES to COMPREPLY,
    # with PREFIX in front.
    _handsh_add_lines()
    {
        local line
        while IFS= read -r line; do
            [[ -n $line ]] && COMPREPLY+=("${2-}$line")
        done <<<"$1"
        return 0
    }
    """
}

// MARK: - zsh

/// `text` inside single quotes in zsh, and inside `[...]` of `_arguments`.
private func zshDescription(_ text: String) -> String {
  text.replacingAll("'", with: "'\\''")
    .replacingAll("[", with: "\\[").replacingAll("]", with: "\\]")
}

private func zshCompletion(_ table: [OptionSpec]) -> String {
  var specs: [String] = []
  for spec in table {
    let names: [String]
    let long = "--" + spec.long + (spec.value == nil ? "" : "=")
    if let short = spec.short {
      names = ["-\(short)" + (spec.value == nil ? "" : "+"), long]
    } else {
      names = [long]
    }
    var excluded: [String] = []
    if spec.endsTheRun {
      excluded = ["-", "1"]
    } else if names.count > 1 {
      excluded = table.filter { $0.long == spec.long }.flatMap { other in
        (other.short.map { ["-\($0)"] } ?? []) + ["--" + other.long]
      }
      if spec.replacesScript { excluded.append("1") }
    } else if spec.replacesScript {
      excluded = ["--" + spec.long, "1"]
    }
    let exclusion = excluded.isEmpty ? "" : "'(\(excluded.joined(separator: " ")))'"
    // `{-s+,--seed=}'[...]'` for two names; `'--echo[...]'` for one.
    var line =
      names.count > 1
      ? exclusion + "{\(names.joined(separator: ","))}'[\(zshDescription(spec.help))]"
      : "'" + (excluded.isEmpty ? "" : "(\(excluded.joined(separator: " ")))") + names[0]
        + "[\(zshDescription(spec.help))]"
    switch spec.valueKind {
    case .none: break
    case .free: line += ":\(zshDescription(spec.value ?? "")): "
    case .file: line += ":\(zshDescription(spec.value ?? "")):_files"
    case .choice(let words):
      line += ":\(zshDescription(spec.value ?? "")):(\(words.joined(separator: " ")))"
    }
    specs.append(line + "'")
  }
  let replacing = table.filter(\.replacesScript).flatMap { spec in
    (spec.short.map { ["-\($0)"] } ?? []) + ["--" + spec.long]
  }
  let scriptExclusion = replacing.isEmpty ? "" : "(\(replacing.joined(separator: " ")))"
  specs.append(
    "'" + scriptExclusion + "1:script (a .hand file, or - for stdin):_files -g \"*.hand(-.)\"'")
  return """
    #compdef handsh
    #
    # zsh completion for handsh(1)
    #
    # Installed as share/zsh/site-functions/_handsh (Debian:
    # share/zsh/vendor-completions/_handsh); or put this file in a directory
    # of your $fpath before compinit runs.
    #
    # Completes the options; the words of an option that takes one of a few;
    # file names after an option that takes a FILE; nothing after an option
    # that takes a number or a text; and directories and .hand files for the
    # SCRIPT argument.
    #
    # \(generatedNote.replacingAll("\n", with: "\n# "))

    _arguments -s -S \\
    \(specs.map { "  " + $0 }.joined(separator: " \\\n"))

    """
}

// MARK: - fish

/// `text` in single quotes in fish.
private func fishQuoted(_ text: String) -> String {
  "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'")
    + "'"
}

private func fishCompletion(_ table: [OptionSpec]) -> String {
  var lines: [String] = []
  for spec in table {
    var line = "complete -c handsh"
    if let short = spec.short { line += " -s \(short)" }
    line += " -l \(spec.long)"
    switch spec.valueKind {
    case .none: break
    case .free: line += " -x"
    case .file: line += " -r -F"
    case .choice(let words): line += " -x -a " + fishQuoted(words.joined(separator: " "))
    }
    lines.append(line + " -d " + fishQuoted(spec.help))
  }
  return """
    # fish completion for handsh(1)
    #
    # Installed as share/fish/vendor_completions.d/handsh.fish; or copied to
    # ~/.config/fish/completions/handsh.fish.
    #
    # Completes the options, with their help; the words of an option that
    # takes one of a few; file names after an option that takes a FILE;
    # nothing after an option that takes a number or a text; and directories
    # and .hand files for the SCRIPT argument.
    #
    # \(generatedNote.replacingAll("\n", with: "\n# "))

    # SCRIPT: directories and .hand files, not every file.
    function __handsh_scripts
        set -l token (commandline -ct)
        for name in $token*
            if test -d $name
                echo $name/
            else if string match -q -- '*.hand' $name
                echo $name
            end
        end
    end
    complete -c handsh -f -a '(__handsh_scripts)'
    \(lines.joined(separator: "\n"))

    """
}

extension String {
  /// `self` with every `target` replaced by `replacement` (no Foundation).
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var result = ""
    var rest = Substring(self)
    while let first = rest.first {
      if rest.hasPrefix(target) {
        result += replacement
        rest = rest.dropFirst(target.count)
      } else {
        result.append(first)
        rest = rest.dropFirst()
      }
    }
    return result
  }
}
