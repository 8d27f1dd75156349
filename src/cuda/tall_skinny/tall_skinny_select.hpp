// Which kernel runs a tall & skinny call at widths up to 64 (and narrow shapes): the own kernels or cuBLAS.
// The answer is per class of calls (scalar, op, layouts, M, N, row-count bucket, alignment, beta == 0, in place):
// from the choice cache when it holds one for this device, else the model's pick, else (TuningMode::measure)
// by timing both once on scratch buffers of the class (tall_skinny_select.cu). Host code only.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kbla_cuda_tall_skinny.hpp"

namespace kbla {
namespace cuda {
namespace detail {

// true: cuBLAS runs C = alpha A^H B + beta C (A: K x M, B: K x N, C: M x N); false: the own kernels.
template <class Scalar>
bool inner_takes_cublas(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                        std::int64_t lda, Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta,
                        const Scalar* C, std::int64_t ldc, Layout lc, const TallSkinnyOptions& options);

// true: cuBLAS runs B = alpha A C + beta B (A: K x M, C: M x N, B: K x N, not in place); false: the own kernels.
template <class Scalar>
bool update_takes_cublas(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                         std::int64_t lda, Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta,
                         const Scalar* B, std::int64_t ldb, Layout lb, const TallSkinnyOptions& options);

// floor(2 log2 K): the row-count bucket of a class (half octaves; 0 for K <= 1, at most 63). Within a bucket the
// choice is taken to be the same: the own kernels' fixed cost and cuBLAS's own kernel choice change with K.
int row_bucket(std::int64_t K);

// The device part of the cache key: GPU name, SM count, driver, cuBLAS and library version (current device).
std::string device_key();

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
