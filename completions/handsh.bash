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
# Generated from the option table (Sources/HandKit/Options/Options.swift) by
# scripts/update-snapshots: do not edit by hand.

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
            --command | --seed | --limit | --color | --jobs | --junit | --shard | --timeout | --record | --journal | --completion-script) ((i++)) ;;
            -[!-]*) _handsh_wants_value "${COMP_WORDS[i]}" && ((i++)) ;;
        esac
    done

    if [[ -z $options_done ]]; then
        # A short option that takes a value, last in its group, is its
        # long option.
        [[ $prev == -[!-]* ]] && _handsh_wants_value "$prev" && prev=$(_handsh_long "$prev")
        case $prev in
            --color | --color=)
                _handsh_add_words "auto always never" "$cur" ""
                return 0
                ;;
            --completion-script | --completion-script=)
                _handsh_add_words "bash zsh fish" "$cur" ""
                return 0
                ;;
            --junit | --junit= | --record | --record= | --journal | --journal=)
                compopt -o filenames 2>/dev/null || true
                _handsh_add_lines "$(compgen -f -- "$cur")"
                return 0
                ;;
            --command | --command= | --seed | --seed= | --limit | --limit= | --jobs | --jobs= | --shard | --shard= | --timeout | --timeout=)
                return 0 # a text or a number: nothing to offer
                ;;
        esac

        case $cur in
            --color=*)
                # `--color=WORD` as one word, when '=' is not a word break
                _handsh_add_words "auto always never" "${cur#--color=}" "--color="
                return 0
                ;;
            --completion-script=*)
                # `--completion-script=WORD` as one word, when '=' is not a word break
                _handsh_add_words "bash zsh fish" "${cur#--completion-script=}" "--completion-script="
                return 0
                ;;
            --junit=* | --record=* | --journal=*)
                _handsh_add_lines "$(compgen -f -- "${cur#*=}")" "${cur%%=*}="
                return 0
                ;;
            --command=* | --seed=* | --limit=* | --jobs=* | --shard=* | --timeout=*)
                return 0
                ;;
            -*)
                _handsh_add_words "-c --command -s --seed -l --limit -k --keep-going -n --check -q --quiet -i --interactive --echo --json --ascii --color --no-preview --test --update --review -j --jobs --tap --junit --shard --timeout --record --journal --lsp -h --help -V --version --completion-script" "$cur" ""
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

# _handsh_wants_value WORD: is WORD a group of short options, such as -kql,
# whose last letter is an option that takes its value from the next word?
_handsh_wants_value()
{
    local word=$1 k
    for ((k = 1; k < ${#word}; k++)); do
        case ${word:k:1} in
            c | s | l | j) ((k == ${#word} - 1)); return ;;
            k | n | q | i | h | V) ;;
            *) return 1 ;;
        esac
    done
    return 1
}

# _handsh_long WORD: the long option of the last letter of WORD.
_handsh_long()
{
    case ${1: -1} in
        c) echo --command ;;
        s) echo --seed ;;
        l) echo --limit ;;
        j) echo --jobs ;;
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

complete -F _handsh handsh
