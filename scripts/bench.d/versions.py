"""scripts/bench: versions of any size: a million of each kind, and `goto` between the far ends of a tree.

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import os, random, subprocess, sys, time

bin_, cache = sys.argv[1:3]
work = os.path.join(cache, "versions-v1")
os.makedirs(work, exist_ok=True)
rss_file = os.path.join(work, "rss")


def walk(versions, seed=34):
    """Commands of a random walk making `versions` versions in all, every
    one valid: a model of the tree (parents, depths, redo children, each
    version's hand and deck sizes) picks them."""
    rng = random.Random(seed)
    parent, depth, redo, size, deck = [0], [0], [0], [0], [52]
    out = ["limit 52"]

    def make(p, s, d):
        parent.append(p); depth.append(depth[p] + 1); redo.append(0)
        size.append(s); deck.append(d)
        redo[p] = len(parent) - 1
        return len(parent) - 1

    cur = make(0, 0, 52)
    far = 0
    while len(parent) < versions:
        s, d = size[cur], deck[cur]
        r = rng.random()
        if d == 0 and (s < 12 or r < 0.05):
            out.append("new 7"); cur = make(cur, 0, 52)
        elif r < 0.32 and s < 52 and d > 0:
            out.append("add"); cur = make(cur, s + 1, d - 1)
        elif r < 0.40 and s > 0:
            out.append("del %d" % rng.randint(1, s)); cur = make(cur, s - 1, d)
        elif r < 0.64 and s > 1:
            a = rng.randint(1, s); b = rng.randint(1, s - 1)
            if b >= a:
                b += 1
            out.append("mv %d %d" % (a, b)); cur = make(cur, s, d)
        elif r < 0.80 and depth[cur] > 1:
            # Never back over `limit 52`.
            k = min(depth[cur] - 1, rng.randint(1, 12))
            out.append("undo %d" % k if k > 1 else "undo")
            for _ in range(k):
                cur = parent[cur]
        elif r < 0.86:
            chain, v = 0, cur
            while chain < 4 and redo[v]:
                v = redo[v]; chain += 1
            if chain == 0:
                continue
            k = rng.randint(1, chain)
            out.append("redo %d" % k if k > 1 else "redo")
            for _ in range(k):
                cur = redo[cur]
        elif r < 0.90 or (r < 0.9002 and far < 200):
            n = len(parent)
            if r < 0.90:
                t = rng.randint(max(1, n - 2000), n - 1)
            else:
                t = rng.randint(1, n - 1); far += 1
            if t == cur:
                continue
            out.append("goto %d" % t)
            # Every version on the path to the target takes its child on
            # it as its redo child (above the common ancestor they do).
            a, b = cur, t
            while depth[a] > depth[b]:
                a = parent[a]
            while depth[b] > depth[a]:
                redo[parent[b]] = b; b = parent[b]
            while a != b:
                a = parent[a]; redo[parent[b]] = b; b = parent[b]
            cur = t
    return out


def fifty_two():
    lines = ["limit 52"]
    while len(lines) < 1000005:
        lines.append("new 1")
        lines += ["add"] * 52
    return lines[:1000005]


def far_tree(gotos):
    half = 499970
    lines = ["limit 52"] + ["add"] * 52 + ["mv 1 52"] * half + ["goto 53"] + ["mv 52 1"] * half
    ends = (53 + half, 53 + 2 * half)
    for i in range(gotos):
        lines.append("goto %d" % ends[i % 2])
    return lines, 2 * half


def write(name, lines):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(path + ".tmp", path)
    return path


def run(path, tail):
    """Runs `path` then `tail` (as one script, stdin): peak KiB (largest
    of 3 runs), seconds (least), stdout's line count."""
    full = path + ".run"
    with open(full, "w") as f, open(path) as g:
        for line in g:
            f.write(line)
        f.write(tail)
    best = None
    kib = 0
    lines = 0
    for _ in range(3):
        out = os.path.join(work, "out")
        err = os.path.join(work, "err")
        t0 = time.perf_counter()
        with open(out, "wb") as o, open(err, "wb") as e:
            rc = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", rss_file,
                                  bin_, "-q", "--seed", "1", full], stdout=o, stderr=e, cwd=work)
        seconds = time.perf_counter() - t0
        if rc != 0 or os.path.getsize(err):
            sys.exit("bench: %s exited %d; stderr:\n%s" % (full, rc, open(err).read()[:2000]))
        kib = max(kib, int(open(rss_file).read().split()[-1]))
        best = seconds if best is None else min(best, seconds)
        with open(out, "rb") as o:
            lines = sum(1 for _ in o)
    os.unlink(full)
    return kib, best, lines


scripts = [
    ("1M `new 1`", "new-1", lambda: ["new 1"] * 1000000, 1000001),
    ("1M `new` with the largest seed", "new-max", lambda: ["new 18446744073709551615"] * 1000000,
     1000001),
    ("52-card hands: `new 1` + 52 `add`", "fifty-two", fifty_two, 1000006),
    ("random walk over branches", "walk", lambda: walk(1000000), 1000000),
]
rows, checks = [], []
for label, name, make, versions in scripts:
    path = write(name + ".hand", make())
    kib, seconds, lines = run(path, "save saved.hand\nhistory\n")
    if lines != versions:
        sys.exit("bench: history after %s wrote %d lines, not %d" % (name, lines, versions))
    rows.append((label, seconds, kib))
    short = label if len(label) < 28 else label[:24] + "..."
    checks.append((short + ": peak RSS", "%.1f MiB" % (kib / 1024), "< 64 MiB", kib < 65536))

base_lines, path_length = far_tree(0)
far_lines, _ = far_tree(100)
base = write("far-0.hand", base_lines)
far = write("far-100.hand", far_lines)
# Alternate, 5 runs each: the least of each.
times = {base: [], far: []}
for _ in range(5):
    for p in (base, far):
        t0 = time.perf_counter()
        rc = subprocess.call([bin_, "-q", "--seed", "1", p], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        times[p].append(time.perf_counter() - t0)
        if rc != 0:
            sys.exit("bench: %s exited %d" % (p, rc))
per = (min(times[far]) - min(times[base])) / 100 / path_length
rows.append(("tree of 1M versions, then 100 far gotos", min(times[far]), 0))
checks.append(("far goto: time per version walked", "%.1f ns" % (per * 1e9), "<= 50 ns",
               per <= 50e-9))
os.unlink(os.path.join(work, "saved.hand"))
print()
print("%-44s %11s %11s" % ("1M versions of any size, then save, history", "seconds", "peak RSS"))
print("%-44s %11s %11s" % ("-" * 44, "-" * 11, "-" * 11))
for what, s, kib in rows:
    print("%-44s %11.2f %11s" % (what, s, "%7.1f MiB" % (kib / 1024) if kib else ""))
print()
print("%-40s %11s %13s  %s" % ("target (versions of any size)", "measured", "target", "result"))
print("%-40s %11s %13s  %s" % ("-" * 40, "-" * 11, "-" * 13, "------"))
for what, v, t, ok in checks:
    print("%-40s %11s %13s  %s" % (what, v, t, "PASS" if ok else "FAIL"))
