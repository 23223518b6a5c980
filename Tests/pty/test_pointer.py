"""The pointer under a line typed at the prompt (handsh(1), THE PROMPT), in a
terminal 40 columns wide: marks under their text in terminal columns (wide
characters, combining marks, tabs), windows cut with `…` on long lines, and
one echo with marks under every syntax error, before the messages.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import unicodedata

from conftest import PROMPT, clean

WIDTH = 40


def columns(text):
    """Terminal columns of TEXT as wcwidth counts them (enough for these tests)."""
    total = 0
    for ch in text:
        if unicodedata.combining(ch) or ch == "\ufe0f" or "\u1160" <= ch <= "\u11ff":
            continue
        total += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return total


def narrow(box, *args):
    sh = box.spawn("--seed", "42", "--quiet", *args, dimensions=(24, WIDTH))
    sh.first_prompt()
    return sh


def after_echo(sh, typed):
    """Types TYPED and Enter; the rows printed after readline's echo."""
    sh.child.send(typed + "\r")
    raw = sh.prompt()
    rows = clean(raw).split("\n")
    # The echo may be scrolled or wrapped by readline; what follows it starts
    # at the first pointer row (two spaces) or message.
    start = next(i for i, row in enumerate(rows) if row.startswith("  ") or row.startswith("error"))
    return [row for row in rows[start:] if row != ""]


def under(echo, marks, text):
    """Whether the marks row has `^` exactly under the columns of TEXT in ECHO."""
    index = echo.find(text)
    assert index >= 0, (echo, text)
    start = columns(echo[:index])
    expected = " " * start + "^" * columns(text)
    return marks.startswith(expected) and (len(marks) == len(expected) or marks[len(expected)] == " ")


def test_syntax_errors_are_pointed_at_once_before_the_messages(box):
    sh = narrow(box)
    rows = after_echo(sh, "mv 1 x; mv x 1; add zz")
    assert rows == [
        "  mv 1 x; mv x 1; add zz",
        "       ^     ^        ^^",
        "error: invalid position 'x': expected a whole number of 1 or more",
        "error: invalid position 'x': expected a whole number of 1 or more",
        "error: invalid card 'zz'",
    ], rows


def test_marks_sit_under_wide_and_combining_text(box):
    sh = narrow(box)
    sh.command("add")
    rows = after_echo(sh, 'save "日本語"; del 9')
    assert rows[0] == '  save "日本語"; del 9'
    assert under(rows[0], rows[1], "del 9"), rows
    rows = after_echo(sh, 'save "cafe\u0301"; del 9')
    assert under(rows[0], rows[1], "del 9"), rows
    # A Hangul syllable written as its three jamo: two columns in all.
    rows = after_echo(sh, 'save "\u1112\u1161\u11ab"; del 9')
    assert rows[1] == "             ^^^^^", rows


def test_a_tab_runs_to_the_next_multiple_of_eight(box):
    sh = narrow(box)
    sh.command("add")
    # A tab typed with Ctrl-V (quoted-insert), not as completion.
    rows = after_echo(sh, "add;\x16\tdel 9")
    assert rows[:2] == ["  add;  del 9", "        ^^^^^"], rows


def test_a_long_line_is_windowed_so_each_mark_stays_under_its_text(box):
    sh = narrow(box)
    line = "add; add; add; show; history; deck; del 9; add; show; deck"
    rows = after_echo(sh, line)
    echo, marks = rows[0], rows[1]
    assert echo.startswith("  …") and echo.endswith("…"), rows
    assert columns(echo) < WIDTH and columns(marks) < WIDTH, rows
    assert under(echo, marks, "del 9"), rows
    assert rows[2].startswith("error: no card at position 9"), rows
    # Syntax errors far apart: a window each, marks on one row each.
    rows = after_echo(sh, "mv 1 x; " + "show; " * 8 + "mv y 1")
    assert len([r for r in rows if r.startswith("  ")]) == 4, rows
    assert under(rows[0], rows[1], "x") and under(rows[2], rows[3], "y"), rows
    for row in rows[:4]:
        assert columns(row) < WIDTH, rows


def test_a_comment_inside_a_word_is_not_pointed_at(box):
    """`#` inside a word starts a comment: the mark ends where the word
    does, before the `#`, and the message quotes the word without it."""
    sh = narrow(box)
    rows = after_echo(sh, "add zz#note")
    assert rows == ["  add zz#note", "      ^^", "error: invalid card 'zz'"]


def test_a_failed_source_is_pointed_after_the_files_own_diagnostic(box):
    # FILE's own diagnostic first, then the line with `^` under
    # `source FILE`: the user sees that `show` was skipped.
    (box.cwd / "fail.hand").write_text("add\ndel 9\n", encoding="utf-8")
    sh = narrow(box)
    rows = sh.command("source fail.hand; show")
    assert rows == [
        "fail.hand:2:1: error: no card at position 9 (hand has 1 card)",
        "  source fail.hand; show",
        "  ^^^^^^^^^^^^^^^^",
    ], rows
    # Alone on its line it needs no pointer, as any failed command.
    rows = sh.command("source fail.hand")
    assert rows == ["fail.hand:2:1: error: no card at position 9 (hand has 2 cards)"]
