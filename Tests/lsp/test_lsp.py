"""`handsh --lsp` driven by pytest-lsp, as an editor drives it (handsh(1),
EDITORS): diagnostics with the document's version, inlay hints, hovers,
completions, code actions whose edits make `handsh --test` pass, and go to
definition on `source`."""

import asyncio
import subprocess

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import HANDSH

T = types
DIAGNOSTICS = "textDocument/publishDiagnostics"


def uri(path):
    return path.as_uri()


async def opened(client, path, text, version=1):
    """Opens `text` as the document `path`; its first diagnostics."""
    waiting = client.wait_for_notification(DIAGNOSTICS)
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(
            text_document=T.TextDocumentItem(
                uri=uri(path), language_id="hand", version=version, text=text
            )
        )
    )
    params = await asyncio.wait_for(waiting, 10)
    assert params.uri == uri(path)
    return params


async def changed(client, path, version, changes):
    waiting = client.wait_for_notification(DIAGNOSTICS)
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
            content_changes=changes,
        )
    )
    return await asyncio.wait_for(waiting, 10)


def whole(text):
    return [T.TextDocumentContentChangeWholeDocument(text=text)]


def span(diagnostic):
    r = diagnostic.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


PASSING = "#!/usr/bin/env -S handsh --seed 42\nadd; add\n#> 7♥\n#> 3♣ 7♥\n"


@pytest.mark.asyncio
async def test_initialize_announces_utf16_and_the_features(client: LanguageClient):
    capabilities = client.init_result.capabilities
    assert capabilities.position_encoding == "utf-16"
    assert capabilities.hover_provider and capabilities.definition_provider
    assert capabilities.inlay_hint_provider and capabilities.code_action_provider
    assert capabilities.completion_provider is not None


@pytest.mark.asyncio
async def test_passing_file_has_no_problems_and_a_failing_one_shows_the_actual_block(
    client: LanguageClient, tmp_path
):
    path = tmp_path / "game.hand"
    params = await opened(client, path, PASSING, version=3)
    assert params.version == 3
    assert list(params.diagnostics) == []

    text = PASSING.replace("#> 3♣ 7♥", "#> 3♣ 8♥")
    params = await changed(client, path, 4, whole(text))
    assert params.version == 4
    [problem] = params.diagnostics
    assert problem.severity == T.DiagnosticSeverity.Error
    assert span(problem) == (1, 0, 1, 8)
    assert "#> 7♥\n#> 3♣ 7♥" in problem.message

    # Fixed again: an empty list, with the newest version.
    params = await changed(client, path, 5, whole(PASSING))
    assert (params.version, list(params.diagnostics)) == (5, [])


@pytest.mark.asyncio
async def test_malformed_markers_at_the_columns_of_handsh_test(client: LanguageClient, tmp_path):
    path = tmp_path / "bad.hand"
    text = "add\n#>x\n  #> 7♥\n"
    params = await opened(client, path, text)
    assert [(span(d)[:2], d.severity) for d in params.diagnostics] == [
        ((1, 2), T.DiagnosticSeverity.Error),
        ((2, 2), T.DiagnosticSeverity.Error),
    ]
    assert "must be followed by a space" in params.diagnostics[0].message
    assert "must start the line" in params.diagnostics[1].message
    # What --test says, at the same columns (1-based there).
    (tmp_path / "bad.hand").write_text(text)
    run = subprocess.run([HANDSH, "--test", "bad.hand"], cwd=tmp_path, capture_output=True, text=True)
    assert "bad.hand:2:3: error" in run.stderr and "bad.hand:3:3: error" in run.stderr


@pytest.mark.asyncio
async def test_script_without_expectations_shows_syntax_errors_and_failed_commands(
    client: LanguageClient, tmp_path
):
    path = tmp_path / "script.hand"
    params = await opened(client, path, "add\nadd ZZ\ndel 9\n")
    got = sorted((span(d), d.severity, d.message) for d in params.diagnostics)
    assert got[0][0] == (1, 4, 1, 6) and got[0][1] == T.DiagnosticSeverity.Error
    assert got[1][0] == (2, 0, 2, 5) and got[1][1] == T.DiagnosticSeverity.Warning
    assert got[1][2] == "no card at position 9 (hand has 1 card)"

    # With an expectation, an error that its block expects is a pass.
    text = "add\n#> 8♠\ndel 9\n#2> error: no card at position 9 (hand has 1 card)\n"
    params = await changed(client, path, 2, whole(text))
    assert list(params.diagnostics) == []


@pytest.mark.asyncio
async def test_positions_are_utf16_unless_the_client_offers_utf8(
    client: LanguageClient, utf8_client: LanguageClient, tmp_path
):
    # 🂡 is two UTF-16 units and four UTF-8 bytes; the error is on `x`.
    text = 'save "🂡"; del x\n'
    params = await opened(client, tmp_path / "a.hand", text)
    assert [span(d) for d in params.diagnostics] == [(0, 15, 0, 16)]
    assert utf8_client.init_result.capabilities.position_encoding == "utf-8"
    params = await opened(utf8_client, tmp_path / "b.hand", text)
    assert [span(d) for d in params.diagnostics] == [(0, 17, 0, 18)]


@pytest.mark.asyncio
async def test_incremental_changes_apply_in_utf16_units(client: LanguageClient, tmp_path):
    path = tmp_path / "inc.hand"
    await opened(client, path, "expect 🂡\nadd\n")
    # Replace `add` (after a non-BMP character on the line above) by `del 1`.
    change = T.TextDocumentContentChangePartial(
        range=T.Range(start=T.Position(line=1, character=0), end=T.Position(line=1, character=3)),
        text="del 1",
    )
    params = await changed(client, path, 2, [change])
    [_, failed] = sorted(params.diagnostics, key=span)
    assert span(failed) == (1, 0, 1, 5)
    assert "position 1" in failed.message


@pytest.mark.asyncio
async def test_inlay_hints_show_the_hand_after_each_change(client: LanguageClient, tmp_path):
    path = tmp_path / "hints.hand"
    text = "#!/usr/bin/env -S handsh --seed 42\nadd\nshow\nadd\n# a comment\nmv 1 2\n"
    await opened(client, path, text)
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            range=T.Range(start=T.Position(line=0, character=0), end=T.Position(line=6, character=0)),
        )
    )
    got = [(h.position.line, h.position.character, h.label) for h in hints]
    assert got == [(1, 3, "⇒ 7♥"), (3, 3, "⇒ 3♣ 7♥"), (5, 6, "⇒ 7♥ 3♣")]


@pytest.mark.asyncio
async def test_ascii_applies_to_hints(ascii_client: LanguageClient, tmp_path):
    path = tmp_path / "ascii.hand"
    await opened(ascii_client, path, "#!/usr/bin/env -S handsh --seed 42\nadd\n")
    hints = await ascii_client.text_document_inlay_hint_async(
        T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            range=T.Range(start=T.Position(line=0, character=0), end=T.Position(line=2, character=0)),
        )
    )
    assert [h.label for h in hints] == ["⇒ 7H"]


async def hover(client, path, line, character):
    return await client.text_document_hover_async(
        T.HoverParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            position=T.Position(line=line, character=character),
        )
    )


@pytest.mark.asyncio
async def test_hover_explains_commands_cards_positions_and_the_hand(
    client: LanguageClient, tmp_path
):
    path = tmp_path / "hover.hand"
    await opened(client, path, "#!/usr/bin/env -S handsh --seed 42\nadd; add\ndel 2; add Q♥\n")
    on_del = (await hover(client, path, 2, 1)).contents.value
    assert on_del.startswith("del P\n")
    on_position = (await hover(client, path, 2, 4)).contents.value
    assert on_position.startswith("position 2: 7♥, seven of hearts")
    on_card = (await hover(client, path, 2, 11)).contents.value
    assert on_card.startswith("queen of hearts")
    assert "hand before: 3♣ 7♥\nhand after:  Q♥ 3♣" in on_card
    assert await hover(client, path, 0, 3) is None


async def complete(client, path, line, character):
    result = await client.text_document_completion_async(
        T.CompletionParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            position=T.Position(line=line, character=character),
        )
    )
    return [(item.label, item.text_edit.new_text) for item in result.items]


@pytest.mark.asyncio
async def test_completion_offers_what_the_line_can_take(client: LanguageClient, tmp_path):
    (tmp_path / "other.hand").write_text("add\n")
    (tmp_path / "sub").mkdir()
    path = tmp_path / "complete.hand"
    text = "#!/usr/bin/env -S handsh --seed 42\nadd; add\ndel \ngoto \nadd 7\nsource o\nhe\nexpect \n"
    await opened(client, path, text)
    assert await complete(client, path, 2, 4) == [("1 3♣", "1"), ("2 7♥", "2")]
    assert await complete(client, path, 3, 5) == [
        ("0 (empty)", "0"),
        ("1 7♥", "1"),
        ("2 3♣ 7♥", "2"),
    ]
    # The deck at that line: 7♥ is in the hand, so not offered; each in the
    # spelling the user started, which the parser reads.
    assert [new for _, new in await complete(client, path, 4, 5)] == ["7d", "7c", "7s"]
    assert await complete(client, path, 5, 8) == [("other.hand", "other.hand")]
    assert [new for _, new in await complete(client, path, 6, 2)] == ["help"]
    assert [new for _, new in await complete(client, path, 7, 7)] == ["3♣", "7♥"]


@pytest.mark.asyncio
async def test_code_actions_accept_blocks_and_handsh_test_then_passes(
    client: LanguageClient, tmp_path
):
    path = tmp_path / "review.hand"
    text = "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 9♠\nshow\nadd\ndel 7\n"
    await opened(client, path, text)
    actions = await client.text_document_code_action_async(
        T.CodeActionParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            range=T.Range(start=T.Position(line=1, character=0), end=T.Position(line=1, character=0)),
            context=T.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions]
    assert titles == ["Accept the actual output (line 2)", "Accept every block in this file"]

    def applied(action, text):
        [(target, edits)] = action.edit.changes.items()
        assert target == uri(path)
        lines = text.split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            start = offsets[edit.range.start.line] + edit.range.start.character
            end = offsets[edit.range.end.line] + edit.range.end.character
            text = text[:start] + edit.new_text + text[end:]
        return text

    one = applied(actions[0], text)
    assert one == text.replace("#> 9♠", "#> 7♥")
    every = applied(actions[1], text)
    path.write_text(every)
    run = subprocess.run([HANDSH, "--test", path.name], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    # The server wrote nothing: the file holds what the test wrote.
    assert path.read_text() == every


@pytest.mark.asyncio
async def test_definition_on_source_opens_the_file_next_to_the_document(
    client: LanguageClient, tmp_path
):
    (tmp_path / "deal.hand").write_text("add\n")
    path = tmp_path / "main.hand"
    await opened(client, path, "source deal.hand; show\n")
    found = await client.text_document_definition_async(
        T.DefinitionParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            position=T.Position(line=0, character=9),
        )
    )
    assert found.uri == uri(tmp_path / "deal.hand")


@pytest.mark.asyncio
async def test_source_reads_next_to_the_document_and_save_stays_in_memory(
    client: LanguageClient, tmp_path
):
    (tmp_path / "deal.hand").write_text("add\n")
    path = tmp_path / "main.hand"
    text = "source deal.hand\n#> 8♠\nsave kept.hand\nsource kept.hand\n#> (empty)\n#> 8♠\n"
    params = await opened(client, path, text)
    assert list(params.diagnostics) == []
    assert not (tmp_path / "kept.hand").exists()


@pytest.mark.asyncio
async def test_every_golden_test_of_the_project_passes_in_the_editor_too(client: LanguageClient):
    """The server runs a document as `handsh --test` does: the project's
    own golden tests all pass (no diagnostics), and a failing fixture has
    one error per block that `--test` reports as differing."""
    from conftest import REPO

    goldens = sorted((REPO / "Tests" / "Golden").glob("*.hand"))
    assert len(goldens) > 20
    for path in goldens:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # an editor cannot hold invalid UTF-8 as it is
        params = await opened(client, path, text)
        assert list(params.diagnostics) == [], (path.name, params.diagnostics)
    failing = REPO / "Tests" / "GoldenFixtures" / "cases" / "failing.hand"
    run = subprocess.run(
        [HANDSH, "--test", failing.name], cwd=failing.parent, capture_output=True, text=True
    )
    reported = sorted(
        int(line.split(":")[1]) - 1 for line in run.stderr.splitlines() if line.endswith("output differs")
    )
    assert reported
    params = await opened(client, failing, failing.read_text())
    assert sorted(d.range.start.line for d in params.diagnostics) == reported


@pytest.mark.asyncio
async def test_a_lone_carriage_return_is_a_line_break_for_the_editor(client: LanguageClient, tmp_path):
    """handsh ends lines at `\\n` only; the protocol counts a lone `\\r` as a
    line break too: positions follow the editor's lines."""
    path = tmp_path / "cr.hand"
    text = "# a\rcomment\ndel 9\nadd\r"
    params = await opened(client, path, text)
    [warning] = params.diagnostics
    assert span(warning) == (2, 0, 2, 5)
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            range=T.Range(start=T.Position(line=3, character=0), end=T.Position(line=4, character=0)),
        )
    )
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [(3, 3, "⇒ 8♠")]
    on_del = await hover(client, path, 2, 1)
    assert on_del.contents.value.startswith("del P")


@pytest.mark.asyncio
async def test_the_readme_tour_shows_what_the_server_shows(client: LanguageClient, tmp_path):
    """README's "In the editor": the file with the hints it draws beside
    the lines, and the one stale block."""
    from conftest import REPO

    readme = (REPO / "README.md").read_text()
    tour = readme.split("## In the editor", 1)[1].split("```\n", 2)[1]
    lines, drawn = [], []
    for number, line in enumerate(tour.splitlines()):
        text, _, hint = line.partition("⇒")
        lines.append(text.rstrip() if hint else line)
        if hint:
            drawn.append((number, "⇒" + hint))
    path = tmp_path / "tour.hand"
    text = "\n".join(lines) + "\n"
    params = await opened(client, path, text)
    [stale] = params.diagnostics
    assert stale.message == "output differs; actual output:\n#> 7♥\n#> 3♣ 7♥"
    assert "`#> 7♥` and `#> 3♣ 7♥`" in readme
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri=uri(path)),
            range=T.Range(start=T.Position(line=0, character=0), end=T.Position(line=99, character=0)),
        )
    )
    assert [(h.position.line, h.label) for h in hints] == drawn
