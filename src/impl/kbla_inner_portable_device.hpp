// Portable kbla::inner on device execution spaces (GPUs): a team per chunk of rows, many threads per team.
// Thread t of a team reads rows k0 + t, k0 + t + T, ... so that a warp's loads of a column-major operand are
// consecutive; every tile of C (tm x tn entries, compile-time extents) is accumulated in registers over the chunk,
// then the team's threads combine their tiles by a fixed-shape tree in scratch memory and one thread writes the
// team's partial C. The partials are summed in team order afterwards (kbla_inner_impl.hpp): no atomics.
#pragma once

#include <impl/kbla_portable_tiles.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class PartialView>
struct InnerDeviceTeams {
  using Scalar = typename PartialView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  // Register tiles up to 4 x 4 real or 4 x 2 complex entries per thread; the tree sums one tile at a time.
  static constexpr int max_tm = 4, max_tn = ATS::is_complex ? 2 : 4;
  static constexpr int tile_entries = max_tm * max_tn;

  // Threads per team: a power of two (the tree halves it), at most 256 and what the backend allows.
  static int team_threads(const ExecSpace& exec) {
    const int cap = std::min(256, Policy(exec, 1, Kokkos::AUTO).team_size_max(
                                      InnerDeviceTeams(), Kokkos::ParallelForTag()));
    int t = 1;
    while (2 * t <= cap) t *= 2;
    return t;
  }

  AView A;
  BView B;
  PartialView partial;
  std::int64_t rows_per_team = 0;
  bool conjA = true;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int M = A.extent(1), N = B.extent(1);
    const std::int64_t K = A.extent(0);
    const int threads = team.team_size(), t = team.team_rank();
    const std::int64_t league = team.league_rank();
    const std::int64_t k_begin = league * rows_per_team;
    const std::int64_t k_end = k_begin + rows_per_team < K ? k_begin + rows_per_team : K;
    Scalar* tree = static_cast<Scalar*>(team.team_scratch(0).get_shmem(sizeof(Scalar) * tile_entries * threads));
    for (int i0 = 0; i0 < M;) {
      const int tm = tile_extent(M - i0, max_tm);
      for (int j0 = 0; j0 < N;) {
        const int tn = tile_extent(N - j0, max_tn);
        with_extent<max_tm>(tm, [&](auto TM) {
          with_extent<max_tn>(tn, [&](auto TN) {
            tile(team, tree, i0, j0, k_begin + t, k_end, threads, TM, TN);
          });
        });
        j0 += tn;
      }
      i0 += tm;
    }
  }

  template <class TMConst, class TNConst>
  KOKKOS_INLINE_FUNCTION void tile(const Member& team, Scalar* tree, int i0, int j0, std::int64_t k_first,
                                   std::int64_t k_end, int threads, TMConst, TNConst) const {
    constexpr int TM = TMConst::value, TN = TNConst::value;
    Scalar acc[TM][TN];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) acc[i][j] = ATS::zero();
    for (std::int64_t k = k_first; k < k_end; k += threads) {
      Scalar a[TM], b[TN];
      for (int i = 0; i < TM; ++i) a[i] = conjA ? ATS::conj(A(k, i0 + i)) : A(k, i0 + i);
      for (int j = 0; j < TN; ++j) b[j] = B(k, j0 + j);
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    const int t = team.team_rank();
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) tree[(i * TN + j) * threads + t] = acc[i][j];
    for (int half = threads / 2; half > 0; half /= 2) {
      team.team_barrier();
      if (t < half)
        for (int e = 0; e < TM * TN; ++e) tree[e * threads + t] += tree[e * threads + t + half];
    }
    team.team_barrier();
    if (t == 0)
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) partial(team.league_rank(), i0 + i, j0 + j) = tree[(i * TN + j) * threads];
    team.team_barrier();
  }

  static void run(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                  std::int64_t rows_per_team, int threads) {
    InnerDeviceTeams f;
    f.A = A;
    f.B = B;
    f.partial = partial;
    f.rows_per_team = rows_per_team;
    f.conjA = conjA;
    const std::size_t scratch = sizeof(Scalar) * tile_entries * threads;
    const Policy policy = Policy(exec, static_cast<int>(partial.extent(0)), threads)
                              .set_scratch_size(0, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for("kbla::inner(portable device teams)", policy, f);
  }
};

}  // namespace Impl
}  // namespace kbla
