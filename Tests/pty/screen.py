"""The screen as a terminal draws it: `handsh` (or a shell running it) in a
pseudo-terminal, every byte it writes fed to pyte, a terminal emulator, so
that tests assert on rows, the cursor and attributes instead of bytes.

`Term.spawn(box, ...)` starts `handsh` with `TERM=xterm` (cursor motion,
colour and dimming are drawn) at the sandbox's HOME, INPUTRC and history.
"""

import os
import time

import pexpect
import pyte
import pytest

from conftest import TIMEOUT, handsh_binary


class DimScreen(pyte.Screen):
    """pyte's screen, which knows no faint text, plus the cells drawn with
    SGR 2 (dim) on: `dim` holds their (row, column)."""

    def __init__(self, columns, rows):
        super().__init__(columns, rows)
        self.faint = False
        self.dim = set()

    def select_graphic_rendition(self, *attrs, **options):
        for attr in attrs or (0,):
            if attr == 2:
                self.faint = True
            elif attr in (0, 22):
                self.faint = False
        super().select_graphic_rendition(*attrs, **options)

    def draw(self, data):
        for char in data:
            place = (self.cursor.y, self.cursor.x)
            super().draw(char)
            if self.faint:
                self.dim.add(place)
            else:
                self.dim.discard(place)


class Term:
    """A pseudo-terminal of ROWS x COLUMNS and the screen pyte draws from
    what arrives on it."""

    def __init__(self, child, rows, columns):
        self.child = child
        self.screen = DimScreen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        # Every byte, as it came, for the messages of failed assertions.
        self.raw = bytearray()

    @classmethod
    def spawn(cls, box, *args, rows=24, columns=80, env=None, command=None, term="xterm"):
        environment = box.env(box.history, env)
        environment["TERM"] = term
        if command is None:
            command = [str(handsh_binary()), *args]
        child = pexpect.spawn(
            command[0],
            command[1:],
            env=environment,
            cwd=str(box.cwd),
            timeout=TIMEOUT,
            dimensions=(rows, columns),
        )
        # Keys go when sent: pexpect otherwise sleeps 50 ms before each.
        child.delaybeforesend = None
        box.children.append(child)
        return cls(child, rows, columns)

    @classmethod
    def replay(cls, data, rows, columns):
        """The screen that DATA draws on a terminal of ROWS x COLUMNS."""
        term = cls(None, rows, columns)
        term.feed(bytes(data))
        return term

    # -- reading ---------------------------------------------------------

    def feed(self, data):
        self.raw += data
        self.stream.feed(data)

    def pump(self, quiet=0.3, limit=TIMEOUT):
        """Draws whatever arrives until QUIET seconds pass without output
        (or LIMIT seconds in all)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                data = self.child.read_nonblocking(1 << 16, timeout=quiet)
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                return
            self.feed(data)

    def wait_for(self, condition, what, limit=TIMEOUT):
        """Draws what arrives until CONDITION(self) holds."""
        deadline = time.monotonic() + limit
        while not condition(self):
            if time.monotonic() > deadline:
                pytest.fail(f"waited {limit} s for {what}; screen:\n{self.text()}")
            try:
                data = self.child.read_nonblocking(1 << 16, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                if not condition(self):
                    pytest.fail(f"ended before {what}; screen:\n{self.text()}")
                return
            self.feed(data)

    def wait_text(self, text, limit=TIMEOUT):
        self.wait_for(lambda term: text in term.text(), repr(text), limit)

    def wait_row(self, row, text, limit=TIMEOUT):
        self.wait_for(lambda term: term.row(row) == text, f"row {row} = {text!r}", limit)

    def drain_to_end(self, limit=TIMEOUT):
        """Draws everything until the program ends."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                self.feed(self.child.read_nonblocking(1 << 16, timeout=0.2))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return
        pytest.fail(f"did not end within {limit} s; screen:\n{self.text()}")

    def wait_exit(self, limit=TIMEOUT):
        """Draws everything to the end; the status, 128 + N for a death by
        signal N."""
        self.drain_to_end(limit)
        deadline = time.monotonic() + limit
        while self.child.isalive():
            if time.monotonic() > deadline:
                pytest.fail(f"did not end within {limit} s")
            time.sleep(0.02)
        if self.child.signalstatus is not None:
            return 128 + self.child.signalstatus
        return self.child.exitstatus

    # -- the screen ------------------------------------------------------

    def rows(self):
        return [line.rstrip() for line in self.screen.display]

    def row(self, number):
        return self.screen.display[number].rstrip()

    def text(self):
        return "\n".join(self.rows())

    def used_rows(self):
        """The rows up to the last one holding text."""
        rows = self.rows()
        while rows and rows[-1] == "":
            rows.pop()
        return rows

    def cursor(self):
        return (self.screen.cursor.y, self.screen.cursor.x)

    def cell(self, row, column):
        return self.screen.buffer[row][column]

    def dimmed(self, row):
        """Whether every character of row ROW was drawn dim."""
        text = self.row(row)
        return all((row, x) in self.screen.dim for x, c in enumerate(text) if c != " ")

    def cursor_row(self):
        return self.row(self.screen.cursor.y)

    # -- writing ---------------------------------------------------------

    def send(self, text):
        self.child.send(text.encode() if isinstance(text, str) else text)

    def resize(self, rows, columns):
        self.child.setwinsize(rows, columns)
        self.screen.resize(rows, columns)


def cpu_seconds(pid):
    """User and system CPU seconds of process PID so far."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
