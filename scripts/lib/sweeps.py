"""What every sweep of handsh shares (scripts/crash-sweep, race-sweep,
power-cut): the environment handsh runs in, a scratch folder that goes away
whatever happens, and the line that says how one writer or case fared."""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def environment(**more):
    """The caller's environment for a run of handsh, with no history file,
    no colour switch, a dumb terminal, a UTF-8 locale, no backtraces and no
    readline init file; then MORE (HOME, say)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HANDSH_HISTORY", "NO_COLOR")}
    env.update(HANDSH_HISTORY="", TERM="dumb", LC_ALL="C.UTF-8", SWIFT_BACKTRACE="enable=no",
               INPUTRC="/dev/null")
    env.update(more)
    return env


@contextlib.contextmanager
def scratch_folder(prefix):
    """A new folder in the temporary folder, 0755 so that another user may
    go through it, removed at the end however the sweep ends."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def report(label, problems):
    """`ok   LABEL`, or `FAIL LABEL — PROBLEM; PROBLEM`."""
    print(("FAIL " if problems else "ok   ") + label
          + ("" if not problems else " — " + "; ".join(problems)), flush=True)
