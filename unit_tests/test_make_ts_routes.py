#!/usr/bin/env python3
"""Checks tools/make_ts_routes.py on synthetic measurements (host only, no GPU): the per-row-count masks it writes
(bit b = cuBLAS when floor(2 log2 K) = b, half octaves): the nearest measured row count decides a bucket (a tie: the
larger), any point saying cuBLAS wins a bucket, a ratio within 3 % is a tie (own kernel), a later sweep file replaces
an earlier one's points of a shape, a sweep's TYPES filter, a JSON's group parts (TYPE.OP.LAYOUT, -TYPE.OP.LAYOUT),
below a benchmark-only point the own kernel, below a sweep's smallest point that point's decision, two decisions
within one octave kept apart. Exit status 0 when every check passes."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "make_ts_routes.py")
ALL = (1 << 64) - 1
H = 2  # buckets per octave: 2^e rows fall in bucket H e


def case(w, ratio, K, t="D", op="tsmttsm", layout="R"):
    return {"type": t, "op": op, "layout": layout, "M": w, "N": w, "K": K, "kbla": {"ratio_vs_cublas": ratio}}


def from_bit(b):
    return ALL & ~((1 << b) - 1)


def below_bit(b):
    return (1 << b) - 1


def main():
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append("%s: got 0x%016x, want 0x%016x" % (what, got, want))

    run = {"device": "synthetic", "bw_read_GBs": 1.0,
           "cases": [case(1, 1.2, 1 << 24),          # own faster, no sweep: never cuBLAS
                     case(2, 0.9, (1 << 21) + 5),    # cuBLAS faster, no sweep: from the benchmark's K (2^21) on
                     case(3, 0.98, 1 << 24),         # a tie (within 3 %): own kernel
                     case(4, 0.9, 1 << 24),          # the sweep says own at 2^24, the benchmark cuBLAS: cuBLAS there
                     case(7, 0.5, 1 << 22, t="Z", op="tsmm", layout="C"),
                     case(9, 1.5, 1 << 22),          # kept own at the top; the sweep has cuBLAS below
                     case(10, 0.5, 1 << 22, op="tsmm", layout="C"),  # dropped by -D.tsmm.C (run2 decides)
                     {"type": "D", "op": "tsmm", "layout": "R", "M": 5, "N": 5, "kbla": {"ratio_vs_cublas": 0.5}}]}
    sweep1 = [  # type op layout w K own_ms cublas_ms
        "SWEEP D tsmttsm R 4 4096 1.0 1.5",      # own at 2^12
        "SWEEP D tsmttsm R 4 1048576 1.0 1.2",   # own at 2^20
        "SWEEP D tsmttsm R 4 16777216 1.0 1.1",  # own at 2^24 (the benchmark says cuBLAS there)
        "SWEEP D tsmttsm R 5 4096 1.0 0.5",      # replaced by sweep 2
        "SWEEP D tsmttsm R 6 4096 1.0 1.5",      # own at 2^12, cuBLAS from 2^20 (nearest: 2^16 is a tie -> 2^20)
        "SWEEP D tsmttsm R 6 1048576 1.0 0.9",
        "SWEEP D tsmttsm R 6 16777216 1.0 0.8",
        "SWEEP D tsmttsm R 9 1024 1.0 0.5",      # the "below" route: cuBLAS up to 2^12, own from 2^16
        "SWEEP D tsmttsm R 9 4096 1.0 0.6",
        "SWEEP D tsmttsm R 9 65536 1.0 1.1",
        "SWEEP D tsmttsm R 12 1048576 1.0 1.5",      # own at 2^20, cuBLAS at 2^24, own again at 2^24.68 (bucket 49)
        "SWEEP D tsmttsm R 12 16777216 1.0 0.9",
        "SWEEP D tsmttsm R 12 26843545 1.0 1.1",
        "noise line that is not a sweep point",
    ]
    sweep2 = [
        "SWEEP D tsmttsm R 5 4096 1.0 0.99",     # within 3 %: a tie
        "SWEEP D tsmttsm R 5 1048576 1.0 0.9",   # cuBLAS from 2^17 on (2^16: tie between 2^12 and 2^20 -> larger)
        "SWEEP Z tsmm C 7 4096 1.0 0.5",         # ignored: sweep 2 is read for D only (s2.txt:D)
    ]
    run2 = {"device": "synthetic", "bw_read_GBs": 1.0,
            "cases": [case(10, 1.2, 1 << 22, op="tsmm", layout="C"),  # own faster: the only D.tsmm.C source
                      case(11, 0.5, 1 << 22)]}                         # D.tsmttsm.R: not passed from run2
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for name, body in (("run.json", json.dumps(run)), ("run2.json", json.dumps(run2)),
                           ("s1.txt", "\n".join(sweep1)), ("s2.txt", "\n".join(sweep2))):
            paths[name] = os.path.join(d, name)
            with open(paths[name], "w") as f:
                f.write(body + "\n")
        out = subprocess.run([sys.executable, SCRIPT, "--sweep", paths["s1.txt"], "--sweep", paths["s2.txt"] + ":D",
                              paths["run.json"] + ":D,Z,-D.tsmm.C", paths["run2.json"] + ":D.tsmm.C"],
                             capture_output=True, text=True, check=True).stdout

    block = re.search(r"kCublasRows\[2\]\[2\]\[2\]\[64\] = \{(.*?)\n\};", out, re.S).group(1)
    rows = [int(x, 16) for x in re.findall(r"0x([0-9a-f]{16})", block)]
    if len(rows) != 2 * 2 * 2 * 64:
        failures.append("row table size %d" % len(rows))
        rows += [0] * (512 - len(rows))
    d_r = rows[0:64]
    check("D tsmttsm R w 1 (own faster)", d_r[0], 0)
    check("D tsmttsm R w 2 from the benchmark's K 2^21", d_r[1], from_bit(H * 21))
    check("D tsmttsm R w 3 (tie)", d_r[2], 0)
    check("D tsmttsm R w 4: from 2^22 (equidistant from 2^20 and 2^24: the larger)", d_r[3], from_bit(H * 22))
    check("D tsmttsm R w 5 from sweep 2: 2^16 on", d_r[4], from_bit(H * 16))
    check("D tsmttsm R w 6: 2^16 on", d_r[5], from_bit(H * 16))
    check("D tsmttsm R w 9: below 2^14 (and the sweep decides below 2^10)", d_r[8], below_bit(H * 14))
    check("D tsmm R w 5 (no K in its case: not read)", rows[(0 * 4 + 1 * 2 + 0) * 64 + 4], 0)
    check("Z tsmm C w 7 from 2^22 (sweep 2 not read for Z)", rows[(1 * 4 + 1 * 2 + 1) * 64 + 6], from_bit(H * 22))
    check("D tsmttsm R w 12: cuBLAS from 2^22 up to 2^24.5 only", d_r[11], from_bit(H * 22) & below_bit(49))
    check("D tsmm C w 10: run.json's group dropped, run2's own-faster point", rows[(0 * 4 + 1 * 2 + 1) * 64 + 9], 0)
    check("D tsmttsm R w 11: run2 passes D.tsmm.C only", d_r[10], 0)
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
