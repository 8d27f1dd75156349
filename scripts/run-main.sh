#!/usr/bin/env bash
# The main job (README): installs the dependencies, builds KokkosBlockLA and runs kbla_driver on the default
# device: measured bandwidth, then inner / update / gemm on block vectors in GB/s and % of that bandwidth.
# Arguments go to kbla_driver (e.g. --widths 4,16,64 --scalar complex --json out.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKBLA_ENABLE_PERF_TESTS=ON > /dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target kbla_driver
"$build/perf_tests/kbla_driver" "$@"
