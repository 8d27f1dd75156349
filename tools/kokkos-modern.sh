#!/usr/bin/env bash
# Build a current Kokkos (4.6.01, Serial + OpenMP, C++17, no deprecated 4.x code) and Kokkos Kernels (4.6.02,
# BLAS and SPARSE only, no ETI) for the host, from the release tarballs kept beside the project, so that CI and
# developers can build KokkosBlockLA against the Kokkos generation its users have, next to Debian's 3.4.
#
#   tools/kokkos-modern.sh [PREFIX]      default PREFIX /opt/kbla-deps/kokkos-4.6-openmp
#   KBLA_MODERN_HOST_BLAS=1 tools/kokkos-modern.sh [PREFIX]
#                                        as the first, Kokkos Kernels with the BLAS TPL (the system's BLAS, e.g.
#                                        Debian's libopenblas-dev): what the host benchmark of docs/portable.md
#                                        measures; default PREFIX /opt/kbla-deps/kokkos-4.6-openmp-blas.
#   KBLA_MODERN_BACKEND=cuda tools/kokkos-modern.sh [PREFIX]
#                                        Cuda + Serial for sm_90 with nvcc (CUDA_HOME, default /usr/local/cuda),
#                                        Kokkos' nvcc_wrapper as the compiler, Kokkos Kernels with the cuBLAS
#                                        and cuSPARSE TPLs; default PREFIX /opt/kbla-deps/kokkos-4.6-cuda.
#                                        Patches in cmake/patches-kokkos-4.6/ (for CUDA 13) are applied first.
#
# Nothing is downloaded: the tarballs come from KBLA_DEPS_DIR (default <checkout>/../shared/deps) and must match
# its SHA256SUMS. PREFIX gets a stamp of the tarballs' contents, the options below and the compiler; a PREFIX
# that holds the same stamp is left alone, so a machine pays for the build once.
# Environment: JOBS (default nproc), KBLA_DEPS_DIR, CXX (default g++), KBLA_KEEP_BUILD=1 keeps the build tree.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS_DIR=${KBLA_DEPS_DIR:-$ROOT/../shared/deps}
BACKEND=${KBLA_MODERN_BACKEND:-openmp}
HOST_BLAS=${KBLA_MODERN_HOST_BLAS:-0}
HOST_BLAS_SUFFIX=""
if [ "$HOST_BLAS" = 1 ]; then HOST_BLAS_SUFFIX=-blas; fi
case $BACKEND in
  openmp) PREFIX=${1:-/opt/kbla-deps/kokkos-4.6-openmp${HOST_BLAS_SUFFIX}} ;;
  cuda) PREFIX=${1:-/opt/kbla-deps/kokkos-4.6-cuda} ;;
  *) echo "[kokkos-modern] error: KBLA_MODERN_BACKEND is '$BACKEND', not openmp or cuda" >&2; exit 2 ;;
esac
JOBS=${JOBS:-$(nproc)}
CXX=${CXX:-g++}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PATCH_DIR=$ROOT/cmake/patches-kokkos-4.6
KOKKOS_TARBALL=kokkos-4.6.01.tar.xz
KK_TARBALL=kokkos-kernels-4.6.02.tar.xz
STAMP_FILE=.kbla-kokkos-modern-stamp

log() { printf '[kokkos-modern] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

KOKKOS_OPTS=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkos_ENABLE_SERIAL=ON
  # the project must build without what Kokkos 5 removes
  -DKokkos_ENABLE_DEPRECATED_CODE_4=OFF
  -DKokkos_ENABLE_DEPRECATION_WARNINGS=ON
  -DKokkos_ENABLE_TESTS=OFF
  -DKokkos_ENABLE_EXAMPLES=OFF
  -DKokkos_ENABLE_BENCHMARKS=OFF
)
KK_OPTS=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  # KokkosBlas (gemm) and KokkosSparse (CrsMatrix, spmv) are all the library uses; SPARSE pulls in BATCHED,
  # LAPACK and GRAPH by itself, ODE stays off
  -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF
  -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON
  -DKokkosKernels_ENABLE_COMPONENT_SPARSE=ON
  # No pre-instantiation: the default ETI (double, LayoutLeft, int offsets, Serial and OpenMP) covers few of the
  # library's calls (float, complex, LayoutRight and LayoutStride views are compiled inline anyway) and would
  # make this build many times longer.
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF
  -DKokkosKernels_ENABLE_TPL_BLAS=OFF
  -DKokkosKernels_ENABLE_TPL_LAPACK=OFF
  -DKokkosKernels_ENABLE_TESTS=OFF
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
  -DKokkosKernels_ENABLE_BENCHMARK=OFF
  -DKokkosKernels_ENABLE_PERFTESTS=OFF
)
if [ "$BACKEND" = cuda ]; then
  KOKKOS_OPTS+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc")
  KK_OPTS+=(-DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=ON
            -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF -DKokkosKernels_ENABLE_TPL_MAGMA=OFF)
else
  KOKKOS_OPTS+=(-DKokkos_ENABLE_OPENMP=ON)
  # The later -D wins over the TPL_BLAS=OFF above.
  if [ "$HOST_BLAS" = 1 ]; then KK_OPTS+=(-DKokkosKernels_ENABLE_TPL_BLAS=ON); fi
fi

verify_tarballs() {
  [ -f "$DEPS_DIR/SHA256SUMS" ] || die "no SHA256SUMS in KBLA_DEPS_DIR=$DEPS_DIR"
  local t
  for t in "$KOKKOS_TARBALL" "$KK_TARBALL"; do
    [ -f "$DEPS_DIR/$t" ] || die "$DEPS_DIR/$t missing"
    grep -q "  $t\$" "$DEPS_DIR/SHA256SUMS" || die "$t is not listed in $DEPS_DIR/SHA256SUMS"
  done
  (cd "$DEPS_DIR" && grep -E "  ($KOKKOS_TARBALL|$KK_TARBALL)\$" SHA256SUMS | sha256sum --check --quiet) ||
    die "checksum mismatch in $DEPS_DIR"
}

build_stamp() {
  { grep -E "  ($KOKKOS_TARBALL|$KK_TARBALL)\$" "$DEPS_DIR/SHA256SUMS"
    printf '%s\n' "${KOKKOS_OPTS[@]}" "${KK_OPTS[@]}"
    if [ "$BACKEND" = cuda ]; then "$CUDA_HOME/bin/nvcc" --version | tail -n1; cat "$PATCH_DIR"/*.patch 2>/dev/null || true; fi
    "$CXX" --version | head -n1; } | sha256sum | cut -c1-16
}

main() {
  command -v cmake >/dev/null || die "cmake not found (scripts/install-deps.sh installs it)"
  command -v "$CXX" >/dev/null || die "C++ compiler $CXX not found"
  verify_tarballs
  mkdir -p "$PREFIX"; PREFIX=$(cd "$PREFIX" && pwd)
  local stamp; stamp=$(build_stamp)
  if [ "$(cat "$PREFIX/$STAMP_FILE" 2>/dev/null)" = "$stamp" ]; then
    log "$PREFIX already holds this build (stamp $stamp): nothing to do"; return
  fi
  if [ -f "$PREFIX/$STAMP_FILE" ]; then
    # an earlier build of this script with other options: clear what it installed so no stale header survives
    log "$PREFIX holds another build of this script: replacing it"
    rm -rf "$PREFIX"/{bin,include,lib,lib64,share} "$PREFIX/$STAMP_FILE"
  fi
  local gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  local work; work=$(mktemp -d "${TMPDIR:-/tmp}/kbla-kokkos-modern.XXXXXX")
  # expanded now: the trap runs after main has returned and its locals are gone
  [ "${KBLA_KEEP_BUILD:-0}" = 1 ] || trap "rm -rf '$work'" EXIT
  log "unpacking into $work; $("$CXX" --version | head -n1), cmake $(cmake --version | head -n1 | cut -d' ' -f3), JOBS=$JOBS"
  tar -xJf "$DEPS_DIR/$KOKKOS_TARBALL" -C "$work"
  tar -xJf "$DEPS_DIR/$KK_TARBALL" -C "$work"
  local cxx=$CXX
  if [ "$BACKEND" = cuda ]; then
    local p
    for p in "$PATCH_DIR"/*.patch; do
      [ -e "$p" ] || continue
      log "applying $(basename "$p")"
      patch -d "$work" -p1 --no-backup-if-mismatch -s <"$p" || die "patch $(basename "$p") failed"
    done
    # nvcc compiles every Kokkos file, with the host compiler behind it ($CXX through NVCC_WRAPPER_DEFAULT_COMPILER)
    cxx=$work/kokkos-4.6.01/bin/nvcc_wrapper
    export NVCC_WRAPPER_DEFAULT_COMPILER=$CXX CUDA_ROOT=$CUDA_HOME PATH=$CUDA_HOME/bin:$PATH
  fi

  local t0=$SECONDS
  cmake -S "$work/kokkos-4.6.01" -B "$work/build-kokkos" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" "${KOKKOS_OPTS[@]}" >"$work/kokkos-configure.log" 2>&1 ||
    { tail -n 60 "$work/kokkos-configure.log"; die "Kokkos configure failed"; }
  cmake --build "$work/build-kokkos" --parallel "$JOBS" >"$work/kokkos-build.log" 2>&1 ||
    { grep -B2 -A12 -m5 -E 'error|Error' "$work/kokkos-build.log" | head -n 120; die "Kokkos build failed"; }
  cmake --install "$work/build-kokkos" >/dev/null
  local t_kokkos=$((SECONDS - t0))
  log "Kokkos built and installed in ${t_kokkos} s"

  t0=$SECONDS
  cmake -S "$work/kokkos-kernels-4.6.02" -B "$work/build-kk" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" -DKokkos_ROOT="$PREFIX" "${KK_OPTS[@]}" >"$work/kk-configure.log" 2>&1 ||
    { tail -n 60 "$work/kk-configure.log"; die "Kokkos Kernels configure failed"; }
  cmake --build "$work/build-kk" --parallel "$JOBS" >"$work/kk-build.log" 2>&1 ||
    { grep -B2 -A12 -m5 -E 'error|Error' "$work/kk-build.log" | head -n 120; die "Kokkos Kernels build failed"; }
  cmake --install "$work/build-kk" >/dev/null
  local t_kk=$((SECONDS - t0))
  log "Kokkos Kernels built and installed in ${t_kk} s"

  echo "$stamp" >"$PREFIX/$STAMP_FILE"
  printf 'kokkos_build_s=%s\nkokkoskernels_build_s=%s\njobs=%s\n' "$t_kokkos" "$t_kk" "$JOBS" \
    >"$PREFIX/.kbla-kokkos-modern-times"
  echo "BUILD-TIMES kokkos=${t_kokkos}s kokkos-kernels=${t_kk}s jobs=${JOBS} prefix=${PREFIX}"
}

case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) main ;;
esac
