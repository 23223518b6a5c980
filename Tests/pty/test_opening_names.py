"""The one way of opening a name (handsh(1), FILES), tried where a mutant
of it lived on: link loops end in `Too many levels of symbolic links` after
the kernel's 40 links, whatever opens the name; another process's
descriptor links (/proc/PID/fd/N) are that process's files, not handsh's
streams; handsh's own descriptors are no stream a user may name; a FIFO
swapped in between the look and the open never holds handsh; and a link
that the sticky folder's owner owns is followed, as fs.protected_symlinks
allows, by a user who is not root.

Seed 1 deals 7♦ first; seed 42 deals 7♥ 3♣.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import TIMEOUT

ELOOP = "Too many levels of symbolic links"
NOBODY = 65534


def needs_root(why):
    if os.geteuid() != 0:
        pytest.skip(f"not root: {why}")


def run(box, *args, env=None, cwd=None, timeout=TIMEOUT, user=None):
    """`handsh ARGS` with stdin from /dev/null; (status, stdout, stderr)."""
    environment = box.env("", env)
    done = subprocess.run(
        [str(box.binary), "--color=never", *args],
        cwd=cwd or box.cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        user=user,
        group=user,
        extra_groups=[] if user is not None else None,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


# MARK: - Link loops


def test_link_loops_are_too_many_levels_of_links_for_every_opener(box):
    os.symlink("loop", box.cwd / "loop")
    os.symlink("b", box.cwd / "a")
    os.symlink("a", box.cwd / "b")
    os.symlink("d/x", box.cwd / "d")
    for name in ["loop", "a", "d/x.hand"]:
        status, out, err = run(box, "-q", "-c", f"add; save {name}")
        assert (status, err) == (1, f"<command line>:1:6: error: cannot write {name}: {ELOOP}\n")
        status, out, err = run(box, "-q", "-c", f"source {name}")
        assert (status, err) == (1, f"<command line>:1:1: error: cannot read {name}: {ELOOP}\n")
        status, out, err = run(box, name)
        assert (status, err) == (2, f"handsh: cannot open '{name}': {ELOOP}\n")
        status, out, err = run(box, "--journal", name, "-c", "add")
        assert (status, out, err) == (2, "", f"handsh: cannot use journal {name}: {ELOOP}\n")
    # Nothing was made beside the links.
    assert sorted(os.listdir(box.cwd)) == ["a", "b", "d", "loop"]


def test_a_history_file_that_is_a_link_loop_is_reported_once(box):
    os.symlink("loop", box.cwd / "loop")
    sh = box.spawn("--seed", "42", history=box.cwd / "loop", stderr_to_file=True)
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert (
        f"handsh: cannot read history file '{box.cwd / 'loop'}': {ELOOP}"
        in sh.stderr().splitlines()
    )
    assert os.readlink(box.cwd / "loop") == "loop"


def chain(folder, count, end):
    """link1 -> link2 -> ... -> link<count> -> END; the first link's name."""
    for number in range(1, count + 1):
        target = end if number == count else f"link{number + 1}"
        os.symlink(target, folder / f"link{number}")
    return "link1"


@pytest.mark.parametrize("count", [40, 41])
def test_links_are_followed_as_far_as_the_kernel_follows_them(box, count):
    (box.cwd / "script.hand").write_text("add\n")
    first = chain(box.cwd, count, "script.hand")
    # What the kernel says of the same chain: 40 links, not one more.
    kernel = subprocess.run(["cat", first], cwd=box.cwd, capture_output=True)
    assert (kernel.returncode == 0) == (count == 40)
    status, out, err = run(box, "-s", "1", "-c", f"source {first}")
    if count == 40:
        assert (status, out, err) == (0, "7♦\n", "")
    else:
        assert (status, err) == (1, f"<command line>:1:1: error: cannot read {first}: {ELOOP}\n")
    status, out, err = run(box, "-s", "1", "-q", "-c", f"add; save {first}")
    if count == 40:
        assert (status, err) == (0, "")
        assert (box.cwd / "script.hand").read_text().endswith("add 7D\n")
        assert os.path.islink(box.cwd / f"link{count}")
    else:
        assert (status, err) == (1, f"<command line>:1:6: error: cannot write {first}: {ELOOP}\n")
        assert (box.cwd / "script.hand").read_text() == "add\n"


# MARK: - Another process's descriptors, and handsh's own


@pytest.fixture
def other(box):
    """Another process (sleep) whose stdin is a script and stdout a file of
    its own; its pid."""
    (box.cwd / "its-script.hand").write_text("add\nadd\n")
    (box.cwd / "its-output.txt").write_text("its own line\n")
    with open(box.cwd / "its-script.hand") as stdin, open(box.cwd / "its-output.txt", "a") as out:
        child = subprocess.Popen(["sleep", "60"], stdin=stdin, stdout=out)
    yield child.pid
    child.kill()
    child.wait()


def test_another_processs_descriptor_is_its_file_not_handshs_stream(box, other):
    # Its stdout (1) is its file, not handsh's stdout: the script goes there.
    status, out, err = run(box, "-s", "1", "-c", f"add; save /proc/{other}/fd/1; show")
    assert (status, out, err) == (0, "7♦\n1  7♦\n", "")
    saved = (box.cwd / "its-output.txt").read_text()
    assert saved.startswith("#!/usr/bin/env handsh\n") and saved.endswith("add 7D\n"), saved
    # Its stdin (0) is its script, read; handsh's own stdin is /dev/null.
    status, out, err = run(box, "-s", "1", "-c", f"source /proc/{other}/fd/0")
    assert (status, out, err) == (0, "7♦\n9♥ 7♦\n", "")
    # A number handsh has no descriptor of is its file too.
    status, out, err = run(box, "-q", "-c", f"source /proc/{other}/fd/9")
    assert status == 1 and err.endswith("No such file or directory\n"), err


def test_the_journals_descriptor_is_no_stream_by_any_name(box):
    journal = box.cwd / "j.hand"
    os.symlink("/dev/fd/4", box.cwd / "l4")
    sh = box.spawn("--seed", "42", "--journal", str(journal))
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    fds = {
        int(n): os.readlink(f"/proc/{sh.child.pid}/fd/{n}")
        for n in os.listdir(f"/proc/{sh.child.pid}/fd")
    }
    own = [n for n, target in fds.items() if target == str(journal)]
    assert len(own) == 1 and own[0] > 2, fds
    number = own[0]
    kept = journal.read_bytes()
    names = [f"/dev/fd/{number}", f"/proc/self/fd/{number}", f"/proc/thread-self/fd/{number}"]
    if number == 4:
        names.append("l4")
    for name in names:
        shown = sh.command(f"source {name}")
        assert shown == [f"error: cannot read {name}: Bad file descriptor"], shown
        shown = sh.command(f"save {name}")
        assert shown == [f"error: cannot write {name}: Bad file descriptor"], shown
    # By its name it is busy, not a script to run again, and no `save`
    # replaces it or writes into it, by that name or a hard link's.
    assert sh.command(f"source {journal}") == [
        f"error: cannot read {journal}: Device or resource busy"
    ]
    os.link(journal, box.cwd / "hard.hand")
    for name in [str(journal), "hard.hand"]:
        shown = sh.command(f"save {name}")
        assert shown == [f"error: cannot write {name}: Device or resource busy"], shown
    assert journal.read_bytes() == kept
    assert sh.command("show") == ["1  7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_the_journals_descriptor_in_a_command_line_run(box):
    journal = box.cwd / "j.hand"
    # The descriptor handsh gives its journal when it inherited none.
    run(box, "--journal", str(journal), "-c", "add")
    kept = journal.read_bytes()
    found = subprocess.run(
        ["strace", "-e", "trace=openat", "-o", "/dev/stdout", str(box.binary), "--journal",
         str(journal), "-c", "show"],
        cwd=box.cwd, env=box.env("", None), stdin=subprocess.DEVNULL, capture_output=True,
        timeout=TIMEOUT,
    ) if shutil.which("strace") else None
    number = 4
    if found is not None:
        lines = [l for l in found.stdout.decode().splitlines() if '"j.hand"' in l and "= " in l]
        assert lines, found.stdout
        number = int(lines[-1].rsplit("= ", 1)[1].split()[0])
    for name in [f"/dev/fd/{number}", f"/proc/self/fd/{number}"]:
        status, out, err = run(box, "--journal", str(journal), "-c", f"source {name}")
        assert status == 1 and err.endswith(f"cannot read {name}: Bad file descriptor\n"), err
    assert journal.read_bytes() == kept


# MARK: - A FIFO swapped in between the look and the open


RENAME_EXCHANGE = 2


def exchange(a, b):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, bytes(a), -100, bytes(b), RENAME_EXCHANGE) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


@pytest.mark.parametrize(
    "partner", ["fifo", "link to the fifo", "fifo, without /proc", "link to the fifo, without /proc"]
)
def test_a_fifo_swapped_in_after_the_look_is_never_opened(box, partner):
    # A SCRIPT that is a FIFO is waited on, as `sh FIFO` waits: only the
    # FIFO that was looked at, never one swapped in after the look, and
    # what was swapped in is not even opened: a writer waiting on the FIFO
    # stays waiting (opening it would let it write to nobody). Without
    # /proc the name is opened in its folder, non-blocking unless it was a
    # FIFO, and compared after the open: it never waits either.
    if shutil.which("strace") is None:
        pytest.skip("strace is missing (scripts/bootstrap installs it)")
    hidden = partner.endswith("without /proc")
    hide = ["unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount -t tmpfs none /proc && exec "$@"', "sh"]
    if hidden:
        needs_root("a mount namespace with /proc hidden")
        # A static build's runtime cannot start without /proc at all.
        probe = subprocess.run(hide + [str(box.binary), "-c", ""], capture_output=True,
                               timeout=TIMEOUT)
        if probe.returncode != 0:
            pytest.skip(f"{box.binary} does not start without /proc (status {probe.returncode})")
    (box.cwd / "t.hand").write_text("add\n")
    os.mkfifo(box.cwd / "fifo")
    other = box.cwd / "fifo"
    if partner.startswith("link"):
        other = box.cwd / "link"
        os.symlink("fifo", other)
    # Without /proc opening the FIFO (as the fallback does, non-blocking)
    # lets a writer go: none waits there.
    writer = None if hidden else subprocess.Popen(["sh", "-c", "echo add > fifo"], cwd=box.cwd)
    trace = box.root / "trace"
    # Each call that names t.hand waits 0.4 s before it runs: the name is
    # looked at (a regular file), then the FIFO swapped in before the
    # open, then the file swapped back once the open is done.
    command = ["strace", "-P", "t.hand", "-o", str(trace), "-e", "trace=newfstatat,openat", "-e",
               "inject=newfstatat,openat:delay_enter=400000", str(box.binary), "--color=never",
               "-s", "1", "t.hand"]
    if hidden:
        command = hide + command
    child = subprocess.Popen(command, cwd=box.cwd, env=box.env("", None),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    # The open the swap must meet: by name in its folder without /proc.
    opening = 'openat(3, "t.hand", O_RDONLY|O_NOCTTY' if hidden else 'openat(3, "t.hand"'
    try:
        def lines():
            return trace.read_text().splitlines() if trace.exists() else []

        deadline = time.monotonic() + TIMEOUT
        while not any(opening in l for l in lines()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any('newfstatat(3, "t.hand", {st_mode=S_IFREG' in l for l in lines()), lines()
        exchange(box.cwd / "t.hand", other)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            met = [l for l in lines() if opening in l]
            if met and "= " in met[0]:
                break
            time.sleep(0.01)
        exchange(box.cwd / "t.hand", other)
        out, err = child.communicate(timeout=TIMEOUT)
        still_waiting = writer is None or writer.poll() is None
    finally:
        if child.poll() is None:
            # strace and the handsh under it, never left waiting on the FIFO.
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        if writer is not None:
            writer.kill()
            writer.wait()
    assert child.returncode == 0, "\n".join(lines())
    # The open that met the FIFO did not wait for a writer: walked again.
    said = [l for l in err.decode().splitlines() if not l.startswith("strace: ")]
    assert (out.decode(), said) == ("7♦\n", [])
    assert still_waiting, "the FIFO swapped in was opened: its writer went on"


# MARK: - protected_symlinks, as a user who is not root


@pytest.fixture
def shared():
    """A folder others may enter, with a sticky folder (1777) that root
    owns in it, as /tmp; removed afterwards."""
    needs_root("another user is needed: setuid")
    base = Path(tempfile.mkdtemp(prefix="handsh-sticky-"))
    os.chmod(base, 0o755)
    (base / "sticky").mkdir()
    os.chmod(base / "sticky", 0o1777)
    (base / "mine").mkdir()
    os.chown(base / "mine", NOBODY, NOBODY)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_a_link_the_sticky_folders_owner_owns_is_followed_by_another_user(box, shared):
    script = shared / "mine" / "script.hand"
    script.write_text("add\n")
    os.chown(script, NOBODY, NOBODY)
    # Root's link, in root's sticky folder: protected_symlinks follows it
    # for anyone, as the kernel does for `cat`.
    os.symlink(str(script), shared / "sticky" / "roots")
    # Another user's link (not root's, not the follower's): refused.
    os.symlink(str(script), shared / "sticky" / "others")
    os.lchown(shared / "sticky" / "others", NOBODY - 1, NOBODY - 1)
    cwd = shared / "mine"
    status, out, err = run(box, "-s", "1", "-c", "source ../sticky/roots", cwd=cwd, user=NOBODY)
    assert (status, out, err) == (0, "7♦\n", "")
    status, out, err = run(box, "-s", "1", "-q", "-c", "add; save ../sticky/roots", cwd=cwd,
                           user=NOBODY)
    assert (status, err) == (0, "")
    assert script.read_text().endswith("add 7D\n")
    assert os.path.islink(shared / "sticky" / "roots")
    status, out, err = run(box, "-s", "1", "-c", "source ../sticky/others", cwd=cwd, user=NOBODY)
    assert (status, out) == (1, "")
    assert err == "<command line>:1:1: error: cannot read ../sticky/others: Permission denied\n"
