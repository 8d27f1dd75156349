#!/usr/bin/env bash
# A/B timings of single tall & skinny cases on the GPU machine (run there, after `gpu-prebuilt.sh run` unpacked
# binaries, or on any build): kbla_ts_cases over the widths a kernel change touches, D at K = 2^29/w rows and Z at
# 2^28/w (the benchmark's sizes), ROUNDS rounds (default 2), routes off (--own-kernels). A/B: run it once per
# binary (the library reads no switches), e.g. the build before and after a kernel change, with a TAG each. REPS
# (default 10; ~100 keeps the wide complex cases long enough, ~0.3 s, to run at the power cap as the benchmark's
# back-to-back calls do). Output: one line per case (ts_cases format) on stdout.
#   tools/ts-cases-ab.sh BIN [TAG]
set -uo pipefail
bin=$1; tag=${2:-}
rounds=${ROUNDS:-2}
d_cases=() z_cases=()
for w in ${D_R:-8 24 28 32 36 40 44 48 52 56 60 64}; do d_cases+=("D:tsmttsm:R:${w}x${w}"); done
for w in ${D_C:-6 7 12 20 24 28 32 33 36 40 41 44 47 48 49 52 54 56 57 59 60 64}; do d_cases+=("D:tsmttsm:C:${w}x${w}"); done
for w in ${Z_W:-17 20 24 28 32 36 40 44 48 49 52 56 60 64}; do z_cases+=("Z:tsmttsm:R:${w}x${w}" "Z:tsmttsm:C:${w}x${w}"); done
for r in $(seq "$rounds"); do
  echo "# round $r $tag"
  "$bin" --own-kernels --reps "${REPS:-10}" --random-data --rows-log2 29 "${d_cases[@]}" | sed "s/^/$tag /"
  "$bin" --own-kernels --reps "${REPS:-10}" --random-data --rows-log2 28 "${z_cases[@]}" | sed "s/^/$tag /"
done
