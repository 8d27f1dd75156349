#!/usr/bin/env bash
# GPU round trip without building on the GPU machine: the CUDA configuration is compiled on a CPU machine with
# nvcc (tools/check-cuda-build.sh, ~0 s when up to date), the chosen binaries are packed into .deps/, and the
# GPU machine only runs them (same CUDA 13 and a compatible glibc on both).
#
#   tools/gpu-prebuilt.sh pack [SET ...]   here: build, then pack SETs into .deps/prebuilt.tar.xz
#        tests     kbla_unit_tests, kbla_solver_tests (GoogleTest), kbla_cuda_raw_tests (tall & skinny raw)
#        ts_raw    kbla_cuda_raw_tests only (steps ts_raw, ts_sanitize)
#        unit      kbla_unit_tests and the interleaved-operand raw test (step gtest skips the solver suite then)
#        solver    kbla_solver_tests only
#        ts        kbla_bench_tall_skinny, kbla_ramp_probe (ts_bench / ts_probe: one of them)
#        ts_cases  kbla_ts_cases (single cases through the raw API, for A/B timings; run it by hand there)
#        strassen  kbla_bench_strassen and both Strassen raw tests
#        eigen     kbla_eigen_driver
#        downstream  a downstream project built HERE against an install of the build (find_package(KokkosBlockLA),
#                  unit_tests/downstream/project): its app runs there in step downstream
#        driver    kbla_driver (the main job)
#      (default: tests). Packed sizes: tests ~40 MB, ts ~23 MB, strassen ~12 MB.
#   tools/gpu-prebuilt.sh run STEP ...     on the GPU machine, with .deps/prebuilt.tar.xz copied there: unpack into
#      /tmp/kbla-prebuilt and run tools/gpu-bench.sh STEP ... on it (gtest ts_raw ts_sanitize ts_sweep raw
#      sanitize strassen tall_skinny eigen), OUT as there. A first step "tests" runs ts_raw, gtest and
#      ts_sanitize at once (about 4 min for all of them), e.g. `run tests tall_skinny`.
# The binaries link cuBLAS and the CUDA runtime from /usr/local/cuda dynamically (same CUDA 13 on both machines);
# libgomp travels along in case the GPU machine lacks it. pack records the commit (and whether the tree had local
# changes) in prebuilt-stamp.txt, which run prints first.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
mode=${1:-}; shift || true
case $mode in
  pack)
    build=${BUILD_DIR:-build-cuda-check}
    BUILD_DIR=$build bash tools/check-cuda-build.sh > /tmp/kbla-prebuilt-build.log 2>&1 \
        || { tail -n 30 /tmp/kbla-prebuilt-build.log; exit 1; }
    [ $# -gt 0 ] || set -- tests
    files=()
    for set_ in "$@"; do
      case $set_ in
        tests) files+=(unit_tests/kbla_unit_tests unit_tests/solvers/kbla_solver_tests
                       unit_tests/cuda_raw/kbla_cuda_raw_tests) ;;
        ts_raw) files+=(unit_tests/cuda_raw/kbla_cuda_raw_tests) ;;
        unit) files+=(unit_tests/kbla_unit_tests unit_tests/cuda_raw/kbla_tall_skinny_interleaved_raw_tests) ;;
        solver) files+=(unit_tests/solvers/kbla_solver_tests) ;;
        ts) files+=(perf_tests/tall_skinny/kbla_bench_tall_skinny perf_tests/tall_skinny/kbla_ramp_probe) ;;
        ts_bench) files+=(perf_tests/tall_skinny/kbla_bench_tall_skinny) ;;
        ts_probe) files+=(perf_tests/tall_skinny/kbla_ramp_probe) ;;
        ts_cases) files+=(perf_tests/tall_skinny/kbla_ts_cases) ;;
        strassen) files+=(perf_tests/strassen/kbla_bench_strassen unit_tests/cuda_raw/kbla_strassen_kernels_raw_tests
                          unit_tests/cuda_raw/kbla_strassen_algorithms_raw_tests) ;;
        eigen) files+=(perf_tests/eigen/kbla_eigen_driver) ;;
        driver) files+=(perf_tests/kbla_driver) ;;
        downstream)  # install, configure and build as the ctest downstream_find_package does, but not run here
          ds=$(cd "$build" && pwd)/downstream-prebuilt; rm -rf "$ds"
          cmake --install "$build" --prefix "$ds/prefix" > "$ds.log" 2>&1 &&
          cmake -S unit_tests/downstream/project -B "$ds/build" -DCMAKE_BUILD_TYPE=Release \
              "-DCMAKE_PREFIX_PATH=$ds/prefix;$(sed -n 's/^CMAKE_PREFIX_PATH[^=]*=//p' "$build/CMakeCache.txt")" \
              "-DCMAKE_CXX_COMPILER=$(sed -n 's/^CMAKE_CXX_COMPILER:[^=]*=//p' "$build/CMakeCache.txt")" >> "$ds.log" 2>&1 &&
          cmake --build "$ds/build" >> "$ds.log" 2>&1 || { tail -n 30 "$ds.log"; exit 1; }
          files+=(downstream-prebuilt/build/downstream_app) ;;
        *) echo "gpu-prebuilt: unknown set '$set_'"; exit 2 ;;
      esac
    done
    stage=$(mktemp -d)
    for f in "${files[@]}"; do mkdir -p "$stage/$(dirname "$f")"; cp "$build/$f" "$stage/$f"; done
    gomp=$(g++ -print-file-name=libgomp.so.1); cp -L "$gomp" "$stage/libgomp.so.1"
    { echo "commit $(git rev-parse --short HEAD)$(git status --porcelain --untracked-files=no | grep -q . \
        && echo ' with local changes')"; echo "sets $*"; date -u +%Y-%m-%dT%H:%M:%SZ; } > "$stage/prebuilt-stamp.txt"
    mkdir -p .deps
    # one xz stream with a dictionary larger than a binary: the binaries share the statically linked kernel library,
    # and its second copy then costs almost nothing (ts_raw + ts_cases: 27 MB with xz -6, 14 MB like this)
    tar -cf - -C "$stage" . | xz -T1 --lzma2=preset=6,dict=128MiB > .deps/prebuilt.tar.xz
    rm -rf "$stage"
    echo "gpu-prebuilt: .deps/prebuilt.tar.xz $(du -h .deps/prebuilt.tar.xz | cut -f1) ($*)" ;;
  run)
    dir=/tmp/kbla-prebuilt
    rm -rf "$dir" && mkdir -p "$dir" && tar -xJf .deps/prebuilt.tar.xz -C "$dir"
    cat "$dir/prebuilt-stamp.txt"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
    for b in "$dir"/unit_tests/cuda_raw/kbla_cuda_raw_tests "$dir"/unit_tests/kbla_unit_tests; do
      if [ -x "$b" ] && ldd "$b" | grep -q 'libgomp.*not found'; then
        export LD_LIBRARY_PATH=$dir:${LD_LIBRARY_PATH:-}
      fi
    done
    export BUILD_DIR=$dir
    if [ "${1:-}" = tests ]; then  # the three test steps at once (they share the GPU lightly): ~4 min in all
      shift
      rc=0
      OUT=${OUT:-$ROOT/gpu-bench-out}; mkdir -p "$OUT"
      bash tools/gpu-bench.sh ts_raw > "$OUT/log-ts_raw.txt" 2>&1 & p1=$!
      bash tools/gpu-bench.sh gtest > "$OUT/log-gtest.txt" 2>&1 & p2=$!
      bash tools/gpu-bench.sh ts_sanitize > "$OUT/log-ts_sanitize.txt" 2>&1 & p3=$!
      for p in $p1 $p2 $p3; do wait $p || rc=$((rc + 1)); done
      grep -h -E '^=== gpu-bench \[|^[a-z_]+_tests: ' "$OUT"/log-ts_raw.txt "$OUT"/log-gtest.txt "$OUT"/log-ts_sanitize.txt
      [ $# -gt 0 ] || exit $rc
    fi
    exec bash tools/gpu-bench.sh "$@" ;;
  *) sed -n 2,22p "$0"; exit 2 ;;
esac
