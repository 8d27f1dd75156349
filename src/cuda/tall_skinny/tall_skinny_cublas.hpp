// The cuBLAS form of the tall & skinny products (tall_skinny_cublas.cu): one gemm on the library's handle for the
// caller's stream. cudaErrorNotSupported where the layouts do not map onto cuBLAS's column-major gemm (complex
// A^H B with A and C in different layouts) or a size does not fit in an int.
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <cstdint>

#include "kbla_cuda_tall_skinny.hpp"

namespace kbla {
namespace cuda {
namespace detail {

#define KBLA_TS_CUBLAS_DECL(Scalar)                                                                                  \
  cudaError_t cublas_tsmttsm(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,            \
                             std::int64_t lda, Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta, \
                             Scalar* C, std::int64_t ldc, Layout lc);                                                \
  cudaError_t cublas_tsmm(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,               \
                          std::int64_t lda, Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta,    \
                          Scalar* B, std::int64_t ldb, Layout lb);
KBLA_TS_CUBLAS_DECL(float)
KBLA_TS_CUBLAS_DECL(double)
KBLA_TS_CUBLAS_DECL(std::complex<float>)
KBLA_TS_CUBLAS_DECL(std::complex<double>)
#undef KBLA_TS_CUBLAS_DECL

// Widths above this always go to cuBLAS where it applies: there these products are compute-bound GEMMs and
// cuBLAS's tensor-core kernels measured several times faster than the own tiled kernels. At or below it the
// selection (tall_skinny_select.hpp) decides.
constexpr int kCublasAbove = 64;

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
