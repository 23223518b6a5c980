"""Diagnostics reach a real editor: headless Neovim (Debian's 0.7.2 and
later) starts `handsh --lsp` with `vim.lsp.start_client`, and sees the
problem, then its fix, and the inlay hints (Tests/lsp/neovim.lua)."""

import os
import shutil
import subprocess
from pathlib import Path

from conftest import HANDSH

HERE = Path(__file__).resolve().parent


def test_neovim_shows_the_diagnostics_and_their_fix(tmp_path):
    nvim = shutil.which("nvim")
    assert nvim, "the editor test needs Neovim: apt install neovim"
    document = tmp_path / "game.hand"
    document.write_text("#!/usr/bin/env -S handsh --seed 42\nadd\n#> 9♠\n")
    report = tmp_path / "report.txt"
    home = tmp_path / "home"
    home.mkdir()
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "HANDSH_BIN": HANDSH,
        "HANDSH_NVIM_OUT": str(report),
        "SWIFT_BACKTRACE": "enable=no",
        "LANG": "C.UTF-8",
    }
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "game.hand", "-c", f"luafile {HERE / 'neovim.lua'}"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    seen = report.read_text().splitlines() if report.exists() else []
    assert run.returncode == 0, (run.stdout, run.stderr, seen)
    assert seen[:3] == [
        "client true",
        "diagnostics true",
        "at 1:0 severity 1 output differs; actual output:|#> 7♥",
    ], seen
    assert seen[3] == "cleared true", seen
    assert seen[4:] == ["hint 1:3 ⇒ 7♥"], seen
    # The editor's buffer was never written by the server.
    assert document.read_text() == "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 9♠\n"


def test_neovim_omnifunc_completes_cards_as_typed(tmp_path):
    """Neovim 0.7.2's omnifunc keeps the items whose inserted text starts
    with what was typed: `add k` offers the four kings, `add t` the four
    tens, `add kh` K♥, each in a spelling the parser reads."""
    nvim = shutil.which("nvim")
    assert nvim, "the editor test needs Neovim: apt install neovim"
    (tmp_path / "c.hand").write_text("")
    report = tmp_path / "report.txt"
    home = tmp_path / "home"
    home.mkdir()
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "HANDSH_BIN": HANDSH,
        "HANDSH_NVIM_OUT": str(report),
        "SWIFT_BACKTRACE": "enable=no",
        "LANG": "C.UTF-8",
    }
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "c.hand", "-c", f"luafile {HERE / 'omnifunc.lua'}"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    seen = dict(
        line.split(": ", 1) for line in (report.read_text().splitlines() if report.exists() else [])
    )
    assert run.returncode == 0, (run.stdout, run.stderr, seen)
    assert sorted(seen["add k"].split()) == ["kc", "kd", "kh", "ks"], seen
    assert sorted(seen["add t"].split()) == ["tc", "td", "th", "ts"], seen
    assert seen["add kh"].split() == ["kh"], seen
    assert seen["add qh"].split() == ["qh"], seen
    assert sorted(seen["add 1"].split()) == ["10c", "10d", "10h", "10s"], seen
    assert sorted(seen["de"].split()) == ["deck", "del"], seen
    # Each word, accepted, is a card the parser reads.
    for word in seen["add k"].split() + seen["add 1"].split():
        check = subprocess.run(
            [HANDSH, "-c", "add " + word], capture_output=True, timeout=20, env=environment
        )
        assert check.returncode == 0, (word, check.stderr)
