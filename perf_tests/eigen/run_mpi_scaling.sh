#!/usr/bin/env bash
# Two-GPU scaling of kbla::eigen over MPI (kbla_eigen_mpi_driver, docs/distributed.md). Run ON the machine with
# two GPUs, on a CUDA + MPI build (-DKBLA_ENABLE_MPI=ON; the commands are in docs/distributed.md):
#
#   BUILD_DIR=build-mpi-cuda OUT=out RUNS=3 perf_tests/eigen/run_mpi_scaling.sh [driver options]
#
# Cases, RUNS times each, interleaved (k = 16 largest, tol 1e-10, checked against the analytic spectrum; each run
# first makes a whole warm-up solve that is not timed, --warmup). The 2-rank case runs the driver's default routes
# (--reduce measured --halo auto: each chosen by timing at start-up), so weak2 is what a user gets:
#   weak1    1 rank, 3D Laplacian 100^3                    -> $OUT/eigen-mpi-weak1-<i>.json
#   strong1  1 rank, 100 x 100 x 200                       -> $OUT/eigen-mpi-strong1-<i>.json
#   weak2    2 ranks, 100 x 100 x 200 (100 planes each), compared with strong1 (eigenvalues within 1e-12,
#            residuals of simple eigenvalues within 1e-12)  -> $OUT/eigen-mpi-weak2-<i>.json
# then plot_mpi.py -> $OUT/eigen-mpi.{json,png} (weak scaling efficiency, strong scaling speed-up, phases).
# VARIANTS="--reduce host --halo host|--reduce nccl --halo ipc" adds 2-rank runs of 100 x 100 x 200 with those
# routes given ('|' between variants), also compared with strong1 -> $OUT/eigen-mpi-variant<j>-<i>.json; a table
# of every run's time per block expansion by phase and the routes it took closes the output, then the times the
# measured choices were made from.
# N (default 100) scales the cases (N^3, N x N x 2N); MPIRUN (default mpirun) and MPIRUN_FLAGS (extra flags,
# e.g. --oversubscribe for a try on a small host) set the launcher.
# Exit status: number of failed runs.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-mpi-cuda}
OUT=${OUT:-$ROOT/gpu-bench-out}
RUNS=${RUNS:-3}
DRIVER=$BUILD_DIR/perf_tests/eigen/kbla_eigen_mpi_driver
MPIRUN=${MPIRUN:-mpirun}
mkdir -p "$OUT"
N=${N:-100}
read -r -a flags <<< "--bind-to none ${MPIRUN_FLAGS:-}"
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
common=(-k 16 --tol 1e-10 --check-analytic --quiet --warmup "$@")
failed=0
run() {  # run NAME NP ARGS...
  local name=$1 np=$2; shift 2
  echo "=== $name: $MPIRUN -np $np ${flags[*]} kbla_eigen_mpi_driver $*"
  timeout 300 "$MPIRUN" -np "$np" "${flags[@]}" "$DRIVER" "$@" --json "$OUT/$name.json" || failed=$((failed + 1))
}
nvidia-smi --query-gpu=index,name,memory.total --format=csv 2>/dev/null || true
for i in $(seq 1 "$RUNS"); do
  run "eigen-mpi-weak1-$i" 1 --laplacian "$N" "${common[@]}"
  run "eigen-mpi-strong1-$i" 1 --grid "$N" "$N" $((2 * N)) "${common[@]}"
  run "eigen-mpi-weak2-$i" 2 --grid "$N" "$N" $((2 * N)) "${common[@]}" --compare "$OUT/eigen-mpi-strong1-1.json"
done
j=0
plot_variants=()  # --variant LABEL RUNS... for plot_mpi.py, the label being the variant's options
IFS='|' read -r -a variants <<< "${VARIANTS:-}"
for variant in "${variants[@]}"; do
  j=$((j + 1))
  read -r -a extra <<< "$variant"
  for i in $(seq 1 "$RUNS"); do
    run "eigen-mpi-variant$j-$i" 2 --grid "$N" "$N" $((2 * N)) "${common[@]}" "${extra[@]}" \
        --compare "$OUT/eigen-mpi-strong1-1.json"
  done
  plot_variants+=(--variant "$variant" "$OUT"/eigen-mpi-variant$j-[0-9]*.json)
done
"${PYTHON:-/usr/bin/python3}" "$ROOT/perf_tests/eigen/plot_mpi.py" "$OUT/eigen-mpi" --weak1 "$OUT"/eigen-mpi-weak1-[0-9]*.json \
  --weak2 "$OUT"/eigen-mpi-weak2-[0-9]*.json --strong1 "$OUT"/eigen-mpi-strong1-[0-9]*.json "${plot_variants[@]}" \
  || failed=$((failed + 1))
"${PYTHON:-/usr/bin/python3}" - "$OUT"/eigen-mpi-*-[0-9]*.json <<'PY'
import json, sys
print("%-28s %5s %5s %-24s %-22s %8s %8s %8s %8s %8s" % ("run", "ranks", "iter", "all-reduce", "halo", "ms/exp",
      "operator", "halo", "ortho", "allred"))
runs = [(path.rsplit("/", 1)[-1][:-5], json.load(open(path))) for path in sys.argv[1:]]
for name, d in runs:
    t, o = d["time_per_expansion_ms"], d["options"]
    one_rank = d["device"]["ranks"] == 1 and o.get("allreduce_choice") == "one rank"
    reduce = "none" if one_rank else "%s (%s)" % (o["allreduce"][:15], o.get("allreduce_choice", "given")[:8])
    how = o.get("halo_choice", "given")
    halo = "-" if d["device"]["ranks"] == 1 else "%s (%s)" % (o["halo"], how if how in ("measured", "given") else
                                                                      "auto")
    print("%-28s %5d %5d %-24s %-22s %8.4f %8.4f %8.4f %8.4f %8.4f" % (
        name, d["device"]["ranks"], d["iterations"], reduce, halo, t["total"], t["operator"], t["halo_exchange"],
        t["orthogonalization"], t["allreduce"]))
print("route timings of the measured choices (us; slowest rank's median):")
for name, d in runs:
    r, h = d.get("reduce_measured", {}), d.get("halo_measured", {})
    routes = ["%s %.1f + %.1f" % (k, v["gram_us"], v["coefficients_us"]) for k, v in r.items() if isinstance(v, dict)]
    halos = ["%s %.1f" % (k, v["us_per_application"]) for k, v in h.items() if isinstance(v, dict)]
    if routes or halos:
        print("  %-28s all-reduce: %s -> %s; halo: %s -> %s" % (name, ", ".join(routes) or "-", r.get("chosen", "-"),
              ", ".join(halos) or h.get("how", "-"), h.get("chosen", "-")))
PY
echo "run_mpi_scaling: $failed failed"
exit $failed
