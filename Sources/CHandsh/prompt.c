// The readline prompt's C side; see handsh_prompt.h and handsh(1), THE PROMPT.
//
// Signals are caught by one handler that writes the signal's number to a
// self-pipe; the read loop polls the terminal and that pipe, and handles a
// signal between two keystrokes, where readline's state is whole. Readline
// itself catches nothing (rl_catch_signals = 0).
#include "handsh_prompt.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/readline.h>
#include <readline/history.h>
#include <readline/tilde.h>

static const int caught[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH};
enum { caught_count = sizeof caught / sizeof caught[0] };

// What the signal handler touches, and nothing else.
static volatile sig_atomic_t wake_fd = -1;
static volatile sig_atomic_t continues = 0;

// The prompt session, from handsh_prompt_begin to handsh_prompt_end.
static struct {
  int pipe[2];
  struct sigaction previous[caught_count];
  FILE *out;
  char *prompt;
  handsh_completer completer;
  void *context;
  /// The line handler was called (line: its line, NULL at the end of input).
  int done;
  char *line;
  /// The line handler is installed: the prompt is on screen.
  int reading;
  /// How the terminal was last set up: the meta flag, and whether
  /// readline turned bracketed paste on (it then writes its own line break
  /// at the end of input).
  int meta;
  int pasting;
  /// The SIGCONTs already answered.
  sig_atomic_t continues_seen;
} session = {.pipe = {-1, -1}};

static void on_signal(int number) {
  int saved = errno;
  if (number == SIGCONT) continues++;
  unsigned char byte = (unsigned char)number;
  if (wake_fd >= 0) {
    ssize_t ignored = write(wake_fd, &byte, 1);
    (void)ignored;
  }
  errno = saved;
}

static void prep_terminal(int meta) {
  session.meta = meta;
  rl_prep_terminal(meta);
  const char *paste = rl_variable_value("enable-bracketed-paste");
  session.pasting = paste != NULL && strcmp(paste, "on") == 0;
}

static void on_line(char *line) {
  session.done = 1;
  session.line = line;
  // Removing the handler here keeps readline from showing the next prompt
  // before the line has run.
  rl_callback_handler_remove();
  session.reading = 0;
}

static void show_prompt(void) {
  rl_callback_handler_install(session.prompt, on_line);
  session.reading = 1;
}

static void write_out(const char *text) {
  fputs(text, session.out);
  fflush(session.out);
}

/// Puts the cursor after the last character typed, so that what follows
/// does not overwrite the line.
static void go_to_end(void) {
  rl_point = rl_end;
  rl_redisplay();
}

// MARK: Signals

/// Control-C: `^C` after the typed text, then a fresh prompt on the next
/// line; the text is dropped (it goes neither to the history nor anywhere).
static void interrupt(void) {
  if (!session.reading) return;
  rl_callback_sigcleanup();  // leaves a search or a numeric argument
  go_to_end();
  write_out("^C");
  rl_free_line_state();
  rl_callback_handler_remove();
  session.reading = 0;
  rl_replace_line("", 0);
  write_out("\n");
  show_prompt();
}

/// Whether handsh's process group owns the terminal. Setting the terminal
/// up from the background stops handsh again (SIGTTOU): `kill %1` sends
/// SIGTERM then SIGCONT to a stopped job, and the SIGTERM must be answered.
static int in_foreground(void) {
  pid_t owner = tcgetpgrp(fileno(rl_instream != NULL ? rl_instream : stdin));
  return owner == -1 || owner == getpgrp();
}

/// Sets the terminal up again and redraws the prompt and the typed text,
/// with the cursor where it was: after `fg` (the shell has put the terminal
/// back as it likes it), or after any SIGCONT that leaves handsh in the
/// foreground (one in the background waits for the SIGCONT of `fg`).
static void resume(void) {
  if (!session.reading || !in_foreground()) return;
  if (RL_ISSTATE(RL_STATE_TERMPREPPED)) rl_deprep_terminal();
  prep_terminal(session.meta);
  rl_reset_screen_size();
  write_out("\r");
  rl_forced_update_display();
}

/// Control-Z: restore the terminal for the shell, stop, and resume.
static void stop(void) {
  int point = rl_point;
  if (session.reading) {
    go_to_end();
    write_out("^Z");
    rl_cleanup_after_signal();  // the terminal as the shell left it
    // A line break, so that the shell's notice (dash writes none first)
    // does not overwrite the line; it is redrawn after `fg`.
    write_out("\n");
  }
  struct sigaction ours, fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGTSTP, &fallback, &ours);
  // Stops here until SIGCONT (unless the process group is orphaned: the
  // kernel then discards the signal, and handsh goes on at once).
  kill(getpid(), SIGTSTP);
  sigaction(SIGTSTP, &ours, NULL);
  session.continues_seen = continues;
  rl_point = point;
  resume();
}

/// SIGQUIT, SIGTERM, SIGHUP: the terminal restored, on a fresh line, before
/// handsh ends by the signal. Also on an empty line: readline's last word to
/// the terminal is a carriage return, and the shell's `Terminated` would
/// overwrite the prompt.
static void leave(void) {
  if (!session.reading) return;
  if (rl_end > 0) go_to_end();
  rl_callback_sigcleanup();
  rl_callback_handler_remove();
  session.reading = 0;
  write_out("\n");
}

/// Handles the signals that arrived; returns one that must end handsh, or 0.
static int handle_signals(void) {
  unsigned char byte;
  while (session.pipe[0] >= 0 && read(session.pipe[0], &byte, 1) == 1) {
    switch (byte) {
    case SIGINT: interrupt(); break;
    case SIGWINCH:
      if (session.reading) rl_resize_terminal();
      break;
    case SIGTSTP: stop(); break;
    case SIGCONT:
      // The SIGCONT that ends a stop of our own is answered in stop().
      if (session.continues_seen != continues) {
        session.continues_seen = continues;
        resume();
      }
      break;
    default: leave(); return byte;
    }
  }
  return 0;
}

// MARK: Completion

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

static char **attempt_completion(const char *text, int start, int end) {
  (void)end;
  rl_attempted_completion_over = 1;  // never readline's own file names
  if (session.completer == NULL || start < 0) return NULL;
  char *before = strndup(rl_line_buffer, (size_t)start);
  if (before == NULL) return NULL;
  int file_names = 0;
  char **matches = session.completer(session.context, before, text, &file_names);
  free(before);
  if (matches != NULL && file_names) {
    rl_filename_completion_desired = 1;
    rl_filename_quoting_desired = 1;
  }
  return matches;
}

int handsh_completion_ignores_case(void) {
  const char *value = rl_variable_value("completion-ignore-case");
  return value != NULL && strcmp(value, "on") == 0;
}

char **handsh_matches_new(size_t count) { return calloc(count + 1, sizeof(char *)); }

void handsh_matches_set(char **matches, size_t index, const char *text) {
  matches[index] = strdup(text);
}

// MARK: The session

void handsh_prompt_begin(
    const char *prompt, int out_fd, handsh_completer completer, void *context) {
  session.out = out_fd == 2 ? stderr : stdout;
  session.prompt = strdup(prompt);
  session.completer = completer;
  session.context = context;
  session.reading = 0;
  // Readline finds ~/.inputrc through $HOME, or through the password
  // database when HOME is unset or empty: never look a user up (there is no
  // name service in a static binary); the system's file it is.
  const char *home = getenv("HOME"), *inputrc = getenv("INPUTRC");
  if ((home == NULL || *home == '\0') && (inputrc == NULL || *inputrc == '\0'))
    setenv("INPUTRC", "/etc/inputrc", 1);
  rl_instream = stdin;
  rl_outstream = session.out;
  rl_readline_name = "handsh";  // for `$if handsh` in an inputrc
  rl_catch_signals = 0;
  rl_catch_sigwinch = 0;
  rl_prep_term_function = prep_terminal;
  rl_attempted_completion_function = attempt_completion;
  rl_completer_word_break_characters = " \t;#";
  rl_completer_quote_characters = "\"";
  rl_filename_quote_characters = " \t;#\"";
  rl_filename_quoting_function = quote_file;
  rl_sort_completion_matches = 0;  // the deck's order, not readline's
  tilde_additional_prefixes = NULL;
  tilde_expansion_preexpansion_hook = keep_tilde;

  if (pipe(session.pipe) == 0) {
    for (int i = 0; i < 2; i++) {
      fcntl(session.pipe[i], F_SETFL, fcntl(session.pipe[i], F_GETFL) | O_NONBLOCK);
      fcntl(session.pipe[i], F_SETFD, FD_CLOEXEC);
    }
    wake_fd = session.pipe[1];
  } else {
    session.pipe[0] = session.pipe[1] = -1;
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < caught_count; i++) {
    sigaction(caught[i], &action, &session.previous[i]);
    // A signal the parent set to be ignored (nohup) stays ignored.
    if (session.previous[i].sa_handler == SIG_IGN && caught[i] != SIGCONT &&
        caught[i] != SIGWINCH)
      sigaction(caught[i], &session.previous[i], NULL);
  }
  session.continues_seen = continues;
}

void handsh_prompt_end(void) {
  if (session.reading) {
    rl_callback_handler_remove();
    session.reading = 0;
  }
  for (int i = 0; i < caught_count; i++) sigaction(caught[i], &session.previous[i], NULL);
  wake_fd = -1;
  for (int i = 0; i < 2; i++) {
    if (session.pipe[i] >= 0) close(session.pipe[i]);
    session.pipe[i] = -1;
  }
  free(session.prompt);
  session.prompt = NULL;
  session.completer = NULL;
  session.context = NULL;
}

handsh_read_result handsh_prompt_read(void) {
  handsh_read_result result = {handsh_read_end, NULL, 0};
  session.done = 0;
  session.line = NULL;
  show_prompt();
  while (!session.done) {
    struct pollfd fds[2] = {{0, POLLIN, 0}, {session.pipe[0], POLLIN, 0}};
    int ready = poll(fds, session.pipe[0] >= 0 ? 2 : 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      int fatal = handle_signals();
      if (fatal) {
        result.kind = handsh_read_signal;
        result.signal = fatal;
        return result;
      }
      continue;  // the terminal may have changed while stopped: poll again
    }
    if (fds[0].revents & POLLNVAL) break;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      // Readline rings its bell on stderr; while it reads, that is the
      // terminal the prompt is drawn on, never a redirected stderr.
      FILE *diagnostics = stderr;
      stderr = session.out;
      rl_callback_read_char();
      stderr = diagnostics;
    }
  }
  if (session.reading) {
    rl_callback_handler_remove();
    session.reading = 0;
  }
  if (session.done && session.line != NULL) {
    result.kind = handsh_read_line;
    result.line = session.line;
    return result;
  }
  // The end of input: readline wrote a line break itself if it had
  // bracketed paste on; otherwise this is the one.
  if (!session.pasting) write_out("\n");
  return result;
}

_Noreturn void handsh_die_by_signal(int number) {
  signal(number, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, number);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(number);
  _exit(128 + number);
}

static int locale_is_utf8(void) {
  const char *codeset = nl_langinfo(CODESET);
  return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

void handsh_use_utf8_locale(void) {
  setlocale(LC_ALL, "");
  if (locale_is_utf8()) return;
  static const char *const fallbacks[] = {"C.UTF-8", "C.utf8", "UTF-8"};
  for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++) {
    if (setlocale(LC_CTYPE, fallbacks[i]) != NULL && locale_is_utf8()) {
      // Readline sets LC_CTYPE again from the environment each time it
      // starts a line (LC_ALL first), so the environment must say it too.
      // The other categories keep what LC_ALL gave them above.
      setenv("LC_CTYPE", fallbacks[i], 1);
      unsetenv("LC_ALL");
      return;
    }
  }
  setlocale(LC_CTYPE, "");
}
