"""The prompt in real terminals, continued (handsh(1), THE PROMPT): job
control and signals under a job-control shell (dash or bash): Ctrl-Z and
`fg`, Ctrl-\\, fatal signals, `kill` of a stopped handsh; the terminal's
modes are checked with `stty -g`.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import os
import signal
import time

import pytest

from conftest import PROMPT, SHELL_PROMPT, JobShell, clean, eventually, history_lines, process_state


# MARK: - 2. Job control and signals


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_ctrl_z_restores_the_terminal_and_fg_resumes_editing(box, shell):
    js = JobShell(box, shell)
    before = js.modes()
    js.start_handsh()
    js.type_and_wait("add 7h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    stopped = clean(js.child.before)  # what followed the typed text
    # As readline's own handler writes it (sqlite3): `^Z` and no line break;
    # bash writes one before its notice, dash none.
    assert stopped.startswith("^Z\n[1]+" if shell == "bash" else "^Z[1]"), repr(stopped)
    # The shell gets the terminal as it left it (dash restores nothing itself).
    assert js.modes() == before
    js.child.send("fg\r")
    # The prompt and the typed text are drawn again ...
    js.child.expect_exact(PROMPT + "add 7h")
    time.sleep(0.2)
    # ... and editing works: Left, Backspace over the 7, then Q: `add Qh`.
    js.child.send("\x1b[D\x7fQ\r")
    js.child.expect_exact("Q♥")
    js.child.expect_exact(PROMPT)
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before
    assert history_lines(box.history) == ["add Qh", "quit"]


def test_ctrl_z_twice_and_nothing_typed(box):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    for _ in range(2):
        time.sleep(0.2)
        js.child.sendcontrol("z")
        js.child.expect_exact(SHELL_PROMPT)
        assert js.modes() == before
        js.child.send("fg\r")
        js.child.expect_exact(PROMPT)
    time.sleep(0.2)
    js.child.send("add\r")
    js.child.expect_exact(PROMPT)
    js.child.send("show\r")
    js.child.expect_exact("1  7♥")


def test_ctrl_backslash_restores_the_terminal_and_ends_by_sigquit(box):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    js.child.sendcontrol("\\")
    js.child.expect_exact(SHELL_PROMPT)
    # The typed line is left alone: what follows starts on a fresh line.
    assert js.child.before.startswith("^\\\r\n") or js.child.before.startswith(
        "\r\n"
    ), repr(js.child.before)
    assert js.run("echo status=$?") == "status=131"
    assert js.modes() == before


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_fatal_signal_restores_the_terminal_under_a_shell(box, number):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    os.kill(js.handsh_pid(), number)
    js.child.expect_exact(SHELL_PROMPT)
    assert js.child.before.startswith("\r\n"), repr(js.child.before)
    assert js.run("echo status=$?") == f"status={128 + number}"
    assert js.modes() == before


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_fatal_signal_moves_to_a_fresh_line_when_text_was_typed(box, number):
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("add 7h")
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.kill(number)
    assert sh.wait_exit() == 128 + number
    # Nothing after the typed text but the move to a fresh line.
    assert sh.tail == "\n", repr(sh.tail)
    assert not box.history.exists() or history_lines(box.history) == []


def test_a_fatal_signal_on_an_empty_line_moves_to_a_fresh_line(box):
    # Readline's last word is a carriage return: without the line break the
    # shell's `Terminated` would overwrite the prompt.
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    time.sleep(0.2)
    sh.kill(signal.SIGTERM)
    assert sh.wait_exit() == 128 + signal.SIGTERM
    assert sh.tail == "\n", repr(sh.tail)


def test_kill_ends_a_stopped_handsh(box):
    # bash's `kill %1` sends SIGTERM, then SIGCONT: handsh, still in the
    # background, must not set the terminal up (that stops it again) but end.
    js = JobShell(box, "bash")
    before = js.modes()
    js.start_handsh("--quiet")
    pid = js.handsh_pid()
    js.type_and_wait("add 3h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    js.child.send("kill %1\r")
    js.child.expect_exact(SHELL_PROMPT)
    # handsh ends (a zombie until bash reaps it), and is never stopped again.
    assert eventually(lambda: process_state(pid) in (None, "Z")), (
        f"handsh is still there, state {process_state(pid)}"
    )
    # bash's own word: `wait` reaps a zombie at once (SIGTERM: 143), or the
    # job is already gone (127); a job still stopped would never return.
    # Polling `jobs` instead left bash's table saying Stopped for a zombie
    # it had not reaped yet.
    out = js.run("wait %1 2>/dev/null; echo status=$?")
    assert out.splitlines()[-1] in ("status=143", "status=127"), out
    assert "Stopped" not in js.run("jobs")
    assert js.modes() == before
