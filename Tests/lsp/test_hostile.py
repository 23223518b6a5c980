"""Never deaf, never stuck (handsh(1), EDITORS): hostile documents and
clients, driven byte for byte over the server's pipes. A document that
sources the server's own streams or a FIFO gets a diagnostic instead of a
read or a wait; a bad header costs its own message only; heavy documents
leave requests answered."""

import json
import os
import queue
import resource
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import ENV, HANDSH
from wire import INITIALIZE, frame, notification, request

TIMEOUT = 20




def did_open(uri, text, version=1):
    return notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "hand", "version": version, "text": text}},
    )


def hover(id, uri, line, character):
    return request(
        id,
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
    )


class Server:
    """`handsh --lsp` on pipes, its messages read as they come."""

    def __init__(self, cwd=None):
        self.process = subprocess.Popen(
            [HANDSH, "--lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=ENV,
            cwd=cwd,
        )
        self.messages = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        out = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = out.read(1)
                if not byte:
                    self.messages.put(None)
                    return
                header += byte
            length = int(header.split(b":")[1])
            self.messages.put((time.monotonic(), json.loads(out.read(length))))

    def send(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for(self, test, timeout=TIMEOUT):
        """The first message (with the time it came) for which `test` holds."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, "no such message in time"
            try:
                item = self.messages.get(timeout=left)
            except queue.Empty:
                raise AssertionError("no such message in time")
            assert item is not None, "the server ended"
            if test(item[1]):
                return item

    def answer(self, id, timeout=TIMEOUT):
        return self.wait_for(lambda m: m.get("id") == id and "method" not in m, timeout)[1]

    def diagnostics(self, uri, timeout=TIMEOUT):
        return self.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri,
            timeout,
        )[1]["params"]["diagnostics"]

    def finish(self):
        """Shuts it down; its exit status (it must end on its own)."""
        self.send(request(9999, "shutdown") + notification("exit"))
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(tmp_path):
    started = Server(cwd=tmp_path)
    started.send(INITIALIZE)
    assert "capabilities" in started.answer(1)["result"]
    yield started
    started.kill()


# MARK: Its own streams and FIFOs


@pytest.mark.parametrize(
    "name",
    [
        "/dev/stdin",
        "/dev/fd/0",
        "/proc/self/fd/0",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/fd/1",
        "/proc/self/fd/1",
        "/proc/self/fd/2",
    ],
)
def test_a_document_never_reads_the_servers_own_streams(server, tmp_path, name):
    uri = (tmp_path / "so.hand").as_uri()
    server.send(did_open(uri, f"add\nsource {name}\n"))
    diagnostics = server.diagnostics(uri, timeout=10)
    assert [d["message"] for d in diagnostics] == [f"cannot read {name}: not a regular file"]
    # Still answering, and it ends when asked.
    server.send(hover(2, uri, 0, 1))
    assert "help" not in server.answer(2, timeout=5).get("error", {})
    assert server.finish() == 0


def fifo_writer(path, stop, endless):
    """Holds the FIFO open for writing; writes `add` lines when `endless`."""
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    try:
        while not stop.is_set():
            if endless:
                try:
                    os.write(fd, b"add\n" * 1024)
                except BlockingIOError:
                    time.sleep(0.001)
            else:
                time.sleep(0.01)
    finally:
        os.close(fd)


@pytest.mark.parametrize("endless", [False, True], ids=["silent", "endless"])
def test_a_fifo_is_a_diagnostic_never_a_wait(server, tmp_path, endless):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    stop = threading.Event()
    writer = threading.Thread(target=fifo_writer, args=(fifo, stop, endless), daemon=True)
    writer.start()
    try:
        uri = (tmp_path / "so.hand").as_uri()
        server.send(did_open(uri, "source f\n"))
        diagnostics = server.diagnostics(uri, timeout=10)
        assert [d["message"] for d in diagnostics] == ["cannot read f: not a regular file"]
        server.send(hover(2, uri, 0, 1))
        server.answer(2, timeout=5)
        assert peak_kb(server.process.pid) < 200 * 1024
        assert server.finish() == 0
    finally:
        stop.set()
        writer.join()


def test_handsh_test_never_reads_its_own_output(tmp_path):
    test = tmp_path / "so.hand"
    test.write_text("add\n#> 8♠\nsource /dev/stdout\n#2> error: cannot read /dev/stdout: not a regular file\n")
    # stdout a pipe that nothing else writes to, as in `handsh --test so.hand | cat`.
    result = subprocess.run(
        [HANDSH, "--test", "so.hand"], cwd=tmp_path, capture_output=True, timeout=TIMEOUT, env=ENV
    )
    assert result.stdout == b"1 passed, 0 failed\n", result.stderr


def test_handsh_test_never_reads_its_own_stdin_even_a_regular_file(tmp_path):
    (tmp_path / "in.hand").write_text("add\n")
    (tmp_path / "t.hand").write_text(
        "source /dev/stdin\n#2> error: cannot read /dev/stdin: not a regular file\n"
    )
    with open(tmp_path / "in.hand", "rb") as stdin:
        result = subprocess.run(
            [HANDSH, "--test", "t.hand"],
            cwd=tmp_path,
            stdin=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            env=ENV,
        )
    assert result.stdout == b"1 passed, 0 failed\n", result.stderr


def test_handsh_test_never_waits_on_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "f")
    stop = threading.Event()
    writer = threading.Thread(target=fifo_writer, args=(tmp_path / "f", stop, True), daemon=True)
    writer.start()
    try:
        (tmp_path / "t.hand").write_text("source f\n#2> error: cannot read f: not a regular file\n")
        result = subprocess.run(
            [HANDSH, "--test", "t.hand"], cwd=tmp_path, capture_output=True, timeout=TIMEOUT, env=ENV
        )
        assert result.stdout == b"1 passed, 0 failed\n", result.stderr
    finally:
        stop.set()
        writer.join()


# MARK: Framing


HOVER_TEXT = "add 7h\n"


@pytest.mark.parametrize(
    "bad",
    [
        # No Content-Length; the body follows with no line break.
        b'Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":50,"method":"x"}',
        b'Content-Length: -1\r\n\r\n{"jsonrpc":"2.0","id":51,"method":"x"}',
        b'Content-Length: 123456789012345678901\r\n\r\n{"jsonrpc":"2.0","id":52}',
        # A length too large to take, whose body never comes whole.
        b"Content-Length: 999999999999999999\r\n\r\n{}",
        b'{"jsonrpc": "2.0"}\r\n\r\n',
    ],
)
def test_one_bad_header_costs_no_later_answer(server, tmp_path, bad):
    uri = (tmp_path / "h.hand").as_uri()
    server.send(did_open(uri, HOVER_TEXT))
    server.diagnostics(uri)
    hovers = b"".join(hover(10 + i, uri, 0, 5) for i in range(5))
    server.send(bad + hovers)
    for i in range(5):
        answer = server.answer(10 + i, timeout=5)
        assert "seven of hearts" in answer["result"]["contents"]["value"]
    assert server.finish() == 0


def test_header_names_are_whole_names(tmp_path):
    # A name that merely ends in Content-Length is not that header.
    data = (
        INITIALIZE
        + b"Content-Length: 2\r\nX-Content-Length: 40\r\n\r\n{}"
        + request(2, "shutdown")
        + notification("exit")
    )
    result = subprocess.run(
        [HANDSH, "--lsp"], input=data, capture_output=True, timeout=TIMEOUT, env=ENV
    )
    assert result.returncode == 0
    assert b'"id":2,"result":null' in result.stdout


# MARK: Heavy documents


def test_code_actions_for_10000_differing_blocks_come_at_once(server, tmp_path):
    uri = (tmp_path / "blocks.hand").as_uri()
    lines = 10_000
    server.send(did_open(uri, "add; undo\n#> x\n" * lines))
    assert len(server.diagnostics(uri, timeout=60)) == lines
    started = time.monotonic()
    server.send(
        request(
            2,
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2 * lines, "character": 0}},
                "context": {"diagnostics": []},
            },
        )
    )
    actions = server.answer(2, timeout=120)["result"]
    took = time.monotonic() - started
    assert len(actions) == lines + 1
    # Each block's edit touches its own lines only.
    edit = actions[1]["edit"]["changes"][uri][0]
    assert edit["range"] == {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}}
    assert edit["newText"] == "#> 8♠\n#> (empty)\n"
    # One pass over the text, even in a debug build (quadratic took minutes).
    assert took < 5, took
    assert peak_kb(server.process.pid) < 200 * 1024


def peak_kb(pid):
    """The peak resident memory of a running process, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


HEAVY = {
    "history": "add; undo; history\n" * 10_000,
    "help": "help\n" * 10_000,
}


@pytest.mark.parametrize("kind", sorted(HEAVY))
def test_requests_are_answered_while_a_heavy_run_goes_on(server, tmp_path, kind):
    uri = (tmp_path / "heavy.hand").as_uri()
    server.send(did_open(uri, "add 7h\n"))
    server.diagnostics(uri)
    change = notification(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": HEAVY[kind]}],
        },
    )
    sent = time.monotonic()
    server.send(change + b"".join(hover(2 + i, uri, 0, 5) for i in range(5)))
    for i in range(5):
        answered, answer = server.wait_for(lambda m: m.get("id") == 2 + i)
        assert "result" in answer
    # From the last finished run, while the new one goes on: the requests
    # after the first do not wait again.
    assert answered - sent < 0.5, answered - sent
    came, message = server.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"].get("version") == 2,
        timeout=120,
    )
    diagnostics = message["params"]["diagnostics"]
    if kind == "history":
        # The bound of a golden test's output stops the run.
        assert [d["message"] for d in diagnostics] == [
            "output too large for a golden test (over 64 MiB)"
        ]
    else:
        assert diagnostics == []
    assert peak_kb(server.process.pid) < 200 * 1024
    assert server.finish() == 0


def test_a_golden_test_that_prints_over_64_mib_is_an_error_never_updated(tmp_path):
    # 100,001 versions, then their history 60 times: some 100 MB of output.
    text = "add; undo; " * 50_000 + "\n" + "history\n" * 60
    test = tmp_path / "big.hand"
    test.write_text(text)
    # With --update, which reports the same error and never rewrites it.
    result = subprocess.run(
        [HANDSH, "--test", "--update", "big.hand"],
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
        env=ENV,
    )
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("big.hand:")
    assert lines[0].endswith(": output too large for a golden test (over 64 MiB)")
    assert int(lines[0].split(":")[1]) > 2
    assert result.stdout.decode().splitlines()[-1].endswith("1 error")
    assert test.read_text() == text
