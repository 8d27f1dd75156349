#!/usr/bin/env bash
# Builds and runs the project ON a GPU machine (16-32 cores there: the whole CUDA + MPI + NCCL build takes about
# 7 minutes, against 60+ on a 2-core CPU machine), against Kokkos 4.6.01 / Kokkos Kernels 4.6.02 for CUDA.
# Prepare here, once: KBLA_MODERN_BACKEND=cuda tools/kokkos-modern.sh, then
#   tar -cJf .deps/kokkos-4.6-cuda.tar.xz -C /opt/kbla-deps kokkos-4.6-cuda
# and carry .deps/kokkos-4.6-cuda.tar.xz and .deps/googletest (a GoogleTest source tree) with the command.
# The device tool copies the working tree as it is, uncommitted edits included; to build exactly a commit, export it
# and carry the export (only on the first call: a carried path replaces the build tree inside it):
#   rm -rf .deps/clean && mkdir -p .deps/clean && git archive HEAD | tar -x -C .deps/clean
#   there: cd .deps/clean && mkdir -p .deps && ln -sf ../../kokkos-4.6-cuda.tar.xz .deps/ &&
#          ln -sfn ../../googletest .deps/googletest && MAKEFLAGS=-k bash tools/gpu-build-on-device.sh build
# Steps, run in the order given (each call of the device tool can run several; the build tree build-gpu/ is kept
# between calls while the machine stays warm):
#   build     configure + build build-gpu/full (CUDA, MPI, NCCL from the machine's Python NCCL wheel when found)
#             and build-gpu/portable (CUDA kernels off: the portable path on the GPU)
#   build-full  the same without build-gpu/portable (on a 16-core machine the full build alone takes most of a call);
#             BUILD_TARGETS="t1 t2 ..." in the environment builds only those targets of build-gpu/full (the kernel
#             library first, then the targets side by side)
#   build-perf  configure build-gpu/full (no MPI) and build only the programs the `tune` and `eigen` steps run
#             (about 4 minutes: the kernel library's largest object is most of it)
#   tune      GPU 1: kbla_tune fills a choice cache, then the tall & skinny benchmark (--interleave) reads it
#   eigen     GPU 0 (while `tune` may run on GPU 1, put them in one call as "tune eigen"): the eigen driver three
#             times on the 100^3 Laplacian, then one run per basis size / block size of a small sweep
#   test      GPU 0: ctest without the MPI, benchmark, downstream tests and the four full raw sweeps; GPU 1 at the
#             same time: kbla_tune fills a choice cache, then the tall & skinny benchmark reads it
#   raw       the full tall & skinny raw sweeps, D and Z on GPU 0, S and C on GPU 1 (each 2-3 minutes on an H200)
#   mpi       the MPI ctests, then perf_tests/eigen/run_mpi_scaling.sh with the route variants (2 GPUs)
#   mpitest   the MPI ctests only (one GPU is enough: ranks then share it)
#   automatic GPU 0: kbla_bench_gemm_automatic, square / rank-k / panel shapes, FP32 and FP64, 512 to 20480 (the
#            canonical run; 60 shapes measured, about 150 s on an H200)
#   model     GPU 1: the tall & skinny benchmark with measuring off; GPU 0: the portable benchmark
#   portable  build-gpu/portable (CUDA kernels off: the portable kernels and their route on the GPU): the unit
#             tests and the portable benchmark, built and run (about 5 minutes on 16 cores)
# Steps that use GPU 1 run on GPU 0 after the rest where the machine has one GPU.
# Outputs go to $OUT. The device tool brings back at most 8 files and drops the rest, so at the end everything in
# $OUT is packed into $OUT/results.tar.gz (the only file left there); each step prints the tails that matter.
# Kokkos Kernels' exported cuBLAS path may name /usr/local/cuda/lib, which such machines may lack: the
# build steps link it to lib64 first (link_cuda_lib).
set -u; T0=$SECONDS; R=$PWD; P=/opt/kbla-deps/kokkos-4.6-cuda; B=$R/build-gpu/full; BP=$R/build-gpu/portable
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 OMP_PROC_BIND=false
[ -d $P ] || { mkdir -p /opt/kbla-deps && tar -xJf .deps/kokkos-4.6-cuda.tar.xz -C /opt/kbla-deps; }
NCCL_INC=$(dirname "$(find / -xdev -name nccl.h -path '*nvidia*' 2>/dev/null | head -1)")
NCCL_LIB=$(find "$(dirname "$NCCL_INC")/lib" -name 'libnccl.so*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$(dirname "$NCCL_LIB"):${LD_LIBRARY_PATH:-}
step() { echo "=== $1 at $((SECONDS-T0)) s"; }
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); SECOND_GPU=$([ "${GPUS:-1}" -ge 2 ] && echo 1 || echo 0)
# The header's cuBLAS path fix, for both build steps.
link_cuda_lib() {
  if [ ! -e /usr/local/cuda/lib/libcublas.so ] && [ -e /usr/local/cuda/lib64/libcublas.so ]; then
    mkdir -p /usr/local/cuda/lib && for f in /usr/local/cuda/lib64/*.so*; do ln -sf "$f" /usr/local/cuda/lib/; done
  fi
}
# GPU 1: kbla_tune fills a choice cache at the callers' sizes, then the tall & skinny benchmark reads it.
tune_and_bench() {
  export CUDA_VISIBLE_DEVICES=$SECOND_GPU
  $B/perf_tests/tall_skinny/kbla_tune --cache $OUT/choices.cache > $OUT/tune.log 2>&1; echo "tune rc $?" >> $OUT/tune.log
  timeout 330 $B/perf_tests/tall_skinny/kbla_bench_tall_skinny --max-seconds 280 --interleave --tuning measure \
    --tuning-cache $OUT/choices.cache --json $OUT/tall_skinny.json > $OUT/ts.log 2>&1; echo "ts rc $?" >> $OUT/ts.log
}
for s in "$@"; do case $s in
build|build-full)
  link_cuda_lib
  step $s; echo "nccl: $NCCL_INC $NCCL_LIB"
  common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$P -DCMAKE_CXX_COMPILER=$P/bin/nvcc_wrapper -DCMAKE_CUDA_ARCHITECTURES=90 -DKBLA_ENABLE_TESTS=ON -DKBLA_ENABLE_PERF_TESTS=ON -DKBLA_GTEST_SOURCE_DIR=$R/.deps/googletest
          -DCMAKE_CXX_COMPILER_LAUNCHER=$R/tools/compile-timer.sh -DCMAKE_CUDA_COMPILER_LAUNCHER=$R/tools/compile-timer.sh)
  export KBLA_COMPILE_TIMES=$OUT/compile-times.txt  # seconds per object file (tools/compile-timer.sh)
  nccl=(-DKBLA_ENABLE_NCCL=ON -DKBLA_NCCL_INCLUDE_DIR=$NCCL_INC -DKBLA_NCCL_LIBRARY=$NCCL_LIB)
  cmake -S $R -B $B "${common[@]}" -DKBLA_ENABLE_MPI=ON "${nccl[@]}" > $OUT/configure.log 2>&1 || { echo "configure with nccl failed"; tail -20 $OUT/configure.log; rm -rf $B; cmake -S $R -B $B "${common[@]}" -DKBLA_ENABLE_MPI=ON > $OUT/configure.log 2>&1 || { tail -40 $OUT/configure.log; exit 1; }; }
  if [ $s = build ]; then
    cmake -S $R -B $BP "${common[@]}" -DKBLA_ENABLE_CUDA=OFF > $OUT/configure-portable.log 2>&1 || tail -20 $OUT/configure-portable.log
    ( cmake --build $BP -j4 --target kbla_bench_portable > $OUT/build-portable.log 2>&1; echo "portable build rc $?" >> $OUT/build-portable.log ) &
  fi
  if [ -n "${BUILD_TARGETS:-}" ]; then
    # `--target a b c` builds the targets one after another (make descends into each in turn); build the shared
    # pieces first, then the targets side by side, so that their objects compile in parallel.
    cmake --build $B -j$(( $(nproc) + 2 )) --target kbla_cuda_kernels > $OUT/build.log 2>&1; rc=$?
    (cmake --build $B --target gtest > $OUT/build-gtest.log 2>&1 || true)
    pids=()
    for t in $BUILD_TARGETS; do
      cmake --build $B -j$(( $(nproc) / 2 + 1 )) --target $t > $OUT/build-$t.log 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait $p || rc=1; done
    cat $OUT/build-*.log >> $OUT/build.log
  else
    cmake --build $B -j$(( $(nproc) + 2 )) > $OUT/build.log 2>&1; rc=$?
  fi
  wait
  [ $s = build ] && tail -1 $OUT/build-portable.log
  [ $rc -eq 0 ] || { grep -B2 -A10 -m6 ' error' $OUT/build.log | head -80; exit 1; }
  echo "full build ok" ;;
build-perf)
  link_cuda_lib
  step build-perf
  cmake -S $R -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$P -DCMAKE_CXX_COMPILER=$P/bin/nvcc_wrapper \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DKBLA_ENABLE_TESTS=OFF -DKBLA_ENABLE_PERF_TESTS=ON > $OUT/configure.log 2>&1 ||
    { tail -40 $OUT/configure.log; exit 1; }
  cmake --build $B -j30 --target kbla_eigen_driver kbla_tune kbla_bench_tall_skinny > $OUT/build.log 2>&1 ||
    { grep -B2 -A10 -m6 ' error' $OUT/build.log | head -80; exit 1; }
  echo "perf programs built" ;;
tune)  # in the background on GPU 1; the `done` step below waits for it
  step tune
  tune_and_bench & ;;
eigen)
  step eigen
  E="$B/perf_tests/eigen/kbla_eigen_driver --laplacian 100 -k 16 --tol 1e-10 --check-analytic"
  export CUDA_VISIBLE_DEVICES=0
  for i in 1 2 3; do
    $E --json $OUT/eigen$i.json > $OUT/eigen$i.log 2>&1; echo "eigen run $i rc $?"
    grep -E "first solve|^  time|converged:" $OUT/eigen$i.log
  done
  $E --cold --quiet > $OUT/eigen-cold.log 2>&1; echo "cold rc $?"; grep -E "^  time" $OUT/eigen-cold.log
  for sm in "-s 8 -m 10" "-s 8 -m 14" "-s 8 -m 16" "-s 8 -m 20" "-s 4 -m 24" "-s 16 -m 8"; do
    timeout 60 $E --quiet $sm > $OUT/eigen-sweep.log 2>&1
    echo "sweep $sm: $(grep -E 'restarts,' $OUT/eigen-sweep.log | sed 's/^ *//')"
    grep -E '^  time' $OUT/eigen-sweep.log | cut -c1-200
  done
  unset CUDA_VISIBLE_DEVICES ;;
test)  # GPU 0: ctest (no MPI, no benches); GPU 1 at the same time: the `tune` step
  step test
  [ $SECOND_GPU = 1 ] && tune_and_bench &
  ( cd $B && CUDA_VISIBLE_DEVICES=0 timeout 480 ctest --timeout 240 -E 'mpi|bench|downstream|raw_tests_[DZSC]$' -j2 > $OUT/ctest.log 2>&1; echo "ctest rc $?" >> $OUT/ctest.log )
  wait; tail -25 $OUT/ctest.log ;;
portable)
  link_cuda_lib
  step portable
  [ -f $BP/CMakeCache.txt ] || cmake -S $R -B $BP -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$P \
      -DCMAKE_CXX_COMPILER=$P/bin/nvcc_wrapper -DCMAKE_CUDA_ARCHITECTURES=90 -DKBLA_ENABLE_TESTS=ON \
      -DKBLA_ENABLE_PERF_TESTS=ON -DKBLA_GTEST_SOURCE_DIR=$R/.deps/googletest -DKBLA_ENABLE_CUDA=OFF > $OUT/configure-portable.log 2>&1
  cmake --build $BP -j30 --target kbla_unit_tests kbla_bench_portable > $OUT/build-portable.log 2>&1 ||
    { grep -B2 -A10 -m6 ' error' $OUT/build-portable.log | head -80; exit 1; }
  ( cd $BP && CUDA_VISIBLE_DEVICES=0 timeout 300 ctest --timeout 200 -R '^(Inner|Update|PortableRoute|Interleaved|ErrorTest)' -j4 > $OUT/ctest-portable.log 2>&1; echo "portable ctest rc $?" >> $OUT/ctest-portable.log )
  tail -8 $OUT/ctest-portable.log
  CUDA_VISIBLE_DEVICES=0 timeout 200 $BP/perf_tests/portable/kbla_bench_portable --mbytes 1024 --rounds 2 --json $OUT/portable.json > $OUT/portable.log 2>&1; echo "portable bench rc $?"
  tail -3 $OUT/portable.log ;;
raw)  # the full sweeps, two per GPU
  step raw
  ( cd $B && CUDA_VISIBLE_DEVICES=0 timeout 560 ctest --timeout 280 -R 'raw_tests_[DZ]$' > $OUT/ctest-raw-dz.log 2>&1; echo "raw D Z rc $?" >> $OUT/ctest-raw-dz.log ) &
  ( cd $B && CUDA_VISIBLE_DEVICES=$SECOND_GPU timeout 560 ctest --timeout 280 -R 'raw_tests_[SC]$' > $OUT/ctest-raw-sc.log 2>&1; echo "raw S C rc $?" >> $OUT/ctest-raw-sc.log )
  wait; tail -4 $OUT/ctest-raw-dz.log $OUT/ctest-raw-sc.log ;;
mpi)
  step mpi
  ( cd $B && timeout 200 ctest --timeout 90 -R mpi > $OUT/ctest-mpi.log 2>&1; echo "mpi ctest rc $?" >> $OUT/ctest-mpi.log ); tail -15 $OUT/ctest-mpi.log
  BUILD_DIR=$B OUT=$OUT/mpi RUNS=3 VARIANTS="--halo ipc|--reduce nccl|--halo ipc --reduce nccl" timeout 400 bash perf_tests/eigen/run_mpi_scaling.sh 2>&1 | tail -40 ;;
mpitest)
  step mpitest
  ( cd $B && timeout 200 ctest --timeout 90 -R mpi > $OUT/ctest-mpi.log 2>&1; echo "mpi ctest rc $?" >> $OUT/ctest-mpi.log ); tail -15 $OUT/ctest-mpi.log ;;
automatic)
  step automatic
  CUDA_VISIBLE_DEVICES=0 timeout 400 $B/perf_tests/strassen/kbla_bench_gemm_automatic \
    --sizes 512,1024,2048,3072,4096,6144,8192,10240,12288,16384,20480 --reps 11 --json $OUT/gemm_automatic.json \
    > $OUT/gemm_automatic.log 2>&1
  echo "automatic rc $?"; tail -50 $OUT/gemm_automatic.log ;;
model)  # GPU 1: model-only tall & skinny; GPU 0: portable bench (CUDA off)
  step model
  ( export CUDA_VISIBLE_DEVICES=$SECOND_GPU; timeout 330 $B/perf_tests/tall_skinny/kbla_bench_tall_skinny --max-seconds 290 --tuning model --json $OUT/tall_skinny-model.json > $OUT/ts-model.log 2>&1; echo "ts-model rc $?" >> $OUT/ts-model.log ) &
  ( export CUDA_VISIBLE_DEVICES=0; timeout 300 $BP/perf_tests/portable/kbla_bench_portable --mbytes 2048 --rounds 3 --json $OUT/portable.json > $OUT/portable.log 2>&1; echo "portable rc $?" >> $OUT/portable.log )
  wait; tail -5 $OUT/portable.log; tail -4 $OUT/ts-model.log ;;
esac; done
wait  # a `tune` step still running in the background
[ -f $OUT/ts.log ] && { tail -3 $OUT/tune.log; tail -4 $OUT/ts.log; }
step done
# One file back: the device tool returns at most 8 and silently drops the others (JSONs and logs were lost so).
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  (cd "$OUT" && tar -czf /tmp/kbla-results.tar.gz . && find . -mindepth 1 -delete && mv /tmp/kbla-results.tar.gz results.tar.gz)
fi
