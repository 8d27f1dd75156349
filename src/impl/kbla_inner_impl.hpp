// Portable kbla::inner: C = alpha * op(A)^T * B + beta * C with op = conj (A^H) or identity (A^T).
//
// The seed's scheme (Ernst et al. 2020) in Kokkos terms: each team owns a contiguous chunk of rows of A and B;
// inside it every thread owns some entries (i, j) of C and its vector lanes sum over the chunk's rows
// (thread-local partial sums, a lane reduction), then ONE atomic add per team and entry combines the chunks.
// The deterministic variant writes per-team partials and sums them in team order in a second pass.
// This is the reference every fast path is tested against, and the path on every backend without one.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_scale.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

// How the K rows are cut into team chunks: on host spaces chunks stay small enough for the cache; on devices
// only as many teams are launched as fill the device (grid-stride spirit: fewer, longer teams mean fewer atomics).
template <class ExecSpace>
struct RowChunks {
  std::int64_t rows_per_team;
  std::int64_t teams;
  RowChunks(const ExecSpace& exec, std::int64_t K) {
    constexpr bool host = std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value;
    const std::int64_t min_rows = 512;
    const std::int64_t max_teams = host ? std::int64_t(1) << 40 : std::max<std::int64_t>(1, exec.concurrency() / 128);
    const std::int64_t wanted = (K + min_rows - 1) / min_rows;
    teams = std::max<std::int64_t>(1, std::min(wanted, max_teams));
    rows_per_team = (K + teams - 1) / teams;
    teams = (K + rows_per_team - 1) / rows_per_team;
  }
};

template <class ExecSpace>
int vector_length_for() {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  return std::min(32, Policy::vector_length_max());
}

template <class ExecSpace, class AView, class BView, class CView>
struct InnerPortable {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  static void run(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const InnerOptions& options) {
    const std::int64_t K = A.extent(0);
    const int M = C.extent(0), N = C.extent(1);
    if (M == 0 || N == 0) return;
    if (K == 0 || alpha == ATS::zero()) {
      scale_matrix(exec, beta, C);
      return;
    }
    const RowChunks<ExecSpace> chunks(exec, K);
    const Policy policy(exec, chunks.teams, Kokkos::AUTO, vector_length_for<ExecSpace>());
    if (options.deterministic) {
      deterministic(exec, policy, chunks, conjA, alpha, A, B, beta, C);
    } else {
      scale_matrix(exec, beta, C);
      atomic_combine(policy, chunks, conjA, alpha, A, B, C);
    }
  }

  // Sum over rows [k0, k1) of op(A(k, i)) * B(k, j), by the calling thread's vector lanes.
  KOKKOS_INLINE_FUNCTION static Scalar chunk_sum(const Member& team, bool conjA, const AView& A, const BView& B,
                                                 std::int64_t k0, std::int64_t k1, int i, int j) {
    Scalar sum = ATS::zero();
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, k1 - k0),
        [&](std::int64_t r, Scalar& s) {
          const Scalar a = A(k0 + r, i);
          s += (conjA ? ATS::conj(a) : a) * B(k0 + r, j);
        },
        sum);
    return sum;
  }

  static void atomic_combine(const Policy& policy, const RowChunks<ExecSpace>& chunks, bool conjA,
                             const Scalar& alpha, const AView& A, const BView& B, const CView& C) {
    const std::int64_t K = A.extent(0), rows = chunks.rows_per_team;
    const int M = C.extent(0), N = C.extent(1);
    Kokkos::parallel_for(
        "kbla::inner(portable)", policy, KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t k0 = team.league_rank() * rows;
          const std::int64_t k1 = k0 + rows < K ? k0 + rows : K;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, M * N), [&](int e) {
            const int i = e % M, j = e / M;
            const Scalar sum = chunk_sum(team, conjA, A, B, k0, k1, i, j);
            Kokkos::single(Kokkos::PerThread(team), [&]() { Kokkos::atomic_add(&C(i, j), alpha * sum); });
          });
        });
  }

  static void deterministic(const ExecSpace& exec, const Policy& policy, const RowChunks<ExecSpace>& chunks,
                            bool conjA, const Scalar& alpha, const AView& A, const BView& B, const Scalar& beta,
                            const CView& C) {
    const std::int64_t K = A.extent(0), rows = chunks.rows_per_team, teams = chunks.teams;
    const int M = C.extent(0), N = C.extent(1);
    Kokkos::View<Scalar***, Kokkos::LayoutRight, typename ExecSpace::memory_space> partial(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::inner partial sums"), teams, M, N);
    Kokkos::parallel_for(
        "kbla::inner(portable, deterministic)", policy, KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t t = team.league_rank(), k0 = t * rows;
          const std::int64_t k1 = k0 + rows < K ? k0 + rows : K;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, M * N), [&](int e) {
            const int i = e % M, j = e / M;
            const Scalar sum = chunk_sum(team, conjA, A, B, k0, k1, i, j);
            Kokkos::single(Kokkos::PerThread(team), [&]() { partial(t, i, j) = sum; });
          });
        });
    const bool beta_zero = beta == ATS::zero();
    using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    Kokkos::parallel_for(
        "kbla::inner(portable, fixed-order sum)", Range2(exec, {0, 0}, {M, N}), KOKKOS_LAMBDA(int i, int j) {
          Scalar sum = ATS::zero();
          for (std::int64_t t = 0; t < teams; ++t) sum += partial(t, i, j);
          C(i, j) = beta_zero ? alpha * sum : alpha * sum + beta * C(i, j);
        });
  }
};

}  // namespace Impl
}  // namespace kbla
