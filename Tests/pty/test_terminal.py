"""The prompt in real terminals (handsh(1), THE PROMPT): pastes, job control, signals,
Ctrl-C and Ctrl-D, completion, the locale, the stream the prompt is drawn on,
a failure in the middle of a line, and TERM=dumb. Each test drives the real
binary the way a user would, in a pseudo-terminal, often under a job-control
shell (dash or bash), and checks the terminal's modes with `stty -g`.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import shlex
import shutil
import signal
import time

import pexpect
import pytest

from conftest import PROMPT, TIMEOUT, Shell, clean, history_lines

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


def pasting(box, *args, **kwargs):
    """handsh at an xterm with readline's default bracketed paste on."""
    box.inputrc.write_text("")
    env = dict(kwargs.pop("env", {}) or {})
    env.setdefault("TERM", "xterm")
    return box.spawn(*args, env=env, **kwargs)


# MARK: - 1. Pastes


def test_a_bracketed_paste_runs_each_line_and_adds_each_to_history(box):
    sh = pasting(box, "--seed", "42")
    sh.first_prompt()
    sh.child.send(PASTE_START + "add\nadd\nshow\n" + PASTE_END)
    time.sleep(0.2)
    sh.child.send("\r")
    shown = clean(sh.prompt())
    for line in ["7♥", "3♣ 7♥", "1  3♣", "2  7♥"]:
        assert line in shown.split("\n"), repr(shown)
    assert "error" not in shown, repr(shown)
    # As if typed: the second `add` is an immediate repeat, not kept.
    assert history_lines(box.history) == ["add", "show"]
    assert sh.command("deck") == ["50 in deck, 0 discarded, seed 42"]


def test_a_paste_that_starts_with_a_comment_runs_the_lines_after_it(box):
    sh = pasting(box, "--seed", "42")
    sh.first_prompt()
    sh.child.send(PASTE_START + "# set up\r\nadd   # first\r\nadd 5h\r\n" + PASTE_END + "\r")
    sh.child.expect_exact("5♥ 7♥")
    sh.prompt()
    assert sh.command("show") == ["1  5♥", "2  7♥"]
    assert history_lines(box.history) == ["# set up", "add   # first", "add 5h", "show"]


def test_one_copied_line_with_its_line_break_runs(box):
    sh = pasting(box, "--seed", "42")
    sh.first_prompt()
    sh.child.send(PASTE_START + "add 7h\n" + PASTE_END + "\r")
    sh.child.expect_exact("7♥")
    after = clean(sh.prompt())
    assert "error" not in after, repr(after)
    assert history_lines(box.history) == ["add 7h"]


def test_quit_in_a_paste_ends_the_session_there(box):
    sh = pasting(box, "--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send(PASTE_START + "add\nquit\nadd\n" + PASTE_END + "\r")
    assert sh.wait_exit() == 0
    assert history_lines(box.history) == ["add", "quit"]


# MARK: - 3. Ctrl-C and Ctrl-D


def test_ctrl_c_shows_caret_c_after_the_typed_text(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.child.send("add 7h")
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.child.sendintr()
    sh.child.expect_exact(PROMPT)
    assert clean(sh.child.before) == "^C\n", repr(sh.child.before)
    # Dropped: neither run nor kept in the history.
    assert sh.command("show") == ["(empty)"]
    assert history_lines(box.history) == ["show"]


def test_ctrl_c_with_the_cursor_mid_line_marks_the_end(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.child.send("add 7h\x01")  # Ctrl-A: to the start
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.child.sendintr()
    sh.child.expect_exact("^C")
    # The cursor went to the end of the text first.
    assert sh.child.before.endswith("add 7h"), repr(sh.child.before)
    sh.prompt()
    assert sh.command("show") == ["(empty)"]


@pytest.mark.parametrize("paste", [True, False], ids=["bracketed-paste", "no-paste"])
def test_ctrl_d_writes_exactly_one_line_break(box, paste):
    sh = pasting(box, "--seed", "42") if paste else box.spawn("--seed", "42")
    sh.first_prompt()
    time.sleep(0.2)
    sh.child.sendeof()
    sh.child.expect(pexpect.EOF)
    raw = sh.child.before
    assert raw.count("\n") == 1, repr(raw)
    assert clean(raw) == "\n", repr(raw)


# MARK: - 5. Where the prompt is drawn


def spawn_redirected(box, shell_tail, *args):
    """handsh ARGS with its stdout redirected by SHELL_TAIL (`| cat`,
    `> out`), stdin and stderr on the terminal."""
    command = " ".join(shlex.quote(w) for w in [str(box.binary), "--color=never", *args])
    if shell_tail.startswith(">"):
        command = "exec " + command  # Ctrl-C must reach handsh alone
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", f"{command} {shell_tail}"],
        env=box.env(box.history, None),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(24, 200),
    )
    box.children.append(child)
    return Shell(child)


def test_the_prompt_runs_when_stdout_is_a_pipe(box):
    sh = spawn_redirected(box, "| cat", "--seed", "42")
    sh.first_prompt()
    # Results come through cat, so they may show before or after the next
    # prompt; wait for each.
    sh.child.send("add\r")
    sh.child.expect_exact("7♥")
    # Editing works and a typo does not end the session (no script mode).
    sh.child.send("ad\r")
    sh.child.expect_exact("error: unknown command 'ad' (did you mean 'add'?)")
    sh.child.send("shox\x7fw\r")
    sh.child.expect_exact("1  7♥")
    time.sleep(0.2)
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_with_stdout_in_a_file_the_prompt_and_keys_go_to_stderr(box):
    sh = spawn_redirected(box, "> out", "--seed", "42", "--quiet")
    sh.first_prompt()
    sh.command("add")
    sh.child.send("ad")
    sh.child.expect_exact("ad")
    time.sleep(0.2)
    sh.child.sendintr()
    sh.child.expect_exact("^C")
    sh.prompt()
    sh.command("show")
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    # The results alone: no prompt, no echo, no ^C, no Ctrl-D line break.
    assert (box.cwd / "out").read_text() == "1  7♥\n"


# MARK: - 6 and 8. A failure in the middle of a line


def test_the_first_failed_command_skips_the_rest_of_the_line(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    lines = sh.command("add; del 9; add")
    assert lines == [
        "7♥",
        "  add; del 9; add",
        "       ^^^^^",
        "error: no card at position 9 (hand has 1 card)",
    ]
    assert sh.command("show") == ["1  7♥"]


def test_the_bell_rings_on_the_terminal_never_in_a_redirected_stderr(box):
    sh = box.spawn("--seed", "42", "--quiet", stderr_to_file=True)
    sh.first_prompt()
    sh.child.send("zz\t")
    sh.child.expect_exact("\a")
    sh.child.sendcontrol("u")
    assert sh.command("show") == ["(empty)"]
    assert sh.stderr() == "", repr(sh.stderr())


def test_the_pointer_is_only_for_a_terminal_and_several_commands(box):
    sh = box.spawn("--seed", "42", "--quiet", stderr_to_file=True)
    sh.first_prompt()
    sh.command("add; del 9; add")
    assert sh.stderr() == "error: no card at position 9 (hand has 1 card)\n"
    assert sh.command("show") == ["1  7♥"]
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("del 9") == ["error: no card at position 9 (hand has 0 cards)"]
    assert sh.command("del 9; add") == [
        "  del 9; add",
        "  ^^^^^",
        "error: no card at position 9 (hand has 0 cards)",
    ]
    assert sh.command("show") == ["(empty)"]


# MARK: - 7. TERM=dumb


def test_term_dumb_gets_no_colour(box):
    sh = box.spawn("--seed", "42", color=None, env={"TERM": "dumb"})
    sh.first_prompt()
    raw = sh.command_raw("add; add")
    assert "7♥" in raw and "\x1b" not in raw, repr(raw)


# MARK: - The manual's inputrc example


def test_the_inputrc_example_of_the_manual_works(box):
    from conftest import REPO

    page = (REPO / "man" / "handsh.1").read_text(encoding="utf-8")
    start = page.index("$if handsh\n")
    example = page[start : page.index("$endif\n", start) + len("$endif\n")]
    box.inputrc.write_text("set enable-bracketed-paste off\n" + example.replace("\\e", "\\"))
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.child.send("\x18h")  # Ctrl-X h: the example's macro
    sh.child.expect_exact("*0  start     (empty)")
    sh.prompt()
    # completion-ignore-case: `HIS` completes to `history`.
    assert sh.command("HIS\t") == ["*0  start     (empty)"]


def test_a_signal_the_parent_ignores_stays_ignored(box):
    command = " ".join(shlex.quote(w) for w in [str(box.binary), "--color=never", "--seed", "42"])
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", f"trap '' HUP; exec {command}"],
        env=box.env(box.history, None),
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
    )
    box.children.append(child)
    sh = Shell(child)
    sh.first_prompt()
    sh.kill(signal.SIGHUP)  # as under nohup
    time.sleep(0.3)
    assert sh.child.isalive()
    assert sh.command("add") == ["7♥"]


def test_without_home_readline_reads_the_system_inputrc_only(box):
    # No HOME and no INPUTRC: readline would look the user's home folder up
    # in the password database; handsh points it at /etc/inputrc instead.
    env = box.env(None, None)
    for name in ("HOME", "INPUTRC", "HANDSH_HISTORY"):
        env.pop(name, None)
    if shutil.which("strace") is None:
        pytest.fail("this test needs strace (scripts/bootstrap installs it)")
    child = pexpect.spawn(
        "strace",
        ["-f", "-e", "trace=openat,open", "-o", str(box.root / "trace"), str(box.binary), "-q"],
        env=env,
        cwd=str(box.cwd),
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
    )
    box.children.append(child)
    sh = Shell(child)
    sh.first_prompt()
    sh.child.sendeof()
    sh.wait_exit()
    opened = (box.root / "trace").read_text()
    assert "/etc/passwd" not in opened
    assert '"/etc/inputrc"' in opened


def test_a_write_error_on_stdout_ends_the_prompt_with_status_1(box):
    sh = spawn_redirected(box, "> /dev/full", "--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("show\r")
    assert sh.wait_exit() == 1
    assert "handsh: write error: No space left on device" in sh.tail.split("\n"), repr(sh.tail)


def test_stop_and_sigcont_from_outside_redraw_the_line(box):
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("add 7h")
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.kill(signal.SIGSTOP)
    time.sleep(0.2)
    sh.kill(signal.SIGCONT)
    sh.child.expect_exact(PROMPT + "add 7h")  # drawn again
    time.sleep(0.2)
    assert sh.command("\x7fs") == []
    assert sh.command("show") == ["1  7♠"]


def test_ctrl_z_where_nothing_stops_handsh_gives_the_line_back(box):
    # pexpect's child leads an orphaned process group: the kernel drops
    # SIGTSTP, so handsh goes on at once, with the line and the terminal.
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("add 7h")
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.child.sendcontrol("z")
    sh.child.expect_exact("^Z")
    sh.child.expect_exact(PROMPT + "add 7h")
    time.sleep(0.2)
    assert sh.command("\x7fs") == []
    assert sh.command("show") == ["1  7♠"]
