// The one signal policy of the process; see handsh_signals.h.
#define _GNU_SOURCE
#include "handsh_signals.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

/// Every signal that can be caught and whose default action ends the
/// process (SIGPIPE aside: a closed stdout ends handsh at once, and a
/// `save` holds it off itself), the real-time ones included; filled in at
/// start, since SIGRTMIN and SIGRTMAX are known only then.
static int ending[64];
static int ending_count = 0;

static void list_ending(void) {
  static const int fixed[] = {SIGINT,  SIGQUIT,   SIGTERM, SIGHUP,  SIGUSR1, SIGUSR2,
                              SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,   SIGPWR,
                              SIGSYS,
#ifdef SIGSTKFLT
                              SIGSTKFLT,
#endif
  };
  ending_count = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) ending[ending_count++] = fixed[i];
  for (int number = SIGRTMIN; number <= SIGRTMAX && ending_count < 64; number++)
    ending[ending_count++] = number;
}

/// The critical sections in progress, on every thread, and DYING once one
/// thread has decided that handsh ends now (no section may begin then).
static atomic_int sections = 0;
enum { DYING = 1 << 30 };
/// The signal that came during a critical section (the first one).
static atomic_int waiting = 0;
static _Thread_local int sections_here = 0;

static sigset_t thread_mask_before;

/// The terminal to put back as handsh dies (handsh_keep_terminal).
static volatile sig_atomic_t kept_fd = -1;
static struct termios kept_modes;

void handsh_keep_terminal(int fd, const struct termios *modes) {
  kept_fd = -1;
  if (fd < 0 || modes == NULL) return;
  kept_modes = *modes;
  kept_fd = fd;
}

_Noreturn void handsh_die_by_signal(int number) {
  int fd = kept_fd;
  // Async-signal-safe; never from the background, where it would stop
  // handsh instead.
  if (fd >= 0 && tcgetpgrp(fd) == getpgrp()) tcsetattr(fd, TCSANOW, &kept_modes);
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(number, &fallback, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, number);
  raise(number);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  _exit(128 + number);
}

/// Ends handsh by `number` if no critical section is in progress; returns
/// otherwise (the last section to end does it).
static void die_unless_critical(int number) {
  int seen = atomic_load(&sections);
  while (seen == 0) {
    if (atomic_compare_exchange_weak(&sections, &seen, DYING)) handsh_die_by_signal(number);
  }
}

/// The bytes of results that wait in the output buffer
/// (handsh_results_waiting), the signal held meanwhile, and how many
/// waited when it came.
static atomic_ulong results_waiting = 0;
static atomic_int held = 0;
static atomic_ulong results_held = 0;

static void on_ending(int number) {
  int saved = errno;
  int first = atomic_load(&held);
  unsigned long waiting_now = atomic_load(&results_waiting);
  if (first == 0 && waiting_now > 0 && atomic_load(&sections) == 0) {
    // The run writes them out at its next step, then ends by it.
    atomic_store(&results_held, waiting_now);
    atomic_store(&held, number);
    errno = saved;
    return;
  }
  if (first != 0) number = first;
  int none = 0;
  atomic_compare_exchange_strong(&waiting, &none, number);
  // Stored before the count is read: a section that ends meanwhile sees it.
  die_unless_critical(atomic_load(&waiting));
  errno = saved;
}

void handsh_results_waiting(unsigned long count) { atomic_store(&results_waiting, count); }

/// Tests only (HANDSH_TEST_SIGNAL_AT=N): SIGTERM raised as the Nth look
/// at the held signal begins, the latest moment a signal can come before
/// it. The count of waiting results must be said before this look (the
/// handler reads it): said after, a signal here finds the count of the
/// look before, and results made before it are lost. A race of a few
/// instructions, which no test from outside can hit at will.
static atomic_long signal_at = 0;
static atomic_long looks = 0;

int handsh_signal_held(void) {
  if (atomic_load(&signal_at) > 0 && atomic_fetch_add(&looks, 1) + 1 == atomic_load(&signal_at))
    raise(SIGTERM);
  return atomic_load(&held);
}

unsigned long handsh_results_held(void) { return atomic_load(&results_held); }

void handsh_end_after_results(int fd, const void *bytes, unsigned long count) {
  int number = atomic_load(&held);
  if (number == 0) return;
  // A reader that is gone is no death by SIGPIPE: the signal that came
  // ends handsh (SIGPIPE stays blocked, and pending, to the end).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, NULL);
  struct stat status;
  int known = fstat(fd, &status) == 0;
  int regular = known && S_ISREG(status.st_mode);
  // What poll calls writable takes a write of PIPE_BUF bytes without
  // waiting (a pipe); a terminal or a socket, a smaller one.
  size_t step = regular                                ? (size_t)count
                : known && S_ISFIFO(status.st_mode) ? PIPE_BUF
                                                      : 256;
  const unsigned char *next = bytes;
  size_t left = bytes != NULL ? (size_t)count : 0;
  while (left > 0) {
    struct pollfd out = {fd, POLLOUT, 0};
    if (!regular && (poll(&out, 1, 0) != 1 || !(out.revents & POLLOUT))) break;
    ssize_t wrote = write(fd, next, left < step ? left : step);
    if (wrote <= 0) break;
    next += wrote;
    left -= (size_t)wrote;
  }
  int none = 0;
  atomic_compare_exchange_strong(&waiting, &none, number);
  die_unless_critical(atomic_load(&waiting));
}

/// The descriptors noted at start are those below NOTED_FDS; one above
/// is asked of the kernel when it is named.
enum { NOTED_FDS = 1024 };

/// The descriptors open at start, 3 to NOTED_FDS - 1 (one bit each).
static unsigned char inherited[NOTED_FDS / 8];

/// One poll(2) over 3 to NOTED_FDS - 1, which marks each closed one POLLNVAL.
static void note_inherited(void) {
  static struct pollfd fds[NOTED_FDS - 3];
  for (int fd = 3; fd < NOTED_FDS; fd++) fds[fd - 3] = (struct pollfd){fd, 0, 0};
  if (poll(fds, NOTED_FDS - 3, 0) < 0) {
    for (int fd = 3; fd < NOTED_FDS; fd++)
      fds[fd - 3].revents = fcntl(fd, F_GETFD) >= 0 ? 0 : POLLNVAL;
  }
  for (int fd = 3; fd < NOTED_FDS; fd++) {
    if (!(fds[fd - 3].revents & POLLNVAL)) inherited[fd / 8] |= (unsigned char)(1u << (fd % 8));
  }
}

int handsh_inherited_fd(int fd) {
  if (fd >= 0 && fd <= 2) return 1;
  if (fd < 0 || fd >= NOTED_FDS) return fd >= NOTED_FDS && fcntl(fd, F_GETFD) >= 0;
  return (inherited[fd / 8] >> (fd % 8)) & 1;
}

void handsh_signals_start(void) {
  const char *at = getenv("HANDSH_TEST_SIGNAL_AT");
  if (at != NULL) atomic_store(&signal_at, strtol(at, NULL, 10));
  list_ending();
  note_inherited();
  struct sigaction action;
  memset(&action, 0, sizeof action);
  sigemptyset(&action.sa_mask);
  action.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &action, NULL);
  action.sa_handler = on_ending;
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < ending_count; i++) sigaddset(&action.sa_mask, ending[i]);
  for (int i = 0; i < ending_count; i++) {
    struct sigaction previous;
    // A signal the parent left ignored (nohup) stays ignored.
    if (sigaction(ending[i], NULL, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    sigaction(ending[i], &action, NULL);
  }
}

void handsh_threads_begin(void) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < ending_count; i++) sigaddset(&set, ending[i]);
  pthread_sigmask(SIG_BLOCK, &set, &thread_mask_before);
}

void handsh_threads_end(void) { pthread_sigmask(SIG_SETMASK, &thread_mask_before, NULL); }

void handsh_critical_begin(void) {
  int seen = atomic_load(&sections);
  for (;;) {
    if (seen & DYING) {
      // Another thread is ending handsh this very moment: nothing starts.
      for (;;) pause();
    }
    if (atomic_compare_exchange_weak(&sections, &seen, seen + 1)) break;
  }
  sections_here++;
}

void handsh_critical_end(void) {
  sections_here--;
  // A signal sent to this very thread (which blocks it, if it is not the
  // main one) waits there: it is the policy's to act on, too.
  sigset_t pending;
  if (sigpending(&pending) == 0) {
    for (int i = 0; i < ending_count; i++) {
      int none = 0;
      if (sigismember(&pending, ending[i]) == 1)
        atomic_compare_exchange_strong(&waiting, &none, ending[i]);
    }
  }
  int left = atomic_fetch_sub(&sections, 1) - 1;
  if (left == 0) {
    int number = atomic_load(&waiting);
    if (number != 0) die_unless_critical(number);
  }
}

int handsh_in_critical(void) { return sections_here > 0; }

int handsh_signal_waiting(void) { return atomic_load(&waiting); }

static int argument_count = 0;
static char **arguments = NULL;

// glibc calls the constructors of the executable with main's arguments.
__attribute__((constructor)) static void keep_arguments(int argc, char **argv, char **envp) {
  (void)envp;
  argument_count = argc;
  arguments = argv;
}

int handsh_argument_count(void) { return argument_count; }

const char *handsh_argument(int index) {
  return index >= 0 && index < argument_count && arguments != NULL ? arguments[index] : NULL;
}
