"""crash-sweep: the system calls swept and the faults tried at each: which
calls of a trace are worth a fault (the writer's own, not the loader's),
at which N, and which errors and signals."""

import re
from pathlib import Path

# The calls that change a file, or decide how it is changed.
WRITE_SIDE = ["write", "pwrite64", "fallocate", "ftruncate", "fsync", "fdatasync", "rename",
              "renameat", "renameat2", "linkat", "unlink", "unlinkat", "openat", "fchown",
              "fchmod", "flock"]
# The calls that only look or read: swept where they concern the writer's
# own files (their descriptor or their name is in its folder).
READ_SIDE = ["close", "newfstatat", "fstat", "pread64", "read", "readlink", "readlinkat"]
SYSCALLS = WRITE_SIDE + READ_SIDE
ERRORS = ["ENOSPC", "EIO", "EFBIG"]
LASTING = [error + "+" for error in ERRORS]
# Every signal that can be caught and whose default ends the process, by
# strace's name and number (SIGRT_3 is SIGRTMIN+1 of glibc, SIGRT_32 SIGRTMAX;
# SIGRT_1 and SIGRT_2 are glibc's own).
CATCHABLE = {"SIGTERM": 15, "SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGUSR1": 10,
             "SIGUSR2": 12, "SIGALRM": 14, "SIGVTALRM": 26, "SIGPROF": 27, "SIGXCPU": 24,
             "SIGIO": 29, "SIGPWR": 30, "SIGSTKFLT": 16, "SIGSYS": 31, "SIGRT_3": 35,
             "SIGRT_32": 64}
NUMBERS = dict(CATCHABLE, SIGKILL=9)


LIBRARY = re.compile(r'^\d+\s+openat\([^,]+, "([^"]*\.so[."]|/lib|/usr|/etc|/opt|/proc/sys|/sys)')
LOADER = re.compile(r'\.so[."]|glibc-hwcaps|"/(lib|usr|etc|opt|sys|proc/sys)')


def concerns(line, folder):
    """Whether a call is on the writer's own files: a descriptor open on one
    of them, or a name in its folder (a relative name, the current folder
    being the writer's folder)."""
    if LOADER.search(line):
        return False
    line = re.sub(r"AT_FDCWD<[^>]*>", "AT_FDCWD", line)
    return str(folder) in line or re.search(r'AT_FDCWD, "(?!/)', line) is not None


def call_numbers(trace, folder):
    """For each syscall, the N (counted per thread, as strace's `when`
    counts) of the calls worth a fault: of the write side all of them but
    the loader's and the C library's own openat calls (a library that
    cannot be loaded is the loader's message, not handsh's); of the read
    side those on the writer's own files. And the N of the O_TMPFILE open."""
    seen = {}
    numbers = {name: set() for name in SYSCALLS}
    tmpfile = None  # the first O_TMPFILE open not refused
    for line in Path(trace).read_text(errors="replace").splitlines():
        match = re.match(r"^(\d+)\s+(\w+)\(", line)
        if not match or match.group(2) not in SYSCALLS:
            continue
        key = (match.group(1), match.group(2))
        seen[key] = seen.get(key, 0) + 1
        name = match.group(2)
        if name in READ_SIDE and not concerns(line, folder):
            continue
        if not LIBRARY.match(line):
            numbers[name].add(seen[key])
        if (name == "openat" and re.search(r"[|, ]O_TMPFILE[|,]", line) and "INJECTED" not in line
                and tmpfile is None):
            tmpfile = seen[key]
    return {name: sorted(found) for name, found in numbers.items()}, tmpfile


def spread(numbers, cap):
    """At most CAP of NUMBERS, the first and last among them, evenly."""
    if len(numbers) <= cap:
        return numbers
    if cap == 1:
        return [numbers[len(numbers) // 2]]
    step = (len(numbers) - 1) / (cap - 1)
    return sorted({numbers[round(i * step)] for i in range(cap)})


def faults_at(syscall, turn, reduced, lasting=False):
    """The faults tried at one call: errors once and lasting, SIGKILL, and
    catchable signals in turn (so each writer meets all of them)."""
    others = list(CATCHABLE)
    if lasting:
        return ["ENOSPC+", "EIO+"] if syscall in WRITE_SIDE else []
    if reduced:
        errors = ["ENOSPC", "EIO+"]
        signals = ["SIGKILL", others[turn % len(others)]] if syscall in WRITE_SIDE else []
        return errors + signals
    signals = ["SIGKILL"]
    count = 4 if syscall in WRITE_SIDE else 1
    signals += [others[(turn * count + i) % len(others)] for i in range(count)]
    if syscall in WRITE_SIDE and "SIGTERM" not in signals:
        signals.append("SIGTERM")
    return ERRORS + LASTING + signals
