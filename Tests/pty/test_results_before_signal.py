"""A signal that ends handsh writes the results made before it first
(handsh(1), OUTPUT and SIGNALS), as bash and python3 show each result
before they die; unless stdout would block (a full pipe): then they are
dropped, never waited for.

The signal lands at an exact moment through `strace -e inject`: at the
getrandom(2) of a `new` without a seed, right after `add` made `7♦` and
before anything wrote it (nothing waits in between, so nothing writes);
the `new` that runs then is not yet done, and its result is not written.
Every file is in the test's own temporary folder.
"""

import fcntl
import os
import shutil
import signal
import subprocess
import time

import pexpect
import pytest

from conftest import handsh_binary

# The results of `new 1; add` (seed 1): made before the signal.
MADE = "(empty)\n7♦\n"
SIGNALS = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGALRM", "SIGRTMIN"]


def strace():
    path = shutil.which("strace")
    if path is None:
        pytest.fail("this test needs strace (scripts/bootstrap installs it)")
    return path


def folder_with_script(tmp_path):
    # Nothing shows before a script has checked clean, and its commands
    # run ahead meanwhile, up to a `source`: the sourced file runs after
    # the check.
    (tmp_path / "inner.hand").write_text("new 1\nadd\nnew\nadd\n")
    (tmp_path / "script.hand").write_text("source inner.hand\n")
    (tmp_path / "before.hand").write_text("new 1\nadd\n")
    (tmp_path / "probe.hand").write_text("source before.hand\n")
    return tmp_path


def handsh(script):
    return [str(handsh_binary()), "--seed", "5", "--color=never", script]


def getrandom_calls(folder):
    """How many getrandom(2) calls a run makes up to the `new`: the same run
    without it (the runtime and the C library make some of their own)."""
    trace = folder / "trace"
    run = subprocess.run(
        [strace(), "-f", "-o", str(trace), "-e", "trace=getrandom"] + handsh("probe.hand"),
        cwd=folder,
        capture_output=True,
        timeout=30,
    )
    assert run.returncode == 0 and run.stdout.decode() == MADE, run
    return sum("getrandom(" in line for line in trace.read_text().splitlines())


def command(folder, name):
    when = getrandom_calls(folder) + 1
    return [
        strace(),
        "-f",
        "-o",
        "/dev/null",
        "-e",
        "trace=getrandom",
        "-e",
        f"inject=getrandom:signal={number(name)}:when={when}",
    ] + handsh("script.hand")


def number(name):
    # By number: strace's SIGRTMIN is the kernel's, which the C library
    # keeps for itself; handsh's first real-time signal is the library's.
    return int(getattr(signal, name))


def ended_by(status, name):
    return status in (-number(name), 128 + number(name))


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_writes_the_results_made_before_it_into_a_pipe(tmp_path, name):
    folder = folder_with_script(tmp_path)
    run = subprocess.run(
        command(folder, name), cwd=folder, capture_output=True, timeout=30
    )
    assert ended_by(run.returncode, name), (run.returncode, run.stderr)
    assert run.stdout.decode() == MADE


def test_a_signal_writes_the_results_made_before_it_into_a_fifo(tmp_path):
    folder = folder_with_script(tmp_path)
    fifo = folder / "results"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        with open(fifo, "wb") as out:
            run = subprocess.run(
                command(folder, "SIGTERM"),
                cwd=folder,
                stdout=out,
                stderr=subprocess.PIPE,
                timeout=30,
            )
        got, _ = reader.communicate(timeout=30)
    finally:
        reader.kill()
    assert ended_by(run.returncode, "SIGTERM"), (run.returncode, run.stderr)
    assert got.decode() == MADE


def test_a_signal_writes_the_results_made_before_it_on_a_terminal(tmp_path):
    folder = folder_with_script(tmp_path)
    arguments = command(folder, "SIGTERM")
    child = pexpect.spawn(
        arguments[0], arguments[1:], cwd=str(folder), encoding="utf-8", timeout=30
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus == signal.SIGTERM, (child.exitstatus, child.before)
    assert child.before.replace("\r\n", "\n") == MADE


def test_results_that_would_wait_on_a_full_pipe_are_dropped(tmp_path):
    folder = folder_with_script(tmp_path)
    read_end, write_end = os.pipe()
    try:
        # A pipe of one page that nobody reads, full before handsh starts:
        # the results cannot go, and handsh ends at once all the same.
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
        os.set_blocking(write_end, False)
        try:
            while True:
                os.write(write_end, b"x" * 4096)
        except BlockingIOError:
            pass
        os.set_blocking(write_end, True)
        started = time.monotonic()
        run = subprocess.run(
            command(folder, "SIGTERM"),
            cwd=folder,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=30,
        )
        assert ended_by(run.returncode, "SIGTERM"), (run.returncode, run.stderr)
        assert time.monotonic() - started < 10
    finally:
        os.close(read_end)
        os.close(write_end)
