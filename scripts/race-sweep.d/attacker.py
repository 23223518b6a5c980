"""race-sweep: the attacker, another user (uid 65534) in the sticky folder:
the cases (what it swaps, what root runs), its own files, and the child
that swaps a name between them and a link to root's victim until killed."""

import ctypes
import os
import signal
import time
from pathlib import Path

NOBODY = 65534
RENAME_EXCHANGE = 2
PR_SET_PDEATHSIG = 1
AT_FDCWD = -100
GOLDEN = "#!/usr/bin/env -S handsh --seed 1\nadd\n#> wrong\n"

LIBC = ctypes.CDLL(None, use_errno=True)


def exchange(a, b):
    if LIBC.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


class Case:
    """One writer: what the attacker swaps (`file`: a hard-linked file of its
    own and a link to the victim file; `none`: nothing and that link;
    `dir`: a folder of its own and a link to the victim folder; `static-dir`
    and `static-file`: the link, planted for good), handsh's arguments, and
    the keys typed at the prompt if any."""

    def __init__(self, name, mode, command, own="limit 6\n", prompt=None, env=None,
                 reads=False, share=1.0):
        self.name = name
        self.mode = mode
        self.command = command
        self.own = own
        self.prompt = prompt
        self.env = env or {}
        self.reads = reads  # `source`: what it saves must not come from the victim
        self.share = share  # the part of --runs it gets


def cases():
    save = ["-q", "-c", "add; save sticky/t.hand"]
    source = ["-q", "-c", "source sticky/t.hand; save private/out.hand"]
    return [
        Case("save replaced (own hard-linked file <-> link)", "file", save, share=2.0),
        Case("save new (nothing <-> link)", "none", save),
        Case("source (own file <-> link)", "file", source, reads=True),
        Case("--update (own hard-linked test <-> link)", "file",
             ["-s", "1", "--test", "--update", "-j", "1", "sticky/t.hand"], own=GOLDEN),
        Case("--junit (own hard-linked report <-> link)", "file",
             ["-s", "1", "--test", "--junit", "sticky/t.hand", "private/p.hand"]),
        Case("--record (own hard-linked file <-> link)", "file",
             ["-s", "1", "--record", "sticky/t.hand"], prompt=["add\r", "\x04"], share=0.2),
        Case("history file (own hard-linked file <-> link)", "file", ["-s", "1", "-q"],
             prompt=["add\r", "\x04"], env={"HANDSH_HISTORY": "sticky/t.hand"}, share=0.2),
        Case("save replaced in a folder (own folder <-> link)", "dir",
             ["-q", "-c", "add; save sticky/dirlink/x.hand"]),
        Case("save new in a folder (own folder <-> link)", "dir",
             ["-q", "-c", "add; save sticky/dirlink/new.hand"]),
        Case("source in a folder (own folder <-> link)", "dir",
             ["-q", "-c", "source sticky/dirlink/x.hand; save private/out.hand"], reads=True),
        Case("save through a planted link to a folder", "static-dir",
             ["-q", "-c", "add; save sticky/dirlink/x.hand"], share=0.01),
        Case("save new through a planted link to a folder", "static-dir",
             ["-q", "-c", "add; save sticky/dirlink/new.hand"], share=0.01),
        Case("source through a planted link to a folder", "static-dir",
             ["-q", "-c", "source sticky/dirlink/x.hand; save private/out.hand"], reads=True,
             share=0.01),
        Case("history file through a planted link", "static-file", ["-s", "1", "-q"],
             prompt=["add\r", "\x04"], env={"HANDSH_HISTORY": "sticky/t.hand"}, share=0.01),
    ]


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def prepare(case, base):
    """The attacker's own files, made as the attacker (run in its child)."""
    sticky = base / "sticky"
    os.chdir(sticky)
    if case.mode in ("file", "none", "static-file"):
        Path("own.hand").write_text(case.own)
        os.chmod("own.hand", 0o666)
    if case.mode == "dir" or case.mode == "static-dir":
        Path("owndir").mkdir(mode=0o777)
        Path("owndir/x.hand").write_text(case.own)
        os.chmod("owndir/x.hand", 0o666)
        os.link("owndir/x.hand", "owndir/x2.hand")
    repair(case)


def repair(case):
    """Puts back the two names the attacker swaps, where root's run took one."""
    victim = "../victim.hand" if case.mode != "dir" else "../victimdir"
    try:
        if case.mode in ("file", "static-file") and not os.path.lexists("t.hand"):
            if case.mode == "file":
                os.link("own.hand", "t.hand")
            else:
                os.symlink("../victim.hand", "t.hand")
        if case.mode == "file" and not os.path.lexists(".spare"):
            os.symlink(victim, ".spare")
        if case.mode == "dir":
            if not os.path.lexists(".spare") and not os.path.lexists("dirlink"):
                os.rename("owndir", "dirlink")
            if not os.path.lexists(".spare") and os.path.isdir("owndir"):
                os.rename("owndir", ".spare")
            if not os.path.lexists("dirlink"):
                os.symlink("../victimdir", "dirlink")
            if not os.path.lexists(".spare"):
                os.symlink("../victimdir", ".spare")
        if case.mode == "static-dir" and not os.path.lexists("dirlink"):
            os.symlink("../victimdir", "dirlink")
    except OSError:
        pass


def attack(case, base, ready):
    """The attacker's child: swaps until killed."""
    # Ahead of the other work of a loaded machine, so that it swaps while
    # root's run waits between its check and its use.
    os.nice(-10)
    parent = os.getppid()
    as_nobody()
    # Ends with the sweep, however the sweep ends (set after setuid, which
    # clears it).
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)
    prepare(case, base)
    os.write(ready, b"x")
    os.close(ready)
    if case.mode.startswith("static"):
        while True:
            time.sleep(0.05)
            repair(case)
    name = "dirlink" if case.mode == "dir" else "t.hand"
    while True:
        if case.mode == "none":
            try:
                os.symlink("../victim.hand", "t.hand")
            except OSError:
                pass
            try:
                os.unlink("t.hand")
            except OSError:
                pass
            continue
        try:
            exchange(name, ".spare")
        except OSError:
            repair(case)
