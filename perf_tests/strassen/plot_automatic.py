#!/usr/bin/env python3
"""Plot of a kbla_bench_gemm_automatic JSON: the speed of kbla::gemm with GemmAlgorithm::automatic relative to
KokkosBlas::gemm of the same run (vendor time / automatic time; above 1 automatic is faster) against the size, one
panel per precision, one line per shape, each point labelled with the algorithm automatic chose.

usage: plot_automatic.py RUN.json [OUT.png]   (default OUT.png: the JSON's name with .png)"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def size_of(r):
    """The size the shape is swept by: n for square, m = n for rank-k, k for panel."""
    return r["k"] if r["shape"] == "panel" else r["m"]


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    run = json.load(open(argv[1]))
    out = argv[2] if len(argv) > 2 else os.path.splitext(argv[1])[0] + ".png"
    results = run["results"]
    precisions = []
    for r in results:
        if r["precision"] not in precisions:
            precisions.append(r["precision"])
    fig, axes = plt.subplots(1, len(precisions), figsize=(6 * len(precisions), 4.5), squeeze=False)
    for ax, precision in zip(axes[0], precisions):
        shapes = []
        for r in results:
            if r["precision"] == precision and r["shape"] not in shapes:
                shapes.append(r["shape"])
        for shape in shapes:
            rows = sorted((r for r in results if r["precision"] == precision and r["shape"] == shape), key=size_of)
            x = [size_of(r) for r in rows]
            y = [r["ratio"] for r in rows]
            ax.plot(x, y, "-o", label=shape)
            for xi, yi, r in zip(x, y, rows):
                ax.annotate(r["chosen"], (xi, yi), fontsize=7, textcoords="offset points", xytext=(0, 5),
                            ha="center")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (square: n; rank-k: m = n; panel: k)")
        ax.set_ylabel("vendor time / automatic time")
        ax.set_title("%s precision" % ("single" if precision == "s" else "double"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    device = run.get("device", {})
    fig.suptitle("kbla::gemm automatic vs KokkosBlas::gemm, same run: %s (%s)" % (
        device.get("name", "?"), device.get("execution_space", "?")), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
