"""The server's document features (handsh(1), EDITORS), driven by
pytest-lsp and byte for byte: definition as `source` reads (through links,
then `..`; no location for a missing file), documents run again when a file
they `source` is saved, replies of bounded size, code actions from the
finished run, folding ranges, symbols, links, commands, semantic tokens and
formatting."""

import asyncio
import json
import os
import time

import pytest
from lsprotocol import types as T
from pytest_lsp import LanguageClient

from test_hostile import Server, did_open
from test_load import PROMPT, loaded  # noqa: F401 (a fixture)
from test_lsp import DIAGNOSTICS, opened, uri
from wire import notification, request

WAIT = 10


async def definition(client, path, line, character):
    return await asyncio.wait_for(
        client.text_document_definition_async(
            T.DefinitionParams(
                text_document=T.TextDocumentIdentifier(uri=uri(path)),
                position=T.Position(line=line, character=character),
            )
        ),
        WAIT,
    )


@pytest.mark.asyncio
async def test_definition_resolves_links_then_dotdot_as_source_reads(
    client: LanguageClient, tmp_path
):
    # lnk -> deep/inner: lnk/../x.hand is deep/x.hand, not x.hand beside it.
    (tmp_path / "deep" / "inner").mkdir(parents=True)
    (tmp_path / "lnk").symlink_to(tmp_path / "deep" / "inner")
    (tmp_path / "deep" / "x.hand").write_text("add 7h\n")
    (tmp_path / "x.hand").write_text("add 8h\n")
    path = tmp_path / "main.hand"
    params = await opened(client, path, "source lnk/../x.hand\nsource missing.hand\n")
    # The run read deep/x.hand: no problem.
    assert list(params.diagnostics)[:1] == [] or "missing" in params.diagnostics[0].message
    found = await definition(client, path, 0, 9)
    assert found.uri == uri(tmp_path / "deep" / "x.hand")
    # A file that does not exist: no location, never an empty buffer.
    assert await definition(client, path, 1, 9) is None
    # A folder is not a file either.
    (tmp_path / "folder.hand").mkdir()
    await opened(client, tmp_path / "b.hand", "source folder.hand\n")
    assert await definition(client, tmp_path / "b.hand", 0, 9) is None


@pytest.mark.asyncio
async def test_a_document_runs_again_when_a_file_it_sources_is_saved(
    client: LanguageClient, tmp_path
):
    deal = tmp_path / "deal.hand"
    deal.write_text("del 1\n")
    path = tmp_path / "main.hand"
    params = await opened(client, path, "source deal.hand\nshow\n")
    assert [d.message for d in params.diagnostics] == [
        "deal.hand:1:1: error: no card at position 1 (hand has 0 cards)"
    ]
    # Fixed and saved in the editor: the document that read it runs again.
    deal.write_text("add\n")
    waiting = client.wait_for_notification(DIAGNOSTICS)
    client.text_document_did_save(
        T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri(deal)))
    )
    params = await asyncio.wait_for(waiting, WAIT)
    assert params.uri == uri(path)
    assert list(params.diagnostics) == []
    # Broken again on disk, as a watcher reports it.
    deal.write_text("del 9\n")
    waiting = client.wait_for_notification(DIAGNOSTICS)
    client.workspace_did_change_watched_files(
        T.DidChangeWatchedFilesParams(
            changes=[T.FileEvent(uri=uri(deal), type=T.FileChangeType.Changed)]
        )
    )
    params = await asyncio.wait_for(waiting, WAIT)
    assert params.uri == uri(path)
    assert len(params.diagnostics) == 1


def test_replies_are_bounded(loaded, tmp_path):
    """A block printing some 25 MB: one diagnostic of at most 64 KiB, and a
    code-action reply under 64 MiB."""
    uri = (tmp_path / "big.hand").as_uri()
    text = "add; undo; " * 50_000 + "\n" + "history\n#> x\n" * 10
    loaded.send(did_open(uri, text))
    diagnostics = loaded.diagnostics(uri, timeout=120)
    assert 0 < len(diagnostics) <= 11
    for diagnostic in diagnostics:
        assert len(diagnostic["message"].encode()) <= 64 * 1024
    assert diagnostics[0]["message"].endswith("more lines]")
    loaded.send(
        request(
            2,
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}},
                "context": {"diagnostics": []},
            },
        )
    )
    answer = loaded.answer(2, timeout=60)
    assert len(json.dumps(answer, ensure_ascii=False).encode()) < 64 << 20


def test_a_document_gets_at_most_10000_diagnostics(loaded, tmp_path):
    uri = (tmp_path / "many.hand").as_uri()
    loaded.send(did_open(uri, "del 1\n" * 10_050))
    diagnostics = loaded.diagnostics(uri, timeout=60)
    assert len(diagnostics) == 10_001
    assert diagnostics[-1]["message"] == "[50 more problems not shown]"


def test_the_source_action_comes_from_the_finished_run(loaded, tmp_path):
    """The run of a short document that sources a slow file is done: its
    source action comes at once, and a hover on another document is not
    held up behind it."""
    # Slow, and printing nothing (--quiet): what the action costs is not
    # the size of its edit.
    (tmp_path / "slow.hand").write_text("add; undo\n" * 150_000)
    uri = (tmp_path / "doc.hand").as_uri()
    started = time.monotonic()
    loaded.send(did_open(uri, "#!/usr/bin/env -S handsh --quiet\nadd\nsource slow.hand\nshow\n"))
    loaded.diagnostics(uri, timeout=60)
    run = time.monotonic() - started
    sent = time.monotonic()
    loaded.send(
        request(
            2,
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": [], "only": ["source"]},
            },
        )
    )
    [action] = loaded.answer(2, timeout=60)["result"]
    took = time.monotonic() - sent
    assert action["kind"] == "source"
    assert took < min(PROMPT, run / 2), (took, run)


OUTLINED = (
    "#!/usr/bin/env -S handsh --seed 42\n"
    "# a comment\n"
    "# of two lines\n"
    "add; add\n"
    "#> 7♥\n"
    "#> 3♣ 7♥\n"
    "new 5\n"
    "add\n"
    "#> 9♠\n"
    "save out.hand; source deal.hand\n"
)


@pytest.mark.asyncio
async def test_folding_ranges_fold_blocks_and_comment_runs(client: LanguageClient, tmp_path):
    path = tmp_path / "outlined.hand"
    await opened(client, path, OUTLINED)
    assert client.init_result.capabilities.folding_range_provider
    ranges = await asyncio.wait_for(
        client.text_document_folding_range_async(
            T.FoldingRangeParams(text_document=T.TextDocumentIdentifier(uri=uri(path)))
        ),
        WAIT,
    )
    found = [(r.start_line, r.end_line, r.kind) for r in ranges]
    assert found == [(0, 2, "comment"), (3, 5, None), (7, 8, None)], found


@pytest.mark.asyncio
async def test_document_symbols_are_the_games_and_their_lines(client: LanguageClient, tmp_path):
    path = tmp_path / "outlined.hand"
    await opened(client, path, OUTLINED)
    assert client.init_result.capabilities.document_symbol_provider
    symbols = await asyncio.wait_for(
        client.text_document_document_symbol_async(
            T.DocumentSymbolParams(text_document=T.TextDocumentIdentifier(uri=uri(path)))
        ),
        WAIT,
    )
    assert [s.name for s in symbols] == ["game 1: from the start", "game 2: new 5"]
    assert [c.name for c in symbols[0].children] == ["add; add"]
    assert [c.name for c in symbols[1].children] == [
        "new 5", "add", "save out.hand; source deal.hand"
    ]
    # The differing blocks (9♠ is not what seed 5 deals; `new 5` and the
    # failed source print what no block expects) are marked.
    assert symbols[1].detail == "3 blocks differ"
    assert [c.detail for c in symbols[1].children] == ["output differs"] * 3
    assert symbols[0].detail is None


@pytest.mark.asyncio
async def test_document_links_on_source_and_save(client: LanguageClient, tmp_path):
    (tmp_path / "deal.hand").write_text("add\n")
    path = tmp_path / "outlined.hand"
    await opened(client, path, OUTLINED)
    links = await asyncio.wait_for(
        client.text_document_document_link_async(
            T.DocumentLinkParams(text_document=T.TextDocumentIdentifier(uri=uri(path)))
        ),
        WAIT,
    )
    found = [
        (l.range.start.line, l.range.start.character, l.range.end.character, l.target)
        for l in links
    ]
    assert found == [
        (9, 5, 13, uri(tmp_path / "out.hand")),
        (9, 22, 31, uri(tmp_path / "deal.hand")),
    ]


@pytest.mark.asyncio
async def test_the_server_asks_for_saves_and_documents_commands(client: LanguageClient, tmp_path):
    sync = client.init_result.capabilities.text_document_sync
    assert sync.save is not None
    assert '"' in client.init_result.capabilities.completion_provider.trigger_characters
    path = tmp_path / "c.hand"
    await opened(client, path, "de\n")
    result = await asyncio.wait_for(
        client.text_document_completion_async(
            T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri=uri(path)),
                position=T.Position(line=0, character=2),
            )
        ),
        WAIT,
    )
    items = {item.label: item for item in result.items}
    assert set(items) == {"deck", "del"}
    assert items["del"].kind == T.CompletionItemKind.Keyword
    assert "del" in items["del"].documentation.value


def decode(data, legend, text):
    """(line, word, type, modifiers) of each token."""
    lines = text.split("\n")
    found, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i : i + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        modifiers = [m for n, m in enumerate(legend.token_modifiers) if bits & (1 << n)]
        found.append((line, lines[line][start : start + length], legend.token_types[kind], modifiers))
    return found


@pytest.mark.asyncio
async def test_semantic_tokens_colour_a_file_with_predefined_types(
    client: LanguageClient, tmp_path
):
    text = "# a comment\nadd K♥ 7s; del 1\n#> x\nsave \"a b.hand\"\nadd ZZ; nope 3\n"
    path = tmp_path / "t.hand"
    await opened(client, path, text)
    provider = client.init_result.capabilities.semantic_tokens_provider
    legend = provider.legend
    tokens = await asyncio.wait_for(
        client.text_document_semantic_tokens_full_async(
            T.SemanticTokensParams(text_document=T.TextDocumentIdentifier(uri=uri(path)))
        ),
        WAIT,
    )
    found = decode(tokens.data, legend, text)
    assert found == [
        (0, "# a comment", "comment", []),
        (1, "add", "keyword", []),
        (1, "K♥", "enumMember", ["static"]),
        (1, "7s", "enumMember", []),
        (1, "del", "keyword", []),
        (1, "1", "number", []),
        (2, "#> x", "comment", ["documentation"]),
        (3, "save", "keyword", []),
        (3, '"a b.hand"', "string", []),
        (4, "add", "keyword", []),
    ], found
    # Only LSP's predefined types: editors colour them unconfigured.
    predefined = {"namespace", "type", "class", "enum", "interface", "struct",
                  "typeParameter", "parameter", "variable", "property", "enumMember",
                  "event", "function", "method", "macro", "keyword", "modifier", "comment",
                  "string", "number", "regexp", "operator", "decorator"}
    assert set(legend.token_types) <= predefined


MESSY = (
    "#!/usr/bin/env -S handsh --seed 42\n"
    "add   7h ;add    \n"
    "#> 7♥\n"
    "#> 8♠ 7♥\n"
    "#  a   comment   \n"
    "  del 1;show   # kept  as is  \n"
    "#> 7♥\n"
    "#> 1  7♥\n"
    "add ZZ   \n"
    "mv\t1  1\n"
)


@pytest.mark.asyncio
async def test_formatting_makes_the_canonical_form_and_the_test_report_stays(
    client: LanguageClient, tmp_path
):
    path = tmp_path / "messy.hand"
    path.write_text(MESSY)
    await opened(client, path, MESSY)
    assert client.init_result.capabilities.document_formatting_provider
    edits = await asyncio.wait_for(
        client.text_document_formatting_async(
            T.DocumentFormattingParams(
                text_document=T.TextDocumentIdentifier(uri=uri(path)),
                options=T.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        ),
        WAIT,
    )
    lines = MESSY.split("\n")
    for edit in sorted(edits, key=lambda e: e.range.start.line, reverse=True):
        assert edit.range.start.line == edit.range.end.line
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = (
            line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
        )
    formatted = "\n".join(lines)
    assert formatted.split("\n")[1] == "add 7h; add"
    assert formatted.split("\n")[4] == "#  a   comment   "
    assert formatted.split("\n")[5] == "del 1; show # kept  as is  "
    # A line that does not parse is left as it is.
    assert formatted.split("\n")[8] == "add ZZ   "
    assert formatted.split("\n")[9] == "mv 1 1"
    # handsh --test reports the same for both.
    import subprocess

    from conftest import ENV, HANDSH

    def report(text):
        (tmp_path / "t.hand").write_text(text)
        result = subprocess.run(
            [HANDSH, "--test", "t.hand"], cwd=tmp_path, capture_output=True, timeout=WAIT, env=ENV
        )
        # The expected lines added and removed, and the summary: the
        # diff's context lines are the file's own text.
        shown = [
            line for line in result.stdout.decode().splitlines()
            if line.startswith(("+#", "-#", "@@")) or line.endswith(("passed", "failed", "differs"))
        ]
        return result.returncode, shown, result.stderr

    assert report(formatted) == report(MESSY)
    assert report(MESSY)[1][-1] == "0 passed, 1 failed"
