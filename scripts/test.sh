#!/usr/bin/env bash
# The test command (README): installs the dependencies, builds KokkosBlockLA with its tests on the host
# backend (Debian's Serial Kokkos unless CMAKE_PREFIX_PATH points elsewhere) and runs ctest.
#   BUILD_DIR (default build) and JOBS (default nproc) can be set in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKBLA_ENABLE_TESTS=ON -DKBLA_ENABLE_PERF_TESTS=ON
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs"
