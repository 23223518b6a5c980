"""Ctrl-C while a large regular file is checked for `source` (handsh(1), THE
PROMPT): the check looks for Ctrl-C as it reads and as it checks, so the
prompt is back at once, with `error: cannot read FILE: Interrupted system
call`, and nothing of FILE has run. It once came back only when the check
of the whole file was over, after one of its commands had run, silently."""

import subprocess
import time

import pytest

from conftest import PROMPT, TIMEOUT

# The rule is 100 ms; the bound leaves room for a machine under load, and is
# still far below the seconds the whole check of the file takes.
BACK_WITHIN = 0.5


def bytes_read(pid):
    with open(f"/proc/{pid}/io", encoding="ascii") as stream:
        for line in stream:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    return 0


def wait_for_reading(pid, at_least):
    deadline = time.monotonic() + TIMEOUT
    while bytes_read(pid) < at_least:
        assert time.monotonic() < deadline, "handsh never read FILE"
        time.sleep(0.005)


def require_a_slow_check(box, least):
    """Skips when this binary checks big.hand in less than LEAST seconds
    (`handsh -n`): a release build checks 20 MB before a Ctrl-C can come in
    the middle; the run against the debug build covers the rule."""
    start = time.monotonic()
    subprocess.run(
        [str(box.binary), "-n", "big.hand"], cwd=box.cwd, env=box.env(None, None),
        capture_output=True, timeout=TIMEOUT * 6)
    took = time.monotonic() - start
    if took < least:
        pytest.skip(f"this binary checks big.hand in {took:.2f} s: too fast to interrupt")


def interrupt_source(box, text, when, least):
    """Runs `source big.hand; add` at the prompt with TEXT in big.hand, sends
    Ctrl-C once WHEN(pid) returns; returns how long the prompt took to come
    back, what `show` showed, and stderr. Skips when this binary checks
    TEXT in less than LEAST seconds."""
    (box.cwd / "big.hand").write_bytes(text)
    require_a_slow_check(box, least)
    sh = box.spawn("--seed", "42", "--quiet", stderr_to_file=True)
    sh.first_prompt()
    sh.child.send("source big.hand; add\r")
    sh.child.expect_exact("source big.hand; add")
    when(sh.child.pid)
    sh.child.sendintr()
    start = time.monotonic()
    sh.child.expect_exact(PROMPT)
    elapsed = time.monotonic() - start
    print(f"the prompt was back {elapsed * 1000:.0f} ms after Ctrl-C")
    sh.settle()
    shown = sh.command("show")
    assert sh.command("history") == ["*0  start     (empty)"], "something of FILE ran"
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    return elapsed, shown, sh.stderr()


def test_ctrl_c_while_a_large_source_is_read_and_checked(box):
    # 20 MB of commands: the check takes seconds (in a debug build), and
    # reading alone a fraction of one. Ctrl-C comes a second after the
    # reading started: the check is under way.
    def a_second_into_it(pid):
        wait_for_reading(pid, 1 << 20)
        time.sleep(1.0)

    elapsed, shown, errors = interrupt_source(
        box, b"add\n" * (5 << 20), a_second_into_it, least=2.0)
    assert shown == ["(empty)"]
    assert errors.splitlines() == ["error: cannot read big.hand: Interrupted system call"], errors
    assert elapsed < BACK_WITHIN, f"the prompt came back {elapsed:.2f} s after Ctrl-C"


def test_ctrl_c_after_a_large_source_is_read_while_it_is_checked(box):
    # 10 MB with one syntax error at its end: all of it is read, then
    # checked again to report the error. Ctrl-C comes once it is all read.
    size = 10 << 20
    text = b"add\n" * (size // 4 - 2) + b"bogus\n"

    def all_read(pid):
        wait_for_reading(pid, len(text))
        time.sleep(0.2)

    elapsed, shown, errors = interrupt_source(box, text, all_read, least=0.6)
    assert shown == ["(empty)"]
    assert errors.splitlines() == ["error: cannot read big.hand: Interrupted system call"], errors
    assert elapsed < BACK_WITHIN, f"the prompt came back {elapsed:.2f} s after Ctrl-C"
