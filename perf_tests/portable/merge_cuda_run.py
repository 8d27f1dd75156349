#!/usr/bin/env python3
"""Adds the CUDA kernels to a GPU run of kbla_bench_portable: the `kbla` column of a second run of the same
benchmark, built with the CUDA kernels on (-DKBLA_ENABLE_CUDA=ON), becomes `kbla_cuda` in the cases of the first
run (built with them off, so that its `kbla` is the portable route). Both runs must cover the same cases on the same
GPU, one after the other; `pct_bw` of `kbla_cuda` is recomputed against the first run's bandwidth probe
(`pct_bw_own_probe` keeps the second run's).

Usage: merge_cuda_run.py portable.json cuda.json out.json"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        portable = json.load(f)
    with open(sys.argv[2]) as f:
        cuda = json.load(f)
    if portable["device"].get("name") != cuda["device"].get("name"):
        sys.exit("the two runs are on different devices: %s, %s" % (portable["device"].get("name"),
                                                                   cuda["device"].get("name")))
    by_key = {(c["op"], c["type"], c["layout"], c["width"]): c for c in cuda["cases"]}
    missing = []
    for case in portable["cases"]:
        other = by_key.get((case["op"], case["type"], case["layout"], case["width"]))
        if other is None or "kbla" not in other["impls"]:
            missing.append((case["op"], case["type"], case["layout"], case["width"]))
            continue
        entry = dict(other["impls"]["kbla"])
        entry["pct_bw_own_probe"] = entry.get("pct_bw")
        entry["pct_bw"] = round(100.0 * entry["GBs"] / case["roofline_GBs"], 1)
        case["impls"]["kbla_cuda"] = entry
    if missing:
        sys.exit("cases of the first run missing from the second: %s" % missing)
    portable["cuda_kernels_run"] = {
        "what": "kbla_cuda: the public calls of a build with the CUDA kernels on, run right after on the same GPU",
        "args": cuda.get("args"),
        "bandwidth": cuda.get("bandwidth"),
    }
    with open(sys.argv[3], "w") as f:
        json.dump(portable, f, indent=1)


if __name__ == "__main__":
    main()
