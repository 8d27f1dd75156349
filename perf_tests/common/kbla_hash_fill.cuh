// Uniform pseudo-random doubles in [-0.5, 0.5) from an integer hash of the index: the operands of the tall & skinny
// benchmark and of ramp_probe's route sweep. Random rather than constant data on purpose: the FP64 tensor cores
// run measurably faster on constant operands (session 8: Z tsmttsm 64 at 2^22 rows 2.99 ms constant, 3.66 ms random).
#pragma once
#include <cstddef>

static __global__ void kbla_fill_hash_uniform(double* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u + seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = double(x & 0xffffff) / double(0x1000000) - 0.5;
  }
}
