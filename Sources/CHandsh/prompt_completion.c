// The prompt's answer to Tab (handsh(1), THE PROMPT): readline's completion
// hooks, asking the completer Swift gave, with readline's `Display all`
// question and its `--More--` pager waiting for their keys.
#define _GNU_SOURCE  // wcwidth
#include "prompt_internal.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <string.h>
#include <wchar.h>

#include <readline/readline.h>
#include <readline/tilde.h>

int prompt_asking = 0;

static struct {
  handsh_completer completer;
  void *context;
  /// What a list of matches shows for each (handsh_completion_labels).
  char **keys, **labels;
} completion;

/// Keeps `~` literal in file names, as `save` does: readline must never look
/// a user up (no name service in a static binary).
static char *keep_tilde(char *user) {
  size_t length = strlen(user);
  char *word = malloc(length + 2);
  if (word == NULL) return NULL;
  word[0] = '~';
  memcpy(word + 1, user, length + 1);
  return word;
}

/// A file name as a FILE word: in double quotes, with `\"` and `\\` for `"`
/// and `\` (handsh(1), COMMANDS); no opening quote when one was typed.
static char *quote_file(char *text, int match_type, char *quote) {
  (void)match_type;
  int open = quote != NULL && *quote == '"';
  size_t length = strlen(text);
  char *quoted = malloc(2 * length + 2);
  if (quoted == NULL) return strdup(text);
  char *p = quoted;
  if (!open) {
    *p++ = '"';
    if (quote != NULL) *quote = '"';
  }
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\') *p++ = '\\';
    *p++ = *c;
  }
  *p = '\0';
  return quoted;
}

static void free_matches(char **matches) {
  if (matches == NULL) return;
  for (char **match = matches; *match != NULL; match++) free(*match);
  free(matches);
}

static void forget_labels(void) {
  free_matches(completion.keys);
  free_matches(completion.labels);
  completion.keys = completion.labels = NULL;
}

void handsh_completion_labels(char **keys, char **labels) {
  forget_labels();
  completion.keys = keys;
  completion.labels = labels;
}

int prompt_text_width(const char *text, size_t count) {
  mbstate_t state;
  memset(&state, 0, sizeof state);
  int width = 0;
  size_t left = count;
  while (left > 0) {
    wchar_t wide;
    size_t length = mbrtowc(&wide, text, left, &state);
    if (length == (size_t)-1 || length == (size_t)-2) {
      memset(&state, 0, sizeof state);
      length = 1;
      width++;
    } else {
      if (length == 0) length = 1;
      int columns = wcwidth(wide);
      width += columns > 0 ? columns : 0;
    }
    text += length;
    left -= length;
  }
  return width;
}

/// Readline's `Display all N possibilities? (y or n)`: `y`, `Y` or a
/// space say yes; `n`, `N`, Delete, Control-G, the end of input or a
/// signal say no; any other key rings the bell. The answer is read, never
/// typed into the line.
static int ask_to_display(int count) {
  rl_crlf();
  fprintf(rl_outstream, "Display all %d possibilities? (y or n)", count);
  fflush(rl_outstream);
  for (;;) {
    int key = rl_read_key();
    if (key == 'y' || key == 'Y' || key == ' ') return 1;
    if (key == 'n' || key == 'N' || key == 0x7f) return 0;
    rl_ding();
  }
}

/// Lists the matches, by their labels when they have some (readline's own
/// layout and paging rules), then draws the prompt and the line again.
/// Readline's callback mode, which the prompt reads keys with, answers its
/// question and its `--More--` pager at once (yes) and lets the answer
/// into the line; here both wait for their key, as in readline's normal
/// mode: the question is asked here, and the pager's keys are read while
/// readline is told it is not in callback mode, just for the listing.
static void display_matches(char **matches, int count, int longest) {
  (void)longest;
  char **shown = calloc((size_t)count + 2, sizeof *shown);
  if (shown == NULL) return;
  shown[0] = matches[0];
  int widest = 0;
  for (int i = 1; i <= count; i++) {
    shown[i] = matches[i];
    for (size_t j = 0; completion.keys != NULL && completion.keys[j] != NULL; j++) {
      if (strcmp(completion.keys[j], matches[i]) == 0 && completion.labels[j] != NULL) {
        shown[i] = completion.labels[j];
        break;
      }
    }
    // Readline shows a file name by its last component.
    const char *slash = rl_filename_completion_desired ? strrchr(shown[i], '/') : NULL;
    const char *name = slash != NULL && slash[1] != '\0' ? slash + 1 : shown[i];
    int width = prompt_text_width(name, strlen(name));
    if (width > widest) widest = width;
  }
  prompt_asking = 1;
  int wanted = rl_completion_query_items <= 0 || count < rl_completion_query_items ||
               ask_to_display(count);
  if (wanted) {
    unsigned long callback = RL_ISSTATE(RL_STATE_CALLBACK);
    RL_UNSETSTATE(RL_STATE_CALLBACK);
    rl_display_match_list(shown, count, widest);
    if (callback) RL_SETSTATE(RL_STATE_CALLBACK);
  } else {
    rl_crlf();
  }
  prompt_asking = 0;
  free(shown);
  rl_forced_update_display();
}

/// Whether the character at `index` of `line` lies inside an open `"`
/// (a `\` there quoting the next character): readline then takes a word
/// break character there (`#`, `;`, a space) as part of the quoted file
/// name it completes, so `source "#` Tab offers `"#h.hand"`.
static int quoted_at(char *line, int index) {
  int quoted = 0;
  for (int i = 0; i < index && line[i] != '\0'; i++) {
    if (quoted && line[i] == '\\') {
      if (line[i + 1] != '\0') i++;
      continue;
    }
    if (line[i] == '"') quoted = !quoted;
  }
  return quoted;
}

static char **attempt_completion(const char *text, int start, int end) {
  (void)end;
  rl_attempted_completion_over = 1;  // never readline's own file names
  forget_labels();
  rl_completion_display_matches_hook = NULL;
  if (completion.completer == NULL || start < 0) return NULL;
  char *before = strndup(rl_line_buffer, (size_t)start);
  if (before == NULL) return NULL;
  int file_names = 0;
  char **matches = completion.completer(completion.context, before, text, &file_names);
  free(before);
  if (matches != NULL && file_names) {
    rl_filename_completion_desired = 1;
    rl_filename_quoting_desired = 1;
  }
  if (matches != NULL) rl_completion_display_matches_hook = display_matches;
  return matches;
}

void prompt_completion_begin(handsh_completer completer, void *context) {
  completion.completer = completer;
  completion.context = context;
  rl_attempted_completion_function = attempt_completion;
  rl_completer_word_break_characters = " \t;#";
  rl_completer_quote_characters = "\"";
  rl_char_is_quoted_p = quoted_at;
  rl_filename_quote_characters = " \t;#\"";
  rl_filename_quoting_function = quote_file;
  rl_sort_completion_matches = 0;  // the deck's order, not readline's
  tilde_additional_prefixes = NULL;
  tilde_expansion_preexpansion_hook = keep_tilde;
}

void prompt_completion_end(void) {
  forget_labels();
  rl_completion_display_matches_hook = NULL;
  completion.completer = NULL;
  completion.context = NULL;
}

int handsh_terminal_columns(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

int handsh_completion_ignores_case(void) {
  const char *value = rl_variable_value("completion-ignore-case");
  return value != NULL && strcmp(value, "on") == 0;
}

char **handsh_matches_new(size_t count) { return calloc(count + 1, sizeof(char *)); }

void handsh_matches_set(char **matches, size_t index, const char *text) {
  matches[index] = strdup(text);
}
