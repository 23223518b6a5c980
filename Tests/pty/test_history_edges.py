"""The history file at its edges (handsh(1), FILES), at a real prompt: a
file handsh creates is mode 0600 whatever the umask, a history file that
something else made huge costs no more than a full one (read from its end,
cut back at the first line entered), and a line over 64 KiB runs but is not
kept. Every file is in the test's own temporary folder.
"""

import os
import stat
import time

from conftest import TIMEOUT


def session(box, typed, **spawn):
    sh = box.spawn("--seed", "42", "-q", stderr_to_file=True, **spawn)
    sh.first_prompt()
    for line in typed:
        sh.command(line)
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    return sh.stderr()


def test_created_file_is_0600_under_any_umask(box):
    for mask in (0o277, 0o077, 0o022, 0):
        if box.history.exists():
            box.history.unlink()
        assert session(box, ["show"], umask=mask) == ""
        mode = stat.S_IMODE(os.stat(box.history).st_mode)
        assert mode == 0o600, f"umask {mask:04o} gave {mode:04o}"
        assert box.history.read_text() == "show\nquit\n"


def test_huge_history_file_is_cheap_and_cut_back(box):
    """400 MB of NUL bytes (no line in its last 64 MiB): the prompt comes at
    once, each line is quick, and the first line cuts the file back to it."""
    with open(box.history, "wb") as file:
        file.truncate(400 << 20)
    started = time.monotonic()
    sh = box.spawn("--seed", "42", "-q", stderr_to_file=True)
    sh.first_prompt()
    sh.command("show")
    sh.command("deck")
    # Generous for a shared machine: the old way took seconds a line.
    assert time.monotonic() - started < TIMEOUT / 2
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert sh.stderr() == ""
    assert box.history.read_text() == "show\ndeck\nquit\n"


def test_a_line_over_64_KiB_runs_but_is_not_kept(box):
    long_line = "limit # " + "x" * (64 * 1024)
    session(box, ["show", long_line, "deck"])
    assert box.history.read_text() == "show\ndeck\nquit\n"


def test_a_line_over_64_KiB_in_the_file_is_not_loaded(box):
    """A 70 KB line that something else wrote into the file is never
    recalled: the line before the last is the one two Ctrl-P away."""
    long_line = "limit # " + "x" * 70_000
    box.history.write_text(f"limit 7\n{long_line}\ndeck\n")
    sh = box.spawn("--seed", "42", "-q", stderr_to_file=True)
    sh.first_prompt()
    assert sh.command("\x10\x10") == []  # Ctrl-P twice: `limit 7`, quietly
    assert sh.command("limit") == ["7"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert sh.stderr() == ""
    # What was run is kept; the long line is still there, untouched.
    assert box.history.read_text() == f"limit 7\n{long_line}\ndeck\nlimit 7\nlimit\nquit\n"
