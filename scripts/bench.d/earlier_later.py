"""scripts/bench: back and forth in time: `earlier` and `later` on a million versions.

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, shutil, subprocess, sys

bin_, cache = sys.argv[1], sys.argv[2]
count = 1_000_000
start = 1_700_000_000

def journal(path, back):
    """The journal; `back`: the newest version made 2 000 s before the rest."""
    with open(path, "w") as f:
        f.write("#!/usr/bin/env -S handsh --seed 1 --limit 5\n")
        for number in range(1, count + 1):
            if number % 1000 == 1:
                f.write("#@ %d\n" % (start + number // 1000))
            if back and number == count:
                f.write("#@ %d\n" % (start - 2000))
            f.write("limit 4\n" if number % 2 else "limit 5\n")

valgrind = shutil.which("valgrind")
if not valgrind:
    sys.exit("bench: earlier and later need valgrind (callgrind)")
stripped = os.path.join(cache, "handsh-time-stripped")
shutil.copy(bin_, stripped)
subprocess.call(["strip", "--strip-debug", stripped])
paths = {back: os.path.join(cache, "time-%s.hand" % ("back" if back else "sorted"))
         for back in (False, True)}
for back, path in paths.items():
    journal(path, back)
copy = os.path.join(cache, "time-copy.hand")

def instructions(back, command):
    shutil.copy(paths[back], copy)
    out = os.path.join(cache, "callgrind-time.out")
    r = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=" + out,
                        stripped, "--journal", copy, "-q", "-c", command],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    os.unlink(out)
    if r.returncode != 0:
        sys.exit("bench: handsh --journal -c %r exited %d" % (command, r.returncode))
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    sys.exit("bench: callgrind gave no count")

base = {back: instructions(back, "") for back in (False, True)}
rows = [("goto 0", False), ("earlier 1s", False), ("earlier 1d", False),
        ("earlier 999999", False), ("earlier 1s", True)]
extra = {}
for command, back in rows:
    extra[(command, back)] = instructions(back, command) - base[back]
for path in list(paths.values()) + [copy, stripped]:
    if os.path.exists(path):
        os.unlink(path)
goto = extra[("goto 0", False)]
print()
print("%-52s %14s %8s  %s" % ("earlier and later (1M versions)", "instructions", "/ goto",
                               "target"))
print("%-52s %14s %8s  %s" % ("-" * 52, "-" * 14, "-" * 8, "------"))
for command, back in rows:
    what = command + (", the clock back at the newest" if back else "")
    value = extra[(command, back)]
    # earlier 1s goes one version back, and must cost no more than the goto
    # across it all; earlier 1d and earlier 999999 are gotos across it
    # all (to 0 and to 1), and cost that goto and their search (1% more).
    bound = goto if command == "earlier 1s" else goto * 1.01
    target = "" if back or command == "goto 0" else (
        "PASS" if value <= bound else "FAIL")
    print("%-52s %14d %8.4f  %s" % (what, value, value / goto, target))
