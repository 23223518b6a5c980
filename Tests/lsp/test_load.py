"""Bounded under any load (handsh(1), EDITORS): a document that sources a
file that sources itself a thousand times over, storms of changes, and
hundreds of open documents leave every request answered at once, at most
as many runs as cores, and `shutdown`, `exit` and the end of stdin
honoured. Threads are counted from /proc/PID/task. The storms here are
reduced; scripts/bench-lsp runs them whole."""

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import ENV, HANDSH
from test_hostile import Server, did_open, hover, peak_kb
from wire import INITIALIZE, notification, request

CORES = os.cpu_count() or 1
# A request is answered within 100 ms; the machine that runs the tests is
# shared and this is a debug build: the bound here is looser, and still
# one that the server which waited for a run never met (it never answered).
PROMPT = 1.0


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def make_bomb(folder, levels=4, count=1000):
    """bomb/f1.hand .. fN.hand, each `source` of the next 1,000 times on one
    line; the last one empty."""
    bomb = folder / "bomb"
    bomb.mkdir()
    for level in range(1, levels + 1):
        (bomb / f"f{level}.hand").write_text(f"source bomb/f{level + 1}.hand; " * count + "\n")
    (bomb / f"f{levels + 1}.hand").write_text("")
    return "source bomb/f1.hand\n"


def change(uri, version, text):
    return notification(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )


def timed(server, id, data):
    """Sends `data` (a request with `id`); how long its answer took."""
    sent = time.monotonic()
    server.send(data)
    came, answer = server.wait_for(lambda m: m.get("id") == id and "method" not in m, timeout=30)
    assert "result" in answer, answer
    return came - sent, answer


@pytest.fixture
def loaded(tmp_path):
    started = Server(cwd=tmp_path)
    started.send(INITIALIZE)
    assert "capabilities" in started.answer(1)["result"]
    yield started
    started.kill()


def test_the_bomb_leaves_every_request_answered_and_the_server_ends(loaded, tmp_path):
    calm = (tmp_path / "calm.hand").as_uri()
    loaded.send(did_open(calm, "add 7h\n"))
    loaded.diagnostics(calm)
    uri = (tmp_path / "doc.hand").as_uri()
    loaded.send(did_open(uri, make_bomb(tmp_path)))
    time.sleep(0.3)
    # Hover on another document, and on the bomb itself (from its text alone).
    took, answer = timed(loaded, 2, hover(2, calm, 0, 5))
    assert took < PROMPT, took
    assert "seven of hearts" in answer["result"]["contents"]["value"]
    took, answer = timed(loaded, 3, hover(3, uri, 0, 1))
    assert took < PROMPT, took
    assert "source" in answer["result"]["contents"]["value"]
    # The change that removes the line is applied: its diagnostics come.
    loaded.send(change(uri, 2, "add 8h\n"))
    loaded.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri
        and m["params"].get("version") == 2,
        timeout=10,
    )
    # Again, and shutdown while it runs: answered at once; exit ends it.
    loaded.send(change(uri, 3, make_bomb_text()))
    time.sleep(0.2)
    took, _ = timed(loaded, 4, request(4, "shutdown"))
    assert took < PROMPT, took
    loaded.send(notification("exit"))
    assert loaded.process.wait(timeout=PROMPT) == 0


def make_bomb_text():
    return "source bomb/f1.hand\n"


def test_the_end_of_stdin_ends_the_server_while_the_bomb_runs(loaded, tmp_path):
    uri = (tmp_path / "doc.hand").as_uri()
    loaded.send(did_open(uri, make_bomb(tmp_path)))
    time.sleep(0.3)
    assert threads(loaded.process.pid) <= CORES + 1
    loaded.process.stdin.close()
    assert loaded.process.wait(timeout=PROMPT) == 1


def sample_threads(pid, stop, peaks):
    while not stop.is_set():
        try:
            peaks.append(threads(pid))
        except FileNotFoundError:
            return
        time.sleep(0.005)


def test_a_storm_of_changes_to_a_large_document_runs_at_most_one_run_per_core(loaded, tmp_path):
    """Every change replaces the text of the last: the runs it replaced are
    abandoned, the threads stay within the pool, and the final diagnostics
    come soon after the storm (reduced: 200 changes at 200 a second)."""
    uri = (tmp_path / "big.hand").as_uri()
    body = "add; del 1\n" * 10_000
    loaded.send(did_open(uri, body))
    stop, peaks = threading.Event(), []
    sampler = threading.Thread(target=sample_threads, args=(loaded.process.pid, stop, peaks))
    sampler.start()
    changes = 200
    try:
        for version in range(2, changes + 2):
            loaded.send(change(uri, version, body + f"del {version}\n"))
            time.sleep(0.005)
        ended = time.monotonic()
        came, message = loaded.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"].get("version") == changes + 1,
            timeout=60,
        )
    finally:
        stop.set()
        sampler.join()
    assert came - ended < 10, came - ended
    assert max(peaks) <= CORES + 1, max(peaks)
    assert message["params"]["diagnostics"][-1]["message"].startswith("no card at position")
    # Nothing left running: the process is idle once the last one is shown.
    time.sleep(0.3)
    before = cpu_seconds(loaded.process.pid)
    time.sleep(1)
    assert cpu_seconds(loaded.process.pid) - before < 0.2


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_run_inside_one_source_is_abandoned(loaded, tmp_path):
    """A run that spends its time inside one `source`d file stops when its
    document changes: six edits of a document sourcing a large file leave
    at most one run per core and bounded memory."""
    (tmp_path / "large.hand").write_text("add; del 1\n" * 400_000)
    uri = (tmp_path / "doc.hand").as_uri()
    loaded.send(did_open(uri, "source large.hand\n"))
    stop, peaks = threading.Event(), []
    sampler = threading.Thread(target=sample_threads, args=(loaded.process.pid, stop, peaks))
    sampler.start()
    try:
        for version in range(2, 8):
            time.sleep(0.3)
            loaded.send(change(uri, version, "source large.hand\n" + "#\n" * version))
        # The last one, then a change that sources nothing.
        time.sleep(0.3)
        loaded.send(change(uri, 8, "add 7h\n"))
        loaded.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"].get("version") == 8,
            timeout=10,
        )
    finally:
        stop.set()
        sampler.join()
    assert max(peaks) <= CORES + 1, max(peaks)
    assert peak_kb(loaded.process.pid) < 400 * 1024


def test_500_open_documents_leave_a_request_answered_at_once(loaded, tmp_path):
    """500 documents of 500 lines (reduced from bench-lsp's whole run in
    the count of hovers): threads within the pool, hovers answered."""
    body = "add; del 1\n" * 499 + "add 7h\n"
    for n in range(500):
        loaded.send(did_open((tmp_path / f"d{n}.hand").as_uri(), body))
    other = (tmp_path / "other.hand").as_uri()
    loaded.send(did_open(other, "add 7h\n"))
    # Once the 500 are read (parsing their JSON is not what is measured),
    # while their runs go on.
    timed(loaded, 1000, hover(1000, other, 0, 5))
    peak = 0
    times = []
    for id in range(2, 42):
        took, _ = timed(loaded, id, hover(id, other, 0, 5))
        times.append(took)
        peak = max(peak, threads(loaded.process.pid))
        time.sleep(0.02)
    print("hover times in order", [round(t, 3) for t in times])
    times.sort()
    assert peak <= CORES + 1, peak
    assert times[len(times) // 2] < 0.1, times
    assert times[int(len(times) * 0.95)] < PROMPT, times
