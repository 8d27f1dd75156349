#!/usr/bin/env bash
# Configure, build and (unless --build-only) run the gemm smoke test against a Kokkos install.
#   tools/smoke/run.sh PREFIX [--build-only]      (build tree: build-smoke/ in the repo root)
set -euo pipefail
prefix=${1:?usage: $0 PREFIX [--build-only]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bdir=$here/../../build-smoke
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$here" -B "$bdir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper"
cmake --build "$bdir" --parallel "$(nproc)"
[ "${2:-}" = --build-only ] || "$bdir/kokkos_gemm_smoke"
