"""What the server answers, exactly as a user expects it (handsh(1),
EDITORS): file names completed as the prompt completes them, hovers on a
position about the hand just before the command, absolute and normalised
URIs, and every line `handsh FILE` refuses shown in a plain script."""

import os

from test_hostile import INITIALIZE, Server, did_open, hover, request, server  # noqa: F401


def position_request(id, method, uri, line, character):
    return request(
        id,
        method,
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
    )


def completion_edits(server, uri, text, line, character):
    server.send(did_open(uri, text))
    server.diagnostics(uri)
    server.send(position_request(2, "textDocument/completion", uri, line, character))
    items = server.answer(2)["result"]["items"]
    return {item["label"]: item["textEdit"]["newText"] for item in items}


def test_completion_quotes_names_with_spaces_and_closes_an_opened_quote(server, tmp_path):
    (tmp_path / "sp ace.hand").write_text("add\n")
    (tmp_path / "semi;colon.hand").write_text("add\n")
    (tmp_path / "spot.hand").write_text("add\n")
    uri = (tmp_path / "doc.hand").as_uri()
    edits = completion_edits(server, uri, "save sp\n", 0, 7)
    assert edits == {"sp ace.hand": '"sp ace.hand"', "spot.hand": "spot.hand"}
    server.send(did_open((tmp_path / "q.hand").as_uri(), 'source "s\n'))
    server.diagnostics((tmp_path / "q.hand").as_uri())
    server.send(position_request(3, "textDocument/completion", (tmp_path / "q.hand").as_uri(), 0, 9))
    items = server.answer(3)["result"]["items"]
    assert {item["label"]: item["textEdit"]["newText"] for item in items} == {
        "semi;colon.hand": 'semi;colon.hand"',
        "sp ace.hand": 'sp ace.hand"',
        "spot.hand": 'spot.hand"',
    }


def hover_text(server, uri, line, character, id):
    server.send(hover(id, uri, line, character))
    return server.answer(id)["result"]["contents"]["value"]


def test_hover_on_a_position_speaks_of_the_hand_before_the_command(server, tmp_path):
    uri = (tmp_path / "h.hand").as_uri()
    text = "add 7h; add 8h; del 1; del 1\nadd 9h; del 2\n"
    server.send(did_open(uri, text))
    server.diagnostics(uri)
    first = text.index("del 1") + 4
    second = text.index("del 1", first) + 4
    assert hover_text(server, uri, 0, first, 2).startswith("position 1: 8♥, eight of hearts")
    assert hover_text(server, uri, 0, second, 3).startswith("position 1: 7♥, seven of hearts")
    # One card left: the words of the command's own error.
    assert hover_text(server, uri, 1, 12, 4).startswith("no card at position 2 (hand has 1 card)")


def test_uris_are_absolute_and_normalised(server, tmp_path):
    (tmp_path / "inc.hand").write_text("add\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    # A document that is not a file reads from the server's working folder.
    server.send(did_open("untitled:Untitled-1", "source inc.hand\n"))
    assert server.diagnostics("untitled:Untitled-1") == []
    server.send(position_request(2, "textDocument/definition", "untitled:Untitled-1", 0, 9))
    assert server.answer(2)["result"]["uri"] == (tmp_path / "inc.hand").as_uri()
    # `..` segments are resolved.
    doc = (sub / "d.hand").as_uri()
    server.send(did_open(doc, "source ../../inc.hand\n"))
    assert server.diagnostics(doc) == []
    server.send(position_request(3, "textDocument/definition", doc, 0, 9))
    assert server.answer(3)["result"]["uri"] == (tmp_path / "inc.hand").as_uri()
    # `file:/x` (one slash) is a file: its source reads next to it.
    one = "file:" + str(sub / "e.hand")
    server.send(did_open(one, "source ../../inc.hand\n"))
    assert server.diagnostics(one) == []


def test_a_comment_line_over_the_limit_is_a_diagnostic_in_a_plain_script(server, tmp_path):
    uri = (tmp_path / "long.hand").as_uri()
    server.send(did_open(uri, "add\n# " + "a" * (1 << 20) + "\nadd\n"))
    diagnostics = server.diagnostics(uri)
    assert [(d["range"]["start"]["line"], d["message"]) for d in diagnostics] == [
        (1, "line is longer than 1048576 bytes")
    ]
