#!/usr/bin/env python3
"""Plot of a dmma_probe JSON: each form's speed relative to cuBLAS DGEMM of the same run (cuBLAS time / form time,
above 1 the form is faster; the fused Strassen level counted at the classical 2n^3 flops) against n, with the
1.05x target of a fused FP64 level at 8192.

usage: plot_dmma_probe.py RUN.json [OUT.png]   (default OUT.png: the JSON's name with .png)"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    run = json.load(open(argv[1]))
    out = argv[2] if len(argv) > 2 else os.path.splitext(argv[1])[0] + ".png"
    forms = []
    for r in run["results"]:
        if r["form"] not in forms:
            forms.append(r["form"])
    fig, ax = plt.subplots(figsize=(9, 5))
    for form in forms:
        rows = sorted((r for r in run["results"] if r["form"] == form), key=lambda r: r["n"])
        style = "-o" if rows[0]["fused"] else "--s"
        ax.plot([r["n"] for r in rows], [r["vs_cublas"] for r in rows], style, label=form)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.05, color="gray", linestyle=":", linewidth=0.8, label="fused FP64 target at 8192 (1.05x)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (C = A B, n x n, FP64)")
    ax.set_ylabel("cuBLAS DGEMM time / form time (same run)")
    ax.set_title("FP64 tensor-core tiles and a fused Strassen level on %s" % run["device"])
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
