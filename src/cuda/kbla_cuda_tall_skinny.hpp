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

#include <tuning/kbla_tuning_mode.hpp>

#include <complex>
#include <cstdint>
#include <string>

namespace kbla {
namespace cuda {

enum class Layout { ColMajor, RowMajor };

struct TallSkinnyOptions {
  // Whether cuBLAS may run the call: widths above 64, and the classes of calls where the selection
  // (tall_skinny_select.cu) picks it over the own kernels. False: the own kernels at every shape (tests, and
  // benchmarks that measure them).
  bool allow_cublas = true;
  // tsmttsm only. No atomics: per-block partial results are summed in a fixed order by a second pass, so the result is
  // bitwise reproducible from run to run (needs workspace, which the library allocates and caches).
  bool deterministic = false;
  // tsmttsm only. Complex: A^H B may use three real products instead of four (Gauss; kbla::InnerOptions::complex_3m
  // says what that does to the error). Off by default, as cuBLAS's Zgemm3m.
  bool complex_3m = false;
  // How the selection picks between the own kernels and cuBLAS (only when allow_cublas): measure times both once per
  // class of calls on scratch buffers and keeps the faster; model_only takes the model's pick and times nothing.
  // Deterministic calls always take the model's pick, so that their kernel does not depend on a measurement.
  kbla::tuning::TuningMode tuning = kbla::tuning::TuningMode::measure;
  // The choice cache file (kbla::tuning::ChoiceCache); empty: choices live in memory for this process.
  std::string choice_cache_path;
};

// What the selection has done in this process (all devices), for tests and the benchmark's report of the tuning
// cost.
struct TallSkinnyTuningStats {
  long long classes_measured = 0;  // classes whose candidates were timed
  double seconds_measuring = 0;    // host wall time spent in those measurements (scratch fill, runs, waits)
  long long own_chosen = 0;        // calls the selection sent to the own kernels
  long long cublas_chosen = 0;     // calls the selection sent to cuBLAS
};
TallSkinnyTuningStats tall_skinny_tuning_stats();

template <class Scalar>
cudaError_t tsmttsm(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                    Layout layoutA, const Scalar* B, std::int64_t ldb, Layout layoutB, Scalar beta, Scalar* C,
                    std::int64_t ldc, Layout layoutC, const TallSkinnyOptions& options = {});

template <class Scalar>
cudaError_t tsmm(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                 Layout layoutA, const Scalar* C, std::int64_t ldc, Layout layoutC, Scalar beta, Scalar* B,
                 std::int64_t ldb, Layout layoutB, const TallSkinnyOptions& options = {});

}  // namespace cuda
}  // namespace kbla
