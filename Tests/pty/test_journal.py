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


def traced_session(box, trace, *inject):
    """handsh --journal game.hand at the prompt, under strace (its calls in
    TRACE, INJECT faults)."""
    import pexpect
    import shutil

    strace = shutil.which("strace")
    if strace is None:
        import pytest

        pytest.skip("strace is missing (scripts/bootstrap installs it)")
    faults = [word for fault in inject for word in ("-e", "inject=" + fault)]
    child = pexpect.spawn(
        strace,
        # -s 256: a change's write may start with time lines (`#@ SECONDS`).
        ["-f", "-s", "256", "-o", str(trace), "-e", "trace=fdatasync,pwrite64,write",
         "-e", "signal=none"]
        + faults
        + [str(box.binary), "--color=never", "--journal", "game.hand", "--seed", "42"],
        env=box.env(box.history, None),
        cwd=str(box.cwd),
        timeout=20,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    child.expect_exact(PROMPT)
    return child


def test_a_result_at_the_prompt_is_on_disk_before_it_shows(box):
    trace = box.root / "trace"
    child = traced_session(box, trace)
    child.send("add\r")
    child.expect_exact("7♥")
    child.expect_exact(PROMPT)
    child.send("quit\r")
    child.expect(pexpect_eof())
    calls = trace.read_text().splitlines()
    line = next(i for i, call in enumerate(calls) if "pwrite64(" in call and "add 7H" in call)
    fd = calls[line].split("pwrite64(")[1].split(",")[0]
    shown = next(i for i, call in enumerate(calls) if "write(1," in call and "7\\342\\231\\245" in call)
    synced = [i for i, call in enumerate(calls) if f"fdatasync({fd})" in call]
    assert any(line < i < shown for i in synced), calls


def test_a_failed_flush_at_the_prompt_fails_the_command(box):
    trace = box.root / "trace"
    # The first fdatasync is line 1's, at the start; every later one fails.
    child = traced_session(box, trace, "fdatasync:error=EIO:when=2+")
    child.send("add\r")
    child.expect_exact("error: cannot write journal game.hand: Input/output error")
    child.expect_exact(PROMPT)
    child.send("show\r")
    child.expect_exact("(empty)")
    child.expect_exact(PROMPT)
    child.send("quit\r")
    child.expect(pexpect_eof())
    assert (box.cwd / "game.hand").read_text() == "#!/usr/bin/env -S handsh --seed 42 --limit 5\n"
    assert "7\\342\\231\\245" not in "".join(
        call for call in trace.read_text().splitlines() if "write(1," in call
    )


def pexpect_eof():
    import pexpect

    return pexpect.EOF
