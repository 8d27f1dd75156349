#!/usr/bin/env python3
"""Plots of kbla_bench_tall_skinny's JSON: % of the roofline vs width (like Ernst et al. 2020) for kbla,
cuBLAS and KokkosBlas::gemm, per type (D, Z), layout (R = LayoutRight, C = LayoutLeft) and kernel (TSMTTSM
C = A^H B, TSMM B = A C); the ramp-up in K; the block-Krylov M != N shapes; the speed-up over cuBLAS.

Usage: plot.py results.json [out.png] [--main-only]
Writes out.png (% roofline vs width), out-ramp.png, out-krylov.png, out-ratio.png (each only when the JSON has
that section; --main-only: out.png alone, e.g. on the GPU machine, whose tool returns at most 8 files).
Reads the older results files too (no KokkosBlas, no krylov section)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPLS = (("kbla", "tab:blue", "-", "o"), ("cublas", "tab:orange", "--", "x"), ("kokkosblas", "tab:green", ":", "^"))
LABEL = {"kbla": "kbla", "cublas": "cuBLAS", "kokkosblas": "KokkosBlas::gemm"}
OPS = (("tsmttsm", "TSMTTSM C = A^H B"), ("tsmm", "TSMM B = A C"))
ROWS = (("D", "R"), ("D", "C"), ("Z", "R"), ("Z", "C"))
LAYNAME = {"R": "LayoutRight (row-major)", "C": "LayoutLeft (column-major)"}
WIDE = (96, 128, 256, 512)


def xpos(w):
    """widths 1..64 on a linear axis, 96..512 spaced evenly to the right of a break"""
    return w if w <= 64 else 68 + 4 * WIDE.index(w) if w in WIDE else 68 + 4 * len(WIDE)


def width_axis(ax, wide_present):
    ticks = [1, 8, 16, 24, 32, 40, 48, 56, 64]
    labels = [str(t) for t in ticks]
    if wide_present:
        ticks += [xpos(w) for w in WIDE]
        labels += [str(w) for w in WIDE]
        ax.axvline(66, color="grey", lw=0.6)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_xlim(0, (xpos(WIDE[-1]) + 2) if wide_present else 65)


def pct(c, impl):
    return c[impl]["pct_roof"] if impl in c else None


def save(fig, path):
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main_only = "--main-only" in sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    d = json.load(open(args[0]))
    out = args[1] if len(args) > 1 else args[0].rsplit(".json", 1)[0] + ".png"
    stem = out.rsplit(".png", 1)[0]
    title = (f"{d['device']}: read {d['bw_read_GBs']:.0f} GB/s, copy {d['bw_copy_GBs']:.0f} GB/s (measured), "
             f"peak {d['peak_fp64_TFLOPs']} TFLOP/s (FP64 tensor); roofline = min(intensity x read BW, peak)")
    if d.get("skipped", {}).get("count"):
        title += f"\nbudget spent: {d['skipped']['count']} cases skipped from {d['skipped'].get('first', '?')}"
    cases = d.get("cases", [])

    # 1: % roofline vs width, per type / layout / kernel, three implementations
    if cases:
        wide_present = any(c["M"] > 64 for c in cases)
        fig, axes = plt.subplots(4, 2, figsize=(15, 16), squeeze=False)
        for r, (typ, lay) in enumerate(ROWS):
            for col, (op, opname) in enumerate(OPS):
                ax = axes[r][col]
                cs = sorted((c for c in cases if c["op"] == op and c["layout"] == lay and c["type"] == typ),
                            key=lambda c: c["M"])
                for impl, color, ls, mk in IMPLS:
                    pts = [(xpos(c["M"]), pct(c, impl)) for c in cs if pct(c, impl) is not None]
                    if pts:
                        ax.plot(*zip(*pts), ls=ls, marker=mk, ms=3, color=color, label=LABEL[impl])
                ax.axhline(90 if lay == "R" else 85, color="grey", lw=0.8, ls=":")
                ax.axhline(100, color="black", lw=0.5)
                ax.set_ylim(0, 110)
                width_axis(ax, wide_present)
                ax.set_title(f"{typ} {opname}, {LAYNAME[lay]}", fontsize=10)
                ax.set_xlabel("width M = N (K = 2^29/w rows D, 2^28/w Z)")
                ax.set_ylabel("% of roofline")
                ax.grid(alpha=0.3)
                if cs:
                    ax.legend(fontsize=8, loc="lower left")
        fig.suptitle(title, fontsize=10)
        save(fig, out)

    # 2: ramp-up in K, per type / layout / kernel: colour = implementation, marker = width
    if main_only:
        return
    ramp = d.get("ramp", [])
    if ramp:
        fig, axes = plt.subplots(4, 2, figsize=(15, 16), squeeze=False)
        markers = {4: "o", 16: "s", 64: "d"}
        for r, (typ, lay) in enumerate(ROWS):
            for col, (op, opname) in enumerate(OPS):
                ax = axes[r][col]
                for impl, color, ls, _ in IMPLS:
                    for w, mk in markers.items():
                        rs = sorted((x for x in ramp if x["op"] == op and x["type"] == typ and x["layout"] == lay
                                     and x.get("w", x.get("M")) == w and impl in x), key=lambda x: x["K"])
                        if rs:
                            ax.semilogx([x["K"] for x in rs], [min(x[impl]["pct_roof"], 200) for x in rs], ls=ls,
                                        marker=mk, ms=3, color=color, label=f"{LABEL[impl]} w={w}")
                ax.axhline(75, color="grey", lw=0.8, ls=":")
                ax.axvline(2 ** 20, color="grey", lw=0.8, ls=":")
                ax.set_title(f"ramp-up {typ} {opname}, {LAYNAME[lay]}", fontsize=10)
                ax.set_xlabel("K rows (> 100 %: data from L2)")
                ax.set_ylabel("% of roofline")
                ax.grid(alpha=0.3)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=6, ncol=3, loc="upper left")
        fig.suptitle(title, fontsize=10)
        save(fig, stem + "-ramp.png")

    # 3: block-Krylov shapes M = p != N = n (D, LayoutLeft): % roofline vs p, per kernel and K
    kry = d.get("krylov", [])
    if kry:
        ks = sorted({x["K"] for x in kry})
        fig, axes = plt.subplots(len(ks), 2, figsize=(14, 4.5 * len(ks)), squeeze=False)
        for r, K in enumerate(ks):
            for col, (op, opname) in enumerate(OPS):
                ax = axes[r][col]
                for impl, color, _, mk in IMPLS:
                    for n, ls in ((8, "-"), (16, "--")):
                        xs = sorted((x for x in kry if x["op"] == op and x["K"] == K and x["N"] == n and impl in x),
                                    key=lambda x: x["M"])
                        if xs:
                            ax.plot([x["M"] for x in xs], [x[impl]["pct_roof"] for x in xs], ls=ls, marker=mk, ms=4,
                                    color=color, label=f"{LABEL[impl]} n={n}")
                ax.axhline(85, color="grey", lw=0.8, ls=":")
                ax.axhline(100, color="black", lw=0.5)
                ax.set_ylim(0, 110)
                ax.set_xticks([16, 32, 48, 64, 96, 128])
                shape = "C (p x n) = A (K x p)^H B (K x n)" if op == "tsmttsm" else "B (K x n) = A (K x p) C (p x n)"
                kname = {2 ** 20: "2^20", 10 ** 6: "10^6"}.get(K, str(K))
                ax.set_title(f"D {shape}, K = {kname}, LayoutLeft", fontsize=10)
                ax.set_xlabel("p (block-Krylov basis width)")
                ax.set_ylabel("% of roofline")
                ax.grid(alpha=0.3)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=7, ncol=3, loc="lower left")
        fig.suptitle(title, fontsize=10)
        save(fig, stem + "-krylov.png")

    # 4: speed-up over cuBLAS measured in the same run (> 1: faster than cuBLAS)
    if cases:
        wide_present = any(c["M"] > 64 for c in cases)
        fig, axes = plt.subplots(1, 2, figsize=(16, 5.5), squeeze=False)
        styles = {("D", "R"): ("tab:blue", "o"), ("D", "C"): ("tab:cyan", "s"), ("Z", "R"): ("tab:red", "o"),
                  ("Z", "C"): ("tab:pink", "s")}
        for col, impl in enumerate(("kbla", "kokkosblas")):
            ax = axes[0][col]
            for (typ, lay), (color, mk) in styles.items():
                for op, ls in (("tsmttsm", "-"), ("tsmm", "--")):
                    cs = sorted((c for c in cases if c["op"] == op and c["type"] == typ and c["layout"] == lay
                                 and impl in c and "cublas" in c), key=lambda c: c["M"])
                    if cs:
                        ax.plot([xpos(c["M"]) for c in cs], [c["cublas"]["ms"] / c[impl]["ms"] for c in cs], ls=ls,
                                marker=mk, ms=3, color=color, alpha=0.8, label=f"{op} {typ} {lay}")
            ax.axhline(1, color="black", lw=0.8)
            ax.set_yscale("log")
            width_axis(ax, wide_present)
            ax.set_title(f"{LABEL[impl]}: speed-up over cuBLAS (cuBLAS time / its time)", fontsize=10)
            ax.set_xlabel("width M = N")
            ax.grid(alpha=0.3, which="both")
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, ncol=2)
        fig.suptitle(title, fontsize=10)
        save(fig, stem + "-ratio.png")


if __name__ == "__main__":
    main()
