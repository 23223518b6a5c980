"""crash-sweep: one run of a writer: its folder laid out, handsh under
strace (with the faults to inject), at a pseudo-terminal when it types at
the prompt; and what the run left (the targets' contents, temporary files)."""

import hashlib
import os
import pty
import re
import resource
import select
import shutil
import signal
import subprocess
import time

from calls import NUMBERS, SYSCALLS, call_numbers
from sweeps import environment, wait_or_kill
from writers import big

TIMEOUT = 30


def lay_out(writer, folder):
    folder.mkdir(parents=True)
    os.chmod(folder, 0o755)
    later = []
    for name, text in writer.files.items():
        if name.startswith("@"):
            later.append((name, text))
            continue
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("@"):
            path.write_bytes(big(text[1:]))
        else:
            path.write_text(text)
        if writer.user:
            os.chown(path, 65534, 65534)
    for name, text in later:
        kind, name = name.split(" ", 1)
        if kind == "@link":
            os.link(folder / text, folder / name)
        elif kind == "@symlink":
            os.symlink(text, folder / name)
        elif kind == "@chmod":
            os.chmod(folder / name, int(text, 8))
        elif kind == "@ro":
            os.chmod(folder / name, 0o555)


def child_setup():
    """No core files; and every signal at its default, whatever the sweep's
    own parent left ignored (nohup ignores SIGHUP, `&` SIGINT and SIGQUIT):
    handsh keeps an ignored signal ignored, as it should, and would then
    rightly survive it."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for number in NUMBERS.values():
        if number != 9:
            signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def run(binary, writer, folder, injects=(), trace=None):
    """Runs the writer in FOLDER, under strace. Returns (status, signal,
    output, timed out)."""
    strace = ["strace", "-f", "-qq", "-y", "-o", str(trace or os.devnull)]
    if writer.user:
        strace += ["-u", writer.user]
    strace += ["-e", "trace=" + ",".join(SYSCALLS)]
    for inject in injects:
        strace += ["-e", "inject=" + inject]
    command = strace + [str(binary), "--color=never"] + writer.command
    env = environment(HOME=str(folder))
    env.update({k: str(folder / v) for k, v in writer.env.items()})
    if writer.prompt:
        return run_at_prompt(command, writer, folder, env)
    stdout = open(folder / writer.stdout, "ab") if writer.stdout else subprocess.PIPE
    try:
        done = subprocess.run(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                              stdout=stdout, stderr=subprocess.PIPE, timeout=TIMEOUT,
                              preexec_fn=child_setup)
    except subprocess.TimeoutExpired:
        return None, None, "", True
    finally:
        if writer.stdout:
            stdout.close()
    output = (done.stderr or b"").decode("utf-8", "replace")
    code = done.returncode
    return (code, None, output, False) if code >= 0 else (None, -code, output, False)


def run_at_prompt(command, writer, folder, env):
    main, side = pty.openpty()
    child = subprocess.Popen(command, cwd=folder, env=env, stdin=side, stdout=side, stderr=side,
                             start_new_session=True, preexec_fn=child_setup)
    os.close(side)
    seen = b""
    keys = list(writer.prompt)
    deadline = time.monotonic() + TIMEOUT
    typed = time.monotonic()
    while time.monotonic() < deadline:
        # The next key at the next prompt, or after a second without one
        # (a fault may have cost the prompt its drawing).
        prompted = seen.count(writer.marker) >= len(writer.prompt) - len(keys) + 1
        if not keys and time.monotonic() - typed > 2.0 and child.poll() is None:
            # A SIGINT may have dropped the Control-D: once more.
            keys = ["\x04"]
        if keys and (prompted or time.monotonic() - typed > 1.0):
            try:
                os.write(main, keys.pop(0).encode())
            except OSError:
                keys = []
            typed = time.monotonic()
        ready, _, _ = select.select([main], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            seen += chunk
        elif child.poll() is not None:
            break
    if not wait_or_kill(child, main, deadline):
        return None, None, seen.decode("utf-8", "replace"), True
    code = child.returncode
    output = seen.decode("utf-8", "replace")
    return (code, None, output, False) if code >= 0 else (None, -code, output, False)


def contents(folder, targets):
    found = {}
    for target in targets:
        path = folder / target
        if not path.exists():
            found[target] = None
            continue
        data = path.read_bytes()
        if len(data) > 4_000_000:
            found[target] = b"sha256:" + hashlib.sha256(data).hexdigest().encode()
            continue
        # A JUnit report says how long the tests took: not part of "whole".
        found[target] = re.sub(rb'time="[^"]*"', b'time=""', data)
    return found


def temporaries(folder):
    return [str(p.relative_to(folder)) for p in folder.rglob("*") if ".tmp-" in p.name]


def refuse_tmpfile(binary, writer, reference, trace):
    """The range of N (`A..B`) of openat that refuses every O_TMPFILE open
    of the writer, as a file system without it would; None if they are not
    one after the other (strace takes one inject per call)."""
    first = last = None
    for _ in range(8):
        injects = [f"openat:error=EOPNOTSUPP:when={first}..{last}"] if first else []
        run(binary, writer, reference, injects, trace)
        _, opened = call_numbers(trace, reference)
        shutil.rmtree(reference)
        lay_out(writer, reference)
        if opened is None:
            return f"{first}..{last}" if first else None
        if first is None:
            first = last = opened
        elif opened == last + 1:
            last = opened
        else:
            return None
    return None
