"""The preview (handsh(1), THE PROMPT): the row under the line being typed
shows what Enter would do, as a terminal emulator (pyte) draws it: the hand
the line would leave or the first problem, dimmed, cut to the width, and
nothing for a line that changes nothing or reaches outside the session (no
file read or written, no seed drawn). It is erased by Enter, Control-C,
Control-D, Control-Z and signals, redrawn after `fg` and a resize, and
never reaches a pipe, the history file or a recording. `--no-preview`,
`HANDSH_PREVIEW=0`, `TERM=dumb` turn it off.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import shutil
import signal
import subprocess
import time

import pytest

from conftest import handsh_binary
from screen import Term
from conftest import SHELL_PROMPT

PROMPT = "handsh>"


def start(box, *args, rows=24, columns=80, env=None, term="xterm", color="always"):
    shell = Term.spawn(
        box, "--seed", "42", f"--color={color}", *args, rows=rows, columns=columns, env=env, term=term
    )
    shell.wait_for(lambda t: t.cursor_row() == PROMPT, "the prompt")
    return shell


def type_keys(term, keys, pause=0.01):
    for key in keys:
        term.send(key)
        time.sleep(pause)


def prompt_row(term):
    return term.screen.cursor.y


def preview_rows(term):
    """Every row that shows a preview."""
    return [row for row in term.rows() if row.startswith(("⇒", "=>"))]


def typed(term, keys, below):
    """Types KEYS and waits until the row under the prompt's shows BELOW."""
    type_keys(term, keys)
    at = prompt_row(term)
    term.wait_for(lambda t: t.row(at + 1) == below, f"{below!r} under the line")
    return at


# MARK: What it shows


def test_the_hand_the_line_would_leave_dimmed_under_the_line(box):
    term = start(box)
    at = typed(term, "add; add", "⇒ 3♣ 7♥")
    assert term.row(at) == "handsh> add; add"
    assert term.dimmed(at + 1)
    # The cursor stays where the typing is.
    assert term.cursor() == (at, len("handsh> add; add"))
    # A key in the middle of the line: the cursor stays there too.
    type_keys(term, "\x1b[D\x1b[D\x1b[D")
    term.pump(0.2)
    assert term.cursor() == (at, len("handsh> add; add") - 3)
    assert term.row(at + 1) == "⇒ 3♣ 7♥"


def test_the_first_problem_enter_would_report(box):
    term = start(box)
    at = typed(term, "add; del 9; add", "⇒ error: no card at position 9 (hand has 1 card)")
    assert term.dimmed(at + 1)
    term.send("\x15")  # Control-U: the line is gone, and so is its preview
    term.wait_for(lambda t: t.row(at + 1) == "", "the preview erased")
    type_keys(term, "add 1x")
    term.wait_for(lambda t: t.row(at + 1).startswith("⇒ error: "), "a syntax error")


NOTHING = [
    "save made.hand",
    "add; save made.hand",
    "source read.hand",
    "quit",
    "exit",
    "new",
    "history",
    "undo; show; deck",
]


def test_a_line_that_reaches_outside_or_changes_nothing_shows_nothing(box):
    (box.cwd / "read.hand").write_text("add\n")
    term = start(box)
    tracer = subprocess.Popen(
        ["strace", "-f", "-p", str(term.child.pid), "-e", "trace=%file", "-o", str(box.root / "trace")],
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)  # attached
    try:
        at = prompt_row(term)
        for line in NOTHING:
            # A line that shows something first: the preview goes away.
            typed(term, "add; ", "⇒ 7♥")
            type_keys(term, line + " ")
            term.pump(0.3)
            assert term.row(at).startswith("handsh> add; " + line), term.rows()
            assert term.row(at + 1) == "", (line, term.rows())
            term.send("\x15")
            term.wait_for(lambda t: t.cursor_row() == PROMPT, "an empty line")
    finally:
        tracer.terminate()
        tracer.wait()
    opened = (box.root / "trace").read_text()
    assert "made.hand" not in opened and "read.hand" not in opened, opened
    assert not (box.cwd / "made.hand").exists()
    # Nothing ran: no version was made.
    term.send("history\r")
    term.wait_for(lambda t: t.cursor_row() == PROMPT and t.screen.cursor.y > at, "history")
    assert term.row(at + 1).split() == ["*0", "start", "(empty)"], term.rows()


def test_ascii_and_no_colour(box):
    term = start(box, "--ascii", color="never")
    at = typed(term, "add; add", "=> 3C 7H")
    assert not term.dimmed(at + 1)


# MARK: Keys that leave the line


def test_enter_erases_it_before_the_results(box):
    term = start(box)
    at = typed(term, "add; add", "⇒ 3♣ 7♥")
    term.send("\r")
    term.wait_for(lambda t: t.cursor_row() == PROMPT and t.screen.cursor.y > at, "the next prompt")
    term.pump(0.2)
    assert term.rows()[at : at + 4] == ["handsh> add; add", "7♥", "3♣ 7♥", PROMPT]
    assert preview_rows(term) == []


def test_ctrl_c_erases_it(box):
    term = start(box)
    at = typed(term, "add", "⇒ 7♥")
    term.send("\x03")
    term.wait_for(lambda t: t.row(at + 1) == PROMPT, "the next prompt")
    assert term.row(at) == "handsh> add^C"
    assert preview_rows(term) == []


def test_ctrl_d_ends_with_no_preview_left(box):
    term = start(box)
    at = typed(term, "add", "⇒ 7♥")
    term.send("\x04")  # at the end of a line with text: nothing
    term.pump(0.3)
    assert term.row(at + 1) == "⇒ 7♥"
    term.send("\x01\x0b")  # Control-A, Control-K: the line is empty
    term.wait_for(lambda t: t.row(at + 1) == "", "the preview erased")
    term.send("\x04")
    assert term.wait_exit() == 0
    assert preview_rows(term) == []


def test_a_signal_that_ends_handsh_erases_it(box):
    term = start(box)
    at = typed(term, "add", "⇒ 7♥")
    term.child.kill(signal.SIGTERM)
    assert term.wait_exit() == 128 + signal.SIGTERM
    assert preview_rows(term) == [], term.rows()
    assert term.row(at) == "handsh> add"


def test_ctrl_z_erases_it_and_fg_draws_it_again(box):
    bash = shutil.which("bash")
    env = {"PS1": SHELL_PROMPT, "ENV": "/dev/null"}
    term = Term.spawn(box, command=[bash, "--norc", "--noprofile", "-i"], env=env)
    term.wait_text(SHELL_PROMPT.strip())
    term.send(f"{handsh_binary()} --quiet --seed 42\r")
    term.wait_for(lambda t: t.cursor_row() == PROMPT, "the prompt")
    at = typed(term, "add; add", "⇒ 3♣ 7♥")
    term.send("\x1a")
    term.wait_text("Stopped")
    term.wait_for(lambda t: t.cursor_row() == SHELL_PROMPT.rstrip(), "the shell")
    assert preview_rows(term) == [], term.rows()
    term.send("fg\r")
    term.wait_for(lambda t: t.cursor_row() == "handsh> add; add", "the line again")
    row = term.screen.cursor.y
    term.wait_for(lambda t: t.row(row + 1) == "⇒ 3♣ 7♥", "the preview again")
    term.send("\r")
    term.wait_text("3♣ 7♥\n")
    term.send("quit\r")
    term.wait_for(lambda t: t.cursor_row() == SHELL_PROMPT.rstrip(), "the shell again")


# MARK: The terminal's size


def test_a_narrow_terminal_cuts_it_and_a_wrapped_line_puts_it_under_its_last_row(box):
    term = start(box, "--limit", "10", columns=30)
    line = "add; " * 9 + "add"  # 8 + 48 columns: two rows
    type_keys(term, line)
    term.wait_for(lambda t: t.cursor() == (4, 26), "the line typed")
    at = prompt_row(term)
    term.wait_for(lambda t: t.row(at + 1).startswith("⇒"), "the preview")
    assert term.row(at - 1) + term.row(at) == "handsh> " + line
    shown = term.row(at + 1)
    assert shown.endswith("…") and len(shown) <= 29, shown
    assert shown.startswith("⇒ 5♥ 10♦ K♦ A♣"), shown
    # Back to the first row of the line: the preview stays under the last.
    term.send("\x01")
    term.pump(0.3)
    assert term.cursor() == (at - 1, len("handsh> "))
    assert term.row(at + 1) == shown


def test_a_resize_draws_it_again_at_the_new_width(box):
    term = start(box, "--limit", "10")
    at = typed(term, "add; add; add; add; add; add", "⇒ A♥ 2♠ A♠ K♥ 3♣ 7♥")
    term.resize(24, 18)
    term.pump(0.5)
    shown = preview_rows(term)
    assert len(shown) == 1, term.rows()
    assert shown[0].endswith("…") and len(shown[0]) <= 17, shown
    assert shown[0].startswith("⇒ A♥ 2♠ A♠"), shown
    term.send("\r")
    term.wait_text("A♥ 2♠ A♠ K♥ 3♣ 7♥")


def test_at_the_bottom_row_the_screen_scrolls_to_make_room(box):
    term = start(box, rows=8)
    for _ in range(3):
        term.send("help\r")
        time.sleep(0.3)
    term.pump(0.3)
    assert term.screen.cursor.y == 7, term.rows()
    type_keys(term, "add")
    term.wait_for(lambda t: t.row(7) == "⇒ 7♥", "the preview on the last row")
    assert term.cursor() == (6, len("handsh> add"))
    term.send("\r")
    term.wait_for(lambda t: t.cursor_row() == PROMPT, "the next prompt")
    assert term.rows()[-3:] == ["handsh> add", "7♥", PROMPT]


# MARK: Typing


def test_a_paste_runs_each_line_and_previews_none_of_them_together(box):
    box.inputrc.write_text("set enable-bracketed-paste on\n")
    term = start(box)
    term.send("\x1b[200~add\radd\rshow\x1b[201~")
    term.pump(0.3)
    # A line holding line breaks is several lines: none previewed.
    assert preview_rows(term) == [], term.rows()
    term.send("\r")
    term.wait_text("2  7♥")
    term.pump(0.3)
    assert preview_rows(term) == [], term.rows()
    at = prompt_row(term)
    term.send("\x1b[200~del 1\x1b[201~")
    term.wait_for(lambda t: t.row(at + 1) == "⇒ 7♥", "the pasted line's preview")


def test_tab_completes_and_the_preview_follows(box):
    term = start(box)
    at = typed(term, "ad\t", "⇒ 7♥")
    assert term.row(at) == "handsh> add"
    term.send("\t\t")  # the deck's cards listed
    term.wait_text("K♠")
    term.pump(0.3)
    at = prompt_row(term)
    assert term.row(at) == "handsh> add"
    assert term.row(at + 1) == "⇒ 7♥", term.rows()
    assert preview_rows(term) == ["⇒ 7♥"], term.rows()


def test_200_keys_5_ms_apart_all_land(box):
    term = start(box)
    line = "add; undo; " * 18 + "add"
    assert len(line) > 200
    type_keys(term, line, pause=0.005)
    term.wait_for(lambda t: "⇒ 7♥" in t.rows(), "the preview of the whole line", limit=20)
    shown = "".join(term.rows()).replace(" ", "")
    assert shown.endswith(("handsh> " + line).replace(" ", "") + "⇒7♥"), term.rows()
    term.send("\r")
    term.wait_for(lambda t: t.cursor_row() == PROMPT and "⇒ 7♥" not in t.rows(), "the results")


# MARK: Off, and never elsewhere


@pytest.mark.parametrize(
    "how",
    [{"args": ["--no-preview"]}, {"env": {"HANDSH_PREVIEW": "0"}}, {"term": "dumb"}],
    ids=["--no-preview", "HANDSH_PREVIEW=0", "TERM=dumb"],
)
def test_turned_off(box, how):
    term = start(box, *how.get("args", []), env=how.get("env"), term=how.get("term", "xterm"))
    type_keys(term, "add; add")
    term.pump(0.5)
    assert preview_rows(term) == []
    term.send("\r")
    term.wait_text("3♣ 7♥")
    assert preview_rows(term) == []


def test_never_in_a_pipe_the_history_file_or_a_recording(box):
    term = start(box, "--record", "rec.hand")
    typed(term, "add; add", "⇒ 3♣ 7♥")
    term.send("\rquit\r")
    assert term.wait_exit() == 0
    assert "⇒" not in (box.cwd / "rec.hand").read_text()
    assert box.history.read_text() == "add; add\nquit\n"
    # Results into a pipe: the prompt is on stderr, and no preview at all.
    term = Term.spawn(
        box,
        command=["/bin/sh", "-c", 'exec "$0" --seed 42 > out.txt', str(handsh_binary())],
    )
    term.wait_for(lambda t: t.cursor_row() == PROMPT, "the prompt")
    type_keys(term, "add; add")
    term.pump(0.5)
    term.send("\rquit\r")
    assert term.wait_exit() == 0
    assert preview_rows(term) == []
    assert (box.cwd / "out.txt").read_text() == "7♥\n3♣ 7♥\n"


def test_never_in_a_journal(box):
    term = start(box, "--journal", "j.hand")
    typed(term, "add; del 9", "⇒ error: no card at position 9 (hand has 1 card)")
    term.send("\x15add; add")
    term.wait_for(lambda t: "⇒ 3♣ 7♥" in t.rows(), "the preview")
    term.send("\rquit\r")
    assert term.wait_exit() == 0
    text = (box.cwd / "j.hand").read_text()
    assert "⇒" not in text and "error" not in text, text
    assert "add 7♥" in text or "add 7h" in text.lower(), text
