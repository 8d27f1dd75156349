// Raw-pointer API of the tall & skinny CUDA kernels (no Kokkos in here: the kernels can be read, built and
// tested alone; src/tpls turns Views into these arguments).
//
//   tsmttsm: C = alpha * A^H * B + beta * C    A: K x M, B: K x N, C: M x N   (K >> M, N)
//   tsmm:    B = alpha * A * C + beta * B          A: K x M, C: M x N, B: K x N   (B may be A when M == N)
//
// Every matrix is (pointer, leading dimension, layout): element (i, j) is at p[i + j*ld] for ColMajor
// (Kokkos::LayoutLeft) and p[i*ld + j] for RowMajor (Kokkos::LayoutRight). Complex types are std::complex,
// which has the same layout as Kokkos::complex. beta == 0 never reads the output (NaN there must not spread).
// Calls are asynchronous on `stream`; errors are returned, never thrown.
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <cstdint>

namespace kbla {
namespace cuda {

enum class Layout { ColMajor, RowMajor };

struct TallSkinnyOptions {
  // Whether cuBLAS may run the call: widths above 64 and the shapes where it measured faster than the own kernels
  // (tall_skinny_routes.hpp). False: the own kernels at every shape (tests, and benchmarks that measure them).
  bool allow_cublas = true;
  // tsmttsm only. No atomics: per-block partial results are summed in a fixed order by a second pass, so the result is
  // bitwise reproducible from run to run (needs workspace, which the library allocates and caches).
  bool deterministic = false;
  // tsmttsm only. Complex: A^H B may use three real products instead of four (Gauss; kbla::InnerOptions::complex_3m says what
  // that does to the error). Off by default, as cuBLAS's Zgemm3m.
  bool complex_3m = false;
};

template <class T>
cudaError_t tsmttsm(cudaStream_t stream, std::int64_t K, int M, int N, T alpha, const T* A, std::int64_t lda,
                    Layout layoutA, const T* B, std::int64_t ldb, Layout layoutB, T beta, T* C, std::int64_t ldc,
                    Layout layoutC, const TallSkinnyOptions& options = {});

template <class T>
cudaError_t tsmm(cudaStream_t stream, std::int64_t K, int M, int N, T alpha, const T* A, std::int64_t lda,
                 Layout layoutA, const T* C, std::int64_t ldc, Layout layoutC, T beta, T* B, std::int64_t ldb,
                 Layout layoutB, const TallSkinnyOptions& options = {});

}  // namespace cuda
}  // namespace kbla
