// What the raw CUDA tests share (no Kokkos, no GoogleTest): the pass / fail counters they print at the end and
// CK, which stops the program on a CUDA error (exit 2: a crash, not a failed comparison).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

static int g_pass = 0, g_fail = 0;

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);   \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
