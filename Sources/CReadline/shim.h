// GNU readline for Swift: the headers, and small inline functions for what
// Swift 6 will not touch directly (readline's mutable globals). The prompt's
// loop and signal handling are C code of their own, in CHandsh.
#ifndef HANDSH_CREADLINE_SHIM_H
#define HANDSH_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>

/// The newest line of the history list, or NULL when it is empty.
static inline const char *handsh_last_history_line(void) {
  HIST_ENTRY *entry = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
  return entry ? entry->line : NULL;
}

#endif
