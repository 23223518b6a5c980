"""scripts/bench: an explorer's session: 1 000 000 commands that keep branching.

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, subprocess, sys, time

bin_, cache, branching, with_history = sys.argv[1:5]
rss_file = os.path.join(cache, "rss-branching")

def peak(argv):
    """Peak RSS in KiB and seconds of one run (stdout to /dev/null), which must exit 0."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        rc = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                             stdout=null, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    if rc != 0:
        sys.exit("bench: %s exited %d" % (" ".join(argv), rc))
    return int(open(rss_file).read().split()[-1]), seconds

branch_kib, branch_s = max(peak([bin_, "-q", "--seed", "1", branching]) for _ in range(3))
no_history = with_history + ".no-history"
with open(with_history) as f, open(no_history, "w") as g:
    g.writelines(line for line in f if line != "history\n")
base_kib, _ = max(peak([bin_, "-q", "--seed", "1", no_history]) for _ in range(3))
hist_kib, hist_s = max(peak([bin_, "-q", "--seed", "1", with_history]) for _ in range(3))
os.unlink(no_history)
print()
print("%-44s %11s %11s" % ("branching (undo then change)", "seconds", "peak RSS"))
print("%-44s %11s %11s" % ("-" * 44, "-" * 11, "-" * 11))
print("%-44s %11.2f %7.1f MiB" % ("1M commands, -q", branch_s, branch_kib / 1024))
print("%-44s %11.2f %7.1f MiB" % ("1M versions, then history", hist_s, hist_kib / 1024))
print()
checks = [
    ("branching 1M: peak RSS", "%.1f MiB" % (branch_kib / 1024), "< 64 MiB", branch_kib < 65536),
    ("history of 1M versions: extra RSS", "%.1f MiB" % ((hist_kib - base_kib) / 1024), "<= 4 MiB",
     hist_kib - base_kib <= 4096),
]
print("%-40s %11s %13s  %s" % ("target (branching)", "measured", "target", "result"))
print("%-40s %11s %13s  %s" % ("-" * 40, "-" * 11, "-" * 13, "------"))
for what, v, t, ok in checks:
    print("%-40s %11s %13s  %s" % (what, v, t, "PASS" if ok else "FAIL"))
