// Portable kbla::update on device execution spaces (GPUs) for B that kbla_update_device_direct.hpp does not take
// (row-major or strided B, more than 8 columns): a team stages a block of rows of A in scratch memory, waits at a
// barrier, then its threads compute the block's entries of B, consecutive threads on consecutive addresses of B
// (along its rows when they are contiguous, down its columns otherwise), so that the loads of A and the stores of
// B are coalesced whatever the layouts. A thread per row of a row-major B stored its row in scattered pieces and
// read A's rows the same way: on an H200 at widths 4-8 that ran at a third to a half of the bandwidth.
//
// Each thread computes rows_per_thread x Cols entries of B, rows a stripe apart, so that each value of C it loads
// serves all its rows and each value of A all its columns. Rows never cross teams and a block of A is read in full
// before the same rows of B are written, so B may be the very same View as A (in place).
#pragma once

#include <impl/kbla_arith_traits.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kbla {
namespace Impl {

// Cols: columns of B per thread (1 or 2), a register tile of rows_per_thread x Cols entries, so that each value of
// A read from scratch serves Cols entries and each value of C rows_per_thread entries. Measured on an H200 in
// place, in one run against one column per thread under Kokkos' default launch bound: 2 columns, at most 64
// registers (four teams of 256 per multiprocessor) and 4 loads in flight per thread while staging ran double
// row-major width 2 at 55 % of the copy bandwidth against 51 %, column-major width 64 at 23 % against 16 %,
// complex column-major width 16 at 52 % against 44 %, the other widths within 1 %; 4 columns per thread
// needed more registers and ran slower at every width (three teams per multiprocessor: 29-35 %).
template <class ExecSpace, class AView, class CView, class BView, int Cols>
struct UpdateDeviceTeamsTile {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  // At most 64 registers per thread: four teams of 256 per multiprocessor, their scratch 128 KiB together.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 4>>;
  using Member = typename Policy::member_type;
  static constexpr int rows_per_thread = 4;
  static constexpr int max_team_size = 256;
  // Scratch per team for the staged rows: 32 KiB lets several teams share a multiprocessor.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  // Values of A each thread loads before storing them to scratch: loads in flight rather than one at a time.
  static constexpr int staged_per_round = 4;

  AView A;
  CView C;
  BView B;
  Scalar alpha, beta;
  int rows = 1;    // rows per block, a multiple of rows_per_thread
  int pitch = 1;   // scratch row pitch: M rounded up to an odd count, so that rows start on different banks
  int team_size = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const std::int64_t k0 = team.league_rank() * std::int64_t(rows);
    const int nrows = static_cast<int>(K - k0 < rows ? K - k0 : rows);
    Scalar* const a = static_cast<Scalar*>(
        team.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * std::size_t(rows) * pitch, alignof(Scalar)));
    const int rank = team.team_rank();
    // Staging: consecutive threads on consecutive addresses of A (down its columns or along its rows), each thread
    // staged_per_round loads issued before their stores to scratch.
    const bool a_rows_fast = A.stride(0) <= A.stride(1);
    const int entries = nrows * M;
    for (int base = 0; base < entries; base += staged_per_round * team_size) {
      Scalar v[staged_per_round];
      for (int u = 0; u < staged_per_round; ++u) {
        const int e = base + u * team_size + rank;
        if (e < entries) v[u] = A(k0 + (a_rows_fast ? e % nrows : e / M), a_rows_fast ? e / nrows : e % M);
      }
      for (int u = 0; u < staged_per_round; ++u) {
        const int e = base + u * team_size + rank;
        if (e < entries) a[(a_rows_fast ? e % nrows : e / M) * pitch + (a_rows_fast ? e / nrows : e % M)] = v[u];
      }
    }
    team.team_barrier();
    // Entries: a stripe of rows / rows_per_thread rows; thread job = (row in stripe, column group), consecutive
    // jobs along B's smaller stride. Column group g holds columns g, g + groups, ... (consecutive threads on
    // consecutive columns of a row-major B).
    const int stripe = rows / rows_per_thread;
    const int groups = (N + Cols - 1) / Cols;
    const bool b_rows_fast = B.stride(0) <= B.stride(1);
    const bool beta_zero = beta == ATS::zero();
    for (int job = rank; job < stripe * groups; job += team_size) {
      const int r0 = b_rows_fast ? job % stripe : job / groups;
      const int g = b_rows_fast ? job / stripe : job % groups;
      if (r0 >= nrows) continue;
      int col[Cols];
      for (int q = 0; q < Cols; ++q) col[q] = g + q * groups < N ? g + q * groups : N - 1;
      Scalar acc[rows_per_thread][Cols];
      for (int u = 0; u < rows_per_thread; ++u)
        for (int q = 0; q < Cols; ++q) acc[u][q] = ATS::zero();
      const Scalar* const row = a + r0 * pitch;
      for (int i = 0; i < M; ++i) {
        Scalar c[Cols], x[rows_per_thread];
        for (int q = 0; q < Cols; ++q) c[q] = C(i, col[q]);
        for (int u = 0; u < rows_per_thread; ++u) x[u] = row[u * stripe * pitch + i];
        for (int u = 0; u < rows_per_thread; ++u)
          for (int q = 0; q < Cols; ++q) acc[u][q] += x[u] * c[q];
      }
      for (int u = 0; u < rows_per_thread; ++u) {
        const int r = r0 + u * stripe;
        if (r >= nrows) break;
        for (int q = 0; q < Cols; ++q) {
          const int j = g + q * groups;
          if (j >= N) break;
          B(k0 + r, j) = beta_zero ? alpha * acc[u][q] : alpha * acc[u][q] + beta * B(k0 + r, j);
        }
      }
    }
  }

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1);
    UpdateDeviceTeamsTile f;
    f.A = A;
    f.C = C;
    f.B = B;
    f.alpha = alpha;
    f.beta = beta;
    f.pitch = M % 2 == 1 ? M : M + 1;
    const std::size_t row_bytes = std::size_t(f.pitch) * sizeof(Scalar);
    const std::size_t fit = std::max<std::size_t>(rows_per_thread, scratch_budget / row_bytes);
    f.rows = static_cast<int>(std::min<std::size_t>(1024, fit) / rows_per_thread * rows_per_thread);
    f.team_size = std::min(max_team_size, Policy(exec, 1, Kokkos::AUTO).team_size_max(f, Kokkos::ParallelForTag()));
    const std::size_t scratch = sizeof(Scalar) * (std::size_t(f.rows) * f.pitch + 1);
    const std::int64_t teams = (K + f.rows - 1) / f.rows;
    const Policy policy = Policy(exec, teams, f.team_size).set_scratch_size(0, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for("kbla::update(portable device, staged rows)", policy, f);
  }
};

// The staged kernel for any B: 2 columns per thread where B has them.
template <class ExecSpace, class AView, class CView, class BView>
struct UpdateDeviceTeams {
  using Scalar = typename BView::non_const_value_type;

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    if (B.extent(1) >= 2)
      UpdateDeviceTeamsTile<ExecSpace, AView, CView, BView, 2>::run(exec, alpha, A, C, beta, B);
    else
      UpdateDeviceTeamsTile<ExecSpace, AView, CView, BView, 1>::run(exec, alpha, A, C, beta, B);
  }
};

}  // namespace Impl
}  // namespace kbla
