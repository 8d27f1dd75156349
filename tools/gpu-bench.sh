#!/usr/bin/env bash
# GPU measurements on a CUDA build of this project (run ON the GPU machine, usually from gpu-check.sh so that the
# build is shared):
#
#   tools/gpu-bench.sh [STEP ...]        steps, in the order given (default: eigen raw sanitize strassen)
#     driver    kbla_driver (the main job) for double LayoutLeft / LayoutRight and complex LayoutLeft
#               -> $OUT/driver-<scalar>-<layout>.json
#     eigen     kbla_eigen_driver, 3D Laplacian 100^3, k = 16 largest, tol 1e-10, checked against the analytic
#               spectrum, EIGEN_RUNS times (default 1) -> $OUT/eigen-<i>.json
#     raw       the Strassen raw tests (CPU long-double reference)
#     sanitize  compute-sanitizer memcheck on both Strassen raw tests, racecheck on the tile kernels (--quick)
#     ts_sanitize  compute-sanitizer memcheck and racecheck on the tall & skinny raw test's --tiny set (every
#               kernel family: SIMT, tensor cores, row kernels, in place, deterministic, tiled, cuBLAS routes)
#     ts_raw    the tall & skinny raw test in full, one process per scalar type (TS_RAW_TYPES, default D Z S C),
#               with the cuBLAS routes off and again on, all at once (OpenMP threads shared out over the cores);
#               limit TS_RAW_LIMIT (default 400 s); the tail of each run -> $OUT/ts_raw.txt
#     gtest     the GoogleTest binaries run directly (unit and solver suites; what ctest runs, without the
#               raw tests and the downstream build) -> $OUT/gtest.txt (tails)
#     downstream  the downstream app (find_package(KokkosBlockLA) against an install; gpu-prebuilt.sh pack
#               downstream builds it), which must print "downstream ok" -> $OUT/downstream.txt
#     ts_sweep  kbla_ramp_probe --route-sweep (random operands): own kernel against cuBLAS at widths 1-64 over K
#               -> $OUT/ts_sweep.txt
#     strassen  the Strassen benchmark (STRASSEN_ARGS, default --quick --max-seconds 90) -> $OUT/strassen.json
#     tall_skinny  the tall & skinny benchmark kbla_bench_tall_skinny (TS_ARGS, default: the full run,
#               --max-seconds 290; limit TS_LIMIT, default 340 s) -> $OUT/tall_skinny.json, then plot.py ->
#               $OUT/tall_skinny.png (the main figure; the others come from plot.py on the JSON anywhere) when
#               python3 with matplotlib is there, else skipped quietly.
#               Not in the default list (it takes ~5 min): name it. Quick look: TS_ARGS="--quick --max-seconds 120"
#
# Needs BUILD_DIR (the CUDA build) and OUT (./gpu-bench-out when unset). Each step has a time limit; a failed
# step does not stop the next. Exit status: number of failed steps. A full build-and-measure round trip
# (docs/developing.md):
#   DEPS_PREFIX=/opt/kbla-deps/kokkos-cuda EARLY_TARGETS="..." EARLY_CMD="tools/gpu-bench.sh ..." \
#     tools/gpu-check.sh tools/gpu-bench.sh eigen
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-cuda}
OUT=${OUT:-$ROOT/gpu-bench-out}
mkdir -p "$OUT"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
RAW=$BUILD_DIR/unit_tests/cuda_raw
failed=0
run_step() {  # run_step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "=== gpu-bench [$name] (limit ${limit} s): $*"
  local t0=$SECONDS
  timeout "$limit" "$@"; local s=$?
  echo "=== gpu-bench [$name] exit $s in $((SECONDS - t0)) s"
  [ $s -eq 0 ] || failed=$((failed + 1))
}

[ $# -gt 0 ] || set -- eigen raw sanitize strassen
for what in "$@"; do
  case $what in
    eigen)
      for i in $(seq 1 "${EIGEN_RUNS:-1}"); do
        run_step "eigen-$i" "${EIGEN_LIMIT:-120}" "$BUILD_DIR/perf_tests/eigen/kbla_eigen_driver" --laplacian 100 \
            -k 16 --tol 1e-10 --check-analytic --json "$OUT/eigen-$i.json"
      done ;;
    driver)
      # the main job: double LayoutLeft and LayoutRight, complex LayoutLeft, each with cuBLAS in the same run
      for cfg in "double left" "double right" "complex left"; do
        read -r scalar layout <<< "$cfg"
        run_step "driver-$scalar-$layout" "${DRIVER_LIMIT:-120}" "$BUILD_DIR/perf_tests/kbla_driver" \
            --scalar "$scalar" --layout "$layout" --json "$OUT/driver-$scalar-$layout.json"
      done ;;
    raw)
      for t in strassen_kernels strassen_algorithms; do
        run_step "raw-$t" "${RAW_LIMIT:-90}" "$RAW/kbla_${t}_raw_tests"
      done ;;
    sanitize)
      for t in strassen_kernels strassen_algorithms; do
        run_step "memcheck-$t" "${SANITIZE_LIMIT:-45}" "$SAN" --tool memcheck --error-exitcode 9 \
            "$RAW/kbla_${t}_raw_tests" --quick
      done
      # racecheck looks for shared-memory hazards: the tile kernels (cuBLAS inside the other test is slow under it)
      run_step racecheck-strassen_kernels "${SANITIZE_LIMIT:-45}" "$SAN" --tool racecheck --error-exitcode 9 \
          "$RAW/kbla_strassen_kernels_raw_tests" --quick ;;
    ts_sanitize)
      for tool in memcheck racecheck; do
        run_step "$tool-tall_skinny" "${SANITIZE_LIMIT_TS:-150}" "$SAN" --tool "$tool" --error-exitcode 9 \
            "$RAW/kbla_cuda_raw_tests" --tiny
        # the own kernels where cuBLAS would run (the tiny set includes a bulk-copy A·C case)
        run_step "$tool-tall_skinny-own" "${SANITIZE_LIMIT_TS:-150}" "$SAN" --tool "$tool" \
            --error-exitcode 9 "$RAW/kbla_cuda_raw_tests" --tiny --types DZ --own-kernels
      done ;;
    ts_raw)
      types=${TS_RAW_TYPES:-D Z S C}
      nproc_=$(nproc); nruns=$(( $(echo $types | wc -w) * 2 )); thr=$(( nproc_ / nruns )); [ $thr -ge 1 ] || thr=1
      t0=$SECONDS
      for t in $types; do
        for routes in off on; do
          ( own=(); if [ $routes = off ]; then own=(--own-kernels); fi
            OMP_NUM_THREADS=$thr timeout "${TS_RAW_LIMIT:-400}" "$RAW/kbla_cuda_raw_tests" --types "$t" "${own[@]}" \
                > "$OUT/.ts_raw_${t}_$routes" 2>&1
            echo "exit $?" >> "$OUT/.ts_raw_${t}_$routes" ) &
        done
      done
      wait
      : > "$OUT/ts_raw.txt"
      for f in "$OUT"/.ts_raw_*; do
        last=$(grep -E 'passed, [0-9]+ failed' "$f" | tail -n 1); rc=$(tail -n 1 "$f")
        echo "=== gpu-bench [ts_raw ${f##*/.ts_raw_}] $last, $rc"
        { echo "== ${f##*/.ts_raw_}"; tail -n 40 "$f"; } >> "$OUT/ts_raw.txt"
        [ "$rc" = "exit 0" ] || failed=$((failed + 1))
        rm -f "$f"
      done
      echo "=== gpu-bench [ts_raw] all in $((SECONDS - t0)) s" ;;
    gtest)
      : > "$OUT/gtest.txt"
      for b in unit_tests/kbla_unit_tests unit_tests/solvers/kbla_solver_tests \
               unit_tests/cuda_raw/kbla_tall_skinny_interleaved_raw_tests; do
        if [ ! -x "$BUILD_DIR/$b" ]; then  # a prebuilt pack may leave one out
          echo "=== gpu-bench [gtest ${b##*/}] not in this build: skipped" | tee -a "$OUT/gtest.txt"
          continue
        fi
        t0=$SECONDS
        ( cd "$(dirname "$BUILD_DIR/$b")" && timeout "${GTEST_LIMIT:-300}" "./${b##*/}" > "$OUT/.gtest" 2>&1 ); s=$?
        echo "=== gpu-bench [gtest ${b##*/}] exit $s in $((SECONDS - t0)) s"
        grep -E '^\[  (PASSED|FAILED) |passed, [0-9]+ failed' "$OUT/.gtest" | sed "s|^|${b##*/}: |"
        { echo "== $b (exit $s)"; grep -E '^\[  FAILED|^\[==========\]|^\[  PASSED|passed, [0-9]+ failed' "$OUT/.gtest"; } \
            >> "$OUT/gtest.txt"
        [ $s -eq 0 ] || failed=$((failed + 1))
        rm -f "$OUT/.gtest"
      done ;;
    downstream)
      run_step downstream "${DOWNSTREAM_LIMIT:-120}" bash -c "'$BUILD_DIR/downstream-prebuilt/build/downstream_app' \
          > '$OUT/downstream.txt' 2>&1 && grep -q 'downstream ok' '$OUT/downstream.txt'"
      tail -n 5 "$OUT/downstream.txt" ;;
    ts_sweep)
      run_step ts_sweep "${TS_SWEEP_LIMIT:-150}" "$BUILD_DIR/perf_tests/tall_skinny/kbla_ramp_probe" --route-sweep \
          > "$OUT/ts_sweep.txt" ;;
    strassen)
      # shellcheck disable=SC2086  # STRASSEN_ARGS is a list of flags
      run_step strassen "${STRASSEN_LIMIT:-130}" "$BUILD_DIR/perf_tests/strassen/kbla_bench_strassen" \
          ${STRASSEN_ARGS:---quick --max-seconds 90} --json "$OUT/strassen.json" ;;
    tall_skinny)
      # shellcheck disable=SC2086  # TS_ARGS is a list of flags
      run_step tall_skinny "${TS_LIMIT:-340}" "$BUILD_DIR/perf_tests/tall_skinny/kbla_bench_tall_skinny" \
          ${TS_ARGS:---max-seconds 290} --json "$OUT/tall_skinny.json"
      if [ -s "$OUT/tall_skinny.json" ] && python3 -c 'import matplotlib' >/dev/null 2>&1; then
        python3 "$ROOT/perf_tests/tall_skinny/plot.py" "$OUT/tall_skinny.json" "$OUT/tall_skinny.png" --main-only \
            || echo "gpu-bench: tall_skinny plot failed (not counted)"
      fi ;;
    *) echo "gpu-bench: unknown step '$what'"; failed=$((failed + 1)) ;;
  esac
done
echo "=== gpu-bench: $failed step(s) failed"
exit $failed
