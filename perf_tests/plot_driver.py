#!/usr/bin/env python3
"""Plot of kbla_driver's JSON (the main job): % of the measured bandwidth vs block-vector width for each op,
kbla beside the vendor product timed in the same run. Several JSON files (e.g. double / complex, left / right)
go into one figure, one row of panels per run; a file merged by merge_driver_results.py counts as its runs.

usage: plot_driver.py OUT.png RUN.json [RUN.json ...]"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OPS = (("inner", "inner  C = A^H B"), ("update", "update  B = A C"), ("update_in_place", "update_in_place  X = X C"),
       ("gemm_CN", "gemm(\"C\", \"N\")"))


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    runs = []
    for p in argv[2:]:
        d = json.load(open(p))
        runs += d["runs"] if "runs" in d else [d]
    fig, axes = plt.subplots(len(runs), len(OPS), figsize=(4 * len(OPS), 3.2 * len(runs)), squeeze=False)
    for i, d in enumerate(runs):
        vendor = d.get("vendor", "vendor").split(" (")[0]
        for j, (op, title) in enumerate(OPS):
            ax = axes[i][j]
            rows = sorted((r for r in d["results"] if r["op"] == op), key=lambda r: r["width"])
            if not rows:
                ax.axis("off")
                continue
            widths = [r["width"] for r in rows]
            ax.plot(widths, [r["kbla"]["pct_of_bandwidth"] for r in rows], "o-", label="kbla")
            vend = [(r["width"], r["vendor"]["pct_of_bandwidth"]) for r in rows if "vendor" in r]
            if vend:
                ax.plot(*zip(*vend), "x--", label=vendor)
            ax.axhline(100, color="gray", lw=1)
            ax.set_xscale("log", base=2)
            ax.set_xticks(widths)
            ax.set_xticklabels([str(w) for w in widths])
            ax.set_ylim(0, 110)
            ax.set_xlabel("width (columns)")
            ax.set_ylabel("% of measured bandwidth")
            ax.set_title("%s, %s, Layout%s" % (title, d["scalar"], "Left" if d["layout"] == "left" else "Right"),
                         fontsize=8)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    dev = runs[0].get("device", {})
    fig.suptitle("kbla_driver on %s: read %.0f GB/s, copy %.0f GB/s measured" %
                 (dev.get("name", "?"), runs[0]["bw_read_GBs"], runs[0]["bw_copy_GBs"]))
    fig.tight_layout()
    fig.savefig(argv[1], dpi=110)
    print(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
