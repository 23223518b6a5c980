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
