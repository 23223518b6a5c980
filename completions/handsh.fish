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
# Generated from the option table (Sources/HandKit/Options/Options.swift) by
# scripts/update-snapshots: do not edit by hand.

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
complete -c handsh -s c -l command -x -d 'run TEXT (commands separated by ; or new lines) instead of a script'
complete -c handsh -s s -l seed -x -d 'seed of the first game (0-18446744073709551615)'
complete -c handsh -s l -l limit -x -d 'the most cards a hand can hold, 1-52 (default 5)'
complete -c handsh -s k -l keep-going -d 'after a failed command, go on with the next; exit 1 at the end'
complete -c handsh -s n -l check -d 'only check the syntax; run nothing'
complete -c handsh -s q -l quiet -d 'no hand line after each change (and no banner)'
complete -c handsh -s i -l interactive -d 'after the script or -c, go on at the prompt'
complete -c handsh -l echo -d 'echo each command before it runs'
complete -c handsh -l json -d 'JSON lines instead of hand lines'
complete -c handsh -l ascii -d 'card suits as letters (QH, not Q♥)'
complete -c handsh -l color -x -a 'auto always never' -d 'colour red cards: auto (default), always or never'
complete -c handsh -l no-preview -d 'at the prompt: no preview of what Enter will do'
complete -c handsh -l test -d 'run the PATHs as golden tests'
complete -c handsh -l update -d 'with --test: rewrite failing tests to pass'
complete -c handsh -l review -d 'with --test: ask about each differing block, then rewrite'
complete -c handsh -s j -l jobs -x -d 'with --test: run N files at once (default: CPUs)'
complete -c handsh -l tap -d 'with --test: report in TAP version 13'
complete -c handsh -l junit -r -F -d 'with --test: also write JUnit XML to FILE'
complete -c handsh -l shard -x -d 'with --test: run only part K of N of the files'
complete -c handsh -l timeout -x -d 'with --test: stop a file that runs longer, as an error'
complete -c handsh -l record -r -F -d 'at the prompt: write the session to FILE as a golden test'
complete -c handsh -l journal -r -F -d 'keep every version in FILE, and resume from it'
complete -c handsh -l lsp -d 'serve the language server protocol on stdin and stdout'
complete -c handsh -s h -l help -d 'print this help and exit'
complete -c handsh -s V -l version -d 'print the version and exit'
complete -c handsh -l completion-script -x -a 'bash zsh fish' -d 'print the completion script for SHELL (bash, zsh or fish) and exit'
