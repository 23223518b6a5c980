"""The one writer at the prompt (handsh(1), FILES, save): a FIFO whose
reader leaves is a `Broken pipe` and the session, and its `--record` file,
go on; a `--record` FILE that names a closed descriptor is refused at the
start. Every FIFO and link is made in the test's own temporary folder.
"""

import os
import subprocess
import threading

from conftest import handsh_binary

# 12 000 moves of two cards make a saved script of about 84 KB, more than a
# pipe holds, so the writer is still writing when the reader leaves.
MOVES_PER_LINE = 120
LINES = 100


def test_save_into_a_fifo_whose_reader_leaves_goes_on_and_records(box):
    fifo = box.cwd / "ff"
    os.mkfifo(fifo)
    got = []

    def reader():
        fd = os.open(fifo, os.O_RDONLY)
        got.append(os.read(fd, 5))
        os.close(fd)

    sh = box.spawn("--seed", "42", "-q", "--record", "game.hand")
    sh.first_prompt()
    sh.command("limit 52; add; add")
    moves = "; ".join(["mv 1 2"] * MOVES_PER_LINE)
    for _ in range(LINES):
        sh.command(moves)
    thread = threading.Thread(target=reader)
    thread.start()
    out = sh.command("save ff")
    thread.join(10)
    assert out == ["error: cannot write ff: Broken pipe"]
    assert got == [b"#!/us"]
    # The session goes on.
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    text = (box.cwd / "game.hand").read_text(encoding="utf-8")
    # The recording is a golden test that passes, and a test's `save` goes
    # to its own memory: the line is kept, with the block it prints there
    # (none), and the lines after it are recorded too.
    assert "save ff\nshow\n#> 1  3♣\n#> 2  7♥\nquit\n" in text
    check = subprocess.run(
        [handsh_binary(), "--test", "game.hand"], cwd=box.cwd, capture_output=True, timeout=60
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_recording_into_a_closed_descriptor_is_refused_at_the_start(box):
    (box.cwd / "rec").symlink_to("/proc/self/fd/7")
    sh = box.spawn("--seed", "42", "--record", "rec", stderr_to_file=True)
    assert sh.wait_exit() == 2
    assert sh.stderr() == "handsh: cannot write 'rec': Bad file descriptor\n"
