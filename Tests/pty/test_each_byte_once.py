"""Each byte of results once (handsh(1), THE PROMPT): when stdout's reader
goes away while handsh is blocked writing to the full pipe, what the pipe
took is not written again on the terminal, the rest is, from the first
byte it did not take, and the command and the rest of its line (a sourced
file included) run to their end.

The test holds the pipe's read end itself (a FIFO in its own folder): it
reads a little, lets handsh block on the full pipe, asks the pipe how much
it holds (FIONREAD), and closes it. Delivered = read + held; the terminal
must then show exactly the reference output from there on.
"""

import fcntl
import os
import struct
import termios
import time

import pexpect

from conftest import IN_PIPE_WRITE, PROMPT, TIMEOUT, clean, sleeps_in, wait_until

NOTICE = "handsh: standard output is closed; results are now shown here"
LINE = "source many.hand; history; deck"


def test_a_cut_short_write_goes_on_from_the_byte_the_pipe_did_not_take(box):
    (box.cwd / "many.hand").write_text("add\nadd\n" + "mv 1 2\n" * 10000)
    reference = box.cwd / "reference.txt"
    os.system(
        f"cd '{box.cwd}' && '{box.binary}' --ascii --seed 42 -c '{LINE}' > '{reference}' 2>/dev/null"
    )
    expected = reference.read_bytes()
    assert len(expected) > 2 * 65536, len(expected)

    fifo = box.root / "out"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", 'exec "$0" "$@" > "$OUT"', str(box.binary), "--ascii", "--seed", "42"],
        env=box.env(box.history, {"OUT": str(fifo)}),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    child.expect_exact(PROMPT)  # on stderr, the terminal
    child.send(LINE + "\r")
    child.expect_exact(LINE)
    taken = b""
    deadline = time.monotonic() + TIMEOUT
    while len(taken) < 200 and time.monotonic() < deadline:
        try:
            taken += os.read(reader, 200 - len(taken))
        except BlockingIOError:
            time.sleep(0.01)
    # handsh fills the pipe and blocks in write(2): only then does the pipe
    # hold all it will take (counted too early, later bytes would be lost).
    wait_until(lambda: sleeps_in(child.pid, IN_PIPE_WRITE), "handsh to block writing to the pipe")
    held = struct.unpack("i", fcntl.ioctl(reader, termios.FIONREAD, b"\0\0\0\0"))[0]
    assert held > 0
    os.close(reader)
    delivered = len(taken) + held
    assert taken == expected[: len(taken)]
    child.expect_exact(PROMPT)
    shown = clean(child.before)
    assert shown.count(NOTICE) == 1, shown[:500]
    after = shown.split(NOTICE + "\n", 1)[1]
    # Each byte once: the terminal goes on exactly where the pipe stopped,
    # and the line ran to its end (deck's line is the last).
    assert after == expected[delivered:].decode("ascii"), (len(after), len(expected) - delivered)
    child.send("quit\r")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0
