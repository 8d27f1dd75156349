// Portable kbla::update on device execution spaces (GPUs): each team stages a block of rows of A in scratch
// memory, waits at a barrier, then its threads compute the same rows of B, each thread one row by tn columns
// (compile-time extents) in registers, with consecutive threads on consecutive rows so that the stores to a
// column-major B are coalesced. Rows never cross teams, so B may be the very same View as A (in place), and
// every value of A is read from device memory once.
#pragma once

#include <impl/kbla_portable_tiles.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView>
struct UpdateDeviceTeams {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using ScratchRows = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename ExecSpace::scratch_memory_space,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int max_tn = ATS::is_complex ? 4 : 8;
  // Staged rows per team: what fits a small scratch budget (fast on-chip memory on GPUs), at most 256.
  static constexpr std::size_t scratch_budget = 32 * 1024;

  AView A;
  CView C;
  BView B;
  Scalar alpha, beta;
  int rows = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const std::int64_t k0 = team.league_rank() * std::int64_t(rows);
    const int nrows = static_cast<int>(K - k0 < rows ? K - k0 : rows);
    ScratchRows a(team.team_scratch(0), rows, M);
    // Staging: consecutive threads on consecutive addresses of A (down columns or along rows).
    const bool a_rows_fast = A.stride(0) <= A.stride(1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows * M), [&](int e) {
      const int r = a_rows_fast ? e % nrows : e / M;
      const int i = a_rows_fast ? e / nrows : e % M;
      a(r, i) = A(k0 + r, i);
    });
    team.team_barrier();
    const bool beta_zero = beta == ATS::zero();
    // Column tiles of width max_tn, then the remainder in one narrower class.
    const int full = N / max_tn, rest = N - full * max_tn;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows * (full + (rest > 0 ? 1 : 0))), [&](int e) {
      const int r = e % nrows, tile = e / nrows, j0 = tile * max_tn;
      int width = tile < full ? max_tn : rest;
      // The remainder as runs of 4, 2, 1 columns.
      for (int j = j0; width > 0;) {
        const int tn = tile_extent(width, max_tn);
        with_extent<max_tn>(tn, [&](auto TN) { row_tile(a, r, k0, j, M, beta_zero, TN); });
        j += tn;
        width -= tn;
      }
    });
  }

  template <class TNConst>
  KOKKOS_INLINE_FUNCTION void row_tile(const ScratchRows& a, int r, std::int64_t k0, int j0, int M, bool beta_zero,
                                       TNConst) const {
    constexpr int TN = TNConst::value;
    Scalar acc[TN];
    for (int j = 0; j < TN; ++j) acc[j] = ATS::zero();
    for (int i = 0; i < M; ++i) {
      const Scalar ai = a(r, i);
      for (int j = 0; j < TN; ++j) acc[j] += ai * C(i, j0 + j);
    }
    for (int j = 0; j < TN; ++j)
      B(k0 + r, j0 + j) = beta_zero ? alpha * acc[j] : alpha * acc[j] + beta * B(k0 + r, j0 + j);
  }

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1);
    UpdateDeviceTeams f;
    f.A = A;
    f.C = C;
    f.B = B;
    f.alpha = alpha;
    f.beta = beta;
    const std::size_t row_bytes = std::size_t(M) * sizeof(Scalar);
    f.rows = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(256, scratch_budget / row_bytes)));
    const std::size_t scratch = ScratchRows::shmem_size(f.rows, M);
    const std::int64_t teams = (K + f.rows - 1) / f.rows;
    const Policy policy = Policy(exec, teams, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for("kbla::update(portable device teams)", policy, f);
  }
};

}  // namespace Impl
}  // namespace kbla
