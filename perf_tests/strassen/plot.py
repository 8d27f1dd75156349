#!/usr/bin/env python3
"""Plots of kbla_bench_strassen's JSON, in the style of the Strassen papers' figures.

usage: plot.py bench_strassen.json [--out PREFIX] [--summary FILE.png]
--summary: one figure instead (the canonical PNG beside perf_tests/results/strassen-<gpu>.json): per precision and
shape the speed relative to cuBLAS, and per precision the square shapes' errors.
Writes, per precision and shape: PREFIX_<prec>_<shape>_tflops.png (effective TFLOP/s = 2mnk/t vs size, one
line per algorithm, the arithmetic peak as a dashed line), PREFIX_<prec>_<shape>_ratio.png (speed relative to
cuBLAS measured in the same run, > 1 = faster) and PREFIX_<prec>_<shape>_error.png (max normalized error
|C - C_ref| / (|A||B|)_ij on the sampled entries, random [-1,1] inputs solid, Li et al.'s pair dashed; log scale).
Cases with status "wrong" are drawn as red crosses; "skipped" / "error" cases are left out.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["cublas", "simt_gemm", "fused_1L", "hybrid_2L", "conventional_1L", "conventional_2L", "winograd", "auto"]
# "auto": kbla::gemm with GemmAlgorithm::automatic (merged in from kbla_bench_gemm_automatic), drawn over the rest.
AUTO_STYLE = {"color": "k", "lw": 2.2, "marker": "s", "ms": 3, "zorder": 5}


def xval(r):
    # square: n; rank-k: m = n (k fixed); panel: k (m = n fixed)
    return r["k"] if r["shape"] == "panel" else r["m"]


def xlabel(shape, rows):
    if shape == "square":
        return "m = n = k"
    if shape == "rankk":
        return "m = n  (k = %d)" % rows[0]["k"]
    return "k  (m = n = %d)" % rows[0]["m"]


def algorithms(rows):
    algos = [x for x in ORDER if any(r["algorithm"] == x for r in rows)]
    return algos + sorted({r["algorithm"] for r in rows} - set(algos))


def summary(d, path):
    dev = d.get("device", {})
    res = d.get("results", [])
    precs = [p for p in ("fp32", "fp64") if any(r["precision"] == p for r in res)]
    shapes = [s for s in ("square", "rankk", "panel") if any(r["shape"] == s for r in res)]
    if not precs:
        return 1
    fig, axes = plt.subplots(len(precs), len(shapes) + 1, figsize=(4.2 * (len(shapes) + 1), 3.6 * len(precs)),
                             squeeze=False)
    for i, prec in enumerate(precs):
        for j, shape in enumerate(shapes + ["error"]):
            ax = axes[i][j]
            rows = [r for r in res if r["precision"] == prec and r["shape"] == (shape if shape != "error" else "square")]
            if not rows:
                ax.axis("off")
                continue
            for k, alg in enumerate(algorithms(rows)):
                col = "C%d" % (k % 10)
                if shape == "error":
                    for key, ls in (("err_random", "-"), ("err_li", "--")):
                        pts = sorted((xval(r), r[key]["max"]) for r in rows
                                     if r["algorithm"] == alg and r.get(key) and r[key].get("max"))
                        if pts:
                            ax.semilogy(*zip(*pts), ls=ls, color=col, marker="o", ms=2,
                                        label=alg + (" (Li pair)" if key == "err_li" else ""))
                elif alg != "cublas":
                    pts = sorted((xval(r), r["ratio_to_cublas"]) for r in rows
                                 if r["algorithm"] == alg and r["status"] == "ok" and r.get("ratio_to_cublas"))
                    if pts:
                        style = AUTO_STYLE if alg == "auto" else {"color": col, "marker": "o", "ms": 2}
                        ax.plot(*zip(*pts), label=alg, **style)
            if shape == "error":
                ax.set_title("%s square: max normalized error" % prec.upper(), fontsize=9)
                ax.set_xlabel("m = n = k")
                ax.legend(fontsize=5, ncol=2)
            else:
                ax.axhline(1.0, color="k", lw=1)
                ax.set_title("%s %s: speed vs cuBLAS" % (prec.upper(), shape), fontsize=9)
                ax.set_xlabel(xlabel(shape, rows))
                ax.legend(fontsize=6)
            ax.grid(alpha=0.3)
    fig.suptitle("kbla Strassen / Winograd on %s (t_cublas / t, same run)" % dev.get("name", "?"))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--out", default="strassen")
    ap.add_argument("--summary")
    a = ap.parse_args()
    with open(a.json) as f:
        d = json.load(f)
    if a.summary:
        return summary(d, a.summary)
    dev = d.get("device", {})
    res = d.get("results", [])
    peaks = {"fp32": dev.get("fp32_simt_peak_tflops"), "fp64": dev.get("fp64_tc_peak_tflops_from_clock")}
    written = []
    for prec in ("fp32", "fp64"):
        for shape in ("square", "rankk", "panel"):
            rows = [r for r in res if r["precision"] == prec and r["shape"] == shape]
            if not rows:
                continue
            algos = [x for x in ORDER if any(r["algorithm"] == x for r in rows)]
            algos += sorted({r["algorithm"] for r in rows} - set(algos))
            title = "%s %s %s" % (dev.get("name", "?"), prec.upper(), shape)
            # TFLOP/s
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for alg in algos:
                pts = sorted((xval(r), r["tflops"]) for r in rows
                             if r["algorithm"] == alg and r["status"] == "ok" and r["tflops"])
                bad = [(xval(r), r["tflops"]) for r in rows
                       if r["algorithm"] == alg and r["status"] == "wrong" and r["tflops"]]
                if pts:
                    ax.plot(*zip(*pts), marker="o", ms=3, label=alg)
                if bad:
                    ax.plot(*zip(*bad), "rx", ms=8)
            if peaks.get(prec):
                ax.axhline(peaks[prec], ls="--", color="gray", lw=1, label="peak %.1f" % peaks[prec])
            ax.set_xlabel(xlabel(shape, rows))
            ax.set_ylabel("effective TFLOP/s (2mnk / t)")
            ax.set_title(title)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
            fn = "%s_%s_%s_tflops.png" % (a.out, prec, shape)
            fig.tight_layout()
            fig.savefig(fn, dpi=130)
            plt.close(fig)
            written.append(fn)
            # ratio to cuBLAS
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for alg in algos:
                if alg == "cublas":
                    continue
                pts = sorted((xval(r), r["ratio_to_cublas"]) for r in rows
                             if r["algorithm"] == alg and r["status"] == "ok" and r.get("ratio_to_cublas"))
                if pts:
                    ax.plot(*zip(*pts), marker="o", ms=3, label=alg)
            ax.axhline(1.0, color="k", lw=1)
            ax.set_xlabel(xlabel(shape, rows))
            ax.set_ylabel("speed relative to cuBLAS (t_cublas / t)")
            ax.set_title(title)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
            fn = "%s_%s_%s_ratio.png" % (a.out, prec, shape)
            fig.tight_layout()
            fig.savefig(fn, dpi=130)
            plt.close(fig)
            written.append(fn)
            # errors
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for i, alg in enumerate(algos):
                col = "C%d" % (i % 10)
                for key, ls in (("err_random", "-"), ("err_li", "--")):
                    pts = sorted((xval(r), r[key]["max"]) for r in rows
                                 if r["algorithm"] == alg and r.get(key) and r[key].get("max"))
                    if pts:
                        ax.semilogy(*zip(*pts), ls=ls, color=col, marker="o", ms=3,
                                    label=alg + (" (Li pair)" if key == "err_li" else ""))
            ax.set_xlabel(xlabel(shape, rows))
            ax.set_ylabel("max |C - C_ref| / (|A||B|)_ij (sampled)")
            ax.set_title(title)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=6, ncol=2)
            fn = "%s_%s_%s_error.png" % (a.out, prec, shape)
            fig.tight_layout()
            fig.savefig(fn, dpi=130)
            plt.close(fig)
            written.append(fn)
    for fn in written:
        print(fn)
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
