"""race-sweep: names swapped by a process of root's own (`swap:` cases),
in a folder of root's: nothing to refuse, so every run must succeed and
print, or save, what one of the two files held."""

import os
import shutil
import signal
import subprocess
import time

from attacker import PR_SET_PDEATHSIG, LIBC, Case, exchange
from runs import TIMEOUT, run
from sweeps import report

SWAP_A = "add\n"
SWAP_B = "add\nadd\n"
SWAP_FIFO = "add\nadd\nadd\n"


class SwapCase:
    """A name (`t.hand`) swapped with RENAME_EXCHANGE, as fast as a process
    can, with another regular file (`file`) or a FIFO that another process
    keeps feeding a script (`fifo`), in a folder of root's own: nothing to
    refuse, so every run must succeed, with what one of the two held."""

    def __init__(self, name, partner, command, writes=False, share=1.0):
        self.name = name
        self.partner = partner
        self.command = command
        self.writes = writes  # `save t.hand`: judged by the two files after
        self.share = share


def swap_cases():
    return [
        SwapCase("swap: SCRIPT (file <-> file)", "file", ["-s", "1", "--limit", "52", "t.hand"]),
        SwapCase("swap: source (file <-> file)", "file",
                 ["-s", "1", "--limit", "52", "-c", "source t.hand"]),
        SwapCase("swap: SCRIPT (file <-> fed FIFO)", "fifo",
                 ["-s", "1", "--limit", "52", "t.hand"]),
        SwapCase("swap: source (file <-> link to a file)", "link",
                 ["-s", "1", "--limit", "52", "-c", "source t.hand"]),
        SwapCase("swap: save (file <-> file)", "file", ["-s", "1", "-q", "-c", "add; save t.hand"],
                 writes=True),
    ]


def swapper(folder, partner):
    """The swapping child: exchanges t.hand and .other until killed; for a
    FIFO, a second child writes SWAP_FIFO into it for each reader."""
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.chdir(folder)
    # The FIFO itself, whatever its name later: located before any swap.
    located = os.open(".other", os.O_PATH) if partner == "fifo" else -1
    if partner == "fifo" and os.fork() == 0:
        LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        while True:
            try:
                fd = os.open(f"/proc/self/fd/{located}", os.O_WRONLY)
            except OSError:
                continue
            try:
                os.write(fd, SWAP_FIFO.encode())
            except OSError:
                pass
            os.close(fd)
            time.sleep(0.001)
    while True:
        try:
            exchange("t.hand", ".other")
        except OSError:
            pass


def swap_outcomes(binary):
    """What a run may print: the results of one, two, or a multiple of three
    `add`s (a FIFO fed more than once before its reader saw the end)."""
    done = subprocess.run([str(binary), "--color=never", "-s", "1", "--limit", "52", "-c",
                           "; ".join(["add"] * 48)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, timeout=TIMEOUT)
    lines = done.stdout.decode().splitlines(keepends=True)
    return {"".join(lines[:n]) for n in [1, 2] + list(range(3, 49, 3))}


def sweep_swap(binary, case, base, runs, widen, verbose):
    folder = base / "own"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    (folder / "t.hand").write_text(SWAP_A)
    if case.partner == "fifo":
        os.mkfifo(folder / ".other")
    elif case.partner == "link":
        # A link met by the final open (O_NOFOLLOW: ELOOP) is a swap:
        # walked again, followed, never an error.
        (folder / "b.hand").write_text(SWAP_B)
        os.symlink("b.hand", folder / ".other")
    else:
        (folder / ".other").write_text(SWAP_B)
    outcomes = swap_outcomes(binary)
    pid = os.fork()
    if pid == 0:
        try:
            swapper(folder, case.partner)
        finally:
            os._exit(0)
    failed = hung = 0
    wrong = []
    started = Case(case.name, "swap", case.command)
    try:
        for number in range(runs):
            status, output = run(binary, started, folder, widen, outputs=True)
            hung += status is None
            out, err = output if status is not None else ("", "hung")
            problem = None
            if status != 0 or err:
                problem = f"status {status}: {err.strip()[:200]}"
            elif not case.writes and out not in outcomes:
                problem = f"printed {out!r}"
            elif case.writes:
                os.kill(pid, signal.SIGSTOP)
                held = sorted(p.read_text() for p in folder.iterdir())
                os.kill(pid, signal.SIGCONT)
                saved = [t for t in held if t.startswith("#!/usr/bin/env handsh\n")]
                if len(held) != 2 or len(saved) != 1 or not (set(held) - set(saved)) <= {
                        SWAP_A, SWAP_B} or not saved[0].endswith("add 7D\n"):
                    problem = f"the folder holds {held!r}"
                os.kill(pid, signal.SIGSTOP)
                for path in folder.iterdir():
                    path.unlink()
                (folder / "t.hand").write_text(SWAP_A)
                (folder / ".other").write_text(SWAP_B)
                os.kill(pid, signal.SIGCONT)
            if problem:
                failed += 1
                if verbose or failed == 1:
                    print(f"  {case.name}: run {number + 1}: {problem}", flush=True)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    problems = []
    if failed:
        problems.append(f"{failed} of {runs} runs failed or printed what neither file holds")
    if hung:
        problems.append(f"{hung} runs hung")
    report(f"{case.name}: {runs} runs", problems)
    return not problems, runs
