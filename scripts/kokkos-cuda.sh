#!/usr/bin/env bash
# Build a CUDA-enabled Kokkos + Kokkos Kernels 3.4.01 from Debian's `trilinos` source package.
#
#   scripts/kokkos-cuda.sh prepare        CPU machine, needs Debian's package registry (through apt only):
#                                         fetch trilinos' source, keep packages/kokkos{,-kernels}, apply
#                                         cmake/patches/*.patch, write .deps/kokkos-3.4.01-patched.tar.xz and
#                                         copy Debian's GoogleTest source to .deps/googletest/
#   scripts/kokkos-cuda.sh build PREFIX   any machine with CUDA 13 at $CUDA_HOME (default /usr/local/cuda),
#                                         no network: build + install Kokkos (Cuda+Serial, sm_90) and
#                                         Kokkos Kernels (cuBLAS TPL, minimal ETI) into PREFIX
#   scripts/kokkos-cuda.sh all PREFIX     prepare, then build
#   scripts/kokkos-cuda.sh pack PREFIX    write PREFIX's finished install to .deps/kokkos-cuda-install.tar.xz, for
#                                         gpu-check.sh to unpack at the same PREFIX instead of building there
#
# Both steps are idempotent: prepare skips when the tarball was made from the same patches, build skips when
# PREFIX holds an install stamp of the same tarball and build options.
# Environment: JOBS (default nproc), CUDA_HOME, KBLA_SRC_CACHE (where prepare keeps the pristine sources,
# default ~/.cache/kbla), KBLA_KEEP_BUILD=1 keeps the temporary build tree.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS=$ROOT/.deps
PATCH_DIR=$ROOT/cmake/patches
TARBALL=$DEPS/kokkos-3.4.01-patched.tar.xz
GTEST_DST=$DEPS/googletest
CACHE=${KBLA_SRC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbla}
JOBS=${JOBS:-$(nproc)}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
ARCH_OPT=Kokkos_ARCH_HOPPER90   # added by cmake/patches/0004-*.patch
PACK_VERSION=1                  # bump when the packing below changes

log() { printf '[kokkos-cuda] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi; }

patches_hash() {
  # hash of the patch series (names and contents) plus the packing rules below
  { for p in "$PATCH_DIR"/*.patch; do [ -e "$p" ] && { basename "$p"; cat "$p"; }; done
    echo "$PACK_VERSION"; } | sha256sum | cut -c1-16
}

# ---------------------------------------------------------------------------------------------- prepare
ensure_deb_src() {
  if apt-cache showsrc trilinos 2>/dev/null | grep -q '^Package: trilinos'; then return; fi
  local dst=/etc/apt/sources.list.d/kbla-deb-src.sources
  log "deriving a deb-src entry from this system's apt sources -> $dst"
  local tmp; tmp=$(mktemp)
  # deb822 files: copy every stanza whose Types has 'deb', with Types: deb-src (comments and Types dropped)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk '
      function flush() { if (isdeb && body != "" && enabled) printf "Types: deb-src\n%s\n", body; body=""; isdeb=0; enabled=1 }
      BEGIN { enabled=1 }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { if ($0 ~ /(^|[ \t:])deb([ \t]|$)/) isdeb=1; next }
      /^Enabled:[ \t]*no/ { enabled=0 }
      { body = body $0 "\n" }
      END { flush() }' "$f" >>"$tmp"
  done
  # one-line format: deb [opts] uri suite comps... -> deb-src ...
  local lines; lines=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                       sed -n 's/^[ \t]*deb[ \t]\+/deb-src /p' || true)
  if [ -n "$lines" ]; then
    printf '%s\n' "$lines" | as_root tee /etc/apt/sources.list.d/kbla-deb-src.list >/dev/null
  fi
  if [ -s "$tmp" ]; then as_root install -m 0644 "$tmp" "$dst"; fi
  rm -f "$tmp"
  [ -s "$dst" ] || [ -n "$lines" ] || die "no 'deb' source found in /etc/apt to derive a deb-src entry from"
  as_root apt-get update -qq
  apt-cache showsrc trilinos 2>/dev/null | grep -q '^Package: trilinos' || die "trilinos source package not found"
}

# pristine packages/kokkos and packages/kokkos-kernels, extracted once into $CACHE/pristine
fetch_pristine() {
  local pristine=$CACHE/pristine
  if [ -f "$pristine/.complete" ]; then log "pristine sources cached in $pristine"; return; fi
  ensure_deb_src
  local dl; dl=$(mktemp -d); chmod 755 "$dl"   # readable by apt's sandbox user
  log "apt-get source --download-only trilinos (into $dl)"
  (cd "$dl" && apt-get source -qq --download-only trilinos)
  local orig; orig=$(ls "$dl"/trilinos_*.orig.tar.* | head -n1)
  [ -f "$orig" ] || die "no orig tarball downloaded"
  log "extracting packages/kokkos and packages/kokkos-kernels from $(basename "$orig")"
  rm -rf "$pristine"; mkdir -p "$pristine"
  # top-level directory name of the orig tarball is not fixed: strip it and the 'packages/' level
  tar -xf "$orig" -C "$pristine" --wildcards --strip-components=2 \
      '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  [ -f "$pristine/kokkos/CMakeLists.txt" ] && [ -f "$pristine/kokkos-kernels/CMakeLists.txt" ] ||
    die "kokkos/ or kokkos-kernels/ missing after extraction"
  grep -q 'Kokkos_VERSION_MINOR 4' "$pristine/kokkos/CMakeLists.txt" || log "warning: not Kokkos 3.4?"
  basename "$orig" >"$pristine/.complete"
  rm -rf "$dl"
}

prepare() {
  mkdir -p "$DEPS"
  local want; want=$(patches_hash)
  if [ -f "$TARBALL" ] && [ "$(cat "$TARBALL.patches" 2>/dev/null)" = "$want" ]; then
    log "tarball up to date: $TARBALL"
  else
    fetch_pristine
    local work; work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    cp -a "$CACHE/pristine/kokkos" "$CACHE/pristine/kokkos-kernels" "$work/"
    for p in "$PATCH_DIR"/*.patch; do
      [ -e "$p" ] || continue
      log "applying $(basename "$p")"
      patch -d "$work" -p1 --no-backup-if-mismatch -s <"$p" || die "patch $(basename "$p") failed"
    done
    # whole trees: ~1.2 MiB as xz, and Kokkos' CMake adds example/ unconditionally
    tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime='2021-01-01' \
        -cf - kokkos kokkos-kernels | xz -T0 -6 >"$TARBALL.tmp"
    mv "$TARBALL.tmp" "$TARBALL"
    echo "$want" >"$TARBALL.patches"
    log "wrote $TARBALL ($(du -h "$TARBALL" | cut -f1))"
  fi

  if [ -f "$GTEST_DST/CMakeLists.txt" ]; then
    log "GoogleTest source already in $GTEST_DST"
  else
    if [ ! -f /usr/src/googletest/CMakeLists.txt ]; then
      log "installing Debian's googletest (sources)"
      as_root apt-get install -y -qq googletest >/dev/null
    fi
    rm -rf "$GTEST_DST.tmp"; cp -a /usr/src/googletest "$GTEST_DST.tmp"; mv "$GTEST_DST.tmp" "$GTEST_DST"
    log "copied GoogleTest $(dpkg-query -W -f='${Version}' googletest 2>/dev/null) to $GTEST_DST"
  fi
}

# ---------------------------------------------------------------------------------------------- build
KOKKOS_OPTS=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkos_ENABLE_SERIAL=ON
  -DKokkos_ENABLE_CUDA=ON
  -DKokkos_ENABLE_CUDA_LAMBDA=ON
  -D${ARCH_OPT}=ON
  -DKokkos_ENABLE_TESTS=OFF
  -DKokkos_ENABLE_EXAMPLES=OFF
)
KK_OPTS=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DCMAKE_CXX_EXTENSIONS=OFF
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkosKernels_ENABLE_TPL_CUBLAS=ON
  -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
  -DKokkosKernels_ENABLE_TESTS=OFF
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
  -DKokkosKernels_INST_DOUBLE=ON
  -DKokkosKernels_INST_FLOAT=OFF
  -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF
  -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
  -DKokkosKernels_INST_LAYOUTLEFT=ON
  -DKokkosKernels_INST_LAYOUTRIGHT=OFF
  -DKokkosKernels_INST_OFFSET_INT=ON
  -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
  -DKokkosKernels_INST_ORDINAL_INT=ON
  -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
  -DKokkosKernels_INST_EXECSPACE_CUDA=ON
  -DKokkosKernels_INST_MEMSPACE_CUDASPACE=ON
  -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF
  -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF
  -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF
)

build_stamp() {
  # content hash (xz's output bytes may differ between machines/threads, the tar stream does not)
  { xz -dc "$TARBALL" | sha256sum | cut -d' ' -f1; printf '%s\n' "${KOKKOS_OPTS[@]}" "${KK_OPTS[@]}"; } |
    sha256sum | cut -c1-16
}

build() {
  local prefix=${1:-}; [ -n "$prefix" ] || die "usage: $0 build PREFIX"
  [ -f "$TARBALL" ] || die "$TARBALL missing: run '$0 prepare' on a machine that reaches Debian's registry"
  [ -x "$CUDA_HOME/bin/nvcc" ] || die "no nvcc under CUDA_HOME=$CUDA_HOME"
  mkdir -p "$prefix"; prefix=$(cd "$prefix" && pwd)
  local stamp; stamp=$(build_stamp)
  if [ "$(cat "$prefix/.kbla-kokkos-stamp" 2>/dev/null)" = "$stamp" ]; then
    log "$prefix already holds this build (stamp $stamp): nothing to do"; return
  fi
  rm -f "$prefix/.kbla-kokkos-stamp"
  export PATH=$CUDA_HOME/bin:$PATH CUDA_ROOT=$CUDA_HOME CUDAToolkit_ROOT=$CUDA_HOME
  local gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  local work; work=$(mktemp -d "${TMPDIR:-/tmp}/kbla-kokkos-build.XXXXXX")
  [ "${KBLA_KEEP_BUILD:-0}" = 1 ] || trap 'rm -rf "$work"' RETURN
  log "unpacking $(basename "$TARBALL") into $work; cmake $(cmake --version | head -n1 | cut -d' ' -f3), JOBS=$JOBS"
  tar -xJf "$TARBALL" -C "$work"

  local t0=$SECONDS
  # nvcc_wrapper's built-in default arch (sm_35) is rejected by nvcc 13: name the arch explicitly, both for
  # the CMake compiler checks (NVCC_WRAPPER_DEFAULT_ARCH) and through the Kokkos arch option
  export NVCC_WRAPPER_DEFAULT_ARCH=sm_90
  cmake -S "$work/kokkos" -B "$work/build-kokkos" "${gen[@]}" \
        -DCMAKE_CXX_COMPILER="$work/kokkos/bin/nvcc_wrapper" -DCMAKE_INSTALL_PREFIX="$prefix" \
        "${KOKKOS_OPTS[@]}" >"$work/kokkos-configure.log" 2>&1 ||
    { tail -n 60 "$work/kokkos-configure.log"; die "Kokkos configure failed"; }
  cmake --build "$work/build-kokkos" --parallel "$JOBS" >"$work/kokkos-build.log" 2>&1 ||
    { grep -B2 -A12 -m5 -E 'error|Error' "$work/kokkos-build.log" | head -n 120; die "Kokkos build failed"; }
  cmake --install "$work/build-kokkos" >/dev/null
  local t_kokkos=$((SECONDS - t0))
  log "Kokkos built and installed in ${t_kokkos} s"

  t0=$SECONDS
  cmake -S "$work/kokkos-kernels" -B "$work/build-kk" "${gen[@]}" \
        -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DKokkos_ROOT="$prefix" -DCMAKE_PREFIX_PATH="$prefix" \
        "${KK_OPTS[@]}" >"$work/kk-configure.log" 2>&1 ||
    { tail -n 60 "$work/kk-configure.log"; die "Kokkos Kernels configure failed"; }
  cmake --build "$work/build-kk" --parallel "$JOBS" >"$work/kk-build.log" 2>&1 ||
    { grep -B2 -A12 -m5 -E 'error|Error' "$work/kk-build.log" | head -n 120; die "Kokkos Kernels build failed"; }
  cmake --install "$work/build-kk" >/dev/null
  local t_kk=$((SECONDS - t0))
  log "Kokkos Kernels built and installed in ${t_kk} s"

  echo "$stamp" >"$prefix/.kbla-kokkos-stamp"
  printf 'kokkos_build_s=%s\nkokkoskernels_build_s=%s\njobs=%s\n' "$t_kokkos" "$t_kk" "$JOBS" \
    >"$prefix/.kbla-kokkos-times"
  echo "BUILD-TIMES kokkos=${t_kokkos}s kokkos-kernels=${t_kk}s jobs=${JOBS} prefix=${prefix}"
}

pack() {
  local prefix=${1:-}; [ -n "$prefix" ] || die "usage: $0 pack PREFIX"
  [ -f "$prefix/.kbla-kokkos-stamp" ] || die "$prefix holds no finished build (no stamp)"
  [ "$(cat "$prefix/.kbla-kokkos-stamp")" = "$(build_stamp)" ] || die "$prefix was built from another tarball"
  tar -C "$prefix" -cf - . | xz -T0 -6 >"$DEPS/kokkos-cuda-install.tar.xz.tmp"
  mv "$DEPS/kokkos-cuda-install.tar.xz.tmp" "$DEPS/kokkos-cuda-install.tar.xz"
  log "wrote $DEPS/kokkos-cuda-install.tar.xz ($(du -h "$DEPS/kokkos-cuda-install.tar.xz" | cut -f1))"
}

case "${1:-}" in
  prepare) prepare ;;
  build)   shift; build "$@" ;;
  all)     shift; [ -n "${1:-}" ] || die "usage: $0 all PREFIX"; prepare; build "$1" ;;
  pack)    shift; pack "$@" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
