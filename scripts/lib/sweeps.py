"""What every sweep of handsh shares (scripts/crash-sweep, race-sweep,
power-cut): the environment handsh runs in, a scratch folder that goes away
whatever happens, keys typed at the prompt, and the line that says how one
writer or case fared."""

import contextlib
import os
import select
import shutil
import subprocess
import tempfile
import time
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


def converse(main, child, keys, deadline, patience=None):
    """Types each of KEYS into the pseudo-terminal MAIN when CHILD shows its
    next prompt (`handsh> `), or, given PATIENCE, after that many seconds
    without one (a key that cannot be written then ends the typing; without
    PATIENCE the error is raised); reads what CHILD writes until it ends, its
    terminal fails, or DEADLINE (time.monotonic()) passes. What it wrote."""
    seen = b""
    pending = list(keys)
    typed = time.monotonic()
    while time.monotonic() < deadline and child.poll() is None:
        prompted = seen.count(b"handsh> ") >= len(keys) - len(pending) + 1
        waited = patience is not None and time.monotonic() - typed > patience
        if pending and (prompted or waited):
            try:
                os.write(main, pending.pop(0).encode())
            except OSError:
                if patience is None:
                    raise
                pending = []
            typed = time.monotonic()
        ready, _, _ = select.select([main], [], [], 0.05)
        if ready:
            try:
                seen += os.read(main, 4096)
            except OSError:
                break
    return seen


def wait_or_kill(child, main, deadline):
    """Waits for `child` until `deadline`, killing it then, and closes the
    pseudo-terminal's `main` side. False when it had to be killed (hung)."""
    try:
        child.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return False
    finally:
        os.close(main)
    return True
