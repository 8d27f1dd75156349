#!/usr/bin/env python3
"""Checks scripts/make_ts_routes.py on synthetic measurements (host only, no GPU): which square shapes it routes
to cuBLAS, and from which row count (the --sweep rule: cuBLAS from the smallest K at which it is faster by more
than 3 % at every larger measured K, at any K when that is the smallest K measured; a later sweep file wins per
shape; a shape cuBLAS does not win at the sweep's largest K loses its route; a routed shape without sweep points
from the benchmark's K on). Exit status 0 when every check passes."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "make_ts_routes.py")


def case(w, ratio, t="D", op="tsmttsm", layout="R", K=None):
    c = {"type": t, "op": op, "layout": layout, "M": w, "N": w, "kbla": {"ratio_vs_cublas": ratio}}
    if K is not None:
        c["K"] = K
    return c


def main():
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append("%s: got %r, want %r" % (what, got, want))

    run = {"device": "synthetic", "bw_read_GBs": 1.0,
           # w 1: own faster; w 2-5: cuBLAS faster by > 3 % at the square size; w 6: a tie (kept own)
           "cases": [case(1, 1.2), case(2, 0.9), case(3, 0.9), case(4, 0.9), case(5, 0.9), case(6, 0.98),
                     case(7, 0.5, t="Z", op="tsmm", layout="C"),
                     # w 8: routed, no sweep points: cuBLAS from the benchmark's K (2^21 + 5 rows -> 2^21) on
                     case(8, 0.9, K=(1 << 21) + 5),
                     # w 9: the sweep has cuBLAS faster at every K, its smallest included: any K
                     case(9, 0.9, K=1 << 24)]}
    sweep1 = [  # type op layout w K own_ms cublas_ms
        "SWEEP D tsmttsm R 2 4096 1.0 1.5",      # own faster at small K
        "SWEEP D tsmttsm R 2 1048576 1.0 0.9",   # cuBLAS from 2^20 on
        "SWEEP D tsmttsm R 2 16777216 1.0 0.8",
        "SWEEP D tsmttsm R 3 16777216 1.0 1.1",  # cuBLAS not faster at the largest K: route dropped
        "SWEEP D tsmttsm R 4 4096 1.0 0.5",      # faster at small K, slower in between, faster at the top
        "SWEEP D tsmttsm R 4 1048576 1.0 1.2",
        "SWEEP D tsmttsm R 4 33554432 1.0 0.9",
        "SWEEP D tsmttsm R 5 4096 1.0 0.9",      # later overridden by sweep 2
        "SWEEP D tsmttsm R 9 4096 1.0 0.5",      # cuBLAS faster from the smallest K measured on: any K
        "SWEEP D tsmttsm R 9 16777216 1.0 0.9",
        "noise line that is not a sweep point",
    ]
    sweep2 = [
        "SWEEP D tsmttsm R 5 1048576 1.0 0.99",  # within 3 %: a tie, not cuBLAS
        "SWEEP D tsmttsm R 5 4194304 1.0 0.9",
        "SWEEP D tsmttsm R 5 16777216 1.0 0.9",
        "SWEEP Z tsmm C 7 16777216 1.0 1.5",     # ignored: sweep 2 is read for D only (s2.txt:D)
    ]
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for name, body in (("run.json", json.dumps(run)), ("s1.txt", "\n".join(sweep1)), ("s2.txt", "\n".join(sweep2))):
            paths[name] = os.path.join(d, name)
            with open(paths[name], "w") as f:
                f.write(body + "\n")
        out = subprocess.run([sys.executable, SCRIPT, "--sweep", paths["s1.txt"], "--sweep", paths["s2.txt"] + ":D",
                              paths["run.json"]], capture_output=True, text=True, check=True).stdout

    square = re.search(r"kCublasSquare\[2\]\[2\]\[2\] = \{(.*?)\};", out, re.S).group(1)
    masks = [int(x, 16) for x in re.findall(r"0x([0-9a-f]{16})ull", square)]
    check("D tsmttsm R mask", masks[0], (1 << 1) | (1 << 3) | (1 << 4) | (1 << 7) | (1 << 8))  # widths 2, 4, 5, 8, 9
    check("Z tsmm C mask (no sweep: stays routed)", masks[7], 1 << 6)
    rows_block = re.search(r"kCublasMinRowsLog2\[2\]\[2\]\[2\]\[64\] = \{(.*?)\n\};", out, re.S).group(1)
    rows = [int(x) for x in re.findall(r"-?\d+", re.sub(r"//.*", "", rows_block))]
    check("row table size", len(rows), 2 * 2 * 2 * 64)
    d_r = rows[0:64]
    check("D tsmttsm R w 2 from 2^20", d_r[1], 20)
    check("D tsmttsm R w 3 (route dropped)", d_r[2], 0)
    check("D tsmttsm R w 4 only from the top point 2^25", d_r[3], 25)
    check("D tsmttsm R w 5 from sweep 2: 2^22", d_r[4], 22)
    check("D tsmttsm R w 8 from the benchmark's K 2^21", d_r[7], 21)
    check("D tsmttsm R w 9 at any K", d_r[8], 0)
    check("Z tsmm C w 7 at any K (no K in its case)", rows[(1 * 4 + 1 * 2 + 1) * 64 + 6], 0)
    for line in out.splitlines():
        if len(line) > 120:
            failures.append("line longer than 120: " + line[:60])
    if failures:
        print("\n".join(failures))
        return 1
    print("make_ts_routes: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
