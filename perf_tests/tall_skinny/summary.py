#!/usr/bin/env python3
"""Summary of a kbla_bench_tall_skinny JSON, as docs/performance.md quotes it: per case (type, op, layout) the
square widths 1-64 at the target (>= 90 % of the roofline row-major, >= 85 % column-major), % of roofline at a
few widths for kbla and cuBLAS, the lowest speed ratio against cuBLAS, and the ramp at K = 2^20.

usage: summary.py RUN.json [--markdown]"""
import json
import sys

WIDTHS = (1, 4, 8, 16, 32, 48, 64)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    d = json.load(open(argv[1]))
    md = "--markdown" in argv
    print("%s, read %.0f GB/s, copy %.0f GB/s" % (d["device"], d["bw_read_GBs"], d["bw_copy_GBs"]))
    total = at = 0
    worst = (9.9, None)
    head = "| case | at target (of 64) | kbla / cuBLAS %% of roofline at widths %s | lowest kbla / cuBLAS |" % (
        " / ".join(map(str, WIDTHS)))
    print(head if md else head.replace("|", " "))
    if md:
        print("|---|---|---|---|")
    for t in ("D", "Z"):
        for op, opname in (("tsmttsm", "Aᴴ·B"), ("tsmm", "A·C")):
            for lay in ("R", "C"):
                rows = {c["M"]: c for c in d["cases"] if c["type"] == t and c["op"] == op and c["layout"] == lay
                        and c["M"] == c["N"] and "kbla" in c}
                sq = [rows[w] for w in range(1, 65) if w in rows]
                target = 90 if lay == "R" else 85
                n_at = sum(1 for c in sq if c["kbla"]["pct_roof"] >= target)
                total += len(sq)
                at += n_at
                ratios = [(c["kbla"]["ms"] and c["cublas"]["ms"] / c["kbla"]["ms"], c["M"]) for c in rows.values()
                          if "cublas" in c]
                low = min(ratios) if ratios else (float("nan"), 0)
                if low[0] < worst[0]:
                    worst = (low[0], "%s %s %s w %d" % (t, opname, lay, low[1]))
                cells = " ".join("%.0f/%.0f" % (rows[w]["kbla"]["pct_roof"], rows[w]["cublas"]["pct_roof"])
                                 if w in rows and "cublas" in rows[w] else "-" for w in WIDTHS)
                line = "| %s %s %s | %d/%d | %s | %.2f× (w %d) |" % (t, opname, "row-major" if lay == "R" else
                                                                     "column-major", n_at, len(sq), cells, *low)
                print(line if md else line.replace("|", " "))
    print("square widths 1-64 at the target: %d of %d; lowest kbla / cuBLAS over all square shapes: %.3f (%s)" %
          (at, total, *worst))
    write_aware(d)
    kry = [c["kbla"]["ms"] and c["cublas"]["ms"] / c["kbla"]["ms"] for c in d.get("krylov", [])
           if "kbla" in c and "cublas" in c]
    if kry:
        print("block-Krylov M != N shapes: kbla / cuBLAS %.2f-%.2f" % (min(kry), max(kry)))
    ramp = [c for c in d.get("ramp", []) if c["K"] == 1 << 20 and "kbla" in c]
    for c in sorted(ramp, key=lambda c: (c["type"], c["op"], c["layout"], c["M"])):
        print("ramp K = 2^20: %s %s %s w %d: kbla %.1f %%, cuBLAS %.1f %%" % (
            c["type"], c["op"], c["layout"], c["M"], c["kbla"]["pct_roof"], c.get("cublas", {}).get("pct_roof", 0)))
    return 0


def write_aware(d):
    """The roofline above charges every byte at the read bandwidth. `update` (beta = 0) writes its K x N output,
    and a GPU writes HBM slower than it reads it: the copy probe (read n + write n bytes) gives the time per written
    byte, 2 / copy - 1 / read. Against that read + write roofline an M = N update can reach 100 %, against the read
    one only copy / read (0.85 on an H200, 0.93 on an H100). Printed beside the target, not instead of it."""
    read, copy = d["bw_read_GBs"], d["bw_copy_GBs"]
    per_write = 2.0 / copy - 1.0 / read  # ns per byte written, in units of 1 / (GB/s)
    print("read + write roofline (write %.0f GB/s from the copy probe): an M = N update at most %.0f %% of the read"
          " roofline" % (1.0 / per_write, 100 * 2.0 / read / (1.0 / read + per_write)))
    for lay in ("R", "C"):
        for who in ("kbla", "cublas"):
            fr = []
            for c in d["cases"]:
                if c["op"] != "tsmm" or c["layout"] != lay or c["M"] != c["N"] or c["M"] > 64 or who not in c:
                    continue
                es = 8 if c["type"] == "D" else 16
                t_min = es * c["K"] * (c["M"] / read + c["N"] * per_write) * 1e-6  # ms (GB/s = 1e6 bytes/ms)
                fr.append(t_min / c[who]["ms"])
            if fr:
                target = 0.90 if lay == "R" else 0.85
                print("  update %s %s: %d of %d square shapes >= %.0f %% of the read + write roofline (median %.0f %%)"
                      % (lay, who, sum(f >= target for f in fr), len(fr), 100 * target,
                         100 * sorted(fr)[len(fr) // 2]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
