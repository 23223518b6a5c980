"""`handsh --record FILE` (handsh(1), GOLDEN TESTS): a session at the prompt,
written as a golden test that passes. Fixtures: conftest.py.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ (handsh(1), THE DECK).
"""

import os
import signal
import subprocess

import pytest


def run_test(box, *paths):
    return subprocess.run(
        [str(box.binary), "--test", *paths],
        cwd=str(box.cwd),
        capture_output=True,
        timeout=20,
    )


def test_the_recording_passes_and_reads_like_the_session(box):
    sh = box.spawn("--seed", "42", "--record", "game.hand", "--limit", "3")
    sh.first_prompt()
    assert sh.command("add; add") == ["7♥", "3♣ 7♥"]
    # The prompt points at the failed command; the recording keeps only the error.
    assert sh.command("del 9; add") == [
        "  del 9; add",
        "  ^^^^^",
        "error: no card at position 9 (hand has 2 cards)",
    ]
    sh.command("")
    sh.command("# a comment")
    sh.command("#> not an expectation")
    sh.command("  #2> nor this")
    # A line dropped with Ctrl-C is not written.
    sh.child.send("add 5h")
    sh.child.expect_exact("add 5h")
    sh.child.sendintr()
    sh.prompt()
    out = sh.command("new")
    assert len(out) == 1 and out[0] == "(empty)"
    seed_line = sh.command("deck")
    assert sh.command("bogus") == ["  bogus", "  ^^^^^", "error: unknown command 'bogus'"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0

    seed = seed_line[0].split("seed ")[1]
    text = (box.cwd / "game.hand").read_text(encoding="utf-8")
    assert text == (
        "#!/usr/bin/env -S handsh --seed 42 --limit 3\n"
        "add; add\n"
        "#> 7♥\n"
        "#> 3♣ 7♥\n"
        "del 9; add\n"
        "#2> error: no card at position 9 (hand has 2 cards)\n"
        "# a comment\n"
        "# #> not an expectation\n"
        "#   #2> nor this\n"
        f"new {seed}\n"
        "#> (empty)\n"
        "deck\n"
        f"#> 52 in deck, 0 discarded, seed {seed}\n"
        "bogus\n"
        "#2> error: unknown command 'bogus'\n"
        "quit\n"
    )
    result = run_test(box, "game.hand")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == b"1 passed, 0 failed\n"


def test_ctrl_d_ends_and_writes_the_recording(box):
    sh = box.spawn("--seed", "7", "--ascii", "--record", "d.hand")
    sh.first_prompt()
    sh.command("add")
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    text = (box.cwd / "d.hand").read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env -S handsh --seed 7 --ascii\nadd\n#> ")
    assert run_test(box, "d.hand").returncode == 0


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_session_and_the_recording_is_written(box, number):
    sh = box.spawn("--seed", "42", "--record", "s.hand")
    sh.first_prompt()
    sh.command("add")
    sh.kill(number)
    assert sh.wait_exit() == 128 + number
    text = (box.cwd / "s.hand").read_text(encoding="utf-8")
    assert text == "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n"


@pytest.mark.parametrize("how", ["key", "kill"])
def test_ctrl_backslash_writes_the_recording_then_ends_by_sigquit(box, how):
    sh = box.spawn("--seed", "42", "--record", "q.hand")
    sh.first_prompt()
    sh.command("add")
    if how == "key":
        sh.child.sendcontrol("\\")
    else:
        sh.kill(signal.SIGQUIT)
    assert sh.wait_exit() == 128 + signal.SIGQUIT
    text = (box.cwd / "q.hand").read_text(encoding="utf-8")
    assert text == "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n"


def test_no_partial_recording_exists_during_the_session(box):
    sh = box.spawn("--seed", "42", "--record", "p.hand")
    sh.first_prompt()
    sh.command("add")
    assert not (box.cwd / "p.hand").exists()
    assert [p.name for p in box.cwd.iterdir()] == []
    sh.child.send("exit\r")
    assert sh.wait_exit() == 0
    assert (box.cwd / "p.hand").exists()


def test_a_recording_that_cannot_be_written_is_refused_at_the_start(box):
    # Said before the session, not after it was typed in vain.
    sh = box.spawn("--seed", "42", "--record", "no/such/folder/x.hand", stderr_to_file=True)
    assert sh.wait_exit() == 2
    assert sh.stderr() == "handsh: cannot write 'no/such/folder/x.hand': No such file or directory\n"
    sh = box.spawn("--seed", "42", "--record", ".", stderr_to_file=True)
    assert sh.wait_exit() == 2
    assert sh.stderr() == "handsh: cannot write '.': Is a directory\n"


def test_a_recording_whose_folder_went_away_is_reported_at_the_end(box):
    (box.cwd / "gone").mkdir()
    sh = box.spawn("--seed", "42", "--record", "gone/x.hand", stderr_to_file=True)
    sh.first_prompt()
    sh.command("add")
    (box.cwd / "gone").rmdir()
    sh.child.send("quit\r")
    assert sh.wait_exit() == 1
    assert "handsh: cannot write 'gone/x.hand': No such file or directory" in sh.stderr()


def test_any_name_the_file_system_accepts_is_recorded(box):
    # Bytes that are not UTF-8: pexpect passes bytes as they are; Python
    # opens them through the surrogates of os.fsdecode.
    name = os.fsdecode(b"r\xff.hand")
    sh = box.spawn("--seed", "42", "--record", os.fsencode(name))
    sh.first_prompt()
    sh.command("add")
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert os.listdir(os.fsencode(box.cwd)) == [b"r\xff.hand"]
    text = (box.cwd / name).read_text(encoding="utf-8")
    assert text == "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n"
    assert run_test(box, name).returncode == 0

    sh = box.spawn("--seed", "42", "--record", b"no\xfe/x.hand", stderr_to_file=True)
    assert sh.wait_exit() == 2
    assert "handsh: cannot write 'no\\xFE/x.hand': No such file or directory" in sh.stderr()


def test_saves_are_recorded_with_what_they_print_in_a_test(box):
    # In a test, a save writes into the test's own memory: the recording's
    # blocks are what --test prints, so it passes whatever the session saw.
    sh = box.spawn("--seed", "42", "--record", "r.hand")
    sh.first_prompt()
    sh.command("add")
    assert sh.command("save kept.hand") == []
    failed = sh.command("save no/such/x.hand")
    assert failed == ["error: cannot write no/such/x.hand: No such file or directory"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    text = (box.cwd / "r.hand").read_text(encoding="utf-8")
    assert text == (
        "#!/usr/bin/env -S handsh --seed 42\n"
        "add\n#> 7♥\n"
        "save kept.hand\n"
        "save no/such/x.hand\n"
        "quit\n"
    )
    assert (box.cwd / "kept.hand").exists()
    assert run_test(box, "r.hand").returncode == 0


def test_a_typed_new_keeps_its_own_seed_after_a_sourced_new(box):
    # The sourced file draws a seed before the typed `new` does: the typed
    # one is written with the seed it drew, never the file's.
    (box.cwd / "fresh.hand").write_text("new\n", encoding="utf-8")
    sh = box.spawn("--seed", "42", "--quiet", "--record", "r.hand")
    sh.first_prompt()
    out = sh.command("source fresh.hand; deck; new; deck")
    assert len(out) == 2
    sourced = out[0].split("seed ")[1]
    typed = out[1].split("seed ")[1]
    assert sourced != typed
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    lines = (box.cwd / "r.hand").read_text(encoding="utf-8").splitlines()
    assert lines[1] == f"source fresh.hand; deck; new {typed}; deck"


def test_earlier_and_later_are_recorded_as_the_goto_they_did(box):
    # Written as the `goto V` they went to, so that the test replays the
    # same whatever its clock says; a failed one stays as typed, and fails
    # again, at version 0, whatever the clock.
    (box.cwd / "back.hand").write_text("earlier\n", encoding="utf-8")
    sh = box.spawn("--seed", "42", "--record", "r.hand")
    sh.first_prompt()
    assert sh.command("add; add; add") == ["7♥", "3♣ 7♥", "K♥ 3♣ 7♥"]
    assert sh.command("earlier 2;  later 1s ; source back.hand") == ["7♥", "K♥ 3♣ 7♥", "3♣ 7♥"]
    assert sh.command("earlier 1d # all of it") == ["(empty)"]
    assert sh.command("earlier") == ["error: no earlier version"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    lines = (box.cwd / "r.hand").read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if not line.startswith("#")] == [
        "add; add; add",
        "goto 1;  goto 3 ; source back.hand",
        "goto 0 # all of it",
        "earlier",
        "quit",
    ]
    result = run_test(box, "r.hand")
    assert result.returncode == 0, result.stdout + result.stderr
