"""A write that blocks at the prompt never makes Control-C, SIGTERM or SIGHUP
wait (handsh(1), THE PROMPT and save): `save` into a FIFO with no reader,
and results into a full pipe that nobody reads. Control-C abandons the write
(`Interrupted system call`) and the session goes on; SIGTERM and SIGHUP end
handsh as they always do. Every FIFO lives in the test's own folder.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import os
import signal
import stat
import time

import pexpect
import pytest

from conftest import IN_FIFO_OPEN, IN_PIPE_WRITE, PROMPT, TIMEOUT, clean, sleeps_in, wait_until

INTERRUPTED = "error: cannot write ff: Interrupted system call"


def blocked_save(box, *args):
    """handsh at the prompt, blocked in `add; save ff; add` on a FIFO with no
    reader."""
    os.mkfifo(box.cwd / "ff")
    sh = box.spawn("--seed", "42", *args)
    sh.first_prompt()
    sh.child.send("add; save ff; add\r")
    # The first add's result, flushed before the save: the line runs (a
    # signal before it is taken in would drop it, or find no 7♥ to record).
    sh.child.expect_exact("7♥\r\n")
    wait_until(lambda: sleeps_in(sh.child.pid, IN_FIFO_OPEN), "the save to wait in open(2)")
    return sh


def test_ctrl_c_abandons_a_save_into_a_fifo_and_the_session_goes_on(box):
    sh = blocked_save(box)
    sh.child.sendintr()
    shown = clean(sh.prompt()).split("\n")
    # (The first add's 7♥ came before: blocked_save waited for it.)
    assert INTERRUPTED in shown, shown
    # The terminal's echo of ^C stands on a line of its own.
    assert "^C" in shown, shown
    # The rest of the line is skipped, as after any failed command.
    assert sh.command("show") == ["1  7♥"]
    assert stat.S_ISFIFO(os.stat(box.cwd / "ff").st_mode)
    # Blocked again: Control-C again.
    sh.child.send("save ff\r")
    wait_until(lambda: sleeps_in(sh.child.pid, IN_FIFO_OPEN), "the save to wait in open(2)")
    sh.child.sendintr()
    assert INTERRUPTED in clean(sh.prompt()).split("\n")
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_fatal_signal_ends_handsh_blocked_in_a_save(box, number):
    sh = blocked_save(box, "--record", "rec.hand")
    sh.kill(number)
    assert sh.wait_exit() == 128 + number
    # The recording is written first, with what the session saw.
    text = (box.cwd / "rec.hand").read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env -S handsh --seed 42\nadd; save ff; add\n#> 7♥\n"), text


def test_ctrl_backslash_ends_handsh_blocked_in_a_save(box):
    sh = blocked_save(box)
    sh.child.sendcontrol("\\")
    assert sh.wait_exit() == 128 + signal.SIGQUIT
    # The terminal's echo of ^\ stands on a line of its own (the line
    # break before it ended the 7♥ that blocked_save waited for).
    assert sh.tail.startswith("^\\\n"), repr(sh.tail)


def spawn_into_fifo(box, fifo, *args):
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", 'exec "$0" "$@" > "$OUT"', str(box.binary), "--seed", "42", "--quiet", *args],
        env=box.env(box.history, {"OUT": str(fifo)}),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    return child


@pytest.mark.parametrize("how", ["ctrl-c", "SIGTERM"])
def test_results_blocked_on_a_full_pipe_never_hold_up_the_prompt(box, how):
    fifo = box.root / "out"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        child = spawn_into_fifo(box, fifo)
        child.expect_exact(PROMPT)  # drawn on stderr, the terminal
        child.send("help; " * 80 + "add\r")
        # Blocked in write(2): the pipe is full (a signal before the line
        # is taken in would drop it, and test nothing).
        wait_until(lambda: sleeps_in(child.pid, IN_PIPE_WRITE), "the results to fill the pipe")
        if how == "SIGTERM":
            child.kill(signal.SIGTERM)
            child.expect(pexpect.EOF)
            child.wait()
            assert child.signalstatus == signal.SIGTERM
            return
        child.sendintr()
        child.expect_exact(PROMPT)
        # The results are dropped, the session goes on: the add never ran
        # (the rest of the line is skipped), and quit ends with status 0.
        child.send("quit\r")
        child.expect(pexpect.EOF)
        child.wait()
        assert child.exitstatus == 0, clean(child.before)
    finally:
        os.close(reader)


def test_ctrl_z_stops_handsh_blocked_in_a_save_and_fg_goes_on_waiting(box):
    from conftest import SHELL_PROMPT, JobShell

    os.mkfifo(box.cwd / "ff")
    js = JobShell(box, "bash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.child.send("save ff\r")
    pid = js.handsh_pid()
    # Ctrl-Z before the line is taken in would drop it instead.
    wait_until(lambda: sleeps_in(pid, IN_FIFO_OPEN), "the save to wait in open(2)")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before
    assert "Stopped" in js.run("jobs")
    js.child.send("fg\r")
    # Waiting in open(2) again, not failed.
    wait_until(lambda: sleeps_in(pid, IN_FIFO_OPEN), "the save to wait in open(2) again")
    js.child.sendintr()
    js.child.expect_exact(INTERRUPTED)
    js.child.expect_exact(PROMPT)
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before


def test_a_resize_does_not_abandon_a_blocked_save(box):
    sh = blocked_save(box)
    sh.child.setwinsize(30, 100)  # SIGWINCH while blocked in open(2)
    time.sleep(0.5)
    assert sh.child.isalive()
    with pytest.raises(pexpect.TIMEOUT):
        sh.child.expect_exact("error", timeout=0.5)
    # Still waiting: a reader now gets the script.
    with open(box.cwd / "ff", encoding="utf-8") as reader:
        script = reader.read()
    assert script.startswith("#!/usr/bin/env handsh\n"), script
    # The line then goes on: its other results, and the next prompt.
    after = clean(sh.prompt())
    # (The first add's 7♥ came before: blocked_save waited for it.)
    assert after.split("\n")[-2:] == ["3♣ 7♥", ""], repr(after)
    sh.settle()  # readline redraws the prompt for the new size
    shown = sh.command("show")
    assert shown == ["1  3♣", "2  7♥"], repr(sh.child.before)


def drain(reader):
    """What the non-blocking READER holds now."""
    taken = b""
    while True:
        try:
            chunk = os.read(reader, 1 << 16)
        except BlockingIOError:
            return taken
        if not chunk:
            return taken
        taken += chunk


def test_what_follows_dropped_results_starts_on_a_line_of_its_own(box):
    # The pipe fills in the middle of a line of `help`; Ctrl-C drops the
    # rest. The next result goes on a line of its own in the reader's
    # stream, not glued to that half line.
    fifo = box.root / "out"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        child = spawn_into_fifo(box, fifo)
        child.expect_exact(PROMPT)
        child.send("help; " * 80 + "add\r")
        wait_until(lambda: sleeps_in(child.pid, IN_PIPE_WRITE), "the results to fill the pipe")
        child.sendintr()
        child.expect_exact(PROMPT)
        taken = drain(reader)
        child.send("show\r")
        child.expect_exact(PROMPT)
        child.send("quit\r")
        child.expect(pexpect.EOF)
        child.wait()
        stream = (taken + drain(reader)).decode("utf-8", "replace")
        assert "(empty)" in stream.split("\n"), repr(stream[-200:])
    finally:
        os.close(reader)
