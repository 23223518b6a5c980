"""`source FILE` at the prompt and after `-i` (handsh(1), COMMANDS, source)."""

import os
import subprocess
import threading
import time

from conftest import PROMPT, clean, holds_open, wait_until


def test_source_at_the_prompt_runs_each_command_as_typed(box):
    (box.cwd / "setup.hand").write_text("add\nadd\n", encoding="utf-8")
    (box.cwd / "bad.hand").write_text("add\ndel 9\nadd\n", encoding="utf-8")
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("source setup.hand") == []
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    # Diagnostics about FILE's lines keep FILE:LINE:COLUMN at the prompt too;
    # the failure skips the rest of the line, and the `source` is pointed
    # at after FILE's own diagnostic.
    assert sh.command("source bad.hand; add") == [
        "bad.hand:2:1: error: no card at position 9 (hand has 3 cards)",
        "  source bad.hand; add",
        "  ^^^^^^^^^^^^^^^",
    ]
    assert sh.command("undo; show") == ["1  3♣", "2  7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_interactive_goes_on_after_a_script_that_sources(box):
    (box.cwd / "setup.hand").write_text("add\nquit\nadd\n", encoding="utf-8")
    sh = box.spawn("--seed", "42", "--quiet", "-i", "-c", "source setup.hand; add")
    sh.first_prompt()
    # quit in FILE ends FILE only: the -c text went on, then the prompt.
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_a_fifo_with_no_writer_never_blocks_the_prompt(box):
    os.mkfifo(box.cwd / "fifo")
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("source fifo; show") == ["(empty)"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_ctrl_c_abandons_a_fifo_whose_writer_is_silent(box):
    path = box.cwd / "fifo"
    os.mkfifo(path)
    done = threading.Event()

    def writer():
        fd = os.open(path, os.O_WRONLY)
        done.wait(20)
        os.close(fd)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    time.sleep(0.2)
    try:
        sh = box.spawn("--seed", "42", "--quiet")
        sh.first_prompt()
        sh.child.send("source fifo\r")
        # Ctrl-C before the line is taken in would drop it instead.
        wait_until(lambda: holds_open(sh.child.pid, path), "handsh to open the FIFO")
        sh.child.sendintr()
        sh.child.expect_exact("cannot read fifo: Interrupted system call")
        sh.child.expect_exact(PROMPT)
        # The prompt also answers the Ctrl-C itself (a fresh prompt).
        sh.settle()
        assert sh.command("add") == []
        assert sh.command("show") == ["1  7♥"]
        sh.child.sendeof()
        assert sh.wait_exit() == 0
    finally:
        done.set()
        thread.join(5)


def test_record_keeps_the_source_line_and_its_blocks(box):
    (box.cwd / "setup.hand").write_text("add\nadd\ndel 9\n", encoding="utf-8")
    sh = box.spawn("--seed", "42", "--record", "r.hand")
    sh.first_prompt()
    assert sh.command("source setup.hand") == [
        "7♥",
        "3♣ 7♥",
        "setup.hand:3:1: error: no card at position 9 (hand has 2 cards)",
    ]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    text = (box.cwd / "r.hand").read_text(encoding="utf-8")
    assert text == (
        "#!/usr/bin/env -S handsh --seed 42\n"
        "source setup.hand\n"
        "#> 7♥\n"
        "#> 3♣ 7♥\n"
        "#2> setup.hand:3:1: error: no card at position 9 (hand has 2 cards)\n"
        "quit\n"
    )
    result = subprocess.run(
        [str(box.binary), "--test", "r.hand"], cwd=box.cwd, capture_output=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ctrl_c_abandons_a_source_whose_read_never_blocks(box):
    # A writer that keeps the FIFO full: each read returns at once, so no
    # read is ever interrupted. Ctrl-C still abandons the source, and
    # nothing of the file runs. The writer stops after WRITE_CAP bytes (a
    # handsh that ignored the Ctrl-C then waits, and the test fails).
    path = box.cwd / "fifo"
    os.mkfifo(path)
    done = threading.Event()
    cap = 200 << 20
    chunk = b"add\n" * (1 << 18)

    def writer():
        fd = os.open(path, os.O_WRONLY)
        written = 0
        try:
            while written < cap and not done.is_set():
                written += os.write(fd, chunk)
            done.wait(30)
        except OSError:
            pass
        finally:
            os.close(fd)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    time.sleep(0.2)
    try:
        sh = box.spawn("--seed", "42", "--quiet")
        sh.first_prompt()
        sh.child.send("source fifo; add\r")
        # Ctrl-C before the line is taken in would drop it instead.
        wait_until(lambda: holds_open(sh.child.pid, path), "handsh to open the FIFO")
        sh.child.sendintr()
        sh.child.expect_exact("error: cannot read fifo: Interrupted system call")
        sh.child.expect_exact(PROMPT)
        sh.settle()
        assert sh.command("show") == ["(empty)"]
        sh.child.sendeof()
        assert sh.wait_exit() == 0
    finally:
        done.set()
        thread.join(5)


def test_ctrl_c_stops_a_running_source_after_the_command_in_progress(box):
    # Three million commands take a while even for the release binary:
    # Ctrl-C ends the source after the command in progress; the versions
    # made stay, the rest of the file (its last `add`) and of the line
    # (`deck`) are skipped, and nothing but ^C is shown. The save after the
    # two adds shows that both have run: Ctrl-C is sent only once its last
    # line (the second card) is out, never while the adds may still be to
    # come. `mv 1 1` makes no version, so the file's last line is the only
    # other change it could make.
    (box.cwd / "long.hand").write_text(
        "add; add; save /dev/stdout\n" + "mv 1 1\n" * 3_000_000 + "add\n", encoding="utf-8"
    )
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("source long.hand; deck\r")
    sh.child.expect_exact("add 3C", timeout=60)
    sh.child.sendintr()
    before = clean(sh.prompt())
    assert "error" not in before
    assert "in deck" not in before
    sh.settle()
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    assert sh.command("goto 3") == ["error: no version 3 (versions 0 to 2)"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0
