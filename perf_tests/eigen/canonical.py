#!/usr/bin/env python3
"""The canonical eigen result of one GPU from kbla_eigen_driver runs made in one command on one machine: the median
run (by total time) of the default settings as the JSON's body, every run's total and phase times under
"runs", and the runs of other Chebyshev degrees (0 = the plain iteration) under "degree_sweep".

usage: canonical.py OUT.json DEFAULT_RUN.json [...] [--sweep RUN.json ...]"""
import json
import statistics
import sys


def summary(run):
    t = run["time_s"]
    return {"chebyshev_degree": run["options"].get("chebyshev_degree"), "total_s": t["total"], "spmv_s": t["spmv"],
            "orthogonalization_s": t["orthogonalization"], "rayleigh_ritz_s": t["rayleigh_ritz"],
            "restarts": run["restarts"], "iterations": run["iterations"],
            "operator_applications": run["operator_applications"], "converged": run["converged"],
            "max_relative_error": run.get("max_relative_error"),
            "max_relative_residual": max(run["relative_residuals"])}


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    paths = argv[2:]
    sweep_paths = paths[paths.index("--sweep") + 1:] if "--sweep" in paths else []
    default_paths = paths[:paths.index("--sweep")] if "--sweep" in paths else paths
    runs = [json.load(open(p)) for p in default_paths]
    totals = [r["time_s"]["total"] for r in runs]
    median = sorted(runs, key=lambda r: r["time_s"]["total"])[(len(runs) - 1) // 2]
    out = dict(median)
    out["runs"] = [summary(r) for r in runs]
    out["median_total_s"] = statistics.median(totals)
    sweep = {}
    for p in sweep_paths:
        s = summary(json.load(open(p)))
        sweep.setdefault(str(s["chebyshev_degree"]), []).append(s)
    if sweep:
        out["degree_sweep"] = {d: {"median_total_s": statistics.median(x["total_s"] for x in v), "runs": v}
                               for d, v in sorted(sweep.items(), key=lambda kv: int(kv[0]))}
    with open(argv[1], "w") as f:
        json.dump(out, f, indent=2)
    print(argv[1], "median total %.3f s of %d runs" % (out["median_total_s"], len(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
