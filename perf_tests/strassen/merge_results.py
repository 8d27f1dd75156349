#!/usr/bin/env python3
"""Merges kbla_bench_strassen JSON files of one device into the benchmark's canonical result file.

usage: merge_results.py OUT.json IN.json[@YYYY-MM-DD] [IN.json[@YYYY-MM-DD] ...]
The benchmark is run per precision / shape set (a full FP32 + FP64 sweep does not fit one GPU session), so the
canonical perf_tests/results/strassen-<gpu>.json gathers them. Later inputs replace earlier results of the same
(precision, shape, m, n, k, algorithm). Each result records the date it was measured (the @ date, else "unknown")
and every input's configuration is kept under "sources". All inputs must come from the same GPU model."""
import json
import sys


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
        sources.append({"measured": date or "unknown", "config": d.get("config"), "elapsed_s": d.get("elapsed_s"),
                        "cublas_math_mode": d.get("cublas_math_mode"), "device": dev})
        for r in d.get("results", []):
            r = dict(r, measured=date or "unknown")
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
