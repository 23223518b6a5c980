"""`--journal FILE` at the prompt (handsh(1), JOURNAL): quit and resume with
every version, a closed terminal (SIGHUP) in the middle of a session loses
nothing that was shown, and a second prompt on the same FILE is refused while
the first holds it. Every file is in the test's own temporary folder.
"""

import signal

from conftest import PROMPT

HISTORY = [
    " 0  start     (empty)",
    " 1  add 7♥    7♥",
    " 2  add 3♣    3♣ 7♥",
    " 3  add K♥    K♥ 3♣ 7♥",
    "*4  add 5♠    5♠ 7♥  (from 1)",
]


def journal_session(box, journal, *args):
    sh = box.spawn("--journal", journal.name, *args, stderr_to_file=True)
    sh.first_prompt()
    return sh


def test_quit_and_resume_keeps_every_version(box):
    journal = box.cwd / "game.hand"
    sh = journal_session(box, journal, "--seed", "42")
    for line in ["add", "add", "add", "undo 2", "add 5s"]:
        sh.command(line)
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert "journal game.hand" in sh.stderr()
    assert journal.stat().st_mode & 0o777 == 0o600
    sh = journal_session(box, journal)
    assert "journal game.hand resumed at version 4" in sh.stderr()
    assert sh.command("history") == HISTORY
    assert sh.command("undo") == ["7♥"]
    # The redo child is the branch the session was on.
    assert sh.command("redo") == ["5♠ 7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_a_closed_terminal_loses_nothing_shown(box):
    journal = box.cwd / "game.hand"
    sh = journal_session(box, journal, "--seed", "42")
    shown = []
    for line in ["add", "add", "add", "undo 2", "add 5s"]:
        shown += sh.command(line)
    sh.kill(signal.SIGHUP)
    assert sh.wait_exit() == 128 + signal.SIGHUP
    sh = journal_session(box, journal)
    lines = sh.command("history")
    assert lines == HISTORY
    hands = {line.split("  (from")[0].split("  ")[-1].strip() for line in lines}
    for hand in shown:
        assert hand in hands
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_a_second_prompt_on_one_journal_is_refused(box):
    journal = box.cwd / "game.hand"
    first = journal_session(box, journal, "--seed", "42")
    first.command("add")
    second = box.spawn("--journal", journal.name, stderr_to_file=True)
    assert second.wait_exit() == 2
    assert "cannot use journal" in second.stderr()
    assert "in use by another handsh" in second.stderr()
    assert first.command("add") == ["3♣ 7♥"]
    first.child.send("quit\r")
    assert first.wait_exit() == 0
    # The time lines (`#@ SECONDS`) aside.
    assert [line for line in journal.read_text().splitlines() if not line.startswith("#@ ")] == [
        "#!/usr/bin/env -S handsh --seed 42 --limit 5",
        "add 7H",
        "add 3C",
    ]
