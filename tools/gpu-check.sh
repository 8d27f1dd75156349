#!/usr/bin/env bash
# The whole GPU round trip in one call, run ON the GPU machine from the repository root:
#
#   tools/gpu-check.sh [EXTRA COMMAND ...]
#
#  1. prints the GPU (nvidia-smi: name, driver, clocks)
#  2. scripts/kokkos-cuda.sh build $DEPS_PREFIX      (default /tmp/kbla-deps; needs the sources in .deps/).
#     When .deps/kokkos-cuda-install.tar.xz is there (an install made on another machine by
#     `scripts/kokkos-cuda.sh pack PREFIX`, unpacked at the same PREFIX), the build is skipped. If the project
#     does not configure against it, the dependencies are built from source.
#  3. configures this project into build-cuda/ with nvcc_wrapper, tests on, GoogleTest from .deps/googletest
#  4. builds it with all cores, runs ctest --output-on-failure
#  5. runs EXTRA COMMAND (if given) with $OUT, $DEPS_PREFIX and $BUILD_DIR exported, e.g. a benchmark
#  6. prints a summary table
#
# Environment: EARLY_TARGETS + EARLY_CMD (see step 3), CTEST_ARGS (e.g. -E pattern), CTEST_TIMEOUT (per test).
# Files written under $OUT (./gpu-check-out when unset):
#   gpu-check.log (everything), ctest.log (ctest's output), summary.txt (the table)
# Exit status: 0 when every step ran and all tests passed, else the first failing step's number.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export OUT=${OUT:-$ROOT/gpu-check-out}
export DEPS_PREFIX=${DEPS_PREFIX:-/tmp/kbla-deps}
export BUILD_DIR=${BUILD_DIR:-$ROOT/build-cuda}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
LOG=$OUT/gpu-check.log
: >"$LOG"
exec 3>&1 4>&2 > >(tee -a "$LOG") 2>&1
TEE_PID=$!

rc=0
declare -A T STATUS
step() {  # step NUMBER NAME COMMAND...: run, time, record; keep the first failure's number in rc
  local n=$1 name=$2; shift 2
  echo; echo "=== [$n] $name: $*"
  local t0=$SECONDS
  "$@"; local s=$?
  T[$name]=$((SECONDS - t0))
  if [ $s -eq 0 ]; then STATUS[$name]=ok; else STATUS[$name]="FAILED($s)"; [ $rc -ne 0 ] || rc=$n; fi
  echo "=== [$n] $name: ${STATUS[$name]} in ${T[$name]} s"
  return $s
}

echo "=== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $JOBS cores, $(cmake --version | head -n1)"
echo "=== commit $(git -c safe.directory='*' -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') $(git -c safe.directory='*' -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo '(with local changes)')"
GPU=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total \
        --format=csv,noheader 2>/dev/null | head -n1)
echo "=== GPU: ${GPU:-none found}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total --format=csv 2>/dev/null
{ nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version; } | grep -i release

deps_ok=0; conf_ok=0; build_ok=0
packed=$ROOT/.deps/kokkos-cuda-install.tar.xz
if [ -f "$packed" ] && [ ! -f "$DEPS_PREFIX/.kbla-kokkos-stamp" ]; then
  echo "=== unpacking the prebuilt Kokkos install $packed into $DEPS_PREFIX"
  mkdir -p "$DEPS_PREFIX" && tar -xJf "$packed" -C "$DEPS_PREFIX"
  # Kokkos Kernels exports cuBLAS by absolute path as found on the machine that built it (lib/ there, lib64/ on
  # the GPU machine): point it at this machine's copy.
  for f in "$DEPS_PREFIX"/lib*/cmake/KokkosKernels/*.cmake; do
    for lib in $(grep -o '/[^";]*libcublas[^";]*\.so' "$f" | sort -u); do
      [ -e "$lib" ] && continue
      here=$(ls /usr/local/cuda/lib64/"$(basename "$lib")" /usr/local/cuda/lib/"$(basename "$lib")" 2>/dev/null | head -n1)
      [ -n "$here" ] && { echo "=== $f: $lib -> $here"; sed -i "s|$lib|$here|g" "$f"; }
    done
  done
fi
step 1 deps "$ROOT/scripts/kokkos-cuda.sh" build "$DEPS_PREFIX" && deps_ok=1

configure() {
  local gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$DEPS_PREFIX" -DCMAKE_CXX_COMPILER="$DEPS_PREFIX/bin/nvcc_wrapper" \
      -DKBLA_GTEST_SOURCE_DIR="$ROOT/.deps/googletest" -DKBLA_ENABLE_TESTS=ON
}
if [ $deps_ok = 1 ]; then
  if ! step 2 configure configure && [ -f "$packed" ]; then
    echo "=== the prebuilt install did not configure: building the dependencies from source"
    rm -rf "$DEPS_PREFIX" "$BUILD_DIR"; rc=0
    step 1 deps "$ROOT/scripts/kokkos-cuda.sh" build "$DEPS_PREFIX" && step 2 configure configure && conf_ok=1
  else
    [ "${STATUS[configure]}" = ok ] && conf_ok=1
  fi
fi
# EARLY_TARGETS / EARLY_CMD: GPU work that needs only a few quick targets (the raw CUDA tests, a benchmark) is
# built first and run while the rest of the project (the Kokkos CUDA translation units, minutes each) compiles.
if [ $conf_ok = 1 ] && [ -n "${EARLY_TARGETS:-}" ]; then
  # shellcheck disable=SC2086  # a list of target names
  step 3 early-build cmake --build "$BUILD_DIR" --parallel "$JOBS" --target $EARLY_TARGETS
  # keep going past a failing target so that everything else still gets built and tested
  keep_going=(-k); [ -f "$BUILD_DIR/build.ninja" ] && keep_going=(-k 0)
  cmake --build "$BUILD_DIR" --parallel "$JOBS" -- "${keep_going[@]}" >"$BUILD_DIR.build.log" 2>&1 &
  build_pid=$!
  [ -n "${EARLY_CMD:-}" ] && step 3 early bash -c "$EARLY_CMD"
  echo "=== waiting for the full build (log: $BUILD_DIR.build.log)"
  t_wait=$SECONDS
  if wait "$build_pid"; then build_ok=1; STATUS[build]=ok; else STATUS[build]=FAILED; [ $rc -ne 0 ] || rc=3
    grep -B2 -A15 -m5 -E 'error' "$BUILD_DIR.build.log" | head -n 150
    build_ok=1; echo "=== some targets failed to build: ctest runs the rest (missing ones show as Not Run)"; fi
  T[build]=$((SECONDS - t_wait)); echo "=== [3] build: ${STATUS[build]} (waited ${T[build]} s after the early steps)"
elif [ $conf_ok = 1 ]; then
  step 3 build cmake --build "$BUILD_DIR" --parallel "$JOBS" && build_ok=1
fi
passed=-; failed=-; total=-
if [ $build_ok = 1 ]; then
  step 4 ctest bash -c "set -o pipefail; cd '$BUILD_DIR' && ctest --output-on-failure --timeout ${CTEST_TIMEOUT:-300} ${CTEST_ARGS:-} 2>&1 | tee '$OUT/ctest.log'"
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$OUT/ctest.log" | tail -n1)
  if [ -n "$line" ]; then
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    failed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    passed=$((total - failed))
  fi
fi
if [ $# -gt 0 ]; then
  step 5 extra "$@"
fi

{
  echo
  echo "==================== gpu-check summary ===================="
  printf '%-22s %s\n' "device" "${GPU:-none found}"
  printf '%-22s %s\n' "commit" "$(git -c safe.directory='*' -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  [ -f "$DEPS_PREFIX/.kbla-kokkos-times" ] &&
    printf '%-22s %s\n' "kokkos build (s)" "$(sed -n 's/kokkos_build_s=//p' "$DEPS_PREFIX/.kbla-kokkos-times") (on the run that built $DEPS_PREFIX)" \
                        "kokkos-kernels (s)" "$(sed -n 's/kokkoskernels_build_s=//p' "$DEPS_PREFIX/.kbla-kokkos-times")"
  for s in deps configure early-build early build ctest extra; do
    [ -n "${STATUS[$s]:-}" ] && printf '%-22s %-12s %6s s\n' "$s" "${STATUS[$s]}" "${T[$s]}"
  done
  printf '%-22s %s\n' "tests" "passed $passed, failed $failed, total $total"
  echo "exit status            $rc"
  echo "============================================================"
} | tee "$OUT/summary.txt"
exec 1>&3 2>&4 3>&- 4>&-   # let tee see end of input and finish writing the log before the tool collects $OUT
wait "$TEE_PID" 2>/dev/null
exit $rc
