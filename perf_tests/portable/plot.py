#!/usr/bin/env python3
"""Plot of kbla_bench_portable's JSON: GB/s vs width for every implementation, one panel per operation, scalar
type and layout, with the measured bandwidth (read for inner, copy for the updates) as a line.

Usage: plot.py results.json [out.png]   (default out.png: the JSON's name with .png)"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "kbla": ("tab:blue", "-", "o", "kbla (public call)"),
    "kbla_portable": ("tab:purple", "-.", "s", "kbla portable kernels"),
    "openblas": ("tab:orange", "--", "x", "OpenBLAS dgemm / zgemm"),
    "kokkosblas": ("tab:green", ":", "^", "KokkosBlas::gemm"),
    "kbla_cuda": ("tab:red", "--", "D", "kbla with the CUDA kernels"),
}
OPS = {"inner": "inner C = A^H B", "update": "update B = A C", "update_in_place": "update_in_place X = X C"}
TYPES = {"D": "double", "Z": "complex<double>"}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else src.rsplit(".", 1)[0] + ".png"
    with open(src) as f:
        data = json.load(f)
    cases = data["cases"]
    panels = []
    for c in cases:
        key = (c["op"], c["type"], c["layout"])
        if key not in panels:
            panels.append(key)
    cols = 4
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    widths_all = sorted({c["width"] for c in cases})
    for n, key in enumerate(panels):
        ax = axes[n // cols][n % cols]
        sel = sorted((c for c in cases if (c["op"], c["type"], c["layout"]) == key), key=lambda c: c["width"])
        names = []
        for c in sel:
            for name in c["impls"]:
                if name not in names:
                    names.append(name)
        for name in names:
            xs = [c["width"] for c in sel if name in c["impls"]]
            ys = [c["impls"][name]["GBs"] for c in sel if name in c["impls"]]
            color, ls, marker, label = STYLE.get(name, ("black", "-", ".", name))
            ax.plot(xs, ys, color=color, ls=ls, marker=marker, ms=4, label=label)
        bw = sel[0]["roofline_GBs"]
        ax.axhline(bw, color="grey", lw=0.8)
        ax.axhline(0.6 * bw, color="grey", lw=0.6, ls=":")
        ax.text(widths_all[0], bw, " %s bandwidth %.1f GB/s" % (sel[0]["roofline"], bw), fontsize=6, va="bottom")
        ax.set_xscale("log", base=2)
        ax.set_xticks(widths_all)
        ax.set_xticklabels([str(w) for w in widths_all], fontsize=7)
        ax.set_ylim(0, max(bw * 1.15, max(i["GBs"] for c in sel for i in c["impls"].values()) * 1.1))
        ax.set_title("%s, %s, %s" % (OPS.get(key[0], key[0]), TYPES.get(key[1], key[1]), key[2]), fontsize=8)
        ax.set_xlabel("width M = N", fontsize=7)
        ax.set_ylabel("GB/s", fontsize=7)
        ax.tick_params(labelsize=7)
        if n == 0:
            ax.legend(fontsize=6, loc="upper right")
    for n in range(len(panels), rows * cols):
        axes[n // cols][n % cols].axis("off")
    dev = data["device"]
    fig.suptitle(
        "kbla_bench_portable on %s (%s, concurrency %d): %s"
        % (dev["name"], dev["execution_space"], dev["concurrency"], data.get("method", "")),
        fontsize=8,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
