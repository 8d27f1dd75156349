#!/usr/bin/env bash
# Two-GPU scaling of kbla::eigen over MPI (kbla_eigen_mpi_driver, docs/distributed.md). Run ON the machine with
# two GPUs, on a CUDA + MPI build (-DKBLA_ENABLE_MPI=ON; the commands are in docs/distributed.md):
#
#   BUILD_DIR=build-mpi-cuda OUT=out RUNS=3 perf_tests/eigen/run_mpi_scaling.sh [driver options, e.g. --halo ipc]
#
# Cases, RUNS times each, interleaved (k = 16 largest, tol 1e-10, checked against the analytic spectrum; each run
# first makes a one-restart warm-up solve, --warmup):
#   weak1    1 rank, 3D Laplacian 100^3                    -> $OUT/eigen-mpi-weak1-<i>.json
#   strong1  1 rank, 100 x 100 x 200                       -> $OUT/eigen-mpi-strong1-<i>.json
#   weak2    2 ranks, 100 x 100 x 200 (100 planes each), compared with strong1 (eigenvalues within 1e-12,
#            residuals of simple eigenvalues within 1e-12)  -> $OUT/eigen-mpi-weak2-<i>.json
# then plot_mpi.py -> $OUT/eigen-mpi.{json,png} (weak scaling efficiency, strong scaling speed-up, phases).
# VARIANTS="--halo ipc|--reduce nccl|--halo ipc --reduce nccl" adds 2-rank runs of 100 x 100 x 200 with those
# options ('|' between variants), also compared with strong1 -> $OUT/eigen-mpi-variant<j>-<i>.json; a table of
# every run's time per block expansion by phase closes the output.
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
IFS='|' read -r -a variants <<< "${VARIANTS:-}"
for variant in "${variants[@]}"; do
  j=$((j + 1))
  read -r -a extra <<< "$variant"
  for i in $(seq 1 "$RUNS"); do
    run "eigen-mpi-variant$j-$i" 2 --grid "$N" "$N" $((2 * N)) "${common[@]}" "${extra[@]}" \
        --compare "$OUT/eigen-mpi-strong1-1.json"
  done
done
"${PYTHON:-/usr/bin/python3}" "$ROOT/perf_tests/eigen/plot_mpi.py" "$OUT/eigen-mpi" --weak1 "$OUT"/eigen-mpi-weak1-[0-9]*.json \
  --weak2 "$OUT"/eigen-mpi-weak2-[0-9]*.json --strong1 "$OUT"/eigen-mpi-strong1-[0-9]*.json || failed=$((failed + 1))
"${PYTHON:-/usr/bin/python3}" - "$OUT"/eigen-mpi-*-[0-9]*.json <<'PY'
import json, sys
print("%-28s %5s %5s %-15s %-13s %8s %8s %8s %8s %8s" % ("run", "ranks", "iter", "all-reduce", "halo", "ms/exp",
      "operator", "halo", "ortho", "allred"))
for path in sys.argv[1:]:
    d = json.load(open(path))
    t = d["time_per_expansion_ms"]
    print("%-28s %5d %5d %-15s %-13s %8.4f %8.4f %8.4f %8.4f %8.4f" % (
        path.rsplit("/", 1)[-1][:-5], d["device"]["ranks"], d["iterations"], d["options"]["allreduce"][:15],
        d["options"]["halo"], t["total"], t["operator"], t["halo_exchange"], t["orthogonalization"], t["allreduce"]))
PY
echo "run_mpi_scaling: $failed failed"
exit $failed
