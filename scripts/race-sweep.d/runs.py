"""race-sweep: one run of handsh, by root: widened by strace (a little
sleep after each call that looks at a name), at a pseudo-terminal when it
types at the prompt, killed whole when it hangs."""

import os
import pty
import signal
import subprocess
import time

from sweeps import converse, environment, wait_or_kill

TIMEOUT = 20
WIDEN = "newfstatat,faccessat2,statx,readlink,readlinkat:delay_exit=1500"


def child_setup():
    """Every signal at its default, whatever the sweep's parent ignored."""
    for number in range(1, signal.SIGRTMAX + 1):
        if number not in (signal.SIGKILL, signal.SIGSTOP, 32, 33):
            try:
                signal.signal(number, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def run(binary, case, base, widen, outputs=False):
    command = [str(binary), "--color=never"] + case.command
    if widen:
        command = ["strace", "-f", "-qq", "-o", os.devnull, "-e", "trace=none", "-e",
                   "inject=" + WIDEN] + command
    env = environment(HOME=str(base / "private"))
    env.update({k: str(base / v) for k, v in case.env.items()})
    if case.prompt:
        return run_at_prompt(command, case, base, env)
    # A session of its own, so that a run that hangs is killed whole (strace
    # and handsh under it), never left behind.
    child = subprocess.Popen(command, cwd=base, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=child_setup, start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return None, "hung"
    done = subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
    if outputs:
        return done.returncode, (done.stdout.decode("utf-8", "replace"),
                                 done.stderr.decode("utf-8", "replace"))
    return done.returncode, done.stderr.decode("utf-8", "replace")


def run_at_prompt(command, case, base, env):
    main, side = pty.openpty()
    child = subprocess.Popen(command, cwd=base, env=env, stdin=side, stdout=side, stderr=side,
                             start_new_session=True, preexec_fn=child_setup)
    os.close(side)
    deadline = time.monotonic() + TIMEOUT
    seen = converse(main, child, case.prompt, deadline, patience=1.0)
    if not wait_or_kill(child, main, deadline):
        return None, "hung"
    return child.returncode, seen.decode("utf-8", "replace")
