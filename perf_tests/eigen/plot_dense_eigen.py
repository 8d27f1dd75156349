#!/usr/bin/env python3
"""Plot of a kbla_bench_dense_eigen JSON: microseconds per call against n, kbla::dense::hermitian_eigen (all
eigenvectors, and the kept ones that kbla::eigen forms) and the same-run LAPACK baseline (dsyevd / zheevd), one
panel per scalar type; solid lines are medians, dotted the
fastest calls (the steadier figure on a shared machine). Spectra other than the first are left out of the plot.

usage: plot_dense_eigen.py RUN.json [OUT.png]   (default OUT.png: the JSON's name with .png)"""
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
    results = run["results"]
    spectrum = results[0]["spectrum"]
    scalars = []
    for r in results:
        if r["scalar"] not in scalars:
            scalars.append(r["scalar"])
    fig, axes = plt.subplots(1, len(scalars), figsize=(5.5 * len(scalars), 4.2), squeeze=False)
    for ax, scalar in zip(axes[0], scalars):
        rows = sorted((r for r in results if r["scalar"] == scalar and r["spectrum"] == spectrum),
                      key=lambda r: r["n"])
        n = [r["n"] for r in rows]
        labels = {"kbla": "kbla, all vectors", "kbla_kept": "kbla, the solver's kept vectors",
                  "lapack": "LAPACK (same run)"}
        for name, colour in (("kbla", "tab:blue"), ("kbla_kept", "tab:green"), ("lapack", "tab:orange")):
            if not all(name + "_us" in r for r in rows):
                continue
            label = labels[name]
            ax.plot(n, [r[name + "_us"] for r in rows], "-o", color=colour, label=label + ", median")
            ax.plot(n, [r[name + "_min_us"] for r in rows], ":", color=colour, label=label + ", fastest")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("microseconds per call")
        ax.set_title("%s, %s spectrum" % (scalar, spectrum))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    machine = run.get("machine", {})
    fig.suptitle("Dense Hermitian eigen-solver: %s, %s hardware threads, load %s" % (
        machine.get("cpu", "?"), machine.get("hardware_threads", "?"), machine.get("load_average_1min", "?")),
        fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
