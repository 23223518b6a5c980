"""Job control at the prompt under a real shell (handsh(1), THE PROMPT):
Control-Z, `bg`, `fg`, SIGSTOP and SIGCONT from outside with keys typed to
the shell in between. Reading the terminal from the background must never
leave handsh stopped inside a read, to resume in the shell's terminal mode.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import os
import re
import signal
import time

import pytest

from conftest import PROMPT, clean
from conftest import SHELL_PROMPT, JobShell, history_lines


def edit_and_check(js, before):
    """After `fg`: the prompt and the typed `add 7h` are drawn again, and
    editing works (Left, Backspace over the 7, Q: `add Qh`); the terminal is
    the shell's again after `quit`."""
    js.child.expect_exact(PROMPT + "add 7h")
    time.sleep(0.2)
    js.child.send("\x1b[D\x7fQ\r")
    js.child.expect_exact(PROMPT)
    js.child.send("show\r")
    js.child.expect_exact("1  Q♥")
    js.child.expect_exact(PROMPT)
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_ctrl_z_bg_then_fg_redraws_and_edits(box, shell):
    js = JobShell(box, shell)
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    js.child.send("bg\r")
    js.child.expect_exact(SHELL_PROMPT)
    time.sleep(0.3)
    # Keys typed to the shell while handsh runs in the background.
    assert js.run("echo typed") == "typed"
    assert js.modes() == before
    js.child.send("fg\r")
    edit_and_check(js, before)
    assert history_lines(box.history) == ["add Qh", "show", "quit"]


def test_sigstop_and_sigcont_with_keys_typed_in_between(box):
    js = JobShell(box, "bash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    pid = js.handsh_pid()
    os.kill(pid, signal.SIGSTOP)
    js.child.expect_exact(SHELL_PROMPT)
    os.kill(pid, signal.SIGCONT)  # continued, but in the background
    time.sleep(0.3)
    assert js.run("echo typed") == "typed"
    assert js.run("echo again") == "again"
    assert "Running" in js.run("jobs")
    js.child.send("fg\r")
    edit_and_check(js, before)


def test_ctrl_z_under_bash_leaves_no_blank_line(box):
    # As sqlite3 (readline's own handler): `^Z`, then bash's line break and
    # its notice, with no empty line between.
    js = JobShell(box, "bash")
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    stopped = js.child.before
    assert re.match(r"\^Z\r\n\[1\]\+\s+Stopped", stopped), repr(stopped)
    js.child.send("fg\r")
    js.child.expect_exact(PROMPT + "add 7h")
    js.child.send("\x15quit\r")
    js.child.expect_exact(SHELL_PROMPT)


def test_kill_ends_handsh_waiting_in_the_background(box):
    js = JobShell(box, "bash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    js.child.send("bg\r")
    js.child.expect_exact(SHELL_PROMPT)
    time.sleep(0.3)
    js.run("echo typed")
    pid = js.handsh_pid()
    js.child.send("kill %1\r")
    js.child.expect_exact(SHELL_PROMPT)
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{pid}") and not ended(pid):
        assert time.monotonic() < deadline, "handsh did not end"
        time.sleep(0.05)
    # bash reports the job's end (`[1]+  Terminated …`) with whichever
    # command's output comes next: only the terminal's modes are compared.
    after = [line for line in js.modes().splitlines() if not line.startswith("[")]
    assert after == [before]


def ended(pid):
    """Whether PID is a zombie (ended, not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_started_in_the_background_then_fg_echoes_and_edits(box):
    # `handsh &` while bash's readline has the terminal raw (no echo): handsh
    # must not take that mode for the terminal's, nor be stopped setting its
    # own; after `fg` typed text echoes and editing works.
    js = JobShell(box, "bash")
    before = js.modes()
    words = " ".join([str(box.binary), "--seed", "42", "--quiet"])
    js.child.send(words + " &\r")
    js.child.expect(r"\[1\] \d+")
    time.sleep(0.6)  # handsh reaches its prompt while bash reads the next line
    assert js.run("echo typed") == "typed"
    assert "Running" in js.run("jobs"), "handsh stopped in the background"
    js.child.send("fg\r")
    js.child.expect_exact(PROMPT)
    js.type_and_wait("add 7h")
    js.child.send("\x1b[D\x7fQ\r")
    js.child.expect_exact(PROMPT)
    js.child.send("show\r")
    js.child.expect_exact("show")  # echoed
    js.child.expect_exact("1  Q♥")
    js.child.expect_exact(PROMPT)
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before
