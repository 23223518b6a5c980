"""What handsh opened for itself is not a user's stream, and a write that
cannot be whole is taken back (handsh(1), FILES, SIGNALS, LIMITS).

At the prompt, descriptors 3 and 4 were once the prompt's own signal pipe
(a byte put there was read back as a signal number and killed the session);
the prompt now waits for signals with no descriptor at all, so naming 3 or 4
by any name reaches nothing of handsh's: `save` and `source` fail, never
block, and the session stays whole. A history append that a file-size limit cuts short is taken back,
so the file never holds a partial line.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import os
from pathlib import Path

import pexpect

from conftest import TIMEOUT, Shell


def test_descriptors_3_and_4_are_no_stream_a_user_may_name_at_the_prompt(box):
    os.symlink("/proc/self/fd/4", box.cwd / "l4")
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    for name in ["/dev/fd/3", "/dev/fd/4", "/proc/self/fd/4", "l4", "/proc/thread-self/fd/4"]:
        shown = sh.command(f"save {name}")
        assert len(shown) == 1 and shown[0].startswith(f"error: cannot write {name}: "), shown
    # Never blocks, never runs anything.
    for name in ["/dev/fd/3", "/proc/self/fd/3"]:
        shown = sh.command(f"source {name}")
        assert len(shown) == 1 and shown[0].startswith(f"error: cannot read {name}: "), shown
    # The session is whole: no signal was made up.
    assert sh.command("add") == ["3♣ 7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_a_history_append_cut_short_by_a_size_limit_is_taken_back(box):
    old = "".join(f"line {n}\n" for n in range(1000))
    box.history.write_text(old)
    child = pexpect.spawn(
        "/usr/bin/prlimit",
        [f"--fsize={len(old) + 10}", str(box.binary), "--seed", "42"],
        env=box.env(box.history, {}),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    sh = Shell(child)
    sh.first_prompt()
    shown = sh.command("add # " + "x" * 40)
    assert "7♥" in shown, shown
    assert any("File too large" in line for line in shown), shown
    # The file holds what it held, not a partial line.
    assert box.history.read_text() == old
    assert sh.command("add") == ["3♣ 7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert box.history.read_text() == old


def test_the_prompt_waits_for_signals_with_no_descriptor_of_its_own(box):
    # Once a pipe at 3 and 4, into which another program could put bytes
    # read back as signals: now nothing but the terminal is open at the
    # prompt, and Ctrl-C still drops the line.
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    assert sorted(os.listdir(f"/proc/{sh.child.pid}/fd"), key=int) == ["0", "1", "2"]
    sh.child.send("del 1")
    sh.child.expect_exact("del 1")
    sh.child.sendintr()
    sh.prompt()
    assert sh.command("show") == ["1  7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_a_recording_through_another_users_link_in_a_sticky_folder_is_refused(box):
    if os.geteuid() != 0:
        import pytest

        pytest.skip("not root: a link owned by another user needs root")
    shared = box.cwd / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    os.symlink(box.cwd / "taken.hand", shared / "rec")
    os.lchown(shared / "rec", 65534, 65534)
    sh = box.spawn("--record", "shared/rec")
    assert sh.wait_exit() == 2
    assert "handsh: cannot write 'shared/rec': Permission denied" in sh.tail, sh.tail
    assert not (box.cwd / "taken.hand").exists()
