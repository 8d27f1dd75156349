#!/usr/bin/env python3
"""Summarise ncu's per-SASS-instruction warp-stall samples of one kernel.

usage: sass_stalls.py SOURCE.csv [stall_REASON ...]
SOURCE.csv: the output of `ncu -k KERNEL -c 1 --section SourceCounters --section WarpStateStats --page source
--print-source sass --csv PROGRAM` (the program's own output before the CSV is skipped). Prints the share of all
stall samples per reason and per opcode, the executed instructions per opcode and, for each stall_REASON named
(e.g. stall_wait stall_dispatch stall_no_inst), the 12 instructions holding most of its samples with the two
instructions before each.
"""
import collections
import csv
import sys


def load(path):
    lines = open(path).read().split("\n")
    head = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    rows = list(csv.reader(lines[head:]))
    return rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]


def opcode(sass):
    words = sass.split()
    if not words:
        return ""
    op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return op.split(".")[0]


def main():
    header, rows = load(sys.argv[1])
    col = {name: k for k, name in enumerate(header)}
    reasons = [n for n in header if n.startswith("stall_") and "Not Issued" not in n]
    total = collections.Counter()
    for r in rows:
        for n in reasons:
            total[n] += int(r[col[n]] or 0)
    samples = sum(total.values())
    print(sys.argv[1], "instructions", len(rows), "samples", samples)
    print(" ".join("%s %.3f" % (n[6:], v / samples) for n, v in total.most_common(10)))
    by_op, executed = collections.Counter(), collections.Counter()
    for r in rows:
        by_op[opcode(r[1])] += int(r[col["# Samples"]] or 0)
        executed[opcode(r[1])] += int(r[col["Instructions Executed"]] or 0)
    print("samples by opcode", [(k, round(v / samples, 3)) for k, v in by_op.most_common(12)])
    print("executed by opcode", executed.most_common(12))
    for reason in sys.argv[2:]:
        print("top", reason, "total %.3f" % (total[reason] / samples))
        ranked = sorted(range(len(rows)), key=lambda k: -int(rows[k][col[reason]] or 0))[:12]
        for k in ranked:
            before = " / ".join(x[1].strip()[:40] for x in rows[max(0, k - 2):k])
            print("  %6s %-60s | prev: %s" % (rows[k][col[reason]], rows[k][1].strip()[:60], before))


if __name__ == "__main__":
    main()
