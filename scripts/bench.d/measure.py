"""scripts/bench: startup, throughput and peak memory of the generated scripts, golden tests against the shell loop, and input that cannot hurt (endless and very long lines).

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, platform, statistics, sys, time, datetime, subprocess

bin_, cache, key, runs, startup_runs, quick = sys.argv[1:7]
runs, startup_runs, quick = int(runs), int(startup_runs), quick == "1"
sizes = [int(s) for s in sys.argv[7:]]
env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
devnull = os.open(os.devnull, os.O_RDWR)


def run(argv, stdout=devnull, stderr=devnull):
    """One run: (seconds, peak RSS in KiB, exit status)."""
    fa = [(os.POSIX_SPAWN_DUP2, devnull, 0),
          (os.POSIX_SPAWN_DUP2, stdout, 1),
          (os.POSIX_SPAWN_DUP2, stderr, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    return t1 - t0, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def which(name):
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    sys.exit("bench: %s not found" % name)


def measure(named, n, rss_runs=3):
    """Alternate the commands n times after one warm-up each, then rss_runs
    times under GNU time. Per name: (list of seconds, peak KiB). A failed
    run stops the bench."""
    times = {k: [] for k, _ in named}
    rss = {k: 0 for k, _ in named}
    for i in range(n + 1):
        for k, argv in named:
            t, _, rc = run(argv)
            if rc != 0:
                sys.exit("bench: %s exited %d" % (" ".join(argv), rc))
            if i:
                times[k].append(t)
    rss_file = os.path.join(cache, "rss")
    for i in range(rss_runs):
        for k, argv in named:
            _, _, rc = run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv)
            if rc != 0:
                sys.exit("bench: %s exited %d" % (" ".join(argv), rc))
            rss[k] = max(rss[k], int(open(rss_file).read().split()[-1]))
    return {k: (times[k], rss[k]) for k, _ in named}


def check(argv, expected_path):
    """Run once with output kept: exit 0, empty stderr, stdout as expected."""
    out_path = os.path.join(cache, "last.out")
    err_path = os.path.join(cache, "last.err")
    with open(out_path, "wb") as o, open(err_path, "wb") as e:
        _, _, rc = run(argv, o.fileno(), e.fileno())
    err = open(err_path, "rb").read()
    if rc != 0 or err:
        sys.stderr.write("bench: %s exited %d; stderr:\n%s\n"
                         % (" ".join(argv), rc, err[:2000].decode("utf-8", "replace")))
        sys.exit(1)
    same = open(out_path, "rb").read() == open(expected_path, "rb").read()
    if not same:
        # A wrong binary's speed means nothing: stop before measuring it.
        sys.stderr.write("bench: output of %s differs from %s (see %s)\n"
                         % (" ".join(argv), expected_path, out_path))
        sys.exit(1)
    return same


def med(xs):
    return statistics.median(xs[0])


def peak(xs):
    return xs[1]


def fmt_t(s):
    return "%8.2f ms" % (s * 1e3) if s < 1 else "%8.3f s " % s


sqlite3, awk = which("sqlite3"), which("awk")
load0 = "%.2f" % os.getloadavg()[0]
rows = []      # (label, command, median s, min s, peak KiB, runs)

# Every script's output is checked before anything is measured.
checked = [(n, check([bin_, "--seed", "1", os.path.join(cache, "cmds-%d-%s.hand" % (n, key))],
                     os.path.join(cache, "cmds-%d-%s.hand.out" % (n, key))))
           for n in sizes]

st = measure([("h", [bin_, "-c", "show"]),
              ("s", [sqlite3, ":memory:", "select 1"])], startup_runs)
rows.append(("startup", "handsh -c show", st["h"]))
rows.append(("", "sqlite3 :memory: 'select 1'", st["s"]))

by = {}
named = []
for n in sizes:
    f = os.path.join(cache, "cmds-%d-%s.hand" % (n, key))
    named += [((n, "q"), [bin_, "--seed", "1", "-q", f]),
              ((n, "l"), [bin_, "--seed", "1", f]),
              ((n, "a"), [awk, "END{print NR}", f])]
# One round runs every size, so a change of load on a shared machine moves
# all of them alike and the ratios between sizes hold.
res = measure(named, runs)
for n in sizes:
    r = by[n] = {k: res[(n, k)] for k in "qla"}
    label = "%dk" % (n // 1000) if n < 1000000 else "%dM" % (n // 1000000)
    rows.append((label, "handsh -q FILE", r["q"]))
    rows.append(("", "handsh FILE >/dev/null", r["l"]))
    rows.append(("", "awk 'END{print NR}' FILE", r["a"]))

# Golden tests: one process for the folder, against one process (and one
# diff) per file.
gdir = os.environ["HANDSH_BENCH_GOLDEN"]
loop = ('for f in "$0"/*.hand; do "$1" --seed 1 "$f" | diff -u "$f.out" - >/dev/null'
        ' || exit 1; done')
gold = measure([("t1", [bin_, "--test", "-j", "1", gdir]),
                ("tj", [bin_, "--test", gdir]),
                ("loop", ["/bin/sh", "-c", loop, gdir, bin_])], runs, rss_runs=1)
rows.append(("golden", "handsh --test -j 1 DIR", gold["t1"]))
rows.append(("", "handsh --test DIR (-j %d)" % (os.cpu_count() or 1), gold["tj"]))
rows.append(("", "sh loop: handsh F | diff -u", gold["loop"]))

cpu = "?"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
try:
    ver = subprocess.run([bin_, "--version"], capture_output=True, text=True,
                         env=env, timeout=10).stdout.strip() or "?"
except Exception:
    ver = "?"
size_mib = os.path.getsize(bin_) / 1048576

print("handsh benchmark  %s  (load average %s at start, %s at end)" % (
    now, load0, "%.2f" % os.getloadavg()[0]))
print("machine  %s, %s, %d cores, %s %s" % (platform.node() or "?", cpu,
      os.cpu_count() or 0, platform.system(), platform.release()))
print("binary   %s (%s, %.1f MiB); scripts run with --seed 1" % (
    os.environ.get("HANDSH_BENCH_SHOWN_BINARY", bin_), ver, size_mib))
print("golden   300 files of 20 input lines, in %s" % gdir)
print()
print(os.environ["HANDSH_BENCH_INSTRUCTIONS"])
print()
w = 30
print("%-8s %-*s %11s %11s %10s %5s" % ("", w, "command", "median", "min", "peak RSS", "runs"))
print("%-8s %-*s %11s %11s %10s %5s" % ("", w, "-" * w, "-" * 11, "-" * 11, "-" * 10, "-" * 5))
for label, cmd, xs in rows:
    print("%-8s %-*s %11s %11s %6.1f MiB %5d" % (
        label, w, cmd, fmt_t(med(xs)), fmt_t(min(xs[0])),
        peak(xs) / 1024, len(xs[0])))
print()

results = []   # (what, value text, target text, ok or None)


def ratio(what, v, limit, unit="x"):
    results.append((what, "%.2f%s" % (v, unit), "<= %g%s" % (limit, unit), v <= limit))


ratio("startup / sqlite3", med(st["h"]) / med(st["s"]), 0.75)
big = 1000000 if 1000000 in by else None
if big:
    a = med(by[big]["a"])
    ratio("1M -q / awk", med(by[big]["q"]) / a, 4)
    ratio("1M with hand lines / awk", med(by[big]["l"]) / a, 6)
    if 100000 in by:
        ratio("1M / 100k time (-q)", med(by[big]["q"]) / med(by[100000]["q"]), 12, "")
        ratio("1M / 100k time (hand lines)",
              med(by[big]["l"]) / med(by[100000]["l"]), 12, "")
    mib = max(peak(by[big]["q"]), peak(by[big]["l"])) / 1024
    results.append(("peak memory, 1M run", "%.1f MiB" % mib, "<= 64 MiB", mib <= 64))
else:
    for what in ("1M -q / awk", "1M with hand lines / awk", "1M / 100k time (-q)",
                 "peak memory, 1M run"):
        results.append((what, "-", "", None))
speedup = med(gold["loop"]) / med(gold["t1"])
results.append(("golden: loop / --test -j 1", "%.1fx" % speedup, ">= 20x", speedup >= 20))
w2 = 30
print("%-*s %11s %11s  %s" % (w2, "target", "measured", "target", "result"))
print("%-*s %11s %11s  %s" % (w2, "-" * w2, "-" * 11, "-" * 11, "------"))
for what, v, t, ok in results:
    res = "skipped (--quick)" if ok is None else ("PASS" if ok else "FAIL")
    print("%-*s %11s %11s  %s" % (w2, what, v, t, res))
print()
print("output checked against the generator's expected output: %s" % ", ".join(
    "%s %s" % (n, "same" if same else "DIFFERENT") for n, same in checked))

# --- input that cannot hurt: endless and very long lines ------------------------------------------
# An endless line ends with the line-limit error (status 1) in bounded memory;
# reading is linear: a 100 MB line through stdin (skipped with -k) costs about
# what 100 MB of ordinary lines cost through stdin (like for like: both
# read by the same splitter; the file is read whole and parsed, which is
# another cost), and 10x a 10 MB line.
def make(name, size, line):
    path = os.path.join(cache, name)
    if not os.path.exists(path) or os.path.getsize(path) != size + 5:
        with open(path + ".tmp", "wb") as f:
            block = (line * (1048576 // len(line) + 1))[:1048576]
            for _ in range(size // 1048576):
                f.write(block)
            f.write(b"\nshow")
        os.replace(path + ".tmp", path)
    return path


def stdin_run(argv, path):
    with open(path, "rb") as f:
        fa = [(os.POSIX_SPAWN_DUP2, f.fileno(), 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
              (os.POSIX_SPAWN_DUP2, devnull, 2)]
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
        _, status, ru = os.wait4(pid, 0)
        return time.perf_counter() - t0, os.waitstatus_to_exitcode(status)


def peak_of(argv, stdin_path=None):
    rss_file = os.path.join(cache, "rss")
    wrapped = ["/usr/bin/time", "-f", "%M", "-o", rss_file, "timeout", "-s", "KILL", "60"] + argv
    if stdin_path:
        _, rc = stdin_run(wrapped, stdin_path)
    else:
        _, _, rc = run(wrapped)
    return int(open(rss_file).read().split()[-1]), rc


long10 = make("line-10m", 10 * 1048576, b"x")
long100 = make("line-100m", 100 * 1048576, b"x")
short100 = make("lines-100m", 100 * 1048576, b"#" + b"y" * 1022 + b"\n")
timings = {k: [] for k in ("long10", "long100", "short100-stdin", "short100-file")}
for i in range(max(3, runs // 2) + 1):
    for k, argv, path in (("long10", [bin_, "-k", "-"], long10),
                          ("long100", [bin_, "-k", "-"], long100),
                          ("short100-stdin", [bin_, "-"], short100),
                          ("short100-file", [bin_, short100], None)):
        t, rc = stdin_run(argv, path) if path else run(argv)[0::2]
        expected = 1 if k.startswith("long") else 0
        if rc != expected:
            sys.exit("bench: %s exited %d, not %d" % (" ".join(argv), rc, expected))
        if i:
            timings[k].append(t)
zero_file, zero_file_rc = peak_of([bin_, "/dev/zero"])
zero_stdin, zero_stdin_rc = peak_of([bin_, "-"], "/dev/zero")
m = {k: statistics.median(v) for k, v in timings.items()}
print()
print("%-44s %11s" % ("long input", "median"))
print("%-44s %11s" % ("-" * 44, "-" * 11))
for k, what in (("long10", "handsh -k - < 10 MB line"),
                ("long100", "handsh -k - < 100 MB line"),
                ("short100-stdin", "handsh - < 100 MB of 1 KiB lines"),
                ("short100-file", "handsh FILE of 100 MB of 1 KiB lines")):
    print("%-44s %11s" % (what, fmt_t(m[k])))
print()
checks = [
    ("100 MB line / 100 MB lines (stdin)", m["long100"] / m["short100-stdin"], "<= 2x",
     m["long100"] / m["short100-stdin"] <= 2),
    ("100 MB line / 10 MB line (stdin)", m["long100"] / m["long10"], "<= 15x",
     m["long100"] / m["long10"] <= 15),
    ("handsh /dev/zero: status, peak RSS", zero_file / 1024, "1, <= 64 MiB",
     zero_file_rc == 1 and zero_file <= 65536),
    ("handsh - < /dev/zero: status, peak RSS", zero_stdin / 1024, "1, <= 64 MiB",
     zero_stdin_rc == 1 and zero_stdin <= 65536),
]
print("%-40s %11s %13s  %s" % ("target (long input)", "measured", "target", "result"))
print("%-40s %11s %13s  %s" % ("-" * 40, "-" * 11, "-" * 13, "------"))
for what, v, t, ok in checks:
    unit = " MiB" if "RSS" in what else "x"
    print("%-40s %11s %13s  %s" % (what, "%.2f%s" % (v, unit), t, "PASS" if ok else "FAIL"))
