"""Fixtures for driving `handsh` at its readline prompt in a real pseudo-terminal.

The binary is `$HANDSH_BIN`, else `<repo>/.build/debug/handsh`. Every session
runs in its own temporary HOME and working folder, with `TERM=dumb` (no
bracketed-paste or cursor escapes), a UTF-8 locale, an `INPUTRC` file of its
own, `SWIFT_BACKTRACE=enable=no`, no `NO_COLOR` and `HANDSH_HISTORY` pointing
into the temporary folder unless a test asks otherwise.

Every `expect` has a timeout (`TIMEOUT`), and every test has an overall guard
(`TEST_GUARD`, SIGALRM) so that a hang fails the test instead of blocking.
Run with `python3 -m pytest -q Tests/pty`.
"""

import os
import re
import shlex
import shutil
import signal
import time
from pathlib import Path

import pytest

try:
    import pexpect
except ImportError as error:  # fail loudly: never skip the whole suite
    raise ImportError(
        "the pty tests need pexpect: pip install pexpect (or apt install python3-pexpect)"
    ) from error

REPO = Path(__file__).resolve().parents[2]
PROMPT = "handsh> "
TIMEOUT = 10  # seconds, for every expect and every wait for an exit
TEST_GUARD = 60  # seconds, for a whole test
DEFAULT_INPUTRC = "set enable-bracketed-paste off\n"
# What `status` says of a fresh session with seed 42.
DECK_AT_START = "52 in deck, 0 discarded, seed 42"

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")


def clean(text):
    """TEXT without terminal escapes, bells, backspace redraws and CRs."""
    text = _ESCAPE.sub("", text).replace("\x07", "").replace("\r", "")
    # Apply backspaces as the terminal would, so the echo reads as typed.
    out = []
    for line in text.split("\n"):
        chars = []
        cursor = 0
        for ch in line:
            if ch == "\b":
                cursor = max(0, cursor - 1)
            elif cursor < len(chars):
                chars[cursor] = ch
                cursor += 1
            else:
                chars.append(ch)
                cursor += 1
        out.append("".join(chars).rstrip(" "))
    return "\n".join(out)


def history_lines(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def handsh_binary():
    path = os.environ.get("HANDSH_BIN") or str(REPO / ".build" / "debug" / "handsh")
    return Path(path)


def wait_until(condition, what, timeout=TIMEOUT):
    """Polls CONDITION until it holds; fails the test after TIMEOUT seconds,
    saying WHAT it waited for. For the moments no output marks: a test that
    signals handsh once it is inside a command must not signal it before."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout} s for {what}")
        time.sleep(0.01)


def holds_open(pid, path):
    """Whether process PID has PATH open (so the command that opened it runs)."""
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == os.path.realpath(path):
                return True
        except OSError:
            pass
    return False


# Where the kernel says a process sleeps (/proc/PID/wchan), by kernel version.
IN_FIFO_OPEN = ("wait_for_partner",)  # open(2) of a FIFO, the other end not open
IN_PIPE_WRITE = ("pipe_write", "anon_pipe_write", "pipe_wait", "pipe_wait_writable")


def sleeps_in(pid, places):
    """Whether process PID sleeps in one of PLACES (kernel functions, as
    /proc/PID/wchan names them). Where /proc hides where a process sleeps
    (a wchan of 0), half a second has to do."""
    try:
        with open(f"/proc/{pid}/wchan", encoding="ascii", errors="replace") as file:
            where = file.read().strip()
    except OSError:
        where = "0"
    if where in ("", "0"):
        time.sleep(0.5)
        return True
    return where in places


class Shell:
    """One `handsh` at the prompt, in a pseudo-terminal."""

    def __init__(self, child, stderr_path=None):
        self.child = child
        self.stderr_path = stderr_path

    # -- reading ---------------------------------------------------------

    def prompt(self):
        """Waits for the prompt; returns what came before it, raw."""
        self.child.expect_exact(PROMPT)
        return self.child.before

    def first_prompt(self):
        """Waits for the first prompt; returns the cleaned text before it."""
        return clean(self.prompt())

    def settle(self, quiet=0.3):
        """Reads and returns (raw) whatever arrives until QUIET seconds pass
        without output."""
        got = []
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            index = self.child.expect([r"(?s).+", pexpect.TIMEOUT], timeout=quiet)
            if index == 1:
                break
            got.append(self.child.after)
        return "".join(got)

    def command(self, typed):
        """Types TYPED (may hold Tab or other keys) and Enter, waits for the
        next prompt; returns the lines printed after the echoed line, cleaned."""
        self.child.send(typed + "\r")
        raw = self.prompt()
        lines = clean(raw).split("\n")
        # lines[0] is readline's echo of what was typed (after the redraws of
        # completion, as the terminal shows it); the last is the empty rest of
        # the line the prompt is drawn on.
        if lines and lines[-1] == "":
            lines = lines[:-1]
        self.last_echo = lines[0] if lines else ""
        return lines[1:]

    def command_raw(self, typed):
        self.child.send(typed + "\r")
        return self.prompt()

    def stderr(self):
        assert self.stderr_path is not None, "spawned without stderr_to_file"
        return Path(self.stderr_path).read_text(encoding="utf-8", errors="replace")

    # -- ending ----------------------------------------------------------

    def wait_exit(self, timeout=TIMEOUT):
        """Waits for EOF and the end of the process; returns its status, 128 + N
        for a death by signal N (as the shell reports it). Returns everything
        printed after the last read, cleaned, as `self.tail`."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.tail = clean(self.child.before)
        deadline = time.monotonic() + timeout
        while self.child.isalive():
            if time.monotonic() > deadline:
                pytest.fail(f"handsh did not end within {timeout} s after EOF")
            time.sleep(0.02)
        if self.child.signalstatus is not None:
            return 128 + self.child.signalstatus
        return self.child.exitstatus

    def kill(self, number):
        self.child.kill(number)


class Sandbox:
    """A temporary HOME, working folder, INPUTRC and history file, and a way to
    start `handsh` in them."""

    def __init__(self, root, binary):
        self.root = root
        self.binary = binary
        self.home = root / "home"
        self.cwd = root / "work"
        self.home.mkdir()
        self.cwd.mkdir()
        self.inputrc = root / "inputrc"
        self.inputrc.write_text(DEFAULT_INPUTRC)
        self.history = root / "history"
        self.children = []

    def env(self, history, extra):
        env = {
            k: v
            for k, v in os.environ.items()
            if not (
                k in ("NO_COLOR", "INPUTRC", "HANDSH_HISTORY", "LANG", "LANGUAGE")
                or k.startswith("LC_")
            )
        }
        env.update(
            TERM="dumb",
            SWIFT_BACKTRACE="enable=no",
            HOME=str(self.home),
            INPUTRC=str(self.inputrc),
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
        )
        if history is not None:
            env["HANDSH_HISTORY"] = str(history)
        env.update(extra or {})
        return env

    def spawn(
        self,
        *args,
        history="default",
        env=None,
        stderr_to_file=False,
        color="never",
        dimensions=(24, 200),
        umask=None,
    ):
        """Starts `handsh ARGS` at a pseudo-terminal.

        history: "default" (the sandbox's file), None (HANDSH_HISTORY unset),
        or a path or "" to put in HANDSH_HISTORY. color: "never" adds
        `--color=never`; None adds nothing. stderr_to_file: stderr goes to a
        file (read it with `Shell.stderr()`), stdin and stdout stay on the
        terminal, so what goes where can be told apart. An argument given as
        bytes reaches handsh as those bytes, UTF-8 or not.
        """
        if history == "default":
            history = self.history
        arguments = list(args)
        if color is not None:
            arguments.insert(0, f"--color={color}")
        environment = self.env(history, env)
        stderr_path = None
        if stderr_to_file:
            stderr_path = self.root / f"stderr-{len(self.children)}"
            stderr_path.touch()
            environment["HANDSH_TEST_STDERR"] = str(stderr_path)
        if any(isinstance(argument, bytes) for argument in arguments):
            # pexpect passes text arguments only: bytes (a name that is not
            # UTF-8) go through the environment, which takes any, and /bin/sh.
            words = []
            for index, argument in enumerate(arguments):
                if isinstance(argument, bytes):
                    environment[f"HANDSH_TEST_ARG{index}"] = os.fsdecode(argument)
                    words.append(f'"$HANDSH_TEST_ARG{index}"')
                else:
                    words.append(shlex.quote(argument))
            script = 'exec "$0" ' + " ".join(words)
            if stderr_to_file:
                script += ' 2>>"$HANDSH_TEST_STDERR"'
            command = "/bin/sh"
            arguments = ["-c", script, str(self.binary)]
        elif stderr_to_file:
            command = "/bin/sh"
            arguments = [
                "-c",
                'exec "$0" "$@" 2>>"$HANDSH_TEST_STDERR"',
                str(self.binary),
            ] + arguments
        else:
            command = str(self.binary)
        child = pexpect.spawn(
            command,
            arguments,
            env=environment,
            cwd=str(self.cwd),
            timeout=TIMEOUT,
            encoding="utf-8",
            codec_errors="replace",
            dimensions=dimensions,
            preexec_fn=None if umask is None else (lambda: os.umask(umask)),
        )
        self.children.append(child)
        return Shell(child, stderr_path)

    def close(self):
        for child in self.children:
            if child.isalive():
                child.terminate(force=True)
            try:
                child.close(force=True)
            except Exception:
                pass


@pytest.fixture(autouse=True)
def _guard():
    """Fails a test that takes longer than TEST_GUARD seconds in all."""

    def expired(number, frame):
        pytest.fail(f"test took longer than {TEST_GUARD} s (hang?)", pytrace=True)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_GUARD)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def box(tmp_path):
    binary = handsh_binary()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(
            f"no handsh binary at {binary}: run `swift build` or set HANDSH_BIN"
        )
    sandbox = Sandbox(tmp_path, binary)
    try:
        yield sandbox
    finally:
        sandbox.close()


# MARK: - A job-control shell (dash or bash) with handsh under it

SHELL_PROMPT = "SH$ "

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
