"""Results appear as they are made (handsh(1), OUTPUT): at the prompt, the
results of a line's first commands are on the screen before a `source` on
the same line starts reading its file, and those a long run makes show
while it goes on; they were once held until the whole line ended. Every
file is in the test's own temporary folder."""

import os
import time

import pexpect
import pytest

from conftest import PROMPT


def test_results_come_before_a_source_waits_for_its_file(box):
    fifo = box.cwd / "slow.hand"
    os.mkfifo(fifo)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    # A writer holds the FIFO open (read and write, so the open never
    # waits) and writes nothing yet: handsh waits in the source's read, and
    # what came before it is shown already.
    writer = os.open(fifo, os.O_RDWR)
    sh.child.send("new 1; add; source slow.hand; show\r")
    try:
        sh.child.expect_exact("(empty)", timeout=5)
        sh.child.expect_exact("7♦", timeout=5)
        # Still reading the file: no prompt yet.
        assert sh.child.expect([PROMPT, pexpect.TIMEOUT], timeout=0.3) == 1
        os.write(writer, b"add\n")
    finally:
        os.close(writer)
    sh.child.expect_exact("9♥ 7♦")
    sh.child.expect_exact(PROMPT)
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_results_come_while_a_long_quiet_source_runs(box):
    # The file's first command shows a hand; the rest shows nothing for as
    # long as it runs (`mv 1 1` changes nothing): that hand is on the
    # screen long before the line ends, not held to its end.
    (box.cwd / "long.hand").write_text("add\n" + "mv 1 1\n" * 3000000)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    started = time.monotonic()
    sh.child.send("new 1; source long.hand\r")
    sh.child.expect_exact("7♦", timeout=120)
    first = time.monotonic() - started
    sh.child.expect_exact(PROMPT, timeout=120)
    ran = time.monotonic() - started
    if ran < 0.5:
        pytest.skip(f"this binary ran the file in {ran:.2f} s: too fast to see it run")
    # Held to the line's end, the hand would come with the prompt, within
    # milliseconds. Reading and checking the file comes before the first
    # result, and on a loaded machine may take longer than the run itself:
    # what shows the results come as made is the run still going on, for a
    # good while, after the hand is on the screen.
    assert ran - first > 0.25, f"the first result came after {first:.2f} s of {ran:.2f} s"
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
