// Portable kbla::update: B = alpha * A * C + beta * B   (A: K x M, C: M x N, B: K x N), also in place (B is A).
//
// Each team stages a block of rows of A in scratch memory, waits at a barrier, then writes the same rows of B
// from the staged copy. Rows never cross teams, so B may be the very same View as A (X <- X * C without a
// second K x M buffer), and every value of A is read from device memory once.
#pragma once

#include <impl/kbla_scale.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView>
struct UpdatePortable {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using ScratchRows = Kokkos::View<Scalar**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    if (K == 0 || N == 0) return;
    if (M == 0 || alpha == ATS::zero()) {
      scale_matrix(exec, beta, B);
      return;
    }
    // Rows per team: as many as fit a small scratch budget (16 KiB, fast on-chip on GPUs), at most 64.
    const std::size_t row_bytes = std::size_t(M) * sizeof(Scalar);
    const int rows = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(64, 16384 / row_bytes)));
    const std::size_t scratch_bytes = ScratchRows::shmem_size(rows, M);
    const int level = scratch_bytes <= 16384 ? 0 : 1;
    const std::int64_t teams = (K + rows - 1) / rows;
    const Policy policy = Policy(exec, teams, Kokkos::AUTO).set_scratch_size(level, Kokkos::PerTeam(scratch_bytes));

    // Consecutive threads take consecutive addresses: down a column for column-major Views, along a row otherwise.
    const bool a_rows_fast = A.stride(0) <= A.stride(1);
    const bool b_rows_fast = B.stride(0) <= B.stride(1);
    const bool beta_zero = beta == ATS::zero();
    Kokkos::parallel_for(
        "kbla::update(portable)", policy, KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t k0 = team.league_rank() * std::int64_t(rows);
          const int nrows = static_cast<int>(K - k0 < rows ? K - k0 : rows);
          ScratchRows a(team.team_scratch(level), rows, M);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows * M), [&](int e) {
            const int r = a_rows_fast ? e % nrows : e / M;
            const int i = a_rows_fast ? e / nrows : e % M;
            a(r, i) = A(k0 + r, i);
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows * N), [&](int e) {
            const int r = b_rows_fast ? e % nrows : e / N;
            const int n = b_rows_fast ? e / nrows : e % N;
            Scalar sum = ATS::zero();
            for (int i = 0; i < M; ++i) sum += a(r, i) * C(i, n);
            B(k0 + r, n) = beta_zero ? alpha * sum : alpha * sum + beta * B(k0 + r, n);
          });
        });
  }
};

}  // namespace Impl
}  // namespace kbla
