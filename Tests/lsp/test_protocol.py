"""The server's guarantees on bad input (handsh(1), EDITORS), byte for byte
on its pipes: every request gets a response, a malformed header or body a
JSON-RPC error, and nothing but `exit` (or the end of stdin) ends it;
stdout holds framed messages only."""

import json
import os
import random
import subprocess

from conftest import ENV, HANDSH
from wire import INITIALIZE, frame, notification, read_some, read_to_end, request

SHUTDOWN_EXIT = request(99, "shutdown") + notification("exit")


def messages(stdout):
    """Every message on stdout; fails on any byte outside a frame."""
    found = []
    rest = stdout
    while rest:
        header, separator, rest = rest.partition(b"\r\n\r\n")
        assert separator, f"unframed bytes on stdout: {header[:80]!r}"
        assert header.startswith(b"Content-Length: "), header
        length = int(header[len(b"Content-Length: ") :])
        body, rest = rest[:length], rest[length:]
        assert len(body) == length
        found.append(json.loads(body))
    return found


def run(data, *options, timeout=20):
    result = subprocess.run(
        [HANDSH, "--lsp", *options], input=data, capture_output=True, timeout=timeout, env=ENV
    )
    return result.returncode, messages(result.stdout), result.stderr


def answers(found):
    return {m["id"]: m for m in found if "id" in m and m["id"] is not None}


def errors(found):
    return [m["error"]["code"] for m in found if "error" in m]


def test_exit_status_is_0_after_shutdown_and_1_without():
    assert run(INITIALIZE + SHUTDOWN_EXIT)[0] == 0
    assert run(INITIALIZE + notification("exit"))[0] == 1
    # The end of stdin ends it too, as exit would.
    assert run(INITIALIZE)[0] == 1
    assert run(INITIALIZE + request(99, "shutdown"))[0] == 0


def test_malformed_headers_and_bodies_get_errors_and_the_server_goes_on():
    data = (
        INITIALIZE
        + b"Content-Length: x\r\n\r\n"
        + b"Content-Type: text\r\n\r\n"
        + frame(b"{not json")
        + frame(b"[1, 2]")
        + frame(b"42")
        + frame({"jsonrpc": "2.0", "id": 5})
        + frame({"jsonrpc": "2.0", "id": 6, "method": 7})
        + frame({"jsonrpc": "2.0", "id": [1], "method": "shutdown"})
        + frame(b"[" * 100000)
        + request(7, "no/such/method")
        + notification("no/such/notification")
        + request("eight", "textDocument/hover", {"textDocument": {}})
        + SHUTDOWN_EXIT
    )
    status, found, stderr = run(data)
    assert status == 0, stderr
    assert errors(found) == [-32700, -32700, -32700, -32600, -32600, -32600, -32600, -32600, -32700, -32601, -32602]
    by_id = answers(found)
    assert by_id[5]["error"]["code"] == -32600
    assert by_id[7]["error"]["code"] == -32601
    assert by_id["eight"]["error"]["code"] == -32602
    assert by_id[99]["result"] is None
    # A parse error that cannot read an id says null.
    assert found[1]["id"] is None


def test_requests_before_initialize_and_after_shutdown_are_refused():
    data = (
        request(1, "textDocument/hover", {})
        + request(2, "initialize", {"capabilities": {}})
        + request(3, "initialize", {"capabilities": {}})
        + request(4, "shutdown")
        + request(5, "textDocument/hover", {})
        + notification("exit")
    )
    status, found, _ = run(data)
    by_id = answers(found)
    assert status == 0
    assert by_id[1]["error"]["code"] == -32002
    assert "capabilities" in by_id[2]["result"]
    assert by_id[3]["error"]["code"] == -32600
    assert by_id[5]["error"]["code"] == -32600


def test_random_bytes_never_end_the_server():
    generator = random.Random(26)
    for _ in range(20):
        noise = bytes(generator.randrange(256) for _ in range(generator.randrange(1, 400)))
        pieces = [noise, b"Content-Length: 5\r\n\r\n" + noise[:5], frame(noise)]
        generator.shuffle(pieces)
        # The noise may hold a header that swallows what follows it: end
        # with blank lines, then a request on its own.
        data = INITIALIZE + b"".join(pieces) + b"\r\n\r\n" + frame(b"{}") * 3 + request(42, "shutdown") + notification("exit")
        process = subprocess.run(
            [HANDSH, "--lsp"], input=data, capture_output=True, timeout=20, env=ENV
        )
        assert process.returncode in (0, 1), (noise, process.returncode, process.stderr)
        assert process.returncode < 128
        messages(process.stdout)


def test_a_change_that_a_newer_one_replaces_is_not_run():
    uri = "file:///nonexistent/coalesce.hand"
    data = INITIALIZE + notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "hand", "version": 1, "text": "del 1\n"}},
    )
    for version in range(2, 6):
        data += notification(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": "del %d\n" % version}],
            },
        )
    process = subprocess.Popen(
        [HANDSH, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV
    )
    # One write: all of it is waiting when the server reads.
    process.stdin.write(data)
    process.stdin.flush()
    # Then a request: its answer comes after the diagnostics of what came before.
    process.stdin.write(request(2, "shutdown"))
    process.stdin.flush()
    process.stdin.write(notification("exit"))
    process.stdin.close()
    stdout = read_to_end(process.stdout.fileno())
    assert process.wait(timeout=20) == 0
    published = [m["params"] for m in messages(stdout) if m.get("method") == "textDocument/publishDiagnostics"]
    assert [p["version"] for p in published] == [5]
    [problem] = published[0]["diagnostics"]
    assert "position 5" in problem["message"]


def test_changes_that_come_while_a_long_document_is_checked_abandon_its_check():
    """Changes sent one by one, 30 ms apart, to a document whose check takes
    far longer: each new change abandons the check of the one before, so
    the last version's diagnostics come, and (almost) none of the versions
    it replaced. A client that reads as it writes, as editors do; the
    test above sends every change in one write, so it cannot tell a server
    that abandons from one that checks every version."""
    import threading
    import time

    uri = "file:///nonexistent/newest-wins.hand"

    def text(version):
        return "add\nmv 1 1\n" * 20000 + "del %d\n" % (100 + version)

    process = subprocess.Popen(
        [HANDSH, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV
    )
    received = bytearray()
    lock = threading.Lock()

    def read_all():
        while True:
            chunk = read_some(process.stdout.fileno())
            if not chunk:
                return
            with lock:
                received.extend(chunk)

    def published():
        """The versions published so far, from the whole frames received."""
        with lock:
            rest = bytes(received)
        versions = []
        while True:
            header, separator, after = rest.partition(b"\r\n\r\n")
            if not separator:
                return versions
            length = int(header[len(b"Content-Length: ") :])
            if len(after) < length:
                return versions
            message = json.loads(after[:length])
            rest = after[length:]
            if message.get("method") == "textDocument/publishDiagnostics":
                versions.append(message["params"]["version"])

    reader = threading.Thread(target=read_all)
    reader.start()
    try:
        process.stdin.write(
            INITIALIZE
            + notification(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "hand", "version": 1, "text": text(1)}},
            )
        )
        process.stdin.flush()
        for version in range(2, 12):
            time.sleep(0.03)
            process.stdin.write(
                notification(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text(version)}],
                    },
                )
            )
            process.stdin.flush()
        deadline = time.monotonic() + 120
        while 11 not in published() and time.monotonic() < deadline:
            time.sleep(0.05)
        process.stdin.write(SHUTDOWN_EXIT)
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
        reader.join(timeout=60)
    versions = published()
    assert versions[-1:] == [11], versions
    # Each check takes about a second, so a version's check is abandoned
    # 30 ms after it starts; two may slip through on a machine that stalls
    # the client for that long.
    replaced = [version for version in versions if version < 11]
    assert len(replaced) <= 2, f"versions published although a newer one came: {versions}"


def test_did_close_clears_the_diagnostics_and_nothing_is_written(tmp_path):
    uri = (tmp_path / "x.hand").as_uri()
    opening = INITIALIZE + notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "hand", "version": 1, "text": "save out.hand\nadd ZZ\n"}},
    )
    process = subprocess.Popen(
        [HANDSH, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV, cwd=tmp_path
    )
    process.stdin.write(opening)
    process.stdin.flush()
    os.set_blocking(process.stdout.fileno(), True)
    first = b""
    while b"publishDiagnostics" not in first:
        chunk = read_some(process.stdout.fileno())
        assert chunk
        first += chunk
    process.stdin.write(notification("textDocument/didClose", {"textDocument": {"uri": uri}}) + SHUTDOWN_EXIT)
    process.stdin.close()
    rest = read_to_end(process.stdout.fileno())
    assert process.wait(timeout=20) == 0
    published = [m["params"] for m in messages(first + rest) if m.get("method") == "textDocument/publishDiagnostics"]
    assert len(published[0]["diagnostics"]) == 1
    assert published[-1]["diagnostics"] == []
    assert sorted(os.listdir(tmp_path)) == []


def test_lsp_takes_only_ascii():
    for arguments in (["--lsp", "--seed", "1"], ["--lsp", "x.hand"], ["--lsp", "-q"], ["--test", "--lsp", "."]):
        result = subprocess.run([HANDSH, *arguments], capture_output=True, text=True, env=ENV)
        assert result.returncode == 2, arguments
        assert result.stdout == ""
        assert "Try 'handsh --help'" in result.stderr
    assert run(INITIALIZE + SHUTDOWN_EXIT, "--ascii")[0] == 0


def test_bad_input_one_message_at_a_time_never_ends_the_server():
    """Each bad message alone, its answer awaited before the next: the
    server is still there for every one (a single batch could hide a
    server that ends on bad input and a later `exit` that sets the status)."""
    process = subprocess.Popen(
        [HANDSH, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV
    )
    reader = process.stdout.fileno()
    pending = b""

    def next_message():
        nonlocal pending
        while True:
            header, separator, rest = pending.partition(b"\r\n\r\n")
            if separator:
                length = int(header.split(b":")[1])
                if len(rest) >= length:
                    pending = rest[length:]
                    return json.loads(rest[:length])
            chunk = read_some(reader)
            assert chunk, "the server ended"
            pending += chunk

    bad = [
        (b"Content-Length: x\r\n\r\n", -32700),
        (frame(b"{not json"), -32700),
        (frame(b"[1]"), -32600),
        (request(3, "no/such/method"), -32601),
        (frame(b"[" * 5000), -32700),
    ]
    process.stdin.write(INITIALIZE)
    process.stdin.flush()
    assert "result" in next_message()
    for data, code in bad:
        process.stdin.write(data)
        process.stdin.flush()
        assert next_message()["error"]["code"] == code, data[:40]
        assert process.poll() is None
    process.stdin.write(SHUTDOWN_EXIT)
    process.stdin.close()
    assert next_message()["id"] == 99
    assert process.wait(timeout=20) == 0


def test_a_document_is_still_shown_when_shutdown_and_the_end_of_input_follow():
    """Changes before `shutdown` are shown before its answer when their run
    is done within a moment (`shutdown` waits for no long run: see
    test_load.py)."""
    uri = "file:///nonexistent/long.hand"
    text = "del 9\n" * 50
    data = INITIALIZE + notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "hand", "version": 7, "text": text}},
    )
    status, found, _ = run(data + SHUTDOWN_EXIT)
    assert status == 0
    published = [m["params"] for m in found if m.get("method") == "textDocument/publishDiagnostics"]
    assert [p["version"] for p in published] == [7]
    assert len(published[0]["diagnostics"]) == 50
    # The diagnostics come before the answer to shutdown.
    kinds = [m.get("method") or m.get("id") for m in found]
    assert kinds.index("textDocument/publishDiagnostics") < kinds.index(99)


def test_the_server_never_opens_a_file_for_writing(tmp_path):
    """Under strace: a document that saves (under a name that exists, and
    one that does not) and sources, opened and changed, makes the server
    open nothing for writing, and create, rename or remove nothing."""
    import shutil

    strace = shutil.which("strace")
    assert strace, "this test needs strace: apt install strace (scripts/bootstrap does)"
    (tmp_path / "deal.hand").write_text("add\n")
    (tmp_path / "kept.hand").write_text("old\n")
    uri = (tmp_path / "main.hand").as_uri()
    text = "source deal.hand\nsave kept.hand\nsave new.hand\nsource new.hand\n"
    data = INITIALIZE + notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "hand", "version": 1, "text": text}},
    )
    data += notification(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text + "save /tmp/x\n"}]},
    )
    log = tmp_path.parent / (tmp_path.name + ".strace")
    process = subprocess.Popen(
        [strace, "-f", "-qq", "-o", str(log), "-e", "trace=%file", HANDSH, "--lsp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV, cwd=tmp_path,
    )
    process.stdin.write(data)
    process.stdin.flush()
    stdout = b""
    while stdout.count(b"publishDiagnostics") < 1:
        chunk = read_some(process.stdout.fileno())
        assert chunk
        stdout += chunk
    process.stdin.write(SHUTDOWN_EXIT)
    process.stdin.close()
    stdout += read_to_end(process.stdout.fileno())
    assert process.wait(timeout=30) == 0
    calls = log.read_text().splitlines()
    log.unlink()
    assert any("deal.hand" in call for call in calls), calls  # it did read
    import re

    changing = {"rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat",
                "creat", "link", "linkat", "symlink", "symlinkat", "truncate", "chmod",
                "fchmodat", "rmdir"}
    writes = []
    for call in calls:
        name = re.match(r"^\d+\s+(\w+)\(", call)
        if name and name.group(1) in changing:
            writes.append(call)
        elif any(flag in call for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")):
            writes.append(call)
    assert writes == [], writes
    assert sorted(os.listdir(tmp_path)) == ["deal.hand", "kept.hand"]
    assert (tmp_path / "kept.hand").read_text() == "old\n"


def test_a_read_of_a_server_that_says_nothing_fails_within_its_own_timeout():
    """Every read of the server's output in these tests has its own
    timeout: a server that stops answering fails the test that waited, at
    once, not at the suite's limit (here a process that writes nothing)."""
    import time

    silent = subprocess.Popen(["sleep", "30"], stdout=subprocess.PIPE)
    try:
        started = time.monotonic()
        try:
            read_some(silent.stdout.fileno(), timeout=0.3)
        except AssertionError as error:
            assert "within 0.3 s" in str(error)
        else:
            raise AssertionError("the read did not time out")
        assert time.monotonic() - started < 2
    finally:
        silent.kill()
        silent.wait()
