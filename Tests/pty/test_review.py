"""`handsh --test --review` (handsh(1), GOLDEN TESTS): each differing block
asked about at a readline prompt on the terminal, each file then rewritten
with the accepted blocks only. And the report on a terminal: coloured, with
control characters made safe. Fixtures: conftest.py.

Seed 0 deals 8♠ J♣ … (the default seed of a test).
"""

import signal
import subprocess

from conftest import clean
from conftest import SHELL_PROMPT, JobShell

QUESTION = "Accept this block [y,n,a,d,q,?]? "


def run_test(box, *paths):
    return subprocess.run(
        [str(box.binary), "--test", *paths],
        cwd=str(box.cwd),
        capture_output=True,
        timeout=20,
    )


def ask(sh, answer):
    """Waits for the question, answers it; returns what came before it."""
    sh.child.expect_exact(QUESTION)
    before = sh.child.before
    sh.child.send(answer + "\r")
    return before


def write(box, name, text):
    (box.cwd / name).write_text(text, encoding="utf-8")


def test_review_accepts_some_blocks_keeps_others_and_quits_midway(box):
    write(box, "a.hand", "add\n#> x\nadd\n#> y\nshow\n")
    write(box, "b.hand", "add\n#> z\n")
    write(box, "c.hand", "add\n#> 8♠\n")
    write(box, "d.hand", "add\nadd\n")
    sh = box.spawn("--test", "--review", "a.hand", "b.hand", "c.hand", "d.hand")

    shown = ask(sh, "?")
    # The file, the input line and that block's diff.
    assert "a.hand:1: add" in shown
    assert "@@ -1,5 +1,5 @@" in shown and "-#> x" in shown and "+#> 8♠" in shown
    assert "-#> y" not in shown
    helped = ask(sh, "y")
    assert "y - accept this block" in helped and "q - keep every block" in helped
    shown = ask(sh, "n")
    assert "a.hand:3: add" in shown and "-#> y" in shown and "+#> J♣ 8♠" in shown
    shown = ask(sh, "y")
    assert "a.hand:5: show" in shown and "+#> 1  J♣" in shown
    shown = ask(sh, "q")
    assert "b.hand:1: add" in shown
    assert sh.wait_exit() == 1
    out = sh.tail
    assert "updated a.hand\n" in out
    assert "1 passed, 1 updated, 4 kept\n" in out
    assert "updated b.hand" not in out and "updated d.hand" not in out

    assert (box.cwd / "a.hand").read_text(encoding="utf-8") == (
        "add\n#> 8♠\nadd\n#> y\nshow\n#> 1  J♣\n#> 2  8♠\n"
    )
    assert (box.cwd / "b.hand").read_text(encoding="utf-8") == "add\n#> z\n"
    assert (box.cwd / "d.hand").read_text(encoding="utf-8") == "add\nadd\n"

    # Exactly the kept blocks fail now.
    result = run_test(box, "a.hand", "b.hand", "c.hand", "d.hand")
    assert result.returncode == 1
    assert result.stderr == (
        b"a.hand:3: output differs\n"
        b"b.hand:1: output differs\n"
        b"d.hand:1: output differs\n"
        b"d.hand:2: output differs\n"
    )
    assert result.stdout.endswith(b"1 passed, 3 failed\n")


def test_review_a_and_d_answer_the_rest_of_a_file(box):
    write(box, "a.hand", "add\nadd\nadd\n")
    write(box, "b.hand", "add\nadd\nadd\n")
    sh = box.spawn("--test", "--review", "a.hand", "b.hand")
    ask(sh, "a")
    shown = ask(sh, "d")
    assert "b.hand:1: add" in shown
    assert sh.wait_exit() == 1
    assert "updated a.hand\n" in sh.tail
    assert "0 passed, 1 updated, 3 kept\n" in sh.tail
    assert run_test(box, "a.hand").returncode == 0
    assert (box.cwd / "b.hand").read_text(encoding="utf-8") == "add\nadd\nadd\n"


def test_review_ends_with_ctrl_d_as_with_q_and_accepting_all_exits_0(box):
    write(box, "a.hand", "add\n")
    write(box, "b.hand", "add\nadd\n")
    sh = box.spawn("--test", "--review", "a.hand", "b.hand")
    sh.child.expect_exact(QUESTION)
    sh.child.sendeof()
    assert sh.wait_exit() == 1
    assert "0 passed, 0 updated, 3 kept\n" in sh.tail
    assert (box.cwd / "a.hand").read_text(encoding="utf-8") == "add\n"

    sh = box.spawn("--test", "--review", "a.hand", "b.hand")
    ask(sh, "y")
    ask(sh, "Y")
    ask(sh, "y")
    assert sh.wait_exit() == 0
    assert "0 passed, 2 updated, 0 kept\n" in sh.tail
    assert run_test(box, "a.hand", "b.hand").returncode == 0


def test_review_with_nothing_to_review_asks_nothing(box):
    write(box, "a.hand", "add\n#> 8♠\n")
    sh = box.spawn("--test", "--review", "a.hand")
    assert sh.wait_exit() == 0
    assert "1 passed, 0 updated, 0 kept" in sh.tail
    assert QUESTION not in sh.tail


def test_the_report_on_a_terminal_is_coloured_and_made_safe(box):
    # A test file holding an escape sequence and a bidirectional override.
    write(box, "t.hand", "add\n#> \x1b[2J\u202ehi\n")
    sh = box.spawn("--test", "t.hand", color=None, env={"TERM": "xterm"})
    assert sh.wait_exit() == 1
    raw = sh.child.before
    assert "\x1b[2J" not in raw and "\u202e" not in raw
    assert "\x1b[31m-#> \\x1B[2J\\u{202E}hi\x1b[0m" in raw
    assert "\x1b[32m+#> 8♠\x1b[0m" in raw
    assert "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m" in raw
    assert "t.hand:1: output differs" in raw
    # NO_COLOR turns the colour off; the text stays safe on a terminal.
    sh = box.spawn("--test", "t.hand", color=None, env={"TERM": "xterm", "NO_COLOR": "1"})
    assert sh.wait_exit() == 1
    raw = sh.child.before
    assert "\x1b[" not in raw.replace("\\x1B[", "")
    assert "-#> \\x1B[2J\\u{202E}hi" in raw
    # Into a pipe: the plain, exact diff, for patch.
    result = run_test(box, "t.hand")
    assert "-#> \x1b[2J\u202ehi\n".encode() in result.stdout


def test_review_numbers_each_block_among_all_of_the_run(box):
    write(box, "a.hand", "add\nadd\nadd\n")
    write(box, "b.hand", "add\n#> x\n")
    write(box, "c.hand", "add\nadd\n")
    sh = box.spawn("--test", "--review", "a.hand", "b.hand", "c.hand")
    sh.child.expect_exact("(1/6) " + QUESTION)
    sh.child.send("?\r")
    # `?` asks the same block again.
    sh.child.expect_exact("(1/6) " + QUESTION)
    sh.child.send("a\r")
    # `a` answered blocks 2 and 3 of a.hand: K jumps.
    sh.child.expect_exact("(4/6) " + QUESTION)
    sh.child.send("n\r")
    sh.child.expect_exact("(5/6) " + QUESTION)
    sh.child.send("d\r")
    assert sh.wait_exit() == 1
    assert "0 passed, 1 updated, 3 kept\n" in sh.tail


def test_ctrl_c_ends_the_review_writing_nothing_by_sigint(box):
    write(box, "a.hand", "add\n#> x\n")
    write(box, "b.hand", "add\n#> y\n")
    sh = box.spawn("--test", "--review", "a.hand", "b.hand")
    sh.child.expect_exact("(1/2) " + QUESTION)
    sh.child.send("y\r")  # a.hand answered whole: still not written
    sh.child.expect_exact("(2/2) " + QUESTION)
    sh.child.send("yes")
    sh.child.expect_exact("yes")  # read before the signal flushes the input
    sh.child.sendintr()
    sh.child.expect_exact("^C")
    assert sh.wait_exit() == 128 + signal.SIGINT
    assert (box.cwd / "a.hand").read_text(encoding="utf-8") == "add\n#> x\n"
    assert (box.cwd / "b.hand").read_text(encoding="utf-8") == "add\n#> y\n"
    assert "updated" not in sh.tail and "kept" not in sh.tail


def test_ctrl_c_ends_the_review_with_status_130_in_a_shell(box):
    write(box, "a.hand", "add\n#> x\n")
    words = " ".join([str(box.binary), "--test", "--review", "a.hand"])
    js = JobShell(box, "bash")
    js.child.send(words + "\r")
    js.child.expect_exact("(1/1) " + QUESTION)
    js.child.send("ye")
    js.child.expect_exact("ye")
    js.child.sendintr()
    js.child.expect_exact(SHELL_PROMPT)
    # `^C` after the text, and the shell's own line break, as after a
    # program in the shell's mode (git add -p): no blank line.
    assert clean(js.child.before) == "^C\n", repr(js.child.before)
    assert js.run("echo $?") == "130"
    assert (box.cwd / "a.hand").read_text(encoding="utf-8") == "add\n#> x\n"
