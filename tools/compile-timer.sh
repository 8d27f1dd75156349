#!/usr/bin/env bash
# A compiler launcher that appends each compile's wall time and output file to $KBLA_COMPILE_TIMES, to see where a
# build's time goes (which targets CI can afford to compile in which configuration):
#   KBLA_COMPILE_TIMES=times.txt cmake -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/tools/compile-timer.sh \
#                                      -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/tools/compile-timer.sh ...
# Sum per target: awk '{split($2, p, "/CMakeFiles/"); t[p[1]] += $1} END {for (k in t) print t[k], k}' times.txt
start=$(date +%s%N)
"$@"
rc=$?
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = "-o" ] && out=$arg
  prev=$arg
done
if [ -n "${KBLA_COMPILE_TIMES:-}" ] && [ -n "$out" ]; then
  ms=$((($(date +%s%N) - start) / 1000000))
  printf '%d.%03d %s\n' $((ms / 1000)) $((ms % 1000)) "$out" >> "$KBLA_COMPILE_TIMES"
fi
exit $rc
