"""The editor configurations of the man page (handsh(1), EDITORS,
Configurations) work as written, in the editors Debian packages: each
Neovim configuration that the installed Neovim can run (Debian 12 has
0.7.2, which has neither `vim.lsp.start` nor `vim.fs`) and the Emacs one
with eglot (`emacs-nox elpa-eglot`, in batch mode) are taken from
man/handsh.1 itself, put where the editor reads its configuration in a
temporary HOME, and the editor is started headless on a .hand file that
fails. The configuration, not the test, starts `handsh --lsp` (found on
PATH, as users have it); the editor must show the diagnostic, the hover and
the preferred code action, whose edit fixes the file.

A missing editor fails the test under CI=true (scripts/bootstrap installs
them) and skips it elsewhere.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import HANDSH, REPO

HERE = Path(__file__).resolve().parent
MAN = REPO / "man" / "handsh.1"
FAILING = "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 9♠\n"
FIXED = "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\n"


def in_ci():
    return os.environ.get("CI", "").lower() not in ("", "false", "0")


def need(tool, packages):
    path = shutil.which(tool)
    if path is None:
        why = f"{tool} is not installed: apt install {packages} (scripts/bootstrap does)"
        if in_ci():
            pytest.fail(why)
        pytest.skip(why)
    return path


def unroff(text):
    """The text of a literal display as the man page shows it."""
    text = text.replace("\\e", "\\").replace("\\-", "-").replace("\\&", "")
    return text.replace("\\(dq", '"').replace("\\(aq", "'")


def configurations():
    """(lead-in, text) of every literal display of the Configurations
    section, the lead-in being the paragraph before it (macros and all)."""
    man = MAN.read_text(encoding="utf-8")
    section = man.split(".Ss Configurations\n", 1)[1].split("\n.Sh ", 1)[0]
    found = []
    lead, display = [], None
    for line in section.splitlines():
        if display is not None:
            if line == ".Ed":
                found.append((" ".join(lead), unroff("".join(display))))
                lead, display = [], None
            else:
                display.append(line + "\n")
        elif line.startswith(".Bd -literal"):
            display = []
        elif line == ".Pp":
            lead = []
        else:
            lead.append(line)
    return found


def version(text):
    return tuple(int(part) for part in text.split("."))


def a_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    tools = tmp_path / "bin"
    tools.mkdir()
    # `handsh` on PATH, as the configurations call it.
    (tools / "handsh").symlink_to(HANDSH)
    document = tmp_path / "work" / "game.hand"
    document.parent.mkdir()
    document.write_text(FAILING)
    environment = {
        "PATH": f"{tools}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SWIFT_BACKTRACE": "enable=no",
        "LANG": "C.UTF-8",
        "HANDSH_PROBE_OUT": str(tmp_path / "report.txt"),
        "HANDSH_PROBE_FILE": str(document),
    }
    return home, document, environment


JOURNAL = "#!/usr/bin/env -S handsh --seed 42 --journal\nadd\n"


def package_root(folder):
    """The editor files as scripts/install lays them out under PREFIX, in
    a private root: share/nvim/site/KIND/hand.vim for Neovim,
    share/vim/vimfiles/KIND/hand.vim for Vim."""
    root = folder / "root"
    install = (REPO / "scripts" / "install").read_text()
    for kind in ("ftdetect", "ftplugin", "syntax"):
        for target in ("share/nvim/site", "share/vim/vimfiles"):
            # The paths the install script writes, not ones made up here.
            assert f'"$prefix/{target}/$kind/hand.vim"' in install, target
            (root / target / kind).mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / "editors" / "vim" / kind / "hand.vim", root / target / kind)
    return root


def report(tmp_path):
    path = tmp_path / "report.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_the_manual_gives_a_neovim_configuration_for_debian_12():
    leads = [lead for lead, _ in configurations() if lead.startswith("Neovim")]
    assert any(re.match(r"Neovim 0\.7(\.\d+)? ", lead) for lead in leads), leads


def test_each_neovim_configuration_of_the_manual_works(tmp_path):
    nvim = need("nvim", "neovim")
    shown = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30)
    installed = version(re.search(r"NVIM v(\d+\.\d+\.\d+)", shown.stdout).group(1))
    ran = []
    for number, (lead, text) in enumerate(configurations()):
        if not lead.startswith("Neovim"):
            continue
        oldest = version(re.match(r"Neovim (\d+\.\d+(?:\.\d+)?)", lead).group(1))
        if installed < oldest:
            continue
        folder = tmp_path / f"neovim-{number}"
        folder.mkdir()
        home, document, environment = a_home(folder)
        config = home / ".config" / "nvim"
        config.mkdir(parents=True)
        (config / "init.lua").write_text(text)
        # The vim files as the package installs them (scripts/install, whose
        # paths InstallTests checks), under a private root that Neovim reads
        # as it reads /usr/share: nothing copied into the configuration.
        root = package_root(folder)
        environment["XDG_DATA_DIRS"] = str(root / "share")
        probe = f"luafile {HERE / 'config_probe.lua'}"
        run = subprocess.run(
            [nvim, "--headless", "-n", str(document), "-c", probe],
            cwd=document.parent,
            env=environment,
            capture_output=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
        )
        seen = report(folder)
        context = (lead, run.returncode, run.stdout, run.stderr, seen)
        assert run.returncode == 0 and b"Error" not in run.stderr, context
        assert seen[:4] == [
            "filetype hand",
            "client true",
            "diagnostics true",
            "at 1:0 severity 1 output differs; actual output:|#> 7♥",
        ], context
        assert seen[4] == "hover add [CARD]", context
        assert "action Accept the actual output (line 2) (preferred)" in seen, context
        assert seen[-2:] == ["line 3 #> 7♥", "cleared true"], context
        # The server never writes the file: the editor holds the fix.
        assert document.read_text() == FAILING
        # A journal, named as any file, is detected by its shebang, and
        # Ctrl-X Ctrl-O completes through the server.
        journal = document.parent / "session"
        journal.write_text(JOURNAL)
        shown = folder / "shown.txt"
        run = subprocess.run(
            [nvim, "--headless", "-n", str(journal), "-c",
             f"lua io.open([[{shown}]], 'w'):write(vim.bo.filetype .. ' ' .. vim.bo.omnifunc)",
             "-c", "qa!"],
            cwd=document.parent, env=environment, capture_output=True, timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert shown.read_text() == "hand v:lua.vim.lsp.omnifunc", (lead, run.stderr)
        ran.append(lead)
    assert ran, f"no Neovim configuration of the manual runs on Neovim {installed}"


def test_the_emacs_configuration_of_the_manual_works_with_eglot(tmp_path):
    emacs = need("emacs", "emacs-nox elpa-eglot")
    probe = subprocess.run(
        [emacs, "--batch", "-f", "package-activate-all", "--eval", "(require 'eglot)"],
        capture_output=True,
        timeout=60,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    if probe.returncode != 0:
        need("eglot-is-not-installed", "elpa-eglot")
    found = [text for lead, text in configurations() if lead.startswith("Emacs")]
    assert len(found) == 1, configurations()
    home, document, environment = a_home(tmp_path)
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir()
    init.write_text(found[0])
    # Batch mode neither activates the installed packages (eglot) nor
    # loads init.el: both done here as Emacs does them when it starts.
    run = subprocess.run(
        [
            emacs,
            "--batch",
            "-f",
            "package-activate-all",
            "-l",
            str(init),
            "-l",
            str(HERE / "config_probe.el"),
        ],
        cwd=document.parent,
        env=environment,
        capture_output=True,
        timeout=90,
        # The answer to `M-x eglot-code-actions`: Return, the default.
        input=b"\n",
    )
    seen = report(tmp_path)
    context = (run.returncode, run.stdout, run.stderr[-3000:], seen)
    assert run.returncode == 0, context
    assert seen[:4] == [
        "mode hand-mode",
        "server t",
        "diagnostics t",
        "at 2 eglot-error handsh: output differs; actual output:|#> 7♥",
    ], context
    assert seen[4] == "hover add [CARD]", context
    assert "action Accept the actual output (line 2) (preferred)" in seen, context
    assert seen[-2:] == ["line 3 #> 7♥", "cleared t"], context
    assert document.read_text() == FAILING
    # Files detected by a handsh shebang: `env handsh` and a journal's
    # `env -S handsh ...`.
    for name, text in (("script", "#!/usr/bin/env handsh\nadd\n"), ("session", JOURNAL)):
        (document.parent / name).write_text(text)
        mode = subprocess.run(
            [emacs, "--batch", "-l", str(init), "--eval",
             f'(progn (find-file "{name}") (princ major-mode))'],
            cwd=document.parent, env=environment, capture_output=True, timeout=60,
        )
        assert mode.stdout.decode() == "hand-mode", (name, mode.stderr[-2000:])


def test_eglot_completes_cards_as_typed(tmp_path):
    """eglot 1.9 filters completion by the label: `add k` keeps the four
    kings, `add t` the four tens, `add kh` K♥, with no `doesn't match`
    error, and completing `add kh` leaves a card the parser reads."""
    emacs = need("emacs", "emacs-nox elpa-eglot")
    found = [text for lead, text in configurations() if lead.startswith("Emacs")]
    home, document, environment = a_home(tmp_path)
    document.write_text("")
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir()
    init.write_text(found[0])
    run = subprocess.run(
        [emacs, "--batch", "-f", "package-activate-all", "-l", str(init),
         "-l", str(HERE / "completion_probe.el")],
        cwd=document.parent, env=environment, capture_output=True, timeout=90,
    )
    seen = dict(line.split(" ", 1) if ": " not in line else line.split(": ", 1)
                for line in report(tmp_path))
    context = (run.returncode, run.stdout, run.stderr[-3000:], seen)
    assert run.returncode == 0, context
    assert seen["server"] == "t", context
    assert seen["add k"].split() == ["kc", "kd", "kh", "ks"], context
    assert seen["add t"].split() == ["tc", "td", "th", "ts"], context
    assert seen["add kh"].split() == ["kh"], context
    assert seen["de"].split() == ["deck", "del"], context
    assert seen["buffer"] == "add kh", context
    check = subprocess.run([HANDSH, "-c", seen["buffer"]], capture_output=True, timeout=20)
    assert check.returncode == 0 and check.stdout.decode().split() == ["K♥"], check
