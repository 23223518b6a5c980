"""The prompt in real terminals (handsh(1), THE PROMPT): pastes, job control, signals,
Ctrl-C and Ctrl-D, completion, the locale, the stream the prompt is drawn on,
a failure in the middle of a line, and TERM=dumb. Each test drives the real
binary the way a user would, in a pseudo-terminal, often under a job-control
shell (dash or bash), and checks the terminal's modes with `stty -g`.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import os
import shlex
import shutil
import signal
import time

import pexpect
import pytest

from conftest import PROMPT, TIMEOUT, Shell, clean

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
SHELL_PROMPT = "SH$ "


def history_lines(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def pasting(box, *args, **kwargs):
    """handsh at an xterm with readline's default bracketed paste on."""
    box.inputrc.write_text("")
    env = dict(kwargs.pop("env", {}) or {})
    env.setdefault("TERM", "xterm")
    return box.spawn(*args, env=env, **kwargs)


def children_of(pid):
    """The processes whose parent is PID (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def process_state(pid):
    """The state letter of PID from /proc (R, S, T, Z, ...); None once it is
    reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def eventually(predicate, timeout=TIMEOUT):
    """Whether PREDICATE holds within TIMEOUT seconds, asked every 50 ms."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class JobShell:
    """An interactive dash or bash with job control, in a pseudo-terminal,
    whose commands run in the sandbox."""

    def __init__(self, box, name, env=None):
        path = shutil.which(name)
        if path is None:
            pytest.fail(f"the job-control tests need {name}")
        self.box = box
        environment = box.env(box.history, env)
        environment["PS1"] = SHELL_PROMPT
        environment["ENV"] = "/dev/null"
        arguments = ["-i"] if name == "dash" else ["--norc", "--noprofile", "-i"]
        self.child = pexpect.spawn(
            path,
            arguments,
            env=environment,
            cwd=str(box.cwd),
            timeout=TIMEOUT,
            encoding="utf-8",
            codec_errors="replace",
            dimensions=(24, 200),
        )
        box.children.append(self.child)
        self.child.expect_exact(SHELL_PROMPT)
        self.run("ulimit -c 0")

    def run(self, line):
        """Runs LINE at the shell and returns its output, cleaned."""
        self.child.send(line + "\r")
        self.child.expect_exact(line)
        self.child.expect_exact(SHELL_PROMPT)
        return clean(self.child.before).strip("\n")

    def modes(self):
        return self.run("stty -g")

    def start_handsh(self, *args):
        words = " ".join(shlex.quote(w) for w in [str(self.box.binary), "--seed", "42", *args])
        self.child.send(words + "\r")
        self.child.expect_exact(PROMPT)

    def type_and_wait(self, text):
        """Types TEXT at handsh's prompt and waits until readline has echoed
        it (a signal character flushes the terminal's unread input)."""
        self.child.send(text)
        self.child.expect_exact(text)
        time.sleep(0.2)

    def handsh_pid(self):
        kids = children_of(self.child.pid)
        assert len(kids) == 1, kids
        return kids[0]


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


# MARK: - 2. Job control and signals


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_ctrl_z_restores_the_terminal_and_fg_resumes_editing(box, shell):
    js = JobShell(box, shell)
    before = js.modes()
    js.start_handsh()
    js.type_and_wait("add 7h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    stopped = clean(js.child.before)  # what followed the typed text
    # As readline's own handler writes it (sqlite3): `^Z` and no line break;
    # bash writes one before its notice, dash none.
    assert stopped.startswith("^Z\n[1]+" if shell == "bash" else "^Z[1]"), repr(stopped)
    # The shell gets the terminal as it left it (dash restores nothing itself).
    assert js.modes() == before
    js.child.send("fg\r")
    # The prompt and the typed text are drawn again ...
    js.child.expect_exact(PROMPT + "add 7h")
    time.sleep(0.2)
    # ... and editing works: Left, Backspace over the 7, then Q: `add Qh`.
    js.child.send("\x1b[D\x7fQ\r")
    js.child.expect_exact("Q♥")
    js.child.expect_exact(PROMPT)
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    assert js.modes() == before
    assert history_lines(box.history) == ["add Qh", "quit"]


def test_ctrl_z_twice_and_nothing_typed(box):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    for _ in range(2):
        time.sleep(0.2)
        js.child.sendcontrol("z")
        js.child.expect_exact(SHELL_PROMPT)
        assert js.modes() == before
        js.child.send("fg\r")
        js.child.expect_exact(PROMPT)
    time.sleep(0.2)
    js.child.send("add\r")
    js.child.expect_exact(PROMPT)
    js.child.send("show\r")
    js.child.expect_exact("1  7♥")


def test_ctrl_backslash_restores_the_terminal_and_ends_by_sigquit(box):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    js.child.sendcontrol("\\")
    js.child.expect_exact(SHELL_PROMPT)
    # The typed line is left alone: what follows starts on a fresh line.
    assert js.child.before.startswith("^\\\r\n") or js.child.before.startswith(
        "\r\n"
    ), repr(js.child.before)
    assert js.run("echo status=$?") == "status=131"
    assert js.modes() == before


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_fatal_signal_restores_the_terminal_under_a_shell(box, number):
    js = JobShell(box, "dash")
    before = js.modes()
    js.start_handsh("--quiet")
    js.type_and_wait("add 7h")
    os.kill(js.handsh_pid(), number)
    js.child.expect_exact(SHELL_PROMPT)
    assert js.child.before.startswith("\r\n"), repr(js.child.before)
    assert js.run("echo status=$?") == f"status={128 + number}"
    assert js.modes() == before


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_fatal_signal_moves_to_a_fresh_line_when_text_was_typed(box, number):
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    sh.child.send("add 7h")
    sh.child.expect_exact("add 7h")
    time.sleep(0.2)
    sh.kill(number)
    assert sh.wait_exit() == 128 + number
    # Nothing after the typed text but the move to a fresh line.
    assert sh.tail == "\n", repr(sh.tail)
    assert not box.history.exists() or history_lines(box.history) == []


def test_a_fatal_signal_on_an_empty_line_moves_to_a_fresh_line(box):
    # Readline's last word is a carriage return: without the line break the
    # shell's `Terminated` would overwrite the prompt.
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    time.sleep(0.2)
    sh.kill(signal.SIGTERM)
    assert sh.wait_exit() == 128 + signal.SIGTERM
    assert sh.tail == "\n", repr(sh.tail)


def test_kill_ends_a_stopped_handsh(box):
    # bash's `kill %1` sends SIGTERM, then SIGCONT: handsh, still in the
    # background, must not set the terminal up (that stops it again) but end.
    js = JobShell(box, "bash")
    before = js.modes()
    js.start_handsh("--quiet")
    pid = js.handsh_pid()
    js.type_and_wait("add 3h")
    js.child.sendcontrol("z")
    js.child.expect_exact(SHELL_PROMPT)
    js.child.send("kill %1\r")
    js.child.expect_exact(SHELL_PROMPT)
    # handsh ends (a zombie until bash reaps it), and is never stopped again.
    assert eventually(lambda: process_state(pid) in (None, "Z")), (
        f"handsh is still there, state {process_state(pid)}"
    )
    # bash's own word: `wait` reaps a zombie at once (SIGTERM: 143), or the
    # job is already gone (127); a job still stopped would never return.
    # Polling `jobs` instead left bash's table saying Stopped for a zombie
    # it had not reaped yet.
    out = js.run("wait %1 2>/dev/null; echo status=$?")
    assert out.splitlines()[-1] in ("status=143", "status=127"), out
    assert "Stopped" not in js.run("jobs")
    assert js.modes() == before


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


# MARK: - 4. Completion


def listing(sh, typed):
    """The candidates that two Tabs list after TYPED, in the order shown."""
    sh.child.send(typed)
    sh.child.expect_exact(typed)
    sh.child.send("\x1b?")  # M-?: possible-completions, as a second Tab lists
    sh.child.expect_exact(PROMPT + typed)
    words = clean(sh.child.before).split()
    sh.child.send("\x15")  # Ctrl-U
    return words


def test_completion_lists_the_decks_cards_in_new_deck_order(box):
    box.inputrc.write_text(
        "set enable-bracketed-paste off\nset print-completions-horizontally on\n"
    )
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    assert listing(sh, "add 1") == ["10♥", "10♦", "10♣", "10♠"]
    suits = "♥♦♣♠"
    ranks = "A 2 3 4 5 6 7 8 9 10 J Q K".split()
    deck = [r + s for s in suits for r in ranks if r + s != "7♥"]
    assert listing(sh, "add ") == deck


def test_t_completes_tens(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add th\t") == ["10♥"]
    assert sh.last_echo == "add 10♥"
    assert sh.command("add t\ts") == ["10♠ 10♥"]
    assert sh.last_echo == "add 10s"


def test_completion_of_positions_after_del_and_mv(box):
    sh = box.spawn("--seed", "42", "--quiet", "-i", "-c", "add; add; add")
    sh.first_prompt()
    # Listed with their cards, one row as readline lays it out; the
    # position alone is inserted.
    sh.child.send("del \t\t")
    sh.child.expect_exact(PROMPT + "del ")
    assert "\n1 K♥  2 3♣  3 7♥\n" in clean(sh.child.before), repr(sh.child.before)
    sh.child.send("\x15")
    assert listing(sh, "mv 1 ") == ["1", "K♥", "2", "3♣", "3", "7♥"]
    assert sh.command("mv 3\t1\t") == []
    assert sh.last_echo == "mv 3 1"
    assert sh.command("show") == ["1  7♥", "2  K♥", "3  3♣"]


def test_completion_of_the_hands_cards_after_expect(box):
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert listing(sh, "expect ") == ["empty"]
    sh.command("add; add")
    assert listing(sh, "expect ") == ["3♣", "7♥"]
    assert sh.command("expect 3\t7\t") == []
    assert sh.last_echo == "expect 3♣ 7♥"


def test_completion_of_file_names_after_save_quotes_them(box):
    (box.cwd / "my game.hand").write_text("")
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("add; save my\t") == []
    assert sh.last_echo == 'add; save "my game.hand"'
    assert (box.cwd / "my game.hand").read_text().endswith("add 7H\n")


def test_completion_with_ascii(box):
    sh = box.spawn("--seed", "42", "--ascii")
    sh.first_prompt()
    assert listing(sh, "add Q") == ["QH", "QD", "QC", "QS"]


# MARK: - 4. The locale


C_LOCALE = {"LC_ALL": "C", "LANG": ""}


def test_completion_under_lc_all_c_never_inserts_part_of_a_character(box):
    sh = box.spawn("--seed", "42", env=C_LOCALE)
    sh.first_prompt()
    # Q♥ Q♦ Q♣ Q♠ share the bytes E2 99 after Q, but no whole character.
    assert sh.command("add q\th") == ["Q♥"]
    assert sh.last_echo == "add Qh"
    assert listing(sh, "add 1") == ["10♥", "10♦", "10♣", "10♠"]
    assert sh.command("add 7h\t") == ["7♥ Q♥"]
    assert history_lines(box.history) == ["add Qh", "add 7♥ "]


def test_backspace_over_a_suit_under_lc_all_c(box):
    sh = box.spawn("--seed", "42", env=C_LOCALE)
    sh.first_prompt()
    assert sh.command("add Q♥♦\x7f") == ["Q♥"]
    assert sh.command("add ♠\x02A") == ["A♠ Q♥"]
    assert history_lines(box.history) == ["add Q♥", "add A♠"]


def test_lang_unset_is_the_c_locale_too(box):
    sh = box.spawn("--seed", "42", env={"LC_ALL": "", "LANG": ""})
    sh.first_prompt()
    assert sh.command("add k♦♣\x7f") == ["K♦"]


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
