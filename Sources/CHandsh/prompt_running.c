// The screen stays whole whatever cuts the output (handsh(1), THE PROMPT):
// while a line's commands run, the terminal the prompt is drawn on keeps
// what handsh wrote (NOFLSH: Control-C does not make the kernel throw away
// output it holds, which cut results inside a character or an escape
// sequence), and echoes nothing itself (no ECHO: its `^C` landed in the
// middle of a line of results). handsh writes `^C` or `^\` itself once the
// results stop at a line's end (handsh_prompt_take_echo); keys typed ahead
// are shown by readline after the next prompt, as it reads them.
#define _GNU_SOURCE
#include "handsh_signals.h"
#include "prompt_internal.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static struct termios before;
static struct termios running;
static volatile sig_atomic_t changed_fd = -1;

/// The terminal `fd` set for a run from `before`: no echo, no flush on a
/// signal, and `before` kept to be put back should handsh die meanwhile (a
/// signal its policy ends it by). Safe in a signal handler; tcsetattr's
/// result.
static int set_for_run(int fd) {
  running = before;
  running.c_lflag |= NOFLSH;
  running.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
  handsh_keep_terminal(fd, &before);
  return tcsetattr(fd, TCSANOW, &running);
}

void prompt_running_begin(int fd) {
  changed_fd = -1;
  // Never from the background: setting the terminal there stops handsh.
  if (fd < 0 || !isatty(fd) || tcgetpgrp(fd) != getpgrp()) return;
  if (tcgetattr(fd, &before) != 0) return;
  if (set_for_run(fd) != 0) {
    handsh_keep_terminal(-1, NULL);
    return;
  }
  changed_fd = fd;
}

void prompt_running_end(void) {
  if (changed_fd < 0) return;
  // Stopped and continued in the background meanwhile: the shell owns the
  // terminal and set it as it likes; nothing is put back from there.
  if (tcgetpgrp(changed_fd) == getpgrp()) tcsetattr(changed_fd, TCSANOW, &before);
  handsh_keep_terminal(-1, NULL);
  changed_fd = -1;
}

/// Control-Z while commands run (from the signal handler): the terminal as
/// the shell left it, then stop at once (a shell that keeps no modes of its
/// own, as dash, would otherwise be left with no echo); after `fg`, the
/// terminal set for the run again, from what the shell gave back.
void prompt_running_stop(void) {
  int fd = changed_fd;
  if (fd >= 0 && tcgetpgrp(fd) == getpgrp()) tcsetattr(fd, TCSANOW, &before);
  prompt_stop_now();
  if (fd >= 0 && tcgetpgrp(fd) == getpgrp() && tcgetattr(fd, &before) == 0) set_for_run(fd);
}

void prompt_stop_now(void) {
  struct sigaction fallback, ours;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGTSTP, &fallback, &ours);
  // SIGTSTP is held here (blocked while a line is read, and while its
  // handler runs): raised, it is pending, and taken (the stop) as it is
  // let in, just for the stop; SIGCONT with it, so that the one that ends
  // the stop is counted here. Unless the process group is orphaned: the
  // kernel then discards the signal, and handsh goes on at once.
  sigset_t stopping, previous;
  sigemptyset(&stopping);
  sigaddset(&stopping, SIGTSTP);
  sigaddset(&stopping, SIGCONT);
  raise(SIGTSTP);
  pthread_sigmask(SIG_UNBLOCK, &stopping, &previous);
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  sigaction(SIGTSTP, &ours, NULL);
}
