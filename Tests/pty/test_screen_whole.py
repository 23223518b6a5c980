"""The screen stays whole whatever cuts the output (handsh(1), THE PROMPT),
checked on the screen as a terminal emulator (pyte) draws it: results cut
by Control-C or SIGTERM stop at a line's end, `^C` and the shell's
`Terminated` start a line of their own, no blank line follows a drop, a
`handsh &` draws no prompt before `fg`, a signal that ends handsh during a
blocked `source` or `save` reports no error, and the notice of a closed
stdout starts a line only when the terminal's cursor is not at one.

Every file and FIFO lives in the test's own folder. The races run
`HANDSH_PTY_ROUNDS` times each (2 in the suite; `scripts/screen-races`
runs them ten times, and all ten must hold).
"""

import os
import shutil
import signal
import time

import pytest

from conftest import (
    IN_FIFO_OPEN,
    IN_PIPE_WRITE,
    handsh_binary,
    holds_open,
    sleeps_in,
    wait_until,
)
from screen import Term
from conftest import SHELL_PROMPT

# `new 1; add` deals 7♦; `add` then `undo` a hundred thousand times shows
# 7♦ and (empty) in turn, long enough for a cut in the middle.
RESULTS = {"7♦", "(empty)"}
LOOPS = 40_000
ROUNDS = int(os.environ.get("HANDSH_PTY_ROUNDS", "2"))


def long_script(box):
    (box.cwd / "long.hand").write_text("add\nundo\n" * LOOPS)


def cut_results(box, color, cut):
    """handsh writing the results of `new 1; source long.hand` on its
    terminal; `cut(term)` is called once many have been drawn."""
    long_script(box)
    term = Term.spawn(box, f"--color={color}", rows=24, columns=80)
    term.wait_text("handsh>")
    term.send("new 1; source long.hand\r")
    # Several screenfuls of 7♦ and (empty) have gone by.
    term.wait_for(lambda t: t.raw.count("♦".encode()) > 200, "results")
    cut(term)
    return term


def assert_whole_results(rows):
    for row in rows:
        assert row in RESULTS, f"a broken line of results: {row!r} in {rows}"


@pytest.mark.parametrize("color", ["always", "never"])
@pytest.mark.parametrize("round", range(ROUNDS))
def test_ctrl_c_cuts_results_at_a_line_end_with_no_blank_line_after(box, color, round):
    term = cut_results(box, color, lambda t: t.send("\x03"))
    term.wait_for(lambda t: t.cursor_row() == "handsh>", "the next prompt")
    term.send("deck\r")
    term.wait_for(lambda t: "in deck" in t.text(), "deck's result")
    term.pump(0.2)
    rows = term.used_rows()
    at = rows.index("handsh> deck")
    # `^C` on a line of its own, after whole lines of results, then the
    # prompt; no blank line between the command and its result.
    assert rows[at - 1] == "^C", rows
    assert_whole_results(rows[: at - 1])
    assert rows[at + 1].endswith("discarded, seed 1"), rows
    assert rows[at + 2] == "handsh>", rows
    assert term.cursor() == (at + 2, len("handsh> "))
    # No colour left on: the prompt and the typed command in the
    # terminal's own colour.
    for column in range(len("handsh> deck")):
        cell = term.cell(at, column)
        assert cell.fg == "default" and not cell.bold, (column, cell)
    term.send("quit\r")
    assert term.wait_exit() == 0


@pytest.mark.parametrize("round", range(ROUNDS))
def test_sigterm_cuts_results_at_a_line_end_before_the_shells_terminated(box, round):
    long_script(box)
    bash = shutil.which("bash")
    # A shell that reports how its job ended, and goes on after it.
    term = Term.spawn(
        box,
        command=[
            bash,
            "-c",
            '"$@"; echo "after $?"',
            "bash",
            str(handsh_binary()),
           
            "--color=always",
        ],
    )
    term.wait_text("handsh>")
    term.send("new 1; source long.hand\r")
    term.wait_for(lambda t: t.raw.count("♦".encode()) > 200, "results")
    kids = open(f"/proc/{term.child.pid}/task/{term.child.pid}/children").read().split()
    os.kill(int(kids[0]), signal.SIGTERM)
    term.wait_text("after 143")
    term.pump(0.2)
    rows = term.used_rows()
    at = next(i for i, row in enumerate(rows) if "Terminated" in row)
    # Bash's own words only (`Terminated`, or `bash: line 1: PID Terminated`).
    assert rows[at] == "Terminated" or rows[at].startswith("bash: "), rows
    assert_whole_results(rows[:at])
    assert rows[at + 1] == "after 143", rows
    for column in range(len("after 143")):
        assert term.cell(at + 1, column).fg == "default"


def test_started_in_the_background_no_prompt_until_fg(box):
    bash = shutil.which("bash")
    env = {"PS1": SHELL_PROMPT, "ENV": "/dev/null"}
    term = Term.spawn(box, command=[bash, "--norc", "--noprofile", "-i"], env=env)
    term.wait_text(SHELL_PROMPT.strip())
    term.send(f"{handsh_binary()} --seed 42 &\r")
    term.wait_text("[1]")
    time.sleep(1.0)  # handsh reaches its prompt while bash reads
    term.send("echo typed\r")
    term.wait_text("typed\n")
    term.pump(0.5)
    # Nothing of handsh's on the screen: the next line typed is bash's.
    assert "handsh>" not in term.text(), term.text()
    assert term.cursor_row() == SHELL_PROMPT.rstrip(), term.rows()
    term.send("fg\r")
    term.wait_for(lambda t: t.cursor_row() == "handsh>", "the prompt after fg")
    term.send("add\r")
    term.wait_text("7♥")
    term.send("quit\r")
    term.wait_for(lambda t: t.cursor_row() == SHELL_PROMPT.rstrip(), "the shell again")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGQUIT"])
@pytest.mark.parametrize("what", ["source", "save"])
def test_a_signal_during_a_blocked_command_reports_no_error(box, name, what):
    fifo = box.cwd / "f.fifo"
    os.mkfifo(fifo)
    # A `source` waits for the text of a FIFO whose writer writes nothing
    # (this test holds both ends); a `save` waits to open one with no reader.
    held = os.open(fifo, os.O_RDWR) if what == "source" else None
    term = Term.spawn(box, "--seed", "42")
    term.wait_text("handsh>")
    term.send(f"add; {what} f.fifo\r")
    term.wait_text("7♥")
    if what == "source":
        wait_until(lambda: holds_open(term.child.pid, fifo), "the source to wait for text")
        time.sleep(0.3)
    else:
        wait_until(lambda: sleeps_in(term.child.pid, IN_FIFO_OPEN), "the save to wait in open(2)")
    number = getattr(signal, name)
    term.child.kill(number)
    assert term.wait_exit() == 128 + number
    term.pump(0.2)
    rows = term.used_rows()
    if held is not None:
        os.close(held)
    assert not any("error" in row for row in rows), rows
    assert rows[-1] == "7♥", rows


def test_the_closed_output_notice_starts_a_line_only_when_the_terminal_is_not_at_one(box):
    # As test_each_byte_once: the pipe fills in the middle of a line, and
    # its reader goes away while handsh waits on it.
    (box.cwd / "many.hand").write_text("add\nadd\n" + "mv 1 2\n" * 10000)
    fifo = box.root / "out"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    line = "source many.hand; history; deck"
    term = Term.spawn(
        box,
        command=["/bin/sh", "-c", 'exec "$0" "$@" > "$OUT"', str(handsh_binary())],
        env={"OUT": str(fifo)},
    )
    term.wait_text("handsh>")
    term.send(line + "\r")
    term.wait_text(line)
    wait_until(lambda: sleeps_in(term.child.pid, IN_PIPE_WRITE), "handsh to block on the pipe")
    os.close(reader)
    term.wait_text("in deck")
    # The screen as it was when the notice was written (what follows it
    # scrolls it away).
    notice = b"handsh: standard output is closed; results are now shown here"
    assert term.raw.count(notice) == 1
    then = Term.replay(term.raw[: term.raw.index(notice) + len(notice)], 24, 80)
    rows = then.used_rows()
    # The results went to the pipe: the terminal's cursor was at the start
    # of the line after the typed one.
    assert rows[-1] == notice.decode() and rows[-2] == "handsh> " + line, rows
    term.send("quit\r")
    assert term.wait_exit() == 0


def test_keys_typed_before_ctrl_c_go_with_it(box):
    # As the terminal drops them when Control-C comes (handsh keeps the
    # output then, not the keys).
    def cut(term):
        term.send("show")
        time.sleep(0.3)
        term.send("\x03")

    term = cut_results(box, "never", cut)
    term.wait_for(lambda t: t.cursor_row() == "handsh>", "the next prompt")
    term.pump(0.3)
    assert term.cursor_row() == "handsh>", term.rows()
    term.send("quit\r")
    assert term.wait_exit() == 0


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_ctrl_z_while_results_are_written_leaves_the_shell_echoing(box, shell):
    path = shutil.which(shell)
    arguments = ["-i"] if shell == "dash" else ["--norc", "--noprofile", "-i"]
    env = {"PS1": SHELL_PROMPT, "ENV": "/dev/null"}
    long_script(box)
    term = Term.spawn(box, command=[path, *arguments], env=env)
    term.wait_text(SHELL_PROMPT.strip())
    term.send(f"{handsh_binary()} --color=never\r")
    term.wait_text("handsh>")
    term.send("new 1; source long.hand\r")
    term.wait_for(lambda t: t.raw.count("♦".encode()) > 200, "results")
    term.send("\x1a")
    term.wait_text("Stopped")
    term.wait_for(lambda t: t.cursor_row() == SHELL_PROMPT.rstrip(), "the shell")
    term.send("echo typed")
    term.wait_for(lambda t: t.cursor_row() == SHELL_PROMPT + "echo typed", "the shell's echo")
    term.send("\r")
    term.wait_text("typed\n")
    term.send("kill -9 %1\r")
    term.send("exit\r")
