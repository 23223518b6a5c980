"""What the server answers, exactly as a user expects it (handsh(1),
EDITORS): file names completed as the prompt completes them, hovers on a
position about the hand just before the command, absolute and normalised
URIs, and every line `handsh FILE` refuses shown in a plain script."""

import os
import subprocess

from conftest import ENV, HANDSH
from test_hostile import TIMEOUT, INITIALIZE, Server, did_open, hover, request, server  # noqa: F401


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


def code_actions(server, id, uri, start, end, only=None):
    context = {"diagnostics": []}
    if only is not None:
        context["only"] = only
    server.send(
        request(
            id,
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {
                    "start": {"line": start[0], "character": start[1]},
                    "end": {"line": end[0], "character": end[1]},
                },
                "context": context,
            },
        )
    )
    return server.answer(id)["result"]


BLOCKS = "add\n#> x\nadd\n#> y\nshow\n"


def test_the_action_under_the_cursor_is_that_lines_block_and_preferred(server, tmp_path):
    uri = (tmp_path / "b.hand").as_uri()
    server.send(did_open(uri, BLOCKS))
    diagnostics = server.diagnostics(uri)
    assert [d["range"]["start"]["line"] for d in diagnostics] == [0, 2, 4]
    # Column 0 of the line after the first block: only the second block.
    actions = code_actions(server, 2, uri, (2, 0), (2, 0))
    titles = [a["title"] for a in actions]
    assert titles == ["Accept the actual output (line 3)", "Accept every block in this file"]
    assert actions[0]["isPreferred"] is True
    assert actions[0]["diagnostics"] == [diagnostics[1]]
    assert "isPreferred" not in actions[1]
    # A range that ends at column 0 of a line does not touch that line.
    actions = code_actions(server, 3, uri, (0, 0), (2, 0))
    assert [a["title"] for a in actions][:-1] == ["Accept the actual output (line 1)"]
    # A cursor on a stale `#>` line gets its block's action.
    actions = code_actions(server, 4, uri, (3, 2), (3, 2))
    assert actions[0]["title"] == "Accept the actual output (line 3)"


def test_a_plain_script_gets_one_source_action_for_the_whole_file(server, tmp_path):
    uri = (tmp_path / "plain.hand").as_uri()
    text = "add\nadd\ndel 1\n"
    server.send(did_open(uri, text))
    server.diagnostics(uri)
    for id, line in ((2, 0), (3, 1)):
        actions = code_actions(server, id, uri, (line, 0), (line, 1))
        assert [(a["title"], a["kind"]) for a in actions] == [
            ("Add the output as expectations (make this a golden test)", "source")
        ]
    edit = actions[0]["edit"]["changes"][uri]
    assert len(edit) == 1
    new = apply_edit(text, edit[0])
    assert new == "add\n#> 8♠\nadd\n#> J♣ 8♠\ndel 1\n#> 8♠\n"
    # Asked for quick fixes only, there is none.
    assert code_actions(server, 4, uri, (0, 0), (0, 1), only=["quickfix"]) == []
    (tmp_path / "plain.hand").write_text(new)
    result = subprocess.run([HANDSH, "--test", "plain.hand"], cwd=tmp_path, capture_output=True, env=ENV)
    assert result.stdout == b"1 passed, 0 failed\n"


def apply_edit(text, edit):
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    start = offsets[edit["range"]["start"]["line"]] + edit["range"]["start"]["character"]
    end = offsets[edit["range"]["end"]["line"]] + edit["range"]["end"]["character"]
    return text[:start] + edit["newText"] + text[end:]


def test_completion_filter_text_matches_what_was_typed(server, tmp_path):
    uri = (tmp_path / "c.hand").as_uri()
    for id, typed, wanted in (
        (2, "k", {"K♥", "K♦", "K♣", "K♠"}),
        (3, "kh", {"K♥"}),
        (4, "qh", {"Q♥"}),
        (5, "t", {"10♥", "10♦", "10♣", "10♠"}),
        (6, "K", {"K♥", "K♦", "K♣", "K♠"}),
    ):
        text = f"add {typed}\n"
        server.send(did_open(uri, text))
        server.diagnostics(uri)
        server.send(request(id, "textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": len(text) - 1}}))
        items = server.answer(id)["result"]["items"]
        assert {item["detail"].split()[0] for item in items} == wanted
        # What a client that filters again keeps: items whose filterText
        # (vim-lsp), label (eglot) or inserted text (Neovim 0.7.2) starts
        # with what was typed, in the case typed.
        for field in ("filterText", "label"):
            kept = {i["detail"].split()[0] for i in items if i[field].startswith(typed)}
            assert kept == wanted, [item[field] for item in items]
        kept = {i["detail"].split()[0] for i in items if i["textEdit"]["newText"].startswith(typed)}
        assert kept == wanted
        # Accepted, it is a spelling the parser reads: the card it names.
        for item in items:
            check = subprocess.run(
                [HANDSH, "-c", "add " + item["textEdit"]["newText"]],
                capture_output=True, timeout=TIMEOUT, env=ENV,
            )
            assert check.stdout.decode().split() == [item["detail"].split()[0]], check
