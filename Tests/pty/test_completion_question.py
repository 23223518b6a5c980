"""Many candidates at the prompt (handsh(1), THE PROMPT): readline's
question `Display all N possibilities? (y or n)` waits for its answer, and
a long list pages with `--More--`, as in bash; the answer is never typed
into the line. (Readline's callback mode, which the prompt reads keys
with, once answered both at once, and `y` then went into the line.)
Every file is in the test's own temporary folder."""

from conftest import PROMPT, clean

QUESTION = "Display all 150 possibilities? (y or n)"


def many_files(box):
    for number in range(150):
        (box.cwd / f"f{number:03}.hand").write_text("add\n")


def asked(box, dimensions=None):
    """A prompt in a folder of 150 files, at readline's question after
    `source f` and two Tabs."""
    many_files(box)
    extra = {"dimensions": dimensions} if dimensions else {}
    sh = box.spawn("--seed", "42", **extra)
    sh.first_prompt()
    sh.child.send("source f\t\t")
    sh.child.expect_exact(QUESTION)
    return sh


def nothing_more(sh, quiet=0.5):
    """What arrives until QUIET seconds pass without output, cleaned."""
    return clean(sh.settle(quiet))


def test_the_question_waits_and_n_shows_nothing(box):
    sh = asked(box)
    # Waiting for the answer: no list yet.
    assert "f000.hand" not in nothing_more(sh)
    sh.child.send("n")
    sh.child.expect_exact(PROMPT)
    sh.child.expect_exact("source f")
    assert "f000.hand" not in nothing_more(sh, 0.3)
    sh.child.send("\x15show\r")
    assert sh.prompt().count("(empty)") == 1


def test_y_shows_the_list_and_the_line_stays_as_typed(box):
    sh = asked(box)
    assert "f149.hand" not in nothing_more(sh)
    sh.child.send("y")
    sh.child.expect_exact("f149.hand")
    sh.child.expect_exact(PROMPT)
    sh.child.expect_exact("source f")
    assert "y" not in nothing_more(sh, 0.3)
    # The line is as typed: `source f`, which names no file.
    sh.child.send("\r")
    sh.child.expect_exact("error: cannot read f")
    sh.child.expect_exact(PROMPT)
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert box.history.read_text(encoding="utf-8") == "source f\nquit\n"


def test_a_long_list_pages_and_q_stops_it(box):
    # 10 rows of 40 columns: three names a row, 50 rows, a page of 9.
    sh = asked(box, dimensions=(10, 40))
    sh.child.send("y")
    sh.child.expect_exact("--More--")
    # The pager waits: the rest of the list is not shown.
    assert "f149.hand" not in nothing_more(sh)
    sh.child.send(" ")
    sh.child.expect_exact("--More--")
    assert "f149.hand" not in nothing_more(sh)
    sh.child.send("q")
    sh.child.expect_exact(PROMPT)
    sh.child.expect_exact("source f")
    assert "f149.hand" not in nothing_more(sh, 0.3)
    sh.child.send("\x15show\r")
    assert sh.prompt().count("(empty)") == 1
    # No `q`, ` ` or `y` went into the line or the history.
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    assert box.history.read_text(encoding="utf-8") == "show\nquit\n"


def test_control_c_at_the_question_drops_the_line(box):
    sh = asked(box)
    sh.child.send("\x03")
    sh.child.expect_exact("^C")
    sh.child.expect_exact(PROMPT)
    sh.child.send("show\r")
    out = clean(sh.prompt())
    assert "(empty)" in out and "source" not in out.split("^C")[-1], out
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
