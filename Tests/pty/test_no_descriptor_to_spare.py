"""Signals at the prompt need no file descriptor (handsh(1), SIGNALS): with the
descriptor table full (`prlimit --nofile=4`, the fewest that let a
dynamically linked handsh load its libraries and start), Control-C still
drops the line typed, and SIGTERM and SIGHUP still end handsh by that very
signal, the terminal restored on a fresh line."""

import resource
import signal

import pexpect
import pytest

from conftest import TIMEOUT, Shell, clean

# Descriptors 0, 1 and 2 and one more: every other open fails with EMFILE.
NOFILE = 4


def spawn_with_few_descriptors(box, *args):
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))

    child = pexpect.spawn(
        str(box.binary),
        ["--color=never", *args],
        env=box.env(box.history, None),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
        preexec_fn=limit,
    )
    box.children.append(child)
    return Shell(child)


def test_ctrl_c_drops_the_typed_line_with_no_descriptor_to_spare(box):
    sh = spawn_with_few_descriptors(box, "--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("add") == []
    sh.child.send("abc")
    sh.child.expect_exact("abc")
    sh.child.sendintr()
    after = clean(sh.prompt())
    assert "^C" in after, repr(after)
    # `abc` is gone: this line is `show`, not `abcshow`.
    assert sh.command("show") == ["1  7♥"]
    # Ctrl-C on an empty line too, twice.
    for _ in range(2):
        sh.child.sendintr()
        sh.prompt()
    assert sh.command("show") == ["1  7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signals_that_end_handsh_act_with_no_descriptor_to_spare(box, number):
    sh = spawn_with_few_descriptors(box, "--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("add") == []
    sh.child.send("del")
    sh.child.expect_exact("del")
    sh.kill(number)
    assert sh.wait_exit() == 128 + number
    # Ended on a fresh line: nothing of the typed line ran.
    assert "error" not in sh.tail, repr(sh.tail)
