// Portable kbla::update on device execution spaces (GPUs), B with a unit column stride and at most 8 columns:
// each thread computes a few rows of B by all its columns (compile-time extent 1, 2, 4 or 8), reading its rows of A
// straight from device memory.
//
// A sweep of 256 consecutive threads covers rows_per_thread x 256 rows: thread l takes rows l, l + 256, ... so
// that a warp's loads of a column-major A and stores of a column-major B are consecutive, and a thread issues the
// loads of all its rows before their multiply-adds (the bytes in flight that reach the bandwidth). Each value of C
// is loaded once per thread and used for all its rows; all threads of a warp load the same value (a broadcast).
// A tile that overhangs B computes a clamped column and drops it. No scratch, no barrier.
//
// In place (B is A): a thread reads all of its rows of A before it writes them and no other thread touches them.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_multiply_add.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView, int TileN>
struct UpdateDeviceDirect {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  static constexpr int sweep = 256;
  // Rows per thread: up to 4, within 32 real sums per thread.
  static constexpr int real_sums = TileN * (ATS::is_complex ? 2 : 1);
  static constexpr int rows_per_thread = real_sums <= 8 ? 4 : 32 / real_sums > 1 ? 32 / real_sums : 1;

  AView A;
  CView C;
  BView B;
  Scalar alpha, beta;
  std::int64_t sweeps = 1;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t index) const {
    const int lane = static_cast<int>(index % sweep);
    const std::int64_t rest = index / sweep;
    const std::int64_t k0 = (rest % sweeps) * sweep * rows_per_thread + lane;
    const int tile = static_cast<int>(rest / sweeps);
    const std::int64_t K = B.extent(0);
    if (k0 + (rows_per_thread - 1) * sweep < K)
      rows<rows_per_thread>(k0, tile);
    else
      for (std::int64_t k = k0; k < K; k += sweep) rows<1>(k, tile);
  }

  template <int Rows>
  KOKKOS_INLINE_FUNCTION void rows(std::int64_t k0, int tile) const {
    const int M = static_cast<int>(A.extent(1)), N = static_cast<int>(B.extent(1));
    const int j0 = tile * TileN;
    int col[TileN];
    for (int j = 0; j < TileN; ++j) col[j] = j0 + j < N ? j0 + j : N - 1;
    Scalar acc[Rows][TileN];
    for (int r = 0; r < Rows; ++r)
      for (int j = 0; j < TileN; ++j) acc[r][j] = ATS::zero();
    // Columns of A in groups of four: the loads of Rows x 4 values are issued before their multiply-adds.
    constexpr int group = 4;
    int i = 0;
    for (; i + group <= M; i += group) {
      Scalar a[Rows][group];
      for (int r = 0; r < Rows; ++r)
        for (int g = 0; g < group; ++g) a[r][g] = A(k0 + r * sweep, i + g);
      for (int g = 0; g < group; ++g)
        for (int j = 0; j < TileN; ++j) {
          const Scalar c = C(i + g, col[j]);
          for (int r = 0; r < Rows; ++r) multiply_add(acc[r][j], a[r][g], c);
        }
    }
    for (; i < M; ++i) {
      Scalar a[Rows];
      for (int r = 0; r < Rows; ++r) a[r] = A(k0 + r * sweep, i);
      for (int j = 0; j < TileN; ++j) {
        const Scalar c = C(i, col[j]);
        for (int r = 0; r < Rows; ++r) multiply_add(acc[r][j], a[r], c);
      }
    }
    const bool beta_zero = beta == ATS::zero();
    for (int r = 0; r < Rows; ++r)
      for (int j = 0; j < TileN; ++j) {
        if (j0 + j >= N) break;
        const std::int64_t k = k0 + r * sweep;
        B(k, j0 + j) = beta_zero ? alpha * acc[r][j] : alpha * acc[r][j] + beta * B(k, j0 + j);
      }
  }

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    UpdateDeviceDirect f;
    f.A = A;
    f.C = C;
    f.B = B;
    f.alpha = alpha;
    f.beta = beta;
    const std::int64_t K = B.extent(0);
    const int N = static_cast<int>(B.extent(1));
    f.sweeps = (K + std::int64_t(sweep) * rows_per_thread - 1) / (std::int64_t(sweep) * rows_per_thread);
    const std::int64_t tiles = (N + TileN - 1) / TileN;
    Kokkos::parallel_for("kbla::update(portable device direct)",
                         Kokkos::RangePolicy<ExecSpace>(exec, 0, tiles * f.sweeps * sweep), f);
  }
};

// Whether the direct kernel is the one for B: a unit stride down B's columns (consecutive threads then write
// consecutive addresses) and at most 8 columns (one tile: no row of A read twice, and in place is safe). Rows of a
// row-major B written by one thread each are scattered stores, and wider tiles ran at under half the bandwidth of
// 8-column ones on an H200; those take the staged kernel (kbla_update_portable_device.hpp).
template <class BView>
bool update_direct_fits(const BView& B) {
  return B.extent(1) <= 8 && (B.stride(0) == 1 || B.extent(0) <= 1);
}

// Calls f(std::integral_constant<int, TileN>) with the column tile for B of N <= 8 columns.
template <class Body>
void with_update_direct_tile(int N, Body&& f) {
  switch (N <= 1 ? 1 : N <= 2 ? 2 : N <= 4 ? 4 : 8) {
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    case 4: f(std::integral_constant<int, 4>()); break;
    default: f(std::integral_constant<int, 8>()); break;
  }
}

}  // namespace Impl
}  // namespace kbla
