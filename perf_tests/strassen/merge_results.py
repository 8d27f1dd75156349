#!/usr/bin/env python3
"""Merges kbla_bench_strassen JSON files of one device into the benchmark's canonical result file.

usage: merge_results.py OUT.json IN.json[@YYYY-MM-DD] [IN.json[@YYYY-MM-DD] ...]
An input written by kbla_bench_gemm_automatic (kbla::gemm with GemmAlgorithm::automatic, through Kokkos) gives rows
with "algorithm": "auto" and the variant it chose in "chosen"; their ratio_to_cublas is against KokkosBlas::gemm
(cuBLAS) timed in that run, alternating with the automatic product (cublas_ms_same_run).
The benchmark is run per precision / shape set (a full FP32 + FP64 sweep does not fit one GPU session), so the
canonical perf_tests/results/strassen-<gpu>.json gathers them. Later inputs replace earlier results of the same
(precision, shape, m, n, k, algorithm). Each result records the date it was measured (the @ date, else the date the
row already carries, else "unknown"; a merged file can be an input) and every input's configuration is kept under
"sources". All inputs must come from the same GPU model."""
import json
import sys

PRECISIONS = {"s": "fp32", "d": "fp64"}


def automatic_row(r):
    """A kbla_bench_gemm_automatic row in kbla_bench_strassen's row format."""
    return {"precision": PRECISIONS[r["precision"]], "shape": r["shape"], "m": r["m"], "n": r["n"], "k": r["k"],
            "algorithm": "auto", "chosen": r["chosen"], "status": "ok", "reason": "", "levels": None,
            "time_ms_median": r["automatic_ms"], "tflops": r["automatic_tflops"], "ratio_to_cublas": r["ratio"],
            "cublas_ms_same_run": r["vendor_ms"], "first_call_ms": r["first_call_ms"],
            "baseline": "KokkosBlas::gemm (cuBLAS), alternating rounds in the same run", "err_random": None,
            "err_li": None}


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    out_path, inputs = argv[1], argv[2:]
    device, merged, sources = None, {}, []
    for spec in inputs:
        path, _, date = spec.partition("@")
        with open(path) as f:
            d = json.load(f)
        dev = d.get("device", {})
        if device is None:
            device = dev
        elif dev.get("name") != device.get("name"):
            raise SystemExit("%s: device %s, not %s" % (path, dev.get("name"), device.get("name")))
        automatic = d.get("benchmark") == "kbla_bench_gemm_automatic"
        if "sources" in d:  # a merged file (the canonical one): its sources and rows' dates stand
            sources.extend(d["sources"])
        else:
            sources.append({"measured": date or "unknown", "program": d.get("benchmark", "kbla_bench_strassen"),
                            "config": d.get("config", d.get("timing")), "elapsed_s": d.get("elapsed_s"),
                            "cublas_math_mode": d.get("cublas_math_mode"), "device": dev})
        for r in d.get("results", []):
            r = automatic_row(r) if automatic else dict(r)
            r["measured"] = date or r.get("measured", "unknown")
            merged[(r["precision"], r["shape"], r["m"], r["n"], r["k"], r["algorithm"])] = r
    out = {"program": "kbla_bench_strassen", "device": device, "sources": sources,
           "results": sorted(merged.values(), key=lambda r: (r["precision"], r["shape"], r["m"], r["k"],
                                                            r["algorithm"]))}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
    print("%s: %d results from %d files" % (out_path, len(out["results"]), len(inputs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
