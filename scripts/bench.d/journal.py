"""scripts/bench: the journal and `history tree`.

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, shutil, statistics, subprocess, sys, time

bin_, cache, script, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
journal = os.path.join(cache, "journal-bench.hand")

cpu = {}   # the CPU time (user plus system) of each timed run, by its argv
peaks = {}  # the peak RSS in KiB of each timed run, by its argv

def timed(argv, stdin=None):
    """Wall seconds; the run's CPU time and peak RSS are kept in `cpu` and
    `peaks` (from wait4, the child's own)."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(argv, stdout=null, stderr=subprocess.DEVNULL,
                                 stdin=open(stdin) if stdin else None)
        _, status, ru = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit("bench: %s exited %d" % (" ".join(argv), child.returncode))
    key = " ".join(argv)
    cpu.setdefault(key, []).append(ru.ru_utime + ru.ru_stime)
    peaks[key] = max(peaks.get(key, 0), ru.ru_maxrss)
    return time.perf_counter() - t0

plain, kept = [], []
plain_argv = [bin_, "-q", "--seed", "1", script]
kept_argv = [bin_, "-q", "--seed", "1", "--journal", journal, script]
for _ in range(runs):
    plain.append(timed(plain_argv))
    if os.path.exists(journal):
        os.unlink(journal)
    kept.append(timed(kept_argv))
resume, replay = [], []
resume_argv = [bin_, "--journal", journal, "-q", "-c", ""]
replay_argv = [bin_, "-q", journal]
for _ in range(runs):
    resume.append(timed(resume_argv))
    replay.append(timed(replay_argv))

# Peak memory with --journal for the 1M-version examples of the limits:
# `new` with the largest seed, and 52-card hands (limit 52, then new and 52
# adds over and over), each beside the same script without a journal.
examples = []
# The files are written by another process: a forked child's peak RSS
# starts at its parent's, which must stay small.
for name, text in (
        ("1M new <largest seed>", "'new 18446744073709551615\\n' * 1000000"),
        ("1M versions of 52-card hands",
         "'limit 52\\n' + ('new 1\\n' + 'add\\n' * 52) * (1000000 // 53 + 1)")):
    path = os.path.join(cache, "journal-example.hand")
    subprocess.run([sys.executable, "-c",
                    "import sys; open(sys.argv[1], 'w').write(%s)" % text, path], check=True)
    example_journal = os.path.join(cache, "journal-example-kept.hand")
    plain_e, kept_e = [], []
    for _ in range(runs):
        if os.path.exists(example_journal):
            os.unlink(example_journal)
        plain_e.append(timed([bin_, "-q", "--seed", "1", path]))
        kept_e.append(timed([bin_, "-q", "--seed", "1", "--journal", example_journal, path]))
    examples.append((name, peaks[" ".join([bin_, "-q", "--seed", "1", path])],
                     peaks[" ".join([bin_, "-q", "--seed", "1", "--journal", example_journal,
                                     path])]))
    for leftover in (path, example_journal):
        os.unlink(leftover)
with_history = os.path.join(cache, "journal-history.hand")
with_tree = os.path.join(cache, "journal-tree.hand")
for path, last in ((with_history, "history\n"), (with_tree, "history tree\n")):
    with open(script) as f, open(path, "w") as g:
        shutil.copyfileobj(f, g)
        g.write(last)
hist, tree = [], []
for _ in range(runs):
    hist.append(timed([bin_, "-q", "--seed", "1", with_history]))
    tree.append(timed([bin_, "-q", "--seed", "1", with_tree]))

def instructions(argv):
    valgrind = shutil.which("valgrind")
    if not valgrind:
        return None
    stripped = os.path.join(cache, "handsh-stripped")
    shutil.copy(bin_, stripped)
    subprocess.call(["strip", "--strip-debug", stripped])
    out = os.path.join(cache, "callgrind.out")
    argv = [stripped if a == bin_ else a for a in argv]
    r = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=" + out] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    os.unlink(out)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    return None

small = os.path.join(cache, "journal-100000.hand")
with open(script) as f, open(small, "w") as g:
    for i, line in enumerate(f):
        if i == 100000:
            break
        g.write(line)
small_journal = os.path.join(cache, "journal-small.hand")
if os.path.exists(small_journal):
    os.unlink(small_journal)
i_plain = instructions([bin_, "-q", "--seed", "1", small])
i_kept = instructions([bin_, "-q", "--seed", "1", "--journal", small_journal, small])
for path in (with_history, with_tree, small, small_journal, journal):
    if os.path.exists(path):
        os.unlink(path)

m = statistics.median
print()
print("%-44s %11s %11s" % ("journal and tree (1M commands)", "median", "min"))
print("%-44s %11s %11s" % ("-" * 44, "-" * 11, "-" * 11))
for what, xs in (("-q", plain), ("-q --journal", kept), ("resume the journal", resume),
                 ("the journal run as a script, -q", replay), ("then history", hist),
                 ("then history tree", tree)):
    print("%-44s %9.3f s %9.3f s" % (what, m(xs), min(xs)))
c = lambda argv: m(cpu[" ".join(argv)])
print()
print("%-44s %11s %11s" % ("CPU time, user + system (1M commands)", "median", "peak RSS"))
print("%-44s %11s %11s" % ("-" * 44, "-" * 11, "-" * 11))
for what, argv in (("-q", plain_argv), ("-q --journal", kept_argv),
                   ("resume the journal", resume_argv),
                   ("the journal run as a script, -q", replay_argv)):
    print("%-44s %9.3f s %7.1f MiB" % (what, c(argv), peaks[" ".join(argv)] / 1024))
for name, without, with_journal in examples:
    print("%-44s %11s %7.1f MiB" % (name + ", -q", "", without / 1024))
    print("%-44s %11s %7.1f MiB" % (name + ", -q --journal", "", with_journal / 1024))
checks = [
    ("a journal's cost (CPU)", c(kept_argv) / c(plain_argv), 1.2),
    ("resume / run as a script (CPU)", c(resume_argv) / c(replay_argv), 1.1),
    ("a journal's cost (wall)", m(kept) / m(plain), 1.3),
    ("resume / run as a script (wall)", m(resume) / m(replay), 1.2),
    ("history tree / history (wall)", m(tree) / m(hist), 2.0),
]
mib_checks = [(name + " with --journal: peak", with_journal / 1024, 64)
              for name, _, with_journal in examples]
mib_checks.append(("1M commands with --journal: peak", peaks[" ".join(kept_argv)] / 1024, 64))
if i_plain and i_kept:
    checks.insert(1, ("a journal's cost (instructions, 100k)", i_kept / i_plain, 1.3))
print()
print("%-40s %11s %13s  %s" % ("target (journal and tree)", "measured", "target", "result"))
print("%-40s %11s %13s  %s" % ("-" * 40, "-" * 11, "-" * 13, "------"))
for what, v, t in checks:
    print("%-40s %10.2fx %12s  %s" % (what, v, "<= %.1fx" % t, "PASS" if v <= t else "FAIL"))
for what, v, t in mib_checks:
    print("%-40s %7.1f MiB %9s MiB  %s" % (what, v, "< %d" % t, "PASS" if v < t else "FAIL"))
