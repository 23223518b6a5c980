// GNU readline for Swift. Swift 6 refuses readline's mutable globals as not
// concurrency-safe, so these small inline functions set and read them.
#ifndef HANDSH_CREADLINE_SHIM_H
#define HANDSH_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>

// Readline keeps the pointer, and a Swift string's is only valid during the
// call: keep a copy for the life of the process.
static inline void handsh_rl_set_name(const char *name) { rl_readline_name = strdup(name); }
static inline void handsh_rl_set_catch_signals(int on) {
  rl_catch_signals = on;
  rl_catch_sigwinch = on;
}
static inline void handsh_rl_set_completer(rl_completion_func_t *f) {
  rl_attempted_completion_function = f;
}
/// Stops readline from completing file names when ours finds nothing.
static inline void handsh_rl_completion_over(void) { rl_attempted_completion_over = 1; }
static inline const char *handsh_rl_line_buffer(void) { return rl_line_buffer; }

/// The newest line of the history list, or NULL when it is empty.
static inline const char *handsh_last_history_line(void) {
  HIST_ENTRY *entry = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
  return entry ? entry->line : NULL;
}

#endif
