"""crash-sweep: one faulted run and its verdict: how it ended (the signal
injected, a status of 0, 1 or 2, a message), which temporary files it left,
and whether each target holds its old content or its new one, whole."""

import re
import shutil
import tempfile
from pathlib import Path

from calls import NUMBERS
from runs import contents, lay_out, run, temporaries
from sweeps import report
from writers import untimed


def one(args):
    binary, writer, base, old, new, syscall, when, fault, tmpfile, verbose = args
    folder = Path(tempfile.mkdtemp(dir=base))
    shutil.rmtree(folder)
    lay_out(writer, folder)
    trace = folder.parent / (folder.name + ".trace")
    kind = "signal" if fault.startswith("SIG") else "error"
    lasting = fault.endswith("+")
    inject = f"{syscall}:{kind}={fault.rstrip('+')}:when={when}" + ("+" if lasting else "")
    injects = [inject]
    if tmpfile:
        injects.append(f"openat:error=EOPNOTSUPP:when={tmpfile}")
    if writer.fixed:
        injects.append(":".join(writer.fixed))
    status, died, output, hung = run(binary, writer, folder, injects, trace)
    traced = Path(trace).read_text(errors="replace") if Path(trace).exists() else ""
    trace.unlink(missing_ok=True)
    injected = injected_count(traced, writer, fault, kind, tmpfile)
    if status == 127 and "error while loading shared libraries" in output:
        # A lasting fault counted on a worker thread reaches the main
        # thread's loader too (strace counts per thread): the loader's
        # message, before any of handsh ran; nothing to check.
        status, output = 0, output + " (loader)"
    problems = ending_problems(writer, fault, traced, status, died, output, hung, injected)
    left, window = leftovers(folder, writer, traced, new, syscall, fault)
    if left:
        problems.append(f"temporary files left: {left}")
    problems += target_problems(folder, writer, fault, status, output, old, new)
    shutil.rmtree(folder, ignore_errors=True)
    label = f"{writer.name}: {inject}"
    if verbose or problems:
        report(label, problems)
    return not problems, injected, window, fault


def injected_count(traced, writer, fault, kind, tmpfile):
    """How many faults of the run's own strace reports (not the O_TMPFILE
    refusal's, nor the fixed fault's); for a signal, 1 if it came."""
    injected = sum(1 for line in traced.splitlines()
                   if "INJECTED" in line and not (tmpfile and "O_TMPFILE" in line)
                   and not (writer.fixed and re.match(r"^\d+\s+(rename|renameat|renameat2)\(",
                                                      line)))
    if kind == "signal":
        injected = int(any(f"--- {fault} " in line or "+++ killed by" in line
                           for line in traced.splitlines()))
    return injected


def ending_problems(writer, fault, traced, status, died, output, hung, injected):
    """What is wrong with how the run ended: a hang, the wrong signal, a
    signal survived, a status other than 0, 1 or 2, a failure unsaid."""
    # A fault that took the message's own write (a lasting write fault):
    # then no message can be asked for.
    muted = re.search(r"^\d+\s+write\([12]<[^\n]*INJECTED", traced, re.M) is not None
    problems = []
    if hung:
        problems.append("hung")
    expected = NUMBERS.get(fault)
    if died is not None and died != expected:
        problems.append(f"died of signal {died}" + (f", not {fault}" if expected else ""))
    if (expected and died is None and not hung and injected
            and not (fault == "SIGINT" and writer.prompt)):
        problems.append(f"survived {fault} (status {status})")
    if status is not None and status not in (0, 1, 2):
        problems.append(f"status {status}")
    if status not in (None, 0) and not output.strip() and not muted:
        problems.append(f"status {status} with no message")
    return problems


def leftovers(folder, writer, traced, new, syscall, fault):
    """The temporary files the run left that no rule allows, and 1 if
    SIGKILL left one in the window between naming and rename (else 0)."""
    lasting = fault.endswith("+")
    left = temporaries(folder)
    # The one window no unnamed file closes: a replaced file's temporary
    # name, given (whole) just before its rename, when SIGKILL comes in
    # between (at the rename, or on another thread meanwhile). Counted.
    window = 0
    if fault == "SIGKILL":
        for name in list(left):
            path = folder / name
            target = str(Path(name).parent / re.sub(r"^\.(.*)\.tmp-\w{6}$", r"\1", path.name))
            # Named by linkat once whole, not made by mkstemp and filled.
            named = re.search(r'linkat\(.*["/]' + re.escape(path.name) + r'", AT_SYMLINK', traced)
            if named and target in new and untimed(contents(folder, [name])[name]) == untimed(
                    new[target]):
                left.remove(name)
                window = 1
            elif writer.no_tmpfile:
                # Without O_TMPFILE, nothing can keep SIGKILL from leaving one.
                left.remove(name)
    if lasting and syscall in ("unlink", "unlinkat") and writer.fixed:
        # The rename refused (EBUSY) and every unlink failing from then on:
        # nothing can take the temporary name away. The target stays whole
        # (checked above) and the copy left is the new content, whole.
        for name in list(left):
            target = str(Path(name).parent / re.sub(r"^\.(.*)\.tmp-\w{6}$", r"\1",
                                                    (folder / name).name))
            if target in new and untimed(contents(folder, [name])[name]) == untimed(new[target]):
                left.remove(name)
    return left, window


def target_problems(folder, writer, fault, status, output, old, new):
    """Each target that holds neither its old content nor its new one (nor
    content whole in its own way), or was silently not written."""
    problems = []
    # A file whose old content could not be put back either (the fault
    # lasting) is damaged, and the message must say so.
    damaged = status in (1, 2) and "could not be put back" in output
    if not (fault == "SIGKILL" and writer.in_place) and not damaged:
        now = contents(folder, writer.targets)
        for target in writer.targets:
            between = writer.between.get(target)
            # Two runs differ in their time lines alone.
            allowed = [untimed(x) for x in (old[target], new[target], between and between.encode())]
            if (untimed(now[target]) not in allowed
                    and not (now[target] and writer.whole(now[target], fault))):
                shown = now[target][:80] if now[target] else now[target]
                problems.append(f"{target} is neither old nor new: {shown!r} "
                                f"({len(now[target] or b'')} bytes)")
            if (status == 0 and untimed(now[target]) != untimed(new[target])
                    and not output.strip()):
                problems.append(f"{target} silently not written")
    return problems
