"""crash-sweep: the writers swept (what each lays out, runs and must leave),
and how a target's content is judged whole: old, new, or whole in its own
way (a well-formed JUnit report, whole history or journal lines)."""

import re
from xml.etree import ElementTree

SCRIPT = "add; add; mv 1 2; add"
OLD = "".join(f"# an old line, longer than the new script: {n}\n" for n in range(60))
GOLDEN = "#!/usr/bin/env -S handsh --seed 1\n" + "add\n#> wrong\ndel 1\n" * 20
# 20,000 commands: a save of them takes several writes.
GEN20K = "limit 6\nlimit 5\n" * 10000
LONG = "source gen20k.hand; save t.hand"
# The history file: 1000 lines of 110 bytes, so the cut to 1000 takes more
# than one pwrite64; and a short one, where an append needs no cut.
HISTORY = "".join(f"line {n:04} ".ljust(109, "x") + "\n" for n in range(1000))
SHORT_HISTORY = "".join(f"line {n}\n" for n in range(10))
BIG = {}


def big(name):
    """Large old contents, made once: 21 MB and 70 MiB of old lines."""
    if name not in BIG:
        size = {"21M": 21_000_000, "70M": 70 * 1024 * 1024}[name]
        line = b"# an old line of a large file, which the new script must replace whole\n"
        BIG[name] = line * (size // len(line) + 1)
    return BIG[name]


class Writer:
    """One writer: how to lay out its folder, the command, its targets, and
    whether it writes in place (no content check under SIGKILL)."""

    def __init__(self, name, files, command, targets, in_place=False, prompt=None,
                 stdout=None, user=None, env=None, between=None, whole=None, refused=None,
                 no_tmpfile=False, cap=24, reduced=True, marker=b"handsh> ", fixed=None):
        self.name = name
        self.files = files          # {relative path: text}, made before each run
        self.command = command      # handsh's arguments
        self.targets = targets      # relative paths checked old-or-new
        self.in_place = in_place
        self.prompt = prompt        # keys typed at the prompt (a pseudo-terminal)
        self.marker = marker        # what the prompt that waits for a key shows
        self.stdout = stdout        # relative path stdout is appended to
        self.user = user            # run as this user (strace -u)
        self.env = env or {}
        # A state between old and new that is whole too: the recording of a
        # session ended before its first line.
        self.between = between or {}
        # Whether other content is whole too: a JUnit report of a run in
        # which a fault made a test fail is whole if it is well-formed; a
        # history file of whole lines.
        self.whole = whole or (lambda text, fault: False)
        # The message of a writer that must refuse, leaving the target as it was.
        self.refused = refused
        # Whether the O_TMPFILE open fails (EOPNOTSUPP), as on a file
        # system without it.
        self.no_tmpfile = no_tmpfile
        # A fault at every call of a set, as an environment gives it (a
        # bind-mounted file: every rename fails with EBUSY); that set is
        # then not swept (strace takes one inject per call).
        self.fixed = fixed
        self.cap = cap              # the most N swept per call
        self.reduced = reduced      # part of --reduced


def well_formed_junit(text, fault):
    try:
        return ElementTree.fromstring(text).tag == "testsuites"
    except ElementTree.ParseError:
        return False


JOURNAL = "#!/usr/bin/env -S handsh --seed 1 --limit 5\nadd 7D\n"
JOURNAL_SCRIPT = "limit 52\n" + "add; add; undo; redo; mv 1 2; del 1\n" * 20
# A journal of cursor moves past its compaction bound (twice its compact
# form plus 1 MiB): the next change rewrites it beside itself and renames
# the new file over it.
JOURNAL_MOVES = JOURNAL + "undo 1\nredo 1\n" * 80000
JOURNAL_LINE = re.compile(
    r"(add (10|[2-9AJQK])[HDCS]|del \d+|mv \d+ \d+|undo \d+|redo \d+|goto \d+|new \d+"
    r"|limit \d+|#@ \d+)")


def untimed(content):
    """A file's content without a journal's time lines (`#@ SECONDS`),
    which say the second a run made its changes: two runs of one writer
    differ in nothing else."""
    if not content:
        return content
    return b"".join(line for line in content.splitlines(keepends=True)
                    if not line.startswith(b"#@ "))


def journal_whole(text, fault):
    """A journal that resumes: its first lines as they were, then whole
    journal lines (a torn last line only after SIGKILL, which the resume
    drops with a warning). Time lines (`#@ SECONDS`) may stand anywhere
    after line 1: a compacted journal has one before its first change."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    head, *first = JOURNAL.split("\n")[:2]
    lines = text.split("\n")
    if lines[0] != head:
        return False
    body = lines[1:]
    if body[-1] != "" and fault != "SIGKILL":
        return False
    changes = [line for line in body[:-1] if not line.startswith("#@ ")]
    if changes[:1] != first:
        return False
    return all(JOURNAL_LINE.fullmatch(line) for line in body[:-1])


def history_whole(old):
    """Whole lines: a window of the old lines and the typed one, at their
    end, at most 1000 lines (1001 only when SIGKILL came between the append
    and the cut), never a line cut in two."""
    lines = old.splitlines() + ["add"]

    def whole(text, fault):
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        if text and not text.endswith("\n"):
            return False
        found = text.splitlines()
        most = 1001 if fault == "SIGKILL" else 1000
        if len(found) > most:
            return False
        for end in (len(lines) - 1, len(lines)):
            if found == lines[max(0, end - len(found)):end]:
                return True
        return False
    return whole


def writers():
    nobody = {"user": "nobody"}
    return [
        Writer("save new", {}, ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"], ["t.hand"]),
        Writer("save replaced", {"t.hand": OLD}, ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"],
               ["t.hand"]),
        Writer("save hard-linked", {"t.hand": OLD, "@link u.hand": "t.hand"},
               ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"], ["t.hand"], in_place=True),
        Writer("save in a read-only folder", {"ro/t.hand": OLD, "@ro ro": ""},
               ["-s", "1", "-q", "-c", SCRIPT + "; save ro/t.hand"], ["ro/t.hand"],
               in_place=True, **nobody),
        Writer("save into its own stream", {"out.txt": OLD},
               ["-s", "1", "-q", "-c", SCRIPT + "; save /dev/stdout"], ["out.txt"],
               in_place=True, stdout="out.txt", reduced=False),
        Writer("save through a link", {"real/t.hand": OLD, "@symlink t.hand": "real/t.hand"},
               ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"], ["real/t.hand", "t.hand"],
               reduced=False),
        Writer("save new, 20,000 commands", {"gen20k.hand": GEN20K}, ["-s", "1", "-q", "-c", LONG],
               ["t.hand"], cap=12, reduced=False),
        Writer("save replaced, 20,000 commands", {"gen20k.hand": GEN20K, "t.hand": OLD},
               ["-s", "1", "-q", "-c", LONG], ["t.hand"], cap=12),
        Writer("save 21 MB hard-linked, 20,000 commands",
               {"gen20k.hand": GEN20K, "t.hand": "@21M", "@link u.hand": "t.hand"},
               ["-s", "1", "-q", "-c", LONG], ["t.hand"], in_place=True, cap=8),
        Writer("save unreadable hard-linked (refused)",
               {"gen20k.hand": GEN20K, "t.hand": OLD, "@link u.hand": "t.hand",
                "@chmod t.hand": "200"},
               ["-s", "1", "-q", "-c", LONG], ["t.hand"], refused="Permission denied", cap=8, **nobody),
        Writer("save 70 MiB hard-linked (refused)",
               {"gen20k.hand": GEN20K, "t.hand": "@70M", "@link u.hand": "t.hand"},
               ["-s", "1", "-q", "-c", LONG], ["t.hand"], refused="File too large", cap=3),
        Writer("save new, no O_TMPFILE", {}, ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"],
               ["t.hand"], no_tmpfile=True),
        Writer("save replaced, no O_TMPFILE", {"t.hand": OLD},
               ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"], ["t.hand"], no_tmpfile=True,
               reduced=False),
        Writer("save over a bind-mounted file (rename: EBUSY)", {"t.hand": OLD},
               ["-s", "1", "-q", "-c", SCRIPT + "; save t.hand"], ["t.hand"], in_place=True,
               fixed=("rename,renameat,renameat2", "error=EBUSY"), reduced=False),
        Writer("--update -j 1", {"a.hand": GOLDEN}, ["--test", "--update", "-j", "1", "a.hand"],
               ["a.hand"], reduced=False),
        Writer("--update -j 8", {f"g{n}.hand": GOLDEN for n in range(8)},
               ["--test", "--update", "-j", "8"] + [f"g{n}.hand" for n in range(8)],
               [f"g{n}.hand" for n in range(8)], cap=12),
        Writer("--update hard-linked", {"a.hand": GOLDEN, "@link b.hand": "a.hand"},
               ["--test", "--update", "-j", "1", "a.hand"], ["a.hand"], in_place=True),
        Writer("--review", {"a.hand": GOLDEN}, ["--test", "--review", "-j", "1", "a.hand"],
               ["a.hand"], prompt=["a\r"], marker=b"Accept this block", reduced=False),
        Writer("--junit", {"p.hand": "add\n#> 7♦\n", "report.xml": OLD},
               ["-s", "1", "--test", "--junit", "report.xml", "p.hand"], ["report.xml"],
               whole=well_formed_junit),
        # Ended by a signal before `add` was typed, the recording is of a
        # session of no lines: whole too.
        Writer("--record", {}, ["-s", "1", "--record", "rec.hand"], ["rec.hand"],
               prompt=["add\r", "\x04"],
               between={"rec.hand": "#!/usr/bin/env -S handsh --seed 1\n"}),
        Writer("history append", {"hist": SHORT_HISTORY}, ["-s", "1", "-q"], ["hist"],
               in_place=True, prompt=["add\r", "\x04"], env={"HANDSH_HISTORY": "hist"},
               whole=history_whole(SHORT_HISTORY), reduced=False),
        Writer("history cut", {"hist": HISTORY}, ["-s", "1", "-q"], ["hist"],
               in_place=True, prompt=["add\r", "\x04"], env={"HANDSH_HISTORY": "hist"},
               whole=history_whole(HISTORY)),
        # The journal: each change's line appended ahead of its result.
        Writer("--journal (a script)", {"j.hand": JOURNAL, "long.hand": JOURNAL_SCRIPT},
               ["--journal", "j.hand", "long.hand"], ["j.hand"], in_place=True,
               whole=journal_whole),
        Writer("--journal (the prompt)", {"j.hand": JOURNAL}, ["--journal", "j.hand", "-q"],
               ["j.hand"], in_place=True, prompt=["add\r", "add; undo\r", "\x04"],
               whole=journal_whole),
        # Compaction: the rewrite, its flushes, its naming, the rename and
        # the folder's flush, faulted at every call; SIGKILL too leaves the
        # old file or the new one, whole.
        Writer("--journal (compaction)", {"j.hand": JOURNAL_MOVES},
               ["--journal", "j.hand", "-q", "-c", "add"], ["j.hand"], whole=journal_whole),
    ]
