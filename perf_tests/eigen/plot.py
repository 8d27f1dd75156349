#!/usr/bin/env python3
"""Plot of kbla_eigen_driver's JSON: the solve's time by phase (one bar per run) and each eigenvalue's relative
error against the analytic value (3D Laplacian runs with --check-analytic).

usage: plot.py OUT.png RUN.json [RUN.json ...]"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = (("spmv", "SpMV"), ("orthogonalization", "orthogonalisation"), ("rayleigh_ritz", "Rayleigh-Ritz"),
          ("residuals", "residuals"), ("other", "other"))


def run_label(run, i):
    """'run i', with the Chebyshev degree when the JSON names one (0: the plain iteration)."""
    degree = run.get("options", {}).get("chebyshev_degree")
    return "run %d" % (i + 1) if degree is None else "run %d, d=%d" % (i + 1, degree)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    runs = [json.load(open(p)) for p in argv[2:]]
    fig, (bars, errs) = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, d in enumerate(runs):
        bottom = 0.0
        for k, (key, label) in enumerate(PHASES):
            v = d["time_s"].get(key) or 0.0
            bars.bar(i, v, bottom=bottom, color="C%d" % k, label=label if i == 0 else None)
            bottom += v
        bars.text(i, bottom, "%.2f s" % d["time_s"]["total"], ha="center", va="bottom", fontsize=8)
        if d.get("relative_errors"):
            errs.semilogy(range(1, len(d["relative_errors"]) + 1), [max(e, 1e-17) for e in d["relative_errors"]],
                          "o", ms=3, label=run_label(d, i))
    bars.set_xticks(range(len(runs)))
    bars.set_xticklabels([run_label(d, i) for i, d in enumerate(runs)], fontsize=7)
    bars.set_ylabel("seconds")
    bars.legend(fontsize=7)
    bars.set_title("time by phase", fontsize=9)
    errs.axhline(1e-10, color="gray", lw=1, ls="--", label="tolerance 1e-10")
    errs.set_xlabel("eigenvalue index")
    errs.set_ylabel("|lambda - exact| / |exact|")
    errs.set_title("error vs the analytic eigenvalues", fontsize=9)
    errs.legend(fontsize=7)
    d = runs[0]
    fig.suptitle("kbla::eigen on %s: %s, %d largest, tol %g" %
                 (d["device"].get("name", d["device"].get("execution_space")), d["problem"]["name"],
                  d["options"]["k"], d["options"]["tol"]))
    fig.tight_layout()
    fig.savefig(argv[1], dpi=110)
    print(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
