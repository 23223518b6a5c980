// The readline prompt's C side (handsh(1), THE PROMPT): readline's callback
// interface driven by ppoll(2) on the terminal, with the prompt's signals
// blocked except during that wait, so that every signal is handled between
// two keystrokes, with readline's state and the terminal's modes in order,
// and no file descriptor is needed to wait for them.
#ifndef HANDSH_PROMPT_H
#define HANDSH_PROMPT_H

#include <stddef.h>

/// Answers Tab: the NULL-terminated array readline wants (its first entry is
/// what replaces the typed word, then the candidates, each allocated with
/// malloc; see handsh_matches_new), or NULL for none. `before` is the line up
/// to the word being completed, `text` that word. Sets *file_names to 1 when
/// the candidates are file names (readline then quotes them and marks
/// folders).
typedef char *_Nullable *_Nullable (*handsh_completer)(
    void *_Nullable context, const char *_Nonnull before, const char *_Nonnull text,
    int *_Nonnull file_names);

/// Sets readline up for handsh and starts catching the signals the prompt
/// handles. The prompt is drawn on `out_fd` (1 or 2). `completer` receives
/// `context`, which handsh_prompt_end forgets.
void handsh_prompt_begin(
    const char *_Nonnull prompt, int out_fd, handsh_completer _Nullable completer,
    void *_Nullable context);

/// The prompt the next handsh_prompt_read shows, instead of the one given
/// to handsh_prompt_begin.
void handsh_prompt_change(const char *_Nonnull prompt);

/// When `on`, Control-C at the prompt ends the reading as a signal that
/// ends handsh does (handsh_read_signal, SIGINT), after `^C` and no line
/// break (the shell writes one when a job dies by SIGINT), instead of
/// dropping the line typed: for a question that Control-C abandons, as
/// `--review`'s.
void handsh_prompt_interrupt_ends(int on);

/// Answers what the line typed so far would do, for the row under it: a
/// string allocated with malloc (the caller frees it), or NULL for nothing.
typedef char *_Nullable (*handsh_previewer)(void *_Nullable context, const char *_Nonnull line);

/// Shows, under the line being typed, what `previewer` says after each key
/// (dimmed when `dim`); call after handsh_prompt_begin, which turns it off.
void handsh_prompt_preview(handsh_previewer _Nullable previewer, void *_Nullable context, int dim);

/// Puts back the signal dispositions handsh_prompt_begin found, and forgets
/// the completer and its context.
void handsh_prompt_end(void);

typedef enum {
  /// A line was entered: `line` (malloc'd; the caller frees it).
  handsh_read_line,
  /// Control-D on an empty line, or the end of the input: one line break
  /// has been written.
  handsh_read_end,
  /// SIGQUIT, SIGTERM or SIGHUP (and SIGINT after
  /// handsh_prompt_interrupt_ends): the terminal is restored and the cursor
  /// is on a fresh line; handsh must now end by `signal`.
  handsh_read_signal,
} handsh_read_kind;

typedef struct {
  handsh_read_kind kind;
  char *_Nullable line;
  int signal;
} handsh_read_result;

/// Shows the prompt and reads one line, handling Control-C, Control-Z and
/// the resume after it, and window size changes on the way. The prompt's
/// signals are blocked while it reads, except while it waits for a key:
/// one that came while the line's commands ran is handled first.
handsh_read_result handsh_prompt_read(void);

/// Around the commands of each line read: while they run, the prompt's
/// signals interrupt a blocked open(2) or write(2) (EINTR), Control-C is
/// kept for handsh_prompt_interrupted instead of the next prompt, and
/// Control-Z stops handsh at once.
void handsh_prompt_run_begin(void);
void handsh_prompt_run_end(void);

/// `^C` or `^\` when Control-C or Control-\ came while commands ran and the
/// terminal did not echo it (it echoes nothing then, so that its echo never
/// lands inside a line of results): for handsh to write at the start of a
/// line, once. NULL otherwise.
const char *_Nullable handsh_prompt_take_echo(void);

/// Whether, while commands run, Control-C came or a signal that ends handsh:
/// a write that returned EINTR then gives up (`Interrupted system call`);
/// otherwise it goes on.
int handsh_prompt_interrupted(void);

/// SIGQUIT, SIGTERM or SIGHUP that came while commands ran (0: none):
/// handsh must end by it once the command is over.
int handsh_prompt_ending(void);

/// SIGQUIT, SIGTERM or SIGHUP, if one came at any time of the session
/// (also after the last line was read, while the session ended): the
/// session ends by it.
int handsh_prompt_fatal(void);

/// Sets LC_CTYPE to a UTF-8 locale when the environment's is not one
/// (LC_ALL=C, LANG unset), as Python does (PEP 538); the other categories
/// follow the environment. Call before the prompt's first line.
void handsh_use_utf8_locale(void);

/// The columns of the terminal on `fd`, or 0 when it is none or does not say.
int handsh_terminal_columns(int fd);

/// Whether the inputrc asks completion to ignore case
/// (`set completion-ignore-case on`).
int handsh_completion_ignores_case(void);

/// For the completion being answered: what a list of the matches shows
/// for each (`labels[i]` for the match `keys[i]`), instead of the match.
/// Takes both arrays (from handsh_matches_new) and frees them.
void handsh_completion_labels(
    char *_Nullable *_Nonnull keys, char *_Nullable *_Nonnull labels);

/// An array for `count` matches and the NULL after them, all NULL for now.
char *_Nullable *_Nullable handsh_matches_new(size_t count);
/// Stores a copy of `text` at `index` of an array from handsh_matches_new.
void handsh_matches_set(char *_Nullable *_Nonnull matches, size_t index, const char *_Nonnull text);

#endif
