"""Results at the prompt once stdout is a pipe whose reader is gone
(handsh(1), THE PROMPT): `handsh | tee log`, then Control-C, which ends tee.
handsh says so once on the prompt's terminal and shows results there; it
never dies of SIGPIPE and loses the game.

Seed 42 deals 7♥ 3♣ K♥ A♠ 2♠ A♥ A♣ K♦ 10♦ 5♥.
"""

import shlex
import time

from conftest import PROMPT, clean
from conftest import SHELL_PROMPT, JobShell

NOTICE = "handsh: standard output is closed; results are now shown here"


def start_piped(js, *args):
    words = " ".join(shlex.quote(w) for w in [str(js.box.binary), "--seed", "42", *args])
    js.child.send(words + " | tee log\r")
    js.child.expect_exact(PROMPT)


def test_results_move_to_the_terminal_once_tee_is_gone(box):
    js = JobShell(box, "bash")
    start_piped(js)
    js.child.send("add\r")
    js.child.expect_exact("7♥")  # through tee, maybe after the next prompt
    time.sleep(0.3)
    js.child.sendcontrol("c")  # tee dies; handsh draws a new prompt
    js.child.expect_exact("^C")
    js.child.expect_exact(PROMPT)
    time.sleep(0.2)
    js.child.send("add\r")
    js.child.expect_exact(PROMPT)
    shown = clean(js.child.before).split("\n")
    # The result that met the closed pipe is shown too, after the notice.
    assert shown[1:] == [NOTICE, "3♣ 7♥", ""], shown
    js.child.send("add\r")
    js.child.expect_exact(PROMPT)
    shown = clean(js.child.before).split("\n")
    assert shown[1:] == ["K♥ 3♣ 7♥", ""], shown  # said once
    js.child.send("quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    # handsh ended by quit (0), not by SIGPIPE: PIPESTATUS of the pipeline.
    assert js.run("echo ${PIPESTATUS[0]}") == "0"
    assert (box.cwd / "log").read_text(encoding="utf-8") == "7♥\n"


def test_the_recording_is_written_when_output_closes(box):
    js = JobShell(box, "bash")
    start_piped(js, "--record", "rec.hand")
    js.child.send("add\r")
    js.child.expect_exact("7♥")
    time.sleep(0.3)
    js.child.sendcontrol("c")
    js.child.expect_exact("^C")
    js.child.expect_exact(PROMPT)
    time.sleep(0.2)
    js.child.send("show\r")
    js.child.expect_exact("1  7♥")
    js.child.expect_exact(PROMPT)
    js.child.sendcontrol("d")
    js.child.expect_exact(SHELL_PROMPT)
    recorded = (box.cwd / "rec.hand").read_text(encoding="utf-8")
    assert "\nadd\n#> 7♥\nshow\n#> 1  7♥\n" in recorded, recorded


def test_results_of_the_last_line_are_shown_too(box):
    js = JobShell(box, "bash")
    start_piped(js)
    js.child.send("add\r")
    js.child.expect_exact("7♥")
    time.sleep(0.3)
    js.child.sendcontrol("c")
    js.child.expect_exact("^C")
    js.child.expect_exact(PROMPT)
    time.sleep(0.2)
    js.child.send("add; quit\r")
    js.child.expect_exact(SHELL_PROMPT)
    shown = clean(js.child.before).split("\n")
    assert shown[1:3] == [NOTICE, "3♣ 7♥"], shown
    assert js.run("echo ${PIPESTATUS[0]}") == "0"
