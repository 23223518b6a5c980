// The readline prompt's C side; see handsh_prompt.h and handsh(1), THE PROMPT.
//
// Signals are caught by one handler that only notes which came. While a
// line is read, the caught signals are blocked, and let in only while the
// read loop waits for the terminal (ppoll(2) with a mask that lets them
// in), so each is handled between two keystrokes, where readline's state is
// whole, and waiting for them needs no file descriptor: with none to spare
// (a full descriptor table), Control-C and the signals that end handsh act
// as always. Readline itself catches nothing (rl_catch_signals = 0). The
// terminal is never read nor set up from the background. While a line's
// commands run (handsh_prompt_run_begin), nothing is blocked: Control-C and
// the signals that end handsh interrupt a blocked open or write instead of
// waiting for the next key.
#define _GNU_SOURCE
#include "handsh_signals.h"
#include "prompt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <readline/readline.h>
#include <readline/history.h>

static const int caught[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH};
enum { caught_count = sizeof caught / sizeof caught[0] };

// What the signal handler touches, and nothing else.
static volatile sig_atomic_t continues = 0;
/// A line's commands are running (between two reads of the prompt).
static volatile sig_atomic_t running = 0;
/// While they run: Control-C came, or a signal that ends handsh (its number).
static volatile sig_atomic_t interrupted = 0;
/// While they run: the key (SIGINT or SIGQUIT) whose echo the terminal did
/// not write, for handsh to write at a line's start (handsh_prompt_take_echo).
static volatile sig_atomic_t unechoed = 0;
static volatile sig_atomic_t ending = 0;
/// A signal that ends handsh came (at any time): for read_key.
static volatile sig_atomic_t fatal_seen = 0;
/// The terminal the prompt is drawn on.
static volatile sig_atomic_t screen_fd = -1;
/// Which of `caught` came since the read loop last looked.
static volatile sig_atomic_t arrived[caught_count];

// The prompt session, from handsh_prompt_begin to handsh_prompt_end.
static struct {
  struct sigaction previous[caught_count];
  FILE *out;
  char *prompt;
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
  /// The terminal must be set up again and the prompt redrawn once handsh
  /// is in the foreground (after a stop, or a SIGCONT in the background).
  int stale;
  /// Which of `caught` are handsh's (not left ignored, as nohup asks).
  int ours[caught_count];
  struct sigaction previous_pipe;
  /// Control-C ends the reading (handsh_prompt_interrupt_ends).
  int interrupt_ends;
  /// The caught signals that are handsh's: blocked while a line is read.
  sigset_t held;
  /// The mask the read loop waits with: the one it found before blocking
  /// `held`.
  sigset_t waiting;
} session;

static void on_signal(int number, siginfo_t *info, void *unused) {
  (void)unused;
  int saved = errno;
  if (number == SIGCONT) continues++;
  if (number == SIGQUIT || number == SIGTERM || number == SIGHUP) fatal_seen = number;
  if (running && number == SIGTSTP) {
    prompt_running_stop();
    errno = saved;
    return;
  }
  if (running) {
    // The terminal echoed `^C` or `^\` (the shell's mode, while commands
    // run): what follows starts on a line of its own.
    // It does not while results may be written (prompt_running.c): then
    // handsh writes it, once the results stop at a line's end.
    struct termios modes;
    if ((number == SIGINT || number == SIGQUIT) && screen_fd >= 0 &&
        tcgetattr(screen_fd, &modes) == 0) {
      if ((modes.c_lflag & ECHO) && (modes.c_lflag & ECHOCTL)) {
        ssize_t ignored = write(screen_fd, "\n", 1);
        (void)ignored;
      } else if (!(modes.c_lflag & ECHO) && info != NULL && info->si_code == SI_KERNEL) {
        // Typed (the terminal sent it), not sent by kill(1). The keys typed
        // before it go, as the terminal drops them when it may (NOFLSH off).
        unechoed = number;
        tcflush(screen_fd, TCIFLUSH);
      }
    }
    // Said to the command that runs, through EINTR (handsh_prompt_interrupted);
    // Control-C has then done its work, and is not answered at the prompt.
    if (number == SIGINT) {
      interrupted = 1;
      errno = saved;
      return;
    }
    if (number == SIGQUIT || number == SIGTERM || number == SIGHUP) ending = number;
  }
  // The read loop looks at `arrived` before each wait, and the wait ends
  // (EINTR) when one comes during it.
  for (int i = 0; i < caught_count; i++) {
    if (caught[i] == number) arrived[i] = 1;
  }
  errno = saved;
}

static int in_foreground(void);

/// Readline's setup of the terminal, which also takes the terminal's
/// settings as the ones to put back (and whether to echo at all). Never
/// from the background: started with `&`, handsh would take the shell's
/// own editing mode (no echo) for the terminal's, and keep it after `fg`.
/// The read loop sets the terminal up once handsh is in the foreground.
static void prep_terminal(int meta) {
  session.meta = meta;
  if (!in_foreground()) {
    session.stale = 1;
    return;
  }
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
  prompt_preview_erase();
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
/// up from the background stops handsh again (SIGTTOU), and reading it stops
/// handsh inside read(2) (SIGTTIN), to resume there after `fg` with the
/// terminal in the shell's mode: neither is ever done from the background.
static int in_foreground(void) {
  pid_t owner = tcgetpgrp(fileno(rl_instream != NULL ? rl_instream : stdin));
  return owner == -1 || owner == getpgrp();
}

/// Sets the terminal up again and redraws the prompt and the typed text,
/// with the cursor where it was: after `fg` (the shell has put the terminal
/// back as it likes it), or after any SIGCONT, once handsh is in the
/// foreground.
static void resume(void) {
  session.stale = 0;
  if (!session.reading) return;
  if (RL_ISSTATE(RL_STATE_TERMPREPPED)) rl_deprep_terminal();
  prep_terminal(session.meta);
  rl_reset_screen_size();
  write_out("\r");
  rl_forced_update_display();
  prompt_preview_forget();
  prompt_preview_draw();
}

/// Control-Z: restore the terminal for the shell, stop, and resume.
static void stop(void) {
  int point = rl_point;
  // From the background (`kill -TSTP`), the terminal is not handsh's to
  // draw on or set up: it is as the shell left it already.
  if (session.reading && in_foreground()) {
    prompt_preview_erase();
    go_to_end();
    // As readline's own handler does: `^Z`, and no line break, which the
    // shell writes itself before its notice (bash's `[1]+  Stopped`).
    write_out("^Z");
    rl_cleanup_after_signal();  // the terminal as the shell left it
  }
  // Stops here until SIGCONT.
  prompt_stop_now();
  session.continues_seen = continues;
  rl_point = point;
  // `bg` continues handsh in the background: the redraw waits for `fg`.
  session.stale = 1;
}

/// SIGQUIT, SIGTERM, SIGHUP: the terminal restored, on a fresh line, before
/// handsh ends by the signal. Also on an empty line: readline's last word to
/// the terminal is a carriage return, and the shell's `Terminated` would
/// overwrite the prompt.
static void leave(void) {
  if (!session.reading) return;
  prompt_preview_erase();
  if (rl_end > 0) go_to_end();
  rl_callback_sigcleanup();
  rl_callback_handler_remove();
  session.reading = 0;
  write_out("\n");
}

/// Whether a caught signal arrived that the read loop has not handled.
static int signals_arrived(void) {
  for (int i = 0; i < caught_count; i++) {
    if (arrived[i]) return 1;
  }
  return 0;
}

/// Handles the signals that arrived; returns one that must end handsh, or 0.
static int handle_signals(void) {
  for (int i = 0; i < caught_count; i++) {
    if (!arrived[i]) continue;
    arrived[i] = 0;
    switch (caught[i]) {
    case SIGINT:
      if (!session.interrupt_ends) {
        interrupt();
        break;
      }
      // As the terminal shows it in its own mode: `^C` after the text, and
      // no line break, which the shell writes when a job dies by SIGINT.
      if (session.reading) {
        prompt_preview_erase();
        go_to_end();
        write_out("^C");
        rl_callback_sigcleanup();
        rl_callback_handler_remove();
        session.reading = 0;
      }
      return caught[i];
    case SIGWINCH:
      if (session.reading) {
        prompt_preview_erase();
        rl_resize_terminal();
        prompt_preview_draw();
      }
      break;
    case SIGTSTP: stop(); break;
    case SIGCONT:
      // The SIGCONT that ends a stop of our own is answered in stop().
      if (session.continues_seen != continues) {
        session.continues_seen = continues;
        session.stale = 1;
      }
      break;
    default: leave(); return caught[i];
    }
  }
  return 0;
}

// MARK: Questions

/// Whether a signal came that ends the question (Control-C, Control-Z, or
/// one that ends handsh); a resize or a SIGCONT does not.
static int question_interrupted(void) {
  for (int i = 0; i < caught_count; i++) {
    if (arrived[i] && caught[i] != SIGWINCH && caught[i] != SIGCONT) return 1;
  }
  return fatal_seen != 0;
}

// MARK: The session

/// Catches `caught` (those that are handsh's) with `on_signal`. While a
/// line's commands run, the keys and signals that end or interrupt go
/// without SA_RESTART, so that a blocked open(2) or write(2) returns EINTR
/// and Control-C, SIGTERM and SIGHUP never wait on it; a resize or a
/// SIGCONT still restarts what it interrupts. Control-Z then stops handsh
/// at once, from its handler, with the terminal put back as the shell left
/// it (prompt_running_stop), and restarts what it interrupted.
static void catch_signals(int restart) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART | SA_SIGINFO;
  struct sigaction interrupting = action;
  interrupting.sa_flags = SA_SIGINFO | (restart ? SA_RESTART : 0);
  for (int i = 0; i < caught_count; i++) {
    if (!session.ours[i]) continue;
    int number = caught[i];
    if (number == SIGCONT || number == SIGWINCH || number == SIGTSTP)
      sigaction(number, &action, NULL);
    else
      sigaction(number, &interrupting, NULL);
  }
}

/// The key readline reads next: never read from the background. Between
/// the poll and this read handsh may have gone there; it then waits for the
/// terminal (the redraw follows the key), or gives up on a signal. The wait
/// lets the held signals in, as the read loop's does.
static int read_key(FILE *stream) {
  while (!in_foreground()) {
    session.stale = 1;
    // EOF ends no line that holds text (readline takes it for Control-D);
    // the read loop then answers the signal.
    if (fatal_seen) return prompt_asking ? 'n' : EOF;
    if (prompt_asking && question_interrupted()) return 'n';
    struct timespec tenth = {0, 100000000};
    ppoll(NULL, 0, &tenth, &session.waiting);
  }
  if (!prompt_asking) return rl_getc(stream);
  // A question waits for its key with the held signals let in, as the
  // read loop does, and a signal answers `n`: the read loop then handles
  // it (Control-C drops the line). No key ever makes readline abandon the
  // listing by a jump (Control-G, the end of input): `n` too.
  for (;;) {
    if (question_interrupted()) return 'n';
    struct pollfd fds[1] = {{fileno(stream), POLLIN, 0}};
    int ready = ppoll(fds, 1, NULL, &session.waiting);
    if (ready > 0 || (ready < 0 && errno != EINTR)) break;
  }
  if (question_interrupted()) return 'n';
  int key = rl_getc(stream);
  return key < 0 || key == ('G' & 0x1f) ? 'n' : key;
}

void handsh_prompt_begin(
    const char *prompt, int out_fd, handsh_completer completer, void *context) {
  session.out = out_fd == 2 ? stderr : stdout;
  screen_fd = out_fd;
  session.prompt = strdup(prompt);
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
  rl_getc_function = read_key;
  prompt_completion_begin(completer, context);
  prompt_preview_end();
  prompt_preview_begin(session.out);

  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (int i = 0; i < caught_count; i++) {
    sigaction(caught[i], NULL, &session.previous[i]);
    // A signal the parent set to be ignored (nohup) stays ignored.
    session.ours[i] = session.previous[i].sa_handler != SIG_IGN || caught[i] == SIGCONT ||
                      caught[i] == SIGWINCH;
  }
  sigemptyset(&session.held);
  for (int i = 0; i < caught_count; i++) {
    if (session.ours[i]) sigaddset(&session.held, caught[i]);
  }
  pthread_sigmask(SIG_BLOCK, NULL, &session.waiting);
  catch_signals(1);
  // A closed stdout is a failed write (EPIPE) that the prompt answers,
  // never a death by SIGPIPE (handsh(1), THE PROMPT).
  sigaction(SIGPIPE, &ignore, &session.previous_pipe);
  session.continues_seen = continues;
  session.stale = 0;
  running = interrupted = ending = fatal_seen = 0;
  for (int i = 0; i < caught_count; i++) arrived[i] = 0;
}

void handsh_prompt_change(const char *prompt) {
  char *copy = strdup(prompt);
  if (copy == NULL) return;
  free(session.prompt);
  session.prompt = copy;
}

void handsh_prompt_interrupt_ends(int on) { session.interrupt_ends = on; }

void handsh_prompt_end(void) {
  prompt_preview_erase();
  prompt_preview_end();
  if (session.reading) {
    rl_callback_handler_remove();
    session.reading = 0;
  }
  for (int i = 0; i < caught_count; i++) sigaction(caught[i], &session.previous[i], NULL);
  sigaction(SIGPIPE, &session.previous_pipe, NULL);
  running = 0;
  screen_fd = -1;
  prompt_completion_end();
  free(session.prompt);
  session.prompt = NULL;
  session.interrupt_ends = 0;
}

/// The read loop ended with no line: a signal that made read_key give up,
/// or one held while the last key was read (let in now, without a wait),
/// and not the end of input; else the end of input.
static handsh_read_result read_ended(void) {
  handsh_read_result result = {handsh_read_end, NULL, 0};
  struct timespec none = {0, 0};
  ppoll(NULL, 0, &none, &session.waiting);
  int fatal = handle_signals();
  if (fatal) {
    write_out("\n");
    result.kind = handsh_read_signal;
    result.signal = fatal;
    return result;
  }
  // The end of input: readline wrote a line break itself if it had
  // bracketed paste on; otherwise this is the one.
  if (!session.pasting) write_out("\n");
  return result;
}

/// Shows the prompt and reads one line; the held signals are blocked
/// (handsh_prompt_read).
static handsh_read_result read_line(void) {
  handsh_read_result result = {handsh_read_end, NULL, 0};
  if (ending) {
    result.kind = handsh_read_signal;
    result.signal = ending;
    return result;
  }
  session.done = 0;
  session.line = NULL;
  // From the background, no prompt: the shell's user would take it for the
  // shell's own and type to handsh (python3 and sqlite3 wait too). It is
  // drawn once handsh is in the foreground.
  int unshown = !in_foreground();
  if (!unshown) show_prompt();
  while (!session.done) {
    // What came since the last look (also while commands ran), before
    // waiting: a signal held now wakes the wait below as soon as it is let in.
    if (signals_arrived()) {
      int fatal = handle_signals();
      if (fatal) {
        result.kind = handsh_read_signal;
        result.signal = fatal;
        return result;
      }
      continue;  // the terminal may have changed while stopped: look again
    }
    // In the background the terminal is not even polled: a key typed to the
    // shell would wake the poll for ever. The signals are waited for, and
    // the owner of the terminal is looked at again twice a second (a
    // shell's `fg` sends SIGCONT too, but not every program that hands a
    // terminal over).
    int foreground = in_foreground();
    if (foreground && session.stale) resume();
    if (foreground && unshown) {
      unshown = 0;
      show_prompt();
    }
    struct pollfd fds[1] = {{foreground ? 0 : -1, POLLIN, 0}};
    struct timespec half = {0, 500000000};
    int ready = ppoll(fds, 1, foreground ? NULL : &half, &session.waiting);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) continue;
    if (fds[0].revents & POLLNVAL) break;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      // Readline rings its bell on stderr; while it reads, that is the
      // terminal the prompt is drawn on, never a redirected stderr.
      FILE *diagnostics = stderr;
      stderr = session.out;
      prompt_preview_erase();
      rl_callback_read_char();
      if (!session.done && session.reading) prompt_preview_draw();
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
  return read_ended();
}

handsh_read_result handsh_prompt_read(void) {
  // Held from here to the end of the line: each waits for the read loop's
  // next wait, and is handled there, between two keystrokes.
  // The wait lets in what was let in before, and only that: a signal the
  // parent left blocked stays blocked, as it always was.
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &session.held, &before);
  session.waiting = before;
  handsh_read_result result = read_line();
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  return result;
}

void handsh_prompt_run_begin(void) {
  interrupted = 0;
  unechoed = 0;
  prompt_running_begin(screen_fd);
  running = 1;
  catch_signals(0);
}

void handsh_prompt_run_end(void) {
  catch_signals(1);
  running = 0;
  interrupted = 0;
  prompt_running_end();
}

const char *handsh_prompt_take_echo(void) {
  int number = unechoed;
  unechoed = 0;
  return number == SIGINT ? "^C" : number == SIGQUIT ? "^\\" : NULL;
}

int handsh_prompt_interrupted(void) { return interrupted || ending; }

int handsh_prompt_ending(void) { return ending; }

int handsh_prompt_fatal(void) { return fatal_seen; }
