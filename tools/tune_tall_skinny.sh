#!/bin/sh
# Produces the measured rows of src/cuda/tall_skinny/tall_skinny_params.hpp: builds and runs the candidate sweep
# perf_tests/tall_skinny/tune.cu on the GPU, prints every candidate and the best per (op, layout, width).
# Usage (on the GPU machine, repository root): tools/tune_tall_skinny.sh [build dir]
set -e
BUILD=${1:-$PWD/build-ts}
make -C perf_tests/tall_skinny BUILD="$BUILD" tune -j"$(nproc)" FLAGS="-std=c++17 -O3 -arch=sm_90 -Xcompiler -fPIC -split-compile=0" >/dev/null
# every candidate runs its own kernel, not the cuBLAS route of its width (tune.cu passes allow_cublas = false)
"$BUILD/tune_tall_skinny" | tee "$BUILD/tune.log"
echo "best per op/layout/width:"
awk '/^TUNE/ { key=$2" "$3" "$4; t=$(NF-3)+0; if (!(key in best) || t < best[key]) { best[key]=t; row[key]=$0 } }
     END { for (k in row) print row[k] }' "$BUILD/tune.log" | sort -k2,2 -k3,3 -k4.3n
