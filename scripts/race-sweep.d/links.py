"""race-sweep: another user's links, swapped in while root's runs of handsh
work: the victims laid out and looked at, and each case's runs judged."""

import os
import shutil
import signal

from attacker import attack
from runs import run
from sweeps import report

VICTIM = "limit 7\n# root's own file: no run may change it\n"


def snapshot(base):
    """All there is to know of the victims."""
    found = []
    for path in [base / "victim.hand", base / "victimdir"] + sorted(
            (base / "victimdir").iterdir()):
        info = os.lstat(path)
        found.append((path.name, info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode,
                      info.st_uid, path.read_bytes() if path.is_file() else None))
    return found


def lay_out(base):
    """The victims (root's), the sticky folder, root's private folder."""
    for name in ("sticky", "private", "victimdir"):
        shutil.rmtree(base / name, ignore_errors=True)
    for name in ("victim.hand", "victim-link.hand"):
        (base / name).unlink(missing_ok=True)
    (base / "victim.hand").write_text(VICTIM)
    # Hard-linked, as the attacker's own file is: nothing in how the two
    # files look tells them apart.
    os.link(base / "victim.hand", base / "victim-link.hand")
    (base / "victimdir").mkdir()
    (base / "victimdir" / "x.hand").write_text(VICTIM)
    (base / "sticky").mkdir()
    os.chmod(base / "sticky", 0o1777)
    (base / "private").mkdir(mode=0o700)
    (base / "private" / "p.hand").write_text("add\n#> 7♦\n")


def sweep(binary, case, base, runs, widen, verbose):
    lay_out(base)
    before = snapshot(base)
    ready, done = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready)
        try:
            attack(case, base, done)
        finally:
            os._exit(0)
    os.close(done)
    os.read(ready, 1)
    os.close(ready)
    changed = through = hung = crashed = refused = 0
    try:
        for number in range(runs):
            status, output = run(binary, case, base, widen)
            hung += status is None
            crashed += status is not None and status < 0
            refused += status not in (None, 0)
            after = snapshot(base)
            if after != before:
                changed += 1
                if verbose or changed == 1:
                    print(f"  {case.name}: run {number + 1} changed the victim", flush=True)
                # Put it back as it was, for the next run to be judged alone.
                os.kill(pid, signal.SIGSTOP)
                for path in (base / "victimdir").iterdir():
                    if path.name != "x.hand":
                        path.unlink()
                for path in (base / "victim.hand", base / "victimdir" / "x.hand"):
                    path.unlink(missing_ok=True)
                    path.write_text(VICTIM)
                (base / "victim-link.hand").unlink(missing_ok=True)
                os.link(base / "victim.hand", base / "victim-link.hand")
                os.kill(pid, signal.SIGCONT)
                before = snapshot(base)
            out = base / "private" / "out.hand"
            if case.reads and out.exists():
                if "limit 7" in out.read_text(errors="replace"):
                    through += 1
                    if verbose or through == 1:
                        print(f"  {case.name}: run {number + 1} read the victim", flush=True)
                out.unlink()
            # Root's own leftovers in the sticky folder, which the attacker
            # may not remove: taken away so that it can go on swapping.
            for name in ("t.hand", ".spare", "dirlink"):
                path = base / "sticky" / name
                try:
                    if os.lstat(path).st_uid == 0:
                        path.unlink()
                except OSError:
                    pass
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    static = case.mode.startswith("static")
    problems = []
    if changed:
        problems.append(f"the victim changed in {changed} of {runs} runs")
    if through:
        problems.append(f"read the victim through the link in {through} of {runs} runs")
    if hung:
        problems.append(f"{hung} runs hung")
    if crashed:
        problems.append(f"{crashed} runs died of a signal")
    if static and refused < runs and not case.prompt:
        problems.append(f"the planted link was refused in only {refused} of {runs} runs")
    report(f"{case.name}: {runs} runs", problems)
    return not problems, runs, changed, through
