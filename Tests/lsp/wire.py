"""LSP messages as bytes on the server's pipes: the framing, requests and
notifications that the byte-for-byte tests write."""

import json


def frame(body):
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(id, method, params=None):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def notification(method, params=None):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


INITIALIZE = request(1, "initialize", {"capabilities": {}}) + notification("initialized", {})


# Every read of the server's output has its own timeout: a server that
# stops answering fails the test that waited, at once, never the suite's
# own limit.
READ_TIMEOUT = 20


def read_some(fd, timeout=READ_TIMEOUT):
    """What the server wrote next on `fd` (b"" at its end), within `timeout`."""
    import os
    import select

    ready, _, _ = select.select([fd], [], [], timeout)
    assert ready, f"the server wrote nothing within {timeout} s"
    return os.read(fd, 65536)


def read_to_end(fd, timeout=READ_TIMEOUT):
    """Everything the server writes on `fd` until it closes it, each read
    within `timeout`."""
    out = b""
    while True:
        chunk = read_some(fd, timeout)
        if not chunk:
            return out
        out += chunk
