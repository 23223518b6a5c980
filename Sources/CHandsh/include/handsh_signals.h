// The one signal policy of the process (handsh(1), SIGNALS): one place
// decides when handsh may die, and every writer of a file declares its
// critical section to it.
//
// Every signal that can be caught and whose default action ends the
// process (SIGTERM, SIGHUP, SIGQUIT, SIGINT, SIGUSR1, SIGUSR2, SIGALRM,
// SIGVTALRM, SIGPROF, SIGXCPU, SIGIO, SIGPWR, SIGSTKFLT, SIGSYS and the
// real-time signals; those the parent did not leave ignored) is caught by
// one handler, and only the main thread ever takes them: every other
// thread is born with them blocked. Outside a critical
// section the handler ends handsh by the signal at once, as its default
// action would; inside one (on any thread) the signal waits, and the
// thread that leaves the last critical section ends handsh by it. So no
// signal that handsh can catch leaves a file half written, a temporary file
// behind, or an append not taken back. The prompt catches these signals
// itself while it runs (handsh_prompt.h) and ends handsh only between two
// lines, outside every critical section.
#ifndef HANDSH_SIGNALS_H
#define HANDSH_SIGNALS_H

/// Sets the policy up; call first thing, on the main thread, before any
/// other thread exists. A file-size limit (`ulimit -f`) becomes a write
/// error (EFBIG), never a death by SIGXFSZ.
void handsh_signals_start(void);

/// Blocks the signals that end handsh in the calling thread, so that the
/// threads it creates until handsh_threads_end are born blocking them.
void handsh_threads_begin(void);
/// Puts the calling thread's mask back as handsh_threads_begin found it.
void handsh_threads_end(void);

/// A write whose interruption would leave a file half written, or a
/// temporary file behind: between the two calls, no signal ends handsh.
/// Sections nest and may run on several threads at once.
void handsh_critical_begin(void);
void handsh_critical_end(void);

/// Whether the calling thread is inside a critical section: a write there
/// is never given up on for a signal (Control-C at the prompt included).
int handsh_in_critical(void);

/// The signal that came during a critical section and waits for its end
/// (0: none).
int handsh_signal_waiting(void);

/// How many bytes of results wait in handsh's output buffer: said between
/// two commands of a run, and 0 as a flush begins; before anything that
/// may block (a read, a wait, a write of stdout) they are flushed, so only
/// a run in progress ever holds them. While some wait, a signal that ends
/// handsh is held (outside every critical section) until the run looks at
/// handsh_signal_held: the results made before it (those bytes) are
/// written first (handsh(1), SIGNALS). A second such signal ends handsh at
/// once, by the first.
void handsh_results_waiting(unsigned long count);

/// The signal held while results waited (0: none). For tests only, the
/// environment variable HANDSH_TEST_SIGNAL_AT=N (read at
/// handsh_signals_start) raises SIGTERM as the Nth call begins: the
/// latest moment a signal can come before the look, which no signal sent
/// from outside can hit at will.
int handsh_signal_held(void);

/// How many bytes of results waited when the held signal came.
unsigned long handsh_results_held(void);

/// Writes the `count` bytes at `bytes` to `fd` as far as it takes them
/// without waiting (a full pipe takes nothing: the rest is dropped), then
/// ends handsh by the held signal; returns only while a critical section
/// on another thread holds that end back (its end then ends handsh).
void handsh_end_after_results(int fd, const void *_Nullable bytes, unsigned long count);

struct termios;

/// The settings to put back on terminal `fd` if handsh ends by a signal
/// before handsh_keep_terminal(-1, NULL) (the prompt changes them while a
/// line's commands run). Copied.
void handsh_keep_terminal(int fd, const struct termios *_Nullable modes);

/// Ends the process by `signal`, as its default action does (the exit
/// status 128 + signal if that action does not end it). Async-signal-safe.
_Noreturn void handsh_die_by_signal(int signal);

/// Whether `fd` was open when handsh started (0, 1, 2 and the descriptors
/// it inherited): only those are streams a user may name
/// (`/dev/fd/N`); one handsh opened for itself is not.
int handsh_inherited_fd(int fd);

/// The arguments as the kernel gave them to main, kept by a constructor:
/// the Swift runtime finds them through /proc, and without it (no /proc,
/// or an I/O error there) would give none, so that handsh would read
/// stdin instead of running its `-c` text or SCRIPT.
int handsh_argument_count(void);
const char *_Nullable handsh_argument(int index);

#endif
