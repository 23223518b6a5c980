"""The readline prompt of `handsh`, continued (handsh(1), THE PROMPT, FILES):
its history file: appended line by line with mode 0600, capped at 1000
lines, shared by sessions one after the other or overlapping, recalled,
defaulting to ~/.handsh_history, off when empty, and an unwritable one
reported once. Fixtures: conftest.py.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥ (handsh(1), The shuffle).
"""

import os
import stat

import pytest

from conftest import DECK_AT_START, history_lines


# MARK: - History file


def test_history_file_is_appended_line_by_line_exactly_with_mode_0600(box):
    sh = box.spawn("--seed", "42", umask=0)
    sh.first_prompt()
    expected = []
    for typed, added in [
        ("add", True),
        ("", False),  # blank
        ("   ", False),  # blank
        ("show", True),
        ("show", False),  # an immediate repeat
        ("deck", True),
        ("show", True),  # a repeat, but not immediate
        ("del 9", True),  # failed commands are history too
        ("add 3c  # comment", True),
    ]:
        sh.command(typed)
        if added:
            expected.append(typed)
        # On disk as soon as entered: a crash loses nothing.
        assert box.history.read_bytes() == "".join(l + "\n" for l in expected).encode()
    assert stat.S_IMODE(box.history.stat().st_mode) == 0o600
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert history_lines(box.history) == expected
    assert stat.S_IMODE(box.history.stat().st_mode) == 0o600


def test_history_file_is_capped_at_1000_lines(box):
    old = [f"old line {i}" for i in range(1200)]
    box.history.write_text("".join(l + "\n" for l in old))
    box.history.chmod(0o600)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("show") == ["(empty)"]
    lines = history_lines(box.history)
    assert len(lines) == 1000
    assert lines[-1] == "show"
    assert lines[:-1] == old[-999:]
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert history_lines(box.history) == old[-999:] + ["show"]


def test_history_of_two_sessions_one_after_the_other(box):
    first = box.spawn("--seed", "42")
    first.first_prompt()
    first.command("add")
    first.child.send("quit\r")
    assert first.wait_exit() == 0
    second = box.spawn("--seed", "42")
    second.first_prompt()
    second.command("show")
    second.child.send("exit\r")
    assert second.wait_exit() == 0
    assert history_lines(box.history) == ["add", "quit", "show", "exit"]


def test_history_file_made_before_keeps_its_mode(box):
    box.history.write_text("show\n")
    os.chmod(box.history, 0o644)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.command("deck")
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert stat.S_IMODE(os.stat(box.history).st_mode) == 0o644


def test_a_repeat_of_the_last_sessions_last_line_is_added(box):
    box.history.write_text("add\nshow\n")
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.command("show")
    sh.command("deck")
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    # An immediate repeat is the same session's previous line only.
    assert history_lines(box.history) == ["add", "show", "show", "deck", "quit"]


def test_history_file_of_binary_garbage_does_not_stop_the_session(box):
    garbage = bytes(range(256)) * 40 + b"\xff\xfe\x00\n\x1b[31m\n" * 50
    box.history.write_bytes(garbage)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert box.history.read_bytes().endswith(b"add\nquit\n")


def test_history_of_two_overlapping_sessions_keeps_both(box):
    first = box.spawn("--seed", "42")
    first.first_prompt()
    second = box.spawn("--seed", "42")
    second.first_prompt()
    first.command("add")
    second.command("deck")
    first.command("show")
    second.command("limit")
    first.child.send("quit\r")
    assert first.wait_exit() == 0
    second.child.send("exit\r")
    assert second.wait_exit() == 0
    assert history_lines(box.history) == ["add", "deck", "show", "limit", "quit", "exit"]


def test_history_of_an_earlier_session_is_recalled(box):
    box.history.write_text("add\ndeck\n")
    box.history.chmod(0o600)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("\x10") == [DECK_AT_START]  # Ctrl-P: previous line
    assert sh.command("\x10\x10\x10") == ["7♥"]  # deck, deck, add


def test_history_defaults_to_handsh_history_in_home(box):
    sh = box.spawn("--seed", "42", history=None)
    sh.first_prompt()
    sh.command("add")
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    path = box.home / ".handsh_history"
    assert history_lines(path) == ["add"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_history_set_and_empty_writes_no_file(box):
    sh = box.spawn("--seed", "42", "--quiet", history="", stderr_to_file=True)
    sh.first_prompt()
    sh.command("add")
    sh.command("show")
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert sh.stderr() == ""
    written = sorted(
        str(p.relative_to(box.root))
        for p in box.root.rglob("*")
        if p.is_file() and not p.name.startswith("stderr-")
    )
    assert written == ["inputrc"]


@pytest.mark.parametrize("kind", ["missing-folder", "folder"])
def test_unwritable_history_is_reported_once_and_the_session_goes_on(box, kind):
    if kind == "missing-folder":
        path = box.root / "no such folder" / "history"
    else:
        path = box.root / "a folder"
        path.mkdir()
    sh = box.spawn("--seed", "42", "--quiet", history=path, stderr_to_file=True)
    sh.first_prompt()
    assert sh.command("add") == []
    assert sh.command("show") == ["1  7♥"]
    assert sh.command("deck") == ["51 in deck, 0 discarded, seed 42"]
    errors = sh.stderr()
    assert errors.count("\n") == 1 and errors.endswith("\n"), repr(errors)
    assert str(path) in errors, repr(errors)
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert sh.stderr() == errors
