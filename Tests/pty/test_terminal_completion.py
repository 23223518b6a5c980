"""The prompt in real terminals, continued (handsh(1), THE PROMPT):
completion (the deck's cards, tens, positions, the hand's cards, file
names, --ascii) and the locale (LC_ALL=C, LANG unset).

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

from conftest import PROMPT, clean, history_lines


# MARK: - 4. Completion


def listing(sh, typed):
    """The candidates that two Tabs list after TYPED, in the order shown."""
    sh.child.send(typed)
    sh.child.expect_exact(typed)
    sh.child.send("\x1b?")  # M-?: possible-completions, as a second Tab lists
    sh.child.expect_exact(PROMPT + typed)
    words = clean(sh.child.before).split()
    sh.child.send("\x15")  # Ctrl-U
    return words


def test_completion_lists_the_decks_cards_in_new_deck_order(box):
    box.inputrc.write_text(
        "set enable-bracketed-paste off\nset print-completions-horizontally on\n"
    )
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    assert listing(sh, "add 1") == ["10♥", "10♦", "10♣", "10♠"]
    suits = "♥♦♣♠"
    ranks = "A 2 3 4 5 6 7 8 9 10 J Q K".split()
    deck = [r + s for s in suits for r in ranks if r + s != "7♥"]
    assert listing(sh, "add ") == deck


def test_t_completes_tens(box):
    sh = box.spawn("--seed", "42")
    sh.first_prompt()
    assert sh.command("add th\t") == ["10♥"]
    assert sh.last_echo == "add 10♥"
    assert sh.command("add t\ts") == ["10♠ 10♥"]
    assert sh.last_echo == "add 10s"


def test_completion_of_positions_after_del_and_mv(box):
    sh = box.spawn("--seed", "42", "--quiet", "-i", "-c", "add; add; add")
    sh.first_prompt()
    # Listed with their cards, one row as readline lays it out; the
    # position alone is inserted.
    sh.child.send("del \t\t")
    sh.child.expect_exact(PROMPT + "del ")
    assert "\n1 K♥  2 3♣  3 7♥\n" in clean(sh.child.before), repr(sh.child.before)
    sh.child.send("\x15")
    assert listing(sh, "mv 1 ") == ["1", "K♥", "2", "3♣", "3", "7♥"]
    assert sh.command("mv 3\t1\t") == []
    assert sh.last_echo == "mv 3 1"
    assert sh.command("show") == ["1  7♥", "2  K♥", "3  3♣"]


def test_completion_of_the_hands_cards_after_expect(box):
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert listing(sh, "expect ") == ["empty"]
    sh.command("add; add")
    assert listing(sh, "expect ") == ["3♣", "7♥"]
    assert sh.command("expect 3\t7\t") == []
    assert sh.last_echo == "expect 3♣ 7♥"


def test_completion_of_file_names_after_save_quotes_them(box):
    (box.cwd / "my game.hand").write_text("")
    sh = box.spawn("--seed", "42", "--quiet")
    sh.first_prompt()
    assert sh.command("add; save my\t") == []
    assert sh.last_echo == 'add; save "my game.hand"'
    assert (box.cwd / "my game.hand").read_text().endswith("add 7H\n")


def test_completion_with_ascii(box):
    sh = box.spawn("--seed", "42", "--ascii")
    sh.first_prompt()
    assert listing(sh, "add Q") == ["QH", "QD", "QC", "QS"]


# MARK: - 4. The locale


C_LOCALE = {"LC_ALL": "C", "LANG": ""}


def test_completion_under_lc_all_c_never_inserts_part_of_a_character(box):
    sh = box.spawn("--seed", "42", env=C_LOCALE)
    sh.first_prompt()
    # Q♥ Q♦ Q♣ Q♠ share the bytes E2 99 after Q, but no whole character.
    assert sh.command("add q\th") == ["Q♥"]
    assert sh.last_echo == "add Qh"
    assert listing(sh, "add 1") == ["10♥", "10♦", "10♣", "10♠"]
    assert sh.command("add 7h\t") == ["7♥ Q♥"]
    assert history_lines(box.history) == ["add Qh", "add 7♥ "]


def test_backspace_over_a_suit_under_lc_all_c(box):
    sh = box.spawn("--seed", "42", env=C_LOCALE)
    sh.first_prompt()
    assert sh.command("add Q♥♦\x7f") == ["Q♥"]
    assert sh.command("add ♠\x02A") == ["A♠ Q♥"]
    assert history_lines(box.history) == ["add Q♥", "add A♠"]


def test_lang_unset_is_the_c_locale_too(box):
    sh = box.spawn("--seed", "42", env={"LC_ALL": "", "LANG": ""})
    sh.first_prompt()
    assert sh.command("add k♦♣\x7f") == ["K♦"]
