#!/usr/bin/env bash
# The GPU measurements that follow a gpu-check.sh build, in one call (run ON the GPU machine, usually as
# gpu-check.sh's extra command so that the build is shared):
#
#   scripts/gpu-check.sh scripts/gpu-bench.sh
#
# Needs BUILD_DIR (the CUDA build of this project) and OUT (where results go; ./gpu-bench-out when unset).
#  1. eigen:    kbla_eigen_driver on the 3D Laplacian 100^3, k = 16 largest, tol 1e-10, checked against the
#               analytic spectrum (issue 3's target) -> $OUT/eigen.json
#  2. sanitize: compute-sanitizer memcheck and racecheck on the Strassen raw tests (--quick) -> in the log
#  3. strassen: perf_tests/strassen benchmark (STRASSEN_ARGS, default --quick) -> $OUT/strassen.json
# Each step's time limit keeps the whole call inside the device tool's 10 minutes; a failed step does not stop
# the next. Exit status: number of failed steps.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-cuda}
OUT=${OUT:-$ROOT/gpu-bench-out}
mkdir -p "$OUT"
failed=0
run_step() {  # run_step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "=== gpu-bench [$name] (limit ${limit} s): $*"
  local t0=$SECONDS
  timeout "$limit" "$@"; local s=$?
  echo "=== gpu-bench [$name] exit $s in $((SECONDS - t0)) s"
  [ $s -eq 0 ] || failed=$((failed + 1))
}

eigen=$BUILD_DIR/perf_tests/eigen/kbla_eigen_driver
if [ -x "$eigen" ]; then
  run_step eigen "${EIGEN_LIMIT:-120}" "$eigen" --laplacian 100 -k 16 --tol 1e-10 --check-analytic \
      --json "$OUT/eigen.json"
fi

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in kbla_strassen_kernels_raw_tests kbla_strassen_algorithms_raw_tests; do
  exe=$BUILD_DIR/unit_tests/cuda_raw/$t
  [ -x "$exe" ] || continue
  run_step "memcheck-$t" "${SANITIZE_LIMIT:-90}" "$sanitizer" --tool memcheck --error-exitcode 9 "$exe" --quick
  run_step "racecheck-$t" "${SANITIZE_LIMIT:-90}" "$sanitizer" --tool racecheck --error-exitcode 9 "$exe" --quick
done

bench=$BUILD_DIR/perf_tests/strassen/kbla_bench_strassen
if [ -x "$bench" ]; then
  # shellcheck disable=SC2086  # STRASSEN_ARGS is a list of flags
  run_step strassen "${STRASSEN_LIMIT:-300}" "$bench" ${STRASSEN_ARGS:---quick} --json "$OUT/strassen.json"
fi
echo "=== gpu-bench: $failed step(s) failed"
exit $failed
