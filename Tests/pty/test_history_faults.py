"""The history file under faults, once or lasting (handsh(1), THE PROMPT):
whatever system call fails from some point on (`strace -e inject`), the file
holds whole lines afterwards, never more than 1000 of them, never a line cut
in two, and the session goes on. A full file of 1000 lines of 110 bytes is
used, so that the first line typed makes the cut, whose copy takes more than
one write. Every file is in the test's own temporary folder.
"""

import shutil

import pexpect
import pytest

from conftest import PROMPT, TIMEOUT

OLD = [f"line {n:04d} " + "x" * 100 for n in range(1000)]
FAULTS = [
    "pwrite64:error=EIO:when=1+",
    "pwrite64:error=EIO:when=2+",
    "pwrite64:error=ENOSPC:when=3+",
    "ftruncate:error=EIO:when=1+",
    "fsync:error=EIO:when=1+",
    "linkat:error=EIO:when=1+",
    "renameat:error=EIO:when=1+",
]


def strace():
    path = shutil.which("strace")
    if path is None:
        pytest.fail("strace is missing (scripts/bootstrap installs it)")
    return path


@pytest.mark.parametrize("fault", FAULTS)
def test_a_lasting_fault_leaves_whole_lines(box, fault):
    box.history.write_text("".join(line + "\n" for line in OLD))
    child = pexpect.spawn(
        strace(),
        ["-f", "-o", "/dev/null", "-e", f"inject={fault}", str(box.binary), "-q"],
        env=box.env(box.history, None),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    child.expect_exact(PROMPT)
    child.send("add\r")
    child.expect_exact(PROMPT)
    child.send("show\r")
    child.expect_exact(PROMPT)
    child.send("quit\r")
    child.expect(pexpect.EOF)
    text = box.history.read_text()
    assert text.endswith("\n"), "the file ends inside a line"
    lines = text.split("\n")[:-1]
    assert len(lines) <= 1000, f"{len(lines)} lines"
    cut = [line for line in lines if line not in OLD and line not in ("add", "show", "quit")]
    assert cut == [], f"lines cut in two: {cut[:2]}"
    # The old lines kept are the last ones, in order: never a hole.
    old = [line for line in lines if line in OLD]
    assert old == OLD[len(OLD) - len(old) :]
