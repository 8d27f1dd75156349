// Portable kbla::update on device execution spaces (GPUs) for B that kbla_update_device_direct.hpp does not take
// (row-major or strided B, more than 8 columns): a team stages a block of rows of A in scratch memory, waits at a
// barrier, then its threads compute the block's entries of B, consecutive threads on consecutive addresses of B
// (along its rows when they are contiguous, down its columns otherwise), so that the loads of A and the stores of
// B are coalesced whatever the layouts. A thread per row of a row-major B stored its row in scattered pieces and
// read A's rows the same way: on an H200 at widths 4-8 that ran at a third to a half of the bandwidth.
//
// Each thread computes rows_per_thread entries of B, rows a stripe apart, in one column (row-major B) or in a group
// of consecutive columns (column-major B, update_staged), so that each value of C it loads serves all its rows and
// each value of A it reads from scratch all its columns. Rows never cross teams and a block of A is read in full
// before the same rows of B are written, so B may be the very same View as A (in place).
// Measured on an H200 (% of the copy bandwidth, CUDA kernels off): the column groups and 8 loads in flight per
// thread while staging (4 before) took column-major B of 16 columns in place from 56 to 62 % (double) and from 46
// to 68 % (complex), and row-major B of 2-8 columns up by 2-16 points. Column groups for row-major B were slower
// (double B of 2-8 columns at 48-55 % against 60-70 %), and for double B of 12 columns as well (58-63 % against
// 68 %), hence the thresholds in update_staged.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_multiply_add.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kbla {
namespace Impl {

// Elements rank, rank + step, rank + 2 step, ... of an outer_n x inner_n block (inner the contiguous index) as
// (outer, inner) pairs, advanced without a division per element.
struct StridedWalk {
  int inner_n, outer_n, d_inner, d_outer, inner, outer;
  KOKKOS_INLINE_FUNCTION StridedWalk(int inner_extent, int outer_extent, int rank, int step)
      : inner_n(inner_extent),
        outer_n(outer_extent),
        d_inner(step % inner_extent),
        d_outer(step / inner_extent),
        inner(rank % inner_extent),
        outer(rank / inner_extent) {}
  KOKKOS_INLINE_FUNCTION bool done() const { return outer >= outer_n; }
  KOKKOS_INLINE_FUNCTION void next() {
    inner += d_inner;
    outer += d_outer;
    if (inner >= inner_n) {
      inner -= inner_n;
      ++outer;
    }
  }
};

template <class ExecSpace, class AView, class CView, class BView, int Columns, int LoadsPerRound>
struct UpdateDeviceTeams {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  static constexpr int rows_per_thread = 4;
  static constexpr int max_team_size = 256;
  // Scratch per team for the staged rows: 32 KiB lets several teams share a multiprocessor.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  // Values of A a thread loads before storing them to scratch (the bytes in flight while a team stages).
  static constexpr int loads_per_round = LoadsPerRound;

  AView A;
  CView C;
  BView B;
  Scalar alpha, beta;
  int rows = 1;    // rows per block, a multiple of rows_per_thread
  int pitch = 1;   // scratch row pitch: M rounded up to an odd count, so that rows start on different banks
  int team_size = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1);
    const std::int64_t k0 = team.league_rank() * std::int64_t(rows);
    const int nrows = static_cast<int>(K - k0 < rows ? K - k0 : rows);
    Scalar* const a = static_cast<Scalar*>(
        team.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * std::size_t(rows) * pitch, alignof(Scalar)));
    const int rank = team.team_rank();
    // Staging: consecutive threads on consecutive addresses of A (down its columns or along its rows): element
    // (outer, inner) of the block, inner the contiguous index. A thread's elements are team_size apart; their
    // indices advance by a fixed step, without a division and a remainder per element (ncu on an H200 found the
    // kernel issue-bound in place at width 16, 0.77 instructions per cycle per scheduler, and an integer division
    // and remainder cost about as many instructions as an element's 16 multiply-adds), and it issues
    // loads_per_round loads before their stores to scratch.
    const bool a_rows_fast = A.stride(0) <= A.stride(1);
    StridedWalk walk(a_rows_fast ? nrows : M, a_rows_fast ? M : nrows, rank, team_size);
    while (!walk.done()) {
      Scalar v[loads_per_round];
      int at[loads_per_round];
      for (int u = 0; u < loads_per_round; ++u) {
        at[u] = -1;
        if (!walk.done()) {
          const int r = a_rows_fast ? walk.inner : walk.outer, i = a_rows_fast ? walk.outer : walk.inner;
          v[u] = A(k0 + r, i);
          at[u] = r * pitch + i;
        }
        walk.next();
      }
      for (int u = 0; u < loads_per_round; ++u)
        if (at[u] >= 0) a[at[u]] = v[u];
    }
    team.team_barrier();
    compute_entries(a, k0, nrows, rank);
  }

  // The staged block's entries of B. A thread computes rows_per_thread rows (a stripe apart) by Columns consecutive
  // columns, so that each value of A it reads from scratch serves Columns sums and each value of C rows_per_thread.
  // Consecutive threads take consecutive rows (b_rows_fast: coalesced stores down B's columns) or consecutive
  // column groups (B's rows contiguous; then Columns is 1: consecutive threads, consecutive addresses).
  KOKKOS_INLINE_FUNCTION void compute_entries(const Scalar* a, std::int64_t k0, int nrows, int rank) const {
    const int M = A.extent(1), N = B.extent(1);
    const bool b_rows_fast = B.stride(0) <= B.stride(1);
    const int stripe = rows / rows_per_thread;
    const int groups = (N + Columns - 1) / Columns;
    const bool beta_zero = beta == ATS::zero();
    for (int job = rank; job < stripe * groups; job += team_size) {
      const int r0 = b_rows_fast ? job % stripe : job / groups;
      const int j0 = (b_rows_fast ? job / stripe : job % groups) * Columns;
      if (r0 >= nrows) continue;
      int col[Columns];
      for (int q = 0; q < Columns; ++q) col[q] = j0 + q < N ? j0 + q : N - 1;
      Scalar acc[rows_per_thread][Columns];
      for (int u = 0; u < rows_per_thread; ++u)
        for (int q = 0; q < Columns; ++q) acc[u][q] = ATS::zero();
      const Scalar* const row = a + r0 * pitch;
      for (int i = 0; i < M; ++i) {
        Scalar c[Columns];
        for (int q = 0; q < Columns; ++q) c[q] = C(i, col[q]);
        for (int u = 0; u < rows_per_thread; ++u) {
          const Scalar v = row[u * stripe * pitch + i];
          for (int q = 0; q < Columns; ++q) multiply_add(acc[u][q], v, c[q]);
        }
      }
      for (int u = 0; u < rows_per_thread; ++u) {
        const int r = r0 + u * stripe;
        if (r >= nrows) break;
        for (int q = 0; q < Columns; ++q) {
          if (j0 + q >= N) break;
          B(k0 + r, j0 + q) = beta_zero ? alpha * acc[u][q] : alpha * acc[u][q] + beta * B(k0 + r, j0 + q);
        }
      }
    }
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

// The staged kernel for B: column groups (UpdateDeviceTeams' Columns) of 4 real / 2 complex columns per thread
// when B's columns are contiguous and its rows hold at least 16 real values (double from 16 columns, complex from
// 9: narrower ones go to the direct kernel or would leave threads idle), one column otherwise (consecutive threads
// then write consecutive addresses of a row-major B). Staging issues 8 loads per round, but 4 for one column per
// thread with a column-major A (double column-major B of 12 columns on an H200: 68 % of the copy bandwidth with 4,
// 57-60 % with 8). Separate kernels, not one with every path: a kernel with both column paths took the registers
// of the wider one, and row-major B ran at 57-68 % of the copy bandwidth on an H200 against 72-85 %.
template <class ExecSpace, class AView, class CView, class BView>
void update_staged(const ExecSpace& exec, const typename BView::non_const_value_type& alpha, const AView& A,
                   const CView& C, const typename BView::non_const_value_type& beta, const BView& B) {
  using Scalar = typename BView::non_const_value_type;
  constexpr int group = kbla::Impl::ArithTraits<Scalar>::is_complex ? 2 : 4;
  constexpr int planes = kbla::Impl::ArithTraits<Scalar>::is_complex ? 2 : 1;
  const int N = static_cast<int>(B.extent(1));
  const bool a_column_major = A.stride(0) <= A.stride(1);
  if (N > 8 && N * planes >= 16 && B.stride(0) <= B.stride(1))
    UpdateDeviceTeams<ExecSpace, AView, CView, BView, group, 8>::run(exec, alpha, A, C, beta, B);
  else if (a_column_major)
    UpdateDeviceTeams<ExecSpace, AView, CView, BView, 1, 4>::run(exec, alpha, A, C, beta, B);
  else
    UpdateDeviceTeams<ExecSpace, AView, CView, BView, 1, 8>::run(exec, alpha, A, C, beta, B);
}

}  // namespace Impl
}  // namespace kbla
