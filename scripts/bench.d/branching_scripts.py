"""scripts/bench: writes the explorer's branching scripts (ARGV: the script, the script with `history`).

Run by scripts/bench (the comment above its call says what it measures
and its targets); not on its own."""

import sys

def rounds():
    i = 0
    while True:
        if i % 40 == 39:
            yield ["new 7"], 1
        else:
            yield ["add", "add", "undo", "del 1"], 3
        i += 1

commands = []
for lines, _ in rounds():
    commands += lines
    if len(commands) >= 1000000:
        break
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("\n".join(commands[:1000000]) + "\n")
commands, versions = [], 1
for lines, made in rounds():
    commands += lines
    versions += made
    if versions >= 1000000:
        break
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write("\n".join(commands) + "\n")
    f.write("history\n")
