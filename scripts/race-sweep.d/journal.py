"""race-sweep: the journal's own races: the journal renamed away, replaced
or removed while a session keeps it, and another program's lock on it."""

import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from attacker import as_nobody
from runs import TIMEOUT


def journal_race(binary, base, kind, delay):
    """One race on a journal in use; the problem, or None."""
    folder = Path(tempfile.mkdtemp(dir=base))
    os.chmod(folder, 0o755)
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no", HANDSH_HISTORY="")
    journal = folder / "g.hand"
    subprocess.run([str(binary), "--journal", str(journal), "--seed", "1", "-q", "-c", "add"],
                   env=env, check=True, timeout=TIMEOUT)
    if kind == "lock":
        return lock_race(binary, folder, journal, env)
    child = subprocess.Popen([str(binary), "--journal", str(journal), "-"], cwd=folder,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    shown = []
    try:
        start = time.monotonic()
        swapped = False
        while child.poll() is None and time.monotonic() - start < 5:
            try:
                child.stdin.write(b"undo\n" if len(shown) % 2 else b"add\n")
                child.stdin.flush()
            except BrokenPipeError:
                break
            shown.append(child.stdout.readline().decode().rstrip("\n"))
            if not swapped and time.monotonic() - start >= delay:
                swapped = True
                if kind == "rename":
                    os.rename(journal, folder / "moved.hand")
                elif kind == "replace":
                    shutil.copy(journal, folder / "g.new")
                    os.rename(folder / "g.new", journal)
                    replacement = journal.read_bytes()
                else:
                    journal.unlink()
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass
        out = child.stdout.read()
        err = child.stderr.read()
        child.wait(timeout=TIMEOUT)
    except (subprocess.TimeoutExpired, OSError) as error:
        child.kill()
        child.wait()
        shutil.rmtree(folder)
        return f"{kind}: {error}"
    shown += [line for line in out.decode().split("\n")[:-1]]
    err = err.decode()
    problem = None
    kept = {"rename": "g.hand", "replace": "g.hand.1", "remove": "g.hand"}[kind]
    if child.returncode != 2 or not err.endswith(f"; kept as {folder / kept}\n"):
        problem = f"{kind}: status {child.returncode}, {err!r}"
    elif kind == "replace" and journal.read_bytes() != replacement:
        problem = "replace: the replacing file was written over"
    else:
        resumed = subprocess.run(
            [str(binary), "--journal", str(folder / kept), "-q", "--json", "-c", "history"],
            capture_output=True, env=env, timeout=TIMEOUT)
        hands = {" ".join(json.loads(line)["hand"]) or "(empty)"
                 for line in resumed.stdout.decode().splitlines()}
        missing = [line for line in shown if line and line not in hands]
        if resumed.returncode != 0 or missing:
            problem = f"{kind}: resumed {resumed.returncode}, shown but not kept: {missing[:3]}"
    shutil.rmtree(folder)
    return problem


def lock_race(binary, folder, journal, env):
    """Another user's shared lock on a 0644 journal: a second session must
    say `locked by another program`; the problem, or None."""
    os.chmod(journal, 0o644)
    holder = subprocess.Popen(["flock", "-s", str(journal), "sleep", "3"],
                              preexec_fn=as_nobody)
    try:
        for _ in range(100):
            run = subprocess.run([str(binary), "--journal", str(journal), "-q", "-c", "add"],
                                 capture_output=True, env=env, timeout=TIMEOUT)
            if run.returncode != 0:
                break
            time.sleep(0.02)
    finally:
        holder.kill()
        holder.wait()
    shutil.rmtree(folder)
    expected = f"handsh: cannot use journal {journal}: locked by another program\n"
    if run.returncode != 2 or run.stderr.decode() != expected:
        return f"lock: status {run.returncode}, {run.stderr.decode()!r}"
    return None


def journal_races(binary, base, runs, verbose):
    """The journal's races, `runs` of each kind; (passed, failed, runs)."""
    passed = failed = 0
    rng = random.Random()
    for kind in ("rename", "replace", "remove", "lock"):
        problems = 0
        for _ in range(runs):
            problem = journal_race(binary, base, kind, rng.uniform(0.0, 0.5))
            if problem:
                problems += 1
                print(f"FAIL journal {problem}", flush=True)
        if verbose or problems == 0:
            print(f"ok   journal {kind}: {runs} runs", flush=True)
        passed += problems == 0
        failed += problems != 0
    return passed, failed, 4 * runs
