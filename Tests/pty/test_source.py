"""`source FILE` at the prompt and after `-i` (handsh(1), COMMANDS, source)."""

import os
import subprocess
import threading
import time

from conftest import PROMPT


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
        time.sleep(0.5)
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
