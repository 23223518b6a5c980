"""The readline prompt of `handsh` (handsh(1), THE PROMPT, and -i), driven in a
real pseudo-terminal with pexpect. Fixtures: conftest.py.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥ (handsh(1), The shuffle).
"""

import os
import signal
import time

import pexpect
import pytest

from conftest import DECK_AT_START, PROMPT, clean, history_lines

NO_CARD_9 = "error: no card at position 9 (hand has 0 cards)"


# MARK: - Prompt, banner, output, errors


def test_prompt_appears_and_banner_is_one_line_on_stderr(box):
    sh = box.spawn("--seed", "42", stderr_to_file=True)
    # stdout (the terminal) shows nothing before the prompt ...
    assert sh.first_prompt() == ""
    # ... and the banner is one line on stderr.
    banner = sh.stderr()
    assert banner.endswith("\n") and banner.count("\n") == 1, repr(banner)
    assert banner.strip() != ""
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_banner_shows_at_the_terminal_without_quiet(box):
    sh = box.spawn("--seed", "42")
    before = sh.first_prompt()
    assert len(before.split("\n")) == 2 and before.endswith("\n"), repr(before)
    assert before.strip() != ""


def test_quiet_has_no_banner(box):
    sh = box.spawn("--seed", "42", "--quiet")
    assert sh.first_prompt() == ""
    # --quiet also turns the hand lines off; show still prints.
    assert sh.command("add") == []
    assert sh.command("show") == ["1  7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_add_prints_its_hand_line_on_stdout(box):
    sh = box.spawn("--seed", "42", stderr_to_file=True)
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    assert sh.command("add") == ["3♣ 7♥"]
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    assert sh.command("deck") == ["50 in deck, 0 discarded, seed 42"]
    assert "7♥" not in sh.stderr()


def test_error_is_printed_and_the_session_goes_on(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("del 9") == [NO_CARD_9]
    assert sh.command("add") == ["7♥"]
    # A syntax error is pointed at too (handsh(1), THE PROMPT).
    assert sh.command("ad") == [
        "  ad",
        "  ^^",
        "error: unknown command 'ad' (did you mean 'add'?)",
    ]
    assert sh.command("mv 1 3") == ["error: no card at position 3 (hand has 1 card)"]
    assert sh.command("show") == ["1  7♥"]
    assert sh.child.isalive()
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_error_goes_to_stderr(box):
    sh = box.spawn("--seed", "42", "--quiet", stderr_to_file=True)
    sh.first_prompt()
    assert sh.command("del 9") == []
    assert sh.stderr() == NO_CARD_9 + "\n"
    assert sh.command("show") == ["(empty)"]


def test_colour_auto_at_the_prompt(box):
    # stdout is a terminal (not a dumb one) and NO_COLOR is unset: red cards
    # are coloured.
    sh = box.spawn("--seed", "42", color=None, env={"TERM": "xterm"})
    sh.first_prompt()
    raw = sh.command_raw("add")
    assert "\x1b[31m7♥\x1b[0m" in raw, repr(raw)
    raw = sh.command_raw("del 9")
    assert "error: no card at position 9 (hand has 1 card)" in raw, repr(raw)
    assert "\x1b" not in raw, repr(raw)


def test_no_color_turns_colour_off_at_the_prompt(box):
    sh = box.spawn("--seed", "42", color=None, env={"NO_COLOR": "1"})
    sh.first_prompt()
    raw = sh.command_raw("add")
    assert "7♥" in raw and "\x1b" not in raw, repr(raw)


# MARK: - Ctrl-C, Ctrl-D, quit, exit


def test_ctrl_c_drops_the_half_typed_line_and_keeps_the_state(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    assert sh.command("show") == ["1  7♥"]
    sh.child.send("ad")
    sh.child.expect_exact("ad")
    sh.child.sendintr()
    after = clean(sh.prompt())
    assert "error" not in after, repr(after)
    # The dropped "ad" is gone: this line is "show", not "adshow".
    assert sh.command("show") == ["1  7♥"]
    assert sh.command("history") == [" 0  start     (empty)", "*1  add 7♥    7♥"]
    assert sh.child.isalive()
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert history_lines(box.history) == ["add", "show", "history"]


def test_ctrl_c_leaves_a_reverse_search_cleanly(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    sh.child.send("\x12ad")  # Ctrl-R, then a search that finds `add`
    sh.child.expect_exact("reverse-i-search")
    time.sleep(0.3)  # let readline take in "ad"
    sh.child.sendintr()
    sh.prompt()
    # Back at a plain prompt, not in the search: this runs `show`. (Not
    # counting prompts: handsh 1.0.0 draws a second, empty one here.)
    sh.child.send("show\r")
    sh.child.expect_exact("show\r\n1  7♥\r\n" + PROMPT)
    assert sh.command("deck") == ["51 in deck, 0 discarded, seed 42"]


def test_ctrl_c_on_an_empty_line_keeps_running(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    for _ in range(2):
        sh.child.sendintr()
        sh.prompt()
    assert sh.child.isalive()
    assert sh.command("add") == ["7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_ctrl_d_on_an_empty_line_exits_0(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0
    assert PROMPT not in sh.tail


def test_ctrl_d_on_a_non_empty_line_does_not_exit(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.child.send("ad")
    sh.child.expect_exact("ad")
    sh.child.sendeof()
    assert sh.command("d") == ["7♥"]
    assert sh.child.isalive()


@pytest.mark.parametrize("word", ["quit", "exit"])
def test_quit_and_exit_end_with_status_0(box, word):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("del 9") == [NO_CARD_9]  # a failed command before
    sh.child.send(word + "\r")
    assert sh.wait_exit() == 0
    assert PROMPT not in sh.tail


# MARK: - Completion


def test_tab_completes_a_command_name(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("his\t") == ["*0  start     (empty)"]
    assert sh.last_echo == "history"


def test_tab_completes_a_card_in_the_deck_to_its_symbol_form(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add 7h\t") == ["7♥"]
    assert sh.last_echo == "add 7♥"
    assert history_lines(box.history)[-1].rstrip() == "add 7♥"


def test_tab_offers_only_the_cards_still_in_the_deck(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    # Two Tabs list the candidates, then readline redraws the line.
    sh.child.send("add 7\t\t")
    sh.child.expect_exact(PROMPT + "add 7")
    listing = clean(sh.child.before)
    for card in ["7♦", "7♣", "7♠"]:
        assert card in listing, repr(listing)
    assert "7♥" not in listing, repr(listing)
    sh.child.send("\x15")  # Ctrl-U: drop the line
    assert sh.command("show") == ["1  7♥"]
    # 7♥ is in the hand: Tab leaves "7h" as typed.
    assert sh.command("add 7h\t") == ["error: 7♥ is in the hand"]
    assert sh.last_echo == "add 7h"


def test_tab_completes_cards_in_ascii_with_ascii(box):
    sh = box.spawn("--seed", "42", "--ascii")
    sh.first_prompt()
    assert sh.command("add qh\t") == ["QH"]
    assert sh.last_echo == "add QH"


def test_tab_completes_help_topics(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    lines = sh.command("help u\t")
    assert sh.last_echo == "help undo"
    assert lines[0] == "undo [N]"
    lines = sh.command("help hi\t")
    assert sh.last_echo == "help history"
    assert lines[0] == "history [tree]"


@pytest.mark.parametrize("separator", ["; ", ";"])
def test_tab_completes_a_command_after_a_semicolon(box, separator):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command(f"add{separator}his\t") == [
        "7♥",
        " 0  start     (empty)",
        "*1  add 7♥    7♥",
    ]
    assert sh.last_echo == f"add{separator}history"


def test_tab_completes_file_names_only_after_save(box):
    (box.cwd / "setup.hand").write_text("add\n")
    (box.cwd / "somewhere").mkdir()
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("./\t") == ["  ./", "  ^^", "error: unknown command './'"]
    assert sh.last_echo == "./"
    assert sh.command("./s\t") == ["  ./s", "  ^^^", "error: unknown command './s'"]
    assert sh.last_echo == "./s"
    assert sh.command("del ./s\t") == [
        "  del ./s",
        "      ^^^",
        "error: invalid position './s': expected a whole number of 1 or more"
    ]
    assert sh.last_echo == "del ./s"
    # After save: file names, a folder marked with `/`.
    assert sh.command("save ./set\t") == []
    assert sh.last_echo == "save ./setup.hand"
    assert (box.cwd / "setup.hand").read_text().startswith("#!/usr/bin/env handsh\n")
    sh.child.send("save som\t")
    sh.child.expect_exact("save somewhere/")
    sh.child.send("\x15")


# MARK: - inputrc


def ctrl_t_runs(box, inputrc):
    """Whether Ctrl-T runs the macro `deck` + Enter under INPUTRC; the text."""
    box.inputrc.write_text("set enable-bracketed-paste off\n" + inputrc)
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.child.send("\x14")  # Ctrl-T
    index = sh.child.expect_exact([PROMPT, pexpect.TIMEOUT], timeout=5)
    lines = clean(sh.child.before).split("\n")
    return index == 0 and DECK_AT_START in lines, lines


def test_inputrc_binding_takes_effect(box):
    # The control for the next test: INPUTRC is read at all.
    ran, lines = ctrl_t_runs(box, '"\\C-t": "deck\\n"\n')
    assert ran, f"Ctrl-T did not run the macro of INPUTRC; terminal showed {lines!r}"


def test_if_handsh_in_inputrc_takes_effect(box):
    ran, lines = ctrl_t_runs(
        box,
        "$if handsh\n"
        '"\\C-t": "deck\\n"\n'
        "$endif\n"
        "$if bash\n"
        '"\\C-t": "show\\n"\n'
        "$endif\n",
    )
    assert ran, (
        "Ctrl-T did not run the macro bound under `$if handsh` "
        f"(rl_readline_name is not 'handsh' when readline reads INPUTRC); terminal showed {lines!r}"
    )


# MARK: - -i


def test_interactive_runs_the_script_then_prompts_on_its_version(box):
    (box.cwd / "setup.hand").write_text("add\nadd\nadd 5h\n")
    sh = box.spawn("--seed", "42", "-i", "setup.hand")
    before = sh.first_prompt().split("\n")
    hands = [line for line in before if line in ("7♥", "3♣ 7♥", "5♥ 3♣ 7♥")]
    assert hands == ["7♥", "3♣ 7♥", "5♥ 3♣ 7♥"], repr(before)
    assert sh.command("show") == ["1  5♥", "2  3♣", "3  7♥"]
    assert sh.command("undo") == ["3♣ 7♥"]
    assert sh.command("undo 2") == ["(empty)"]
    assert sh.command("undo") == ["error: nothing to undo"]
    assert sh.command("redo 3") == ["5♥ 3♣ 7♥"]
    assert sh.command("history") == [
        " 0  start     (empty)",
        " 1  add 7♥    7♥",
        " 2  add 3♣    3♣ 7♥",
        "*3  add 5♥    5♥ 3♣ 7♥",
    ]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_interactive_prompts_after_a_failed_script_with_status_0(box):
    (box.cwd / "setup.hand").write_text("add\ndel 9\nadd\n")
    sh = box.spawn("--seed", "42", "--quiet", "-i", "setup.hand", stderr_to_file=True)
    sh.first_prompt()
    assert "setup.hand:2:1: error: no card at position 9 (hand has 1 card)" in sh.stderr()
    assert sh.command("show") == ["1  7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0


def test_interactive_prompts_on_version_0_after_a_syntax_error(box):
    (box.cwd / "setup.hand").write_text("add\nfoo\n")
    sh = box.spawn("--seed", "42", "--quiet", "-i", "setup.hand", stderr_to_file=True)
    sh.first_prompt()
    assert "setup.hand:2:1: error: unknown command 'foo'" in sh.stderr()
    # handsh(1), DESCRIPTION: with a syntax error anywhere, nothing runs; -i then prompts on
    # the version the script reached, which is version 0.
    assert sh.command("show") == ["(empty)"]
    assert sh.command("history") == ["*0  start     (empty)"]
    sh.child.sendeof()
    assert sh.wait_exit() == 0


def test_interactive_after_command_text(box):
    sh = box.spawn("--seed", "42", "-i", "-c", "add; add")
    sh.first_prompt()
    assert sh.command("show") == ["1  3♣", "2  7♥"]
    assert sh.command("undo") == ["7♥"]


@pytest.mark.parametrize("word", ["quit", "exit"])
def test_quit_in_the_script_given_to_interactive_ends_without_a_prompt(box, word):
    (box.cwd / "setup.hand").write_text(f"add\n{word}\nadd\n")
    sh = box.spawn("--seed", "42", "-i", "setup.hand")
    assert sh.wait_exit() == 0
    assert PROMPT not in sh.tail
    assert "7♥" in sh.tail.split("\n")
    assert "3♣ 7♥" not in sh.tail


# MARK: - Signals


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_at_the_prompt_ends_handsh_and_keeps_the_history(box, number):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    sh.command("add")
    sh.command("show")
    sh.kill(number)
    # handsh restores the terminal, then dies of the signal itself.
    assert sh.wait_exit() == 128 + number
    assert not sh.child.isalive()
    assert history_lines(box.history) == ["add", "show"]


# MARK: - UTF-8


def test_typing_a_suit_symbol_adds_the_card(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add Q♥") == ["Q♥"]
    assert sh.command("add k♦") == ["K♦ Q♥"]
    assert history_lines(box.history) == ["add Q♥", "add k♦"]


def test_invalid_utf8_typed_at_the_prompt_is_reported(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    # Write the bytes themselves (the spawn encodes str): 0xFF is not UTF-8.
    os.write(sh.child.child_fd, b"add \xff\r")
    raw = sh.prompt()
    assert "error: invalid UTF-8 in input" in clean(raw)
    assert sh.command("show") == ["(empty)"]


def test_editing_over_a_suit_symbol_works_by_character(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    # Backspace removes the whole ♦, not one of its three bytes.
    assert sh.command("add Q♥♦\x7f") == ["Q♥"]
    # Ctrl-B steps back over ♠ as one character.
    assert sh.command("add ♠\x02A") == ["A♠ Q♥"]
    assert history_lines(box.history) == ["add Q♥", "add A♠"]


def test_a_quoted_name_that_starts_with_a_comment_sign_completes(box):
    # Inside an open quote, `#` and `;` are part of the name, not a comment
    # or a separator: `source "#` Tab completes `#h.hand` as `"p#` did.
    (box.cwd / "#h.hand").write_text("add\n")
    (box.cwd / "p;q.hand").write_text("add\n")
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command('source "#\t') == ["7♥"]
    assert sh.last_echo == 'source "#h.hand"'
    assert sh.command('source "p;\t') == ["3♣ 7♥"]
    assert sh.last_echo == 'source "p;q.hand"'
    # Outside quotes `#` still starts a comment: nothing to complete there.
    assert sh.command("show # source \t") == ["1  3♣", "2  7♥"]
