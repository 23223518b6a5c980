"""The prompt's history file (handsh(1), FILES): only a regular file is ever
opened, a null device means no history, a FIFO never blocks, modes are kept,
and sessions sharing one file lose none of each other's lines.

Every path is made inside the test's own temporary folder: the device nodes
(mknod, as root only) stand in for /dev/null and /dev/zero, so a test can
never change the real ones. Tests that need permission bits to matter run
handsh as uid 65534 through setpriv when they run as root.
"""

import os
import shutil
import signal
import stat
import tempfile
import threading
from pathlib import Path

import pexpect
import pytest

from conftest import PROMPT, TIMEOUT, clean

# Long lines make each cut to 1000 lines take longer, so that the two
# sessions overlap in it more often.
PAD = "x" * 60

DROP = ["--reuid=65534", "--regid=65534", "--clear-groups"]


def lines_of(path):
    return Path(path).read_text(encoding="utf-8").split("\n")[:-1]


def needs_root(why):
    if os.geteuid() != 0:
        pytest.skip(f"not root: {why}")


def make_device(path, minor):
    """A character device 1,MINOR (3 = null, 5 = zero) at PATH, mode 0666."""
    needs_root("mknod needs root")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    os.chmod(path, 0o666)


def run_session(box, history, typed, **spawn):
    """A session that enters TYPED lines and quits; returns its stderr."""
    sh = box.spawn("--seed", "42", history=history, stderr_to_file=True, **spawn)
    sh.first_prompt()
    for line in typed:
        sh.command(line)
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    return sh.stderr()


def banner_free(text):
    return [l for l in text.split("\n") if l and not l.startswith("handsh 1.")]


# MARK: - Not a regular file


def test_null_device_means_no_history_silently(box):
    null = box.root / "null"
    make_device(null, 3)
    link = box.root / "link-to-null"
    link.symlink_to(null)
    for history in (null, link):
        err = run_session(box, history, ["add", "show"])
        assert banner_free(err) == []
        assert stat.S_ISCHR(os.stat(null).st_mode)
        assert stat.S_IMODE(os.stat(null).st_mode) == 0o666


def test_device_history_is_reported_once_and_left_alone(box):
    zero = box.root / "zero"
    make_device(zero, 5)
    err = run_session(box, zero, ["add", "show", "deck"])
    assert banner_free(err) == [
        f"handsh: cannot use history file '{zero}': not a regular file"
    ]
    assert stat.S_ISCHR(os.lstat(zero).st_mode)
    assert stat.S_IMODE(os.stat(zero).st_mode) == 0o666


def test_fifo_history_never_blocks_and_is_reported_once(box):
    fifo = box.root / "fifo"
    os.mkfifo(fifo, 0o644)
    sh = box.spawn("--seed", "42", history=fifo, stderr_to_file=True)
    sh.first_prompt()  # times out (fails) if opening the FIFO blocks
    assert sh.command("add") == ["7♥"]
    assert sh.command("show") == ["1  7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert banner_free(sh.stderr()) == [
        f"handsh: cannot use history file '{fifo}': not a regular file"
    ]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert stat.S_IMODE(os.stat(fifo).st_mode) == 0o644


def test_folder_history_says_is_a_directory(box):
    folder = box.root / "folder"
    folder.mkdir(mode=0o755)
    err = run_session(box, folder, ["add", "show"])
    assert banner_free(err) == [
        f"handsh: cannot use history file '{folder}': Is a directory"
    ]
    assert list(folder.iterdir()) == []


# MARK: - Links and modes


def test_symlink_is_followed(box):
    target = box.root / "real-history"
    target.write_text("deck\n")
    os.chmod(target, 0o644)
    link = box.root / "link"
    link.symlink_to(target)
    err = run_session(box, link, ["add"])
    assert banner_free(err) == []
    assert link.is_symlink()
    assert lines_of(target) == ["deck", "add", "quit"]
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644


def test_new_file_is_private_and_an_existing_file_keeps_its_mode(box):
    fresh = box.root / "fresh"
    run_session(box, fresh, ["add"], umask=0)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o600
    existing = box.root / "existing"
    existing.write_text("show\n")
    os.chmod(existing, 0o644)
    run_session(box, existing, ["deck"], umask=0)
    assert stat.S_IMODE(os.stat(existing).st_mode) == 0o644
    assert lines_of(existing) == ["show", "deck", "quit"]


# MARK: - Shared files


def test_two_sessions_sharing_a_file_lose_nothing(box):
    """Two sessions each enter 700 distinct lines, interleaved in batches
    typed ahead at once, so that their appends and cuts race. The file ends
    holding 1000 lines: of each session, its last lines, all of them, in the
    order entered; nothing lost in between."""
    signal.alarm(300)  # 1400 lines at two prompts: more than the usual guard
    sessions = [box.spawn("--seed", "1", "-q"), box.spawn("--seed", "2", "-q")]
    for sh in sessions:
        sh.first_prompt()
    typed = [[f"limit # {name} {i} {PAD}" for i in range(700)] for name in ("first", "second")]
    errors = []

    def enter(sh, lines, batch=10):
        # Each session types in its own thread, so the two really run at once.
        try:
            for start in range(0, len(lines), batch):
                sh.child.send("".join(line + "\r" for line in lines[start : start + batch]))
                for _ in range(batch):
                    sh.prompt()
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=enter, args=pair) for pair in zip(sessions, typed)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(240)
    assert errors == [] and not any(t.is_alive() for t in threads), errors
    for sh in sessions:
        sh.child.sendeof()
        assert sh.wait_exit() == 0
    kept = lines_of(box.history)
    assert len(kept) == 1000
    counts = []
    for lines in typed:
        mine = [line for line in kept if line in set(lines)]
        counts.append(len(mine))
        assert mine == lines[len(lines) - len(mine) :], (
            f"lost: {sorted(set(lines[len(lines) - len(mine):]) - set(mine))[:5]}"
        )
    assert sum(counts) == 1000
    # The cut kept the newest: each session's last 300 lines are certainly in.
    assert min(counts) >= 300
    assert [p.name for p in box.root.iterdir() if p.name.startswith(".")] == []


def setpriv_or_skip():
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None or os.system(f"{setpriv} {' '.join(DROP)} true") != 0:
        pytest.skip("running as root, and setpriv cannot drop to uid 65534")
    return [setpriv] + DROP


def test_history_in_a_read_only_folder_stays_bounded(box):
    """A history file (writable) in a folder its user may not write: the
    cut to 1000 lines is made in place, so the file never grows past it."""
    prefix = setpriv_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="handsh-ro-"))
    try:
        os.chmod(folder, 0o755)
        history = folder / "history"
        old = [f"old {i}" for i in range(1000)]
        history.write_text("".join(l + "\n" for l in old))
        os.chmod(history, 0o600)
        if prefix:
            os.chown(history, 65534, 65534)  # the folder stays root's
        else:
            os.chmod(folder, 0o555)
        command = prefix + [str(box.binary), "--seed", "42", "--color=never"]
        child = pexpect.spawn(
            command[0],
            command[1:],
            env=box.env(history, None),
            cwd=str(folder),
            timeout=TIMEOUT,
            encoding="utf-8",
            codec_errors="replace",
            dimensions=(24, 200),
        )
        box.children.append(child)
        child.expect_exact(PROMPT)
        typed = ["add", "show", "deck", "limit", "history"]
        for line in typed:
            child.send(line + "\r")
            child.expect_exact(PROMPT)
            assert len(lines_of(history)) == 1000
        child.send("quit\r")
        child.expect(pexpect.EOF)
        assert "cannot" not in clean(child.before)
        assert lines_of(history) == old[6:] + typed + ["quit"]
        assert sorted(p.name for p in folder.iterdir()) == ["history"]
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)
