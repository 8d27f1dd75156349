#!/usr/bin/env python3
"""Plot % of roofline vs width (like Ernst et al. 2020) from bench_tall_skinny's JSON.
Usage: plot.py results.json out.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

d = json.load(open(sys.argv[1]))
out = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].replace(".json", ".png")
fig, axes = plt.subplots(2, 3, figsize=(17, 9))
for col, op in enumerate(["tsmttsm", "tsmm"]):
    for row, lay in enumerate(["R", "C"]):
        ax = axes[row][col]
        for typ, color in (("D", "tab:blue"), ("Z", "tab:red")):
            cs = sorted((c for c in d["cases"] if c["op"] == op and c["layout"] == lay and c["type"] == typ),
                        key=lambda c: c["M"])
            w = [c["M"] for c in cs if c["M"] <= 64]
            ax.plot(w, [c["kbla"]["pct_roof"] for c in cs if c["M"] <= 64], "-o", ms=3, color=color,
                    label=f"{typ} kbla")
            ax.plot(w, [c["cublas"]["pct_roof"] for c in cs if c["M"] <= 64], "--x", ms=3, color=color,
                    alpha=0.6, label=f"{typ} cuBLAS")
        ax.axhline(90 if lay == "R" else 85, color="grey", lw=0.8, ls=":")
        ax.set_ylim(0, 110)
        ax.set_xlim(0, 65)
        ax.set_title(f"{op}  {'row-major (LayoutRight)' if lay == 'R' else 'column-major (LayoutLeft)'}")
        ax.set_xlabel("width M = N")
        ax.set_ylabel("% of roofline")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
ax = axes[0][2]
for op, mk in (("tsmttsm", "-o"), ("tsmm", "-s")):
    for typ in ("D", "Z"):
        for w in (4, 16, 64):
            rs = sorted((r for r in d.get("ramp", []) if r["op"] == op and r["type"] == typ and r["w"] == w
                         and r["layout"] == "R"), key=lambda r: r["K"])
            if rs:
                ax.semilogx([r["K"] for r in rs], [min(r["kbla"]["pct_roof"], 200) for r in rs], mk, ms=3,
                            label=f"{op} {typ} w={w}")
ax.axhline(75, color="grey", lw=0.8, ls=":")
ax.axvline(2 ** 20, color="grey", lw=0.8, ls=":")
ax.set_title("ramp-up (row-major, kbla); > 100 %: data from L2")
ax.set_xlabel("K rows")
ax.set_ylabel("% of roofline")
ax.legend(fontsize=6, ncol=2)
ax.grid(alpha=0.3)
ax = axes[1][2]
for op, mk in (("tsmttsm", "o"), ("tsmm", "s")):
    for typ, color in (("D", "tab:blue"), ("Z", "tab:red")):
        cs = [c for c in d["cases"] if c["op"] == op and c["type"] == typ]
        ax.semilogx([c["M"] for c in cs], [c["ratio_vs_cublas"] for c in cs], mk, ms=3, color=color,
                    alpha=0.6, label=f"{op} {typ}")
ax.axhline(1, color="grey", lw=0.8)
ax.set_title("speed-up over cuBLAS (both layouts)")
ax.set_xlabel("width")
ax.set_yscale("log")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
fig.suptitle(f"{d['device']}: read {d['bw_read_GBs']:.0f} GB/s, copy {d['bw_copy_GBs']:.0f} GB/s, "
             f"peak {d['peak_fp64_TFLOPs']} TFLOP/s (FP64 tensor)")
fig.tight_layout()
fig.savefig(out, dpi=110)
print("wrote", out)
