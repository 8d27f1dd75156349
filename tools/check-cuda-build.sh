#!/usr/bin/env bash
# Compiles (does not run: no GPU needed) the CUDA configuration of KokkosBlockLA with nvcc, so that a broken
# .cu or src/tpls file is caught on a CPU machine, against Kokkos 4.6.01 / Kokkos Kernels 4.6.02 for CUDA: the
# Kokkos generation users have and the one the GPU tests run on. tools/kokkos-modern.sh builds it from the
# tarballs in ../shared/deps unless the prefix already holds that exact build (an install stamp), in about 4
# minutes on 2 cores. (The patched Kokkos 3.4.01 of scripts/kokkos-cuda.sh still builds the project, but its
# Kokkos Kernels with explicit instantiation took 26 minutes on 2 cores, a third of CI's 90.)
#   KBLA_CUDA_PREFIX (default /opt/kbla-deps/kokkos-4.6-cuda), BUILD_DIR (default build-cuda-check), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${KBLA_CUDA_PREFIX:-/opt/kbla-deps/kokkos-4.6-cuda}
build=${BUILD_DIR:-build-cuda-check}
jobs=${JOBS:-$(nproc)}
start=$(date +%s)
KBLA_MODERN_BACKEND=cuda bash tools/kokkos-modern.sh "$prefix"
deps_done=$(date +%s)
# Host code at -O1: nothing built here runs, and g++'s optimisation of the Kokkos templates is much of the compile
# time (about half for a test file); device code keeps ptxas' full optimisation, so the kernels' register and
# shared-memory limits are still checked as in a release build.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DKBLA_ENABLE_TESTS=ON -DKBLA_ENABLE_PERF_TESTS=ON
cmake --build "$build" -j "$jobs"
end=$(date +%s)
echo "check-cuda-build: CUDA configuration compiled (dependencies $((deps_done - start)) s, project $((end - deps_done)) s)"
