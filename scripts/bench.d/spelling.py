"""scripts/bench: spelling and save: 1 000 000 commands of any spelling, then a save.

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, subprocess, sys, tempfile, time

bin_, cache = sys.argv[1:3]
rss_file = os.path.join(cache, "rss-spelling")
work = tempfile.mkdtemp(prefix="spelling-", dir=cache)

def script(name, line, save):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("add; add\n" + line * 1000000 + ("save saved.hand\n" if save else ""))
    return path

def peak(argv, stdin=None):
    """Peak RSS in KiB and seconds of one run in `work`, which must exit 0."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                                 cwd=work, stdin=subprocess.PIPE if stdin else None,
                                 stdout=null, stderr=subprocess.DEVNULL)
        if stdin:
            for piece in stdin():
                child.stdin.write(piece)
            child.stdin.close()
        rc = child.wait()
    seconds = time.perf_counter() - t0
    if rc != 0:
        sys.exit("bench: %s exited %d" % (" ".join(argv), rc))
    return int(open(rss_file).read().split()[-1]), seconds

def zeros():
    yield b"add; add\n"
    line = b"mv " + b"0" * 1000000 + b"1 2\n"
    for _ in range(400):
        yield line
    yield b"history\n"

rows, checks = [], []
for label, line in (("mv 1 2", "mv 1 2\n"), ("mv 01 02", "mv 01 02\n"),
                    ("mv 0000000001 0000000002", "mv 0000000001 0000000002\n")):
    saving = script("save.hand", line, True)
    kib, s = max(peak([bin_, "-q", "--seed", "1", saving]) for _ in range(3))
    lines = sum(1 for _ in open(os.path.join(work, "saved.hand")))
    if lines != 1000005:
        sys.exit("bench: the save of %s wrote %d lines, not 1000005" % (label, lines))
    plain = script("plain.hand", line, False)
    base, _ = max(peak([bin_, "-q", "--seed", "1", plain]) for _ in range(3))
    rows.append(("1M `%s`, then save" % label, s, kib))
    short = label if len(label) < 12 else label[:8] + "..."
    checks.append(("1M `%s` + save: peak RSS" % short, "%.1f MiB" % (kib / 1024), "< 64 MiB",
                   kib < 65536))
    checks.append(("1M `%s`: save's extra RSS" % short, "%.1f MiB" % ((kib - base) / 1024),
                   "<= 2 MiB", kib - base <= 2048))
kib, s = max(peak([bin_, "-q", "--seed", "1", "-"], stdin=zeros) for _ in range(3))
rows.append(("400 x `mv 0{1000000}1 2`, stdin", s, kib))
checks.append(("400 lines of a million zeros: peak RSS", "%.1f MiB" % (kib / 1024), "< 64 MiB",
               kib < 65536))
for name in os.listdir(work):
    os.unlink(os.path.join(work, name))
os.rmdir(work)
print()
print("%-44s %11s %11s" % ("spelling and save", "seconds", "peak RSS"))
print("%-44s %11s %11s" % ("-" * 44, "-" * 11, "-" * 11))
for what, s, kib in rows:
    print("%-44s %11.2f %7.1f MiB" % (what, s, kib / 1024))
print()
print("%-40s %11s %13s  %s" % ("target (spelling and save)", "measured", "target", "result"))
print("%-40s %11s %13s  %s" % ("-" * 40, "-" * 11, "-" * 13, "------"))
for what, v, t, ok in checks:
    print("%-40s %11s %13s  %s" % (what, v, t, "PASS" if ok else "FAIL"))
