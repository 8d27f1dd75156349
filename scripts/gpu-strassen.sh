#!/usr/bin/env bash
# The Strassen kernels' GPU round trip without Kokkos (run ON the GPU machine from the repository root): builds
# the raw-pointer CUDA sources with nvcc alone (about a minute on 16 cores, no Kokkos build needed), runs both
# raw tests, compute-sanitizer memcheck + racecheck on their --quick sets, then the benchmark.
#
#   scripts/gpu-strassen.sh [BENCH FLAGS...]      (default flags: --quick)
#
# Files under $OUT (./gpu-strassen-out when unset): strassen-raw.log (build, tests, sanitizers) and
# strassen.json (the benchmark). Exit status: number of failed steps.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/gpu-strassen-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/strassen-raw.log") 2>&1
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
B=${BUILD_DIR:-/tmp/kbla-strassen-raw}
mkdir -p "$B"
flags=(-arch=sm_90 -std=c++17 -O3 -Isrc/cuda)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv 2>/dev/null

failed=0
run() {  # run NAME LIMIT COMMAND...
  local name=$1 limit=$2; shift 2
  echo "=== [$name] $*"
  local t0=$SECONDS
  timeout "$limit" "$@"; local s=$?
  echo "=== [$name] exit $s in $((SECONDS - t0)) s"
  [ $s -eq 0 ] || failed=$((failed + 1))
  return $s
}

t0=$SECONDS
srcs=(simt_gemm strassen_fused strassen_workspace)
pids=()  # wait on these alone: a bare `wait` would also wait for the tee above (bash >= 5.1), forever
for s in "${srcs[@]}"; do "$NVCC" "${flags[@]}" -c "src/cuda/$s.cu" -o "$B/$s.o" & pids+=($!); done
for t in kernels algorithms; do
  "$NVCC" "${flags[@]}" -c "unit_tests/cuda_raw/test_strassen_${t}_raw.cu" -o "$B/test_$t.o" & pids+=($!)
done
"$NVCC" "${flags[@]}" -c perf_tests/strassen/bench_strassen.cu -o "$B/bench.o" & pids+=($!)
wait "${pids[@]}"
objs=("${srcs[@]/#/$B/}"); objs=("${objs[@]/%/.o}")
for t in kernels algorithms; do "$NVCC" -arch=sm_90 "$B/test_$t.o" "${objs[@]}" -lcublas -o "$B/test_$t"; done
"$NVCC" -arch=sm_90 "$B/bench.o" "${objs[@]}" -lcublas -o "$B/bench"
echo "=== build: $((SECONDS - t0)) s"

for t in kernels algorithms; do
  [ -x "$B/test_$t" ] || { echo "=== test_$t did not build"; failed=$((failed + 1)); continue; }
  run "raw-$t" "${TEST_LIMIT:-90}" "$B/test_$t"
  run "memcheck-$t" "${SANITIZE_LIMIT:-45}" "$SAN" --tool memcheck --error-exitcode 9 "$B/test_$t" --quick
done
# racecheck: shared-memory hazards, i.e. the tile kernels (the algorithms test adds cuBLAS, far slower under it)
run racecheck-kernels "${SANITIZE_LIMIT:-45}" "$SAN" --tool racecheck --error-exitcode 9 "$B/test_kernels" --quick
if [ -x "$B/bench" ]; then
  [ $# -gt 0 ] || set -- --quick --max-seconds 100
  run bench "${BENCH_LIMIT:-150}" "$B/bench" "$@" --json "$OUT/strassen.json"
fi
echo "=== gpu-strassen: $failed step(s) failed"
exit $failed
