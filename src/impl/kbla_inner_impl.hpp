// Portable kbla::inner: C = alpha * op(A)^T * B + beta * C with op = conj (A^H) or identity (A^T).
//
// The rows are cut into contiguous chunks, one per team; each team sums its chunk into a partial C with the
// tiles of C held in registers (compile-time tile extents per width class, kbla_portable_tiles.hpp), and a
// second pass sums the partials in team order and applies alpha and beta. No atomics: the result is bitwise
// reproducible for a given number of teams, so InnerOptions::deterministic needs no separate path.
//  - host execution spaces (kbla_inner_portable_host.hpp): one team per hardware thread, blocks of rows packed
//    into cache and summed by vectorisable tiles;
//  - device execution spaces (kbla_inner_device_direct.hpp): teams of many threads per chunk of rows, each
//    thread a register tile of C over rows it reads straight from device memory (row-major operands wider than
//    4 columns: a group of threads per row, kbla_inner_device_rows.hpp; column-major ones of at most 16 columns:
//    blocks of rows staged in scratch, kbla_inner_device_staged.hpp); the chunks' partials, kept in memory
//    reused between calls (kbla_reused_scratch.hpp), summed by a team per run of entries (combine_on_device).
// This is the path of every backend without a vendor / hand-written one, and the reference those are tested
// against.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_inner_device_direct.hpp>
#include <impl/kbla_inner_device_rows.hpp>
#include <impl/kbla_inner_device_staged.hpp>
#include <impl/kbla_inner_portable_host.hpp>
#include <impl/kbla_reused_scratch.hpp>
#include <impl/kbla_scale.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class CView>
struct InnerPortable {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using PartialView = Kokkos::View<Scalar***, Kokkos::LayoutRight, typename ExecSpace::memory_space>;
  using HostKernel = InnerHostBlocks<ExecSpace, AView, BView, PartialView>;

  static void run(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const InnerOptions& /*every variant is deterministic*/) {
    const std::int64_t K = A.extent(0);
    const int M = C.extent(0), N = C.extent(1);
    if (M == 0 || N == 0) return;
    if (K == 0 || alpha == ATS::zero()) {
      scale_matrix(exec, beta, C);
      return;
    }
    if constexpr (runs_on_host<ExecSpace>::value) {
      // One chunk per hardware thread, but no chunk shorter than one packed block.
      const std::int64_t block = HostKernel::block_rows(M, N);
      std::int64_t teams =
          std::max<std::int64_t>(1, std::min<std::int64_t>(exec.concurrency(), (K + block - 1) / block));
      const std::int64_t rows_per_team = (K + teams - 1) / teams;
      teams = (K + rows_per_team - 1) / rows_per_team;
      const PartialView partial(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::inner partial sums"), teams,
                                M, N);
      HostKernel::run(exec, conjA, A, B, partial, rows_per_team);
      combine(exec, alpha, partial, beta, C);
    } else if (rows_kernel_fits(A, B)) {
      with_inner_rows_shape<Scalar>(M, N, [&](auto Sums, auto OwnsA) {
        using Kernel = InnerDeviceRows<ExecSpace, AView, BView, PartialView, decltype(Sums)::value,
                                       decltype(OwnsA)::value>;
        run_team_kernel<Kernel>(exec, conjA, alpha, A, B, beta, C, Kernel::team_size_max(exec));
      });
    } else if (!run_staged_kernel(exec, conjA, alpha, A, B, beta, C)) {
      with_inner_direct_tiles<Scalar>(M, N, [&](auto TM, auto TN) {
        using Kernel =
            InnerDeviceDirect<ExecSpace, AView, BView, PartialView, decltype(TM)::value, decltype(TN)::value>;
        run_team_kernel<Kernel>(exec, conjA, alpha, A, B, beta, C, Kernel::team_size_max(exec));
      });
    }
  }

  // A device team kernel (kbla_inner_device_team.hpp): its plan, the chunks' partial sums in memory kept between
  // calls (kbla_reused_scratch.hpp), the kernel, then the fixed-order sum of the partials with alpha and beta.
  template <class Kernel>
  static void run_team_kernel(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                              const Scalar& beta, const CView& C, int team_size_max) {
    const int M = C.extent(0), N = C.extent(1);
    const InnerDirectPlan plan = Kernel::plan_for(M, N, A.extent(0), team_size_max, exec.concurrency());
    const auto memory = ReusedScratch<ExecSpace>::bytes(exec, sizeof(Scalar) * plan.chunks * M * N);
    const PartialView partial(reinterpret_cast<Scalar*>(memory.data()), plan.chunks, M, N);
    Kernel::run(exec, conjA, A, B, partial, plan);
    combine_on_device(exec, alpha, partial, beta, C);
  }

  // Device operands with contiguous rows and more than 4 columns in the wider one take the rows kernel
  // (kbla_inner_device_rows.hpp). On an H200, in one run: double width 8 at 61 % of the read bandwidth against
  // 43 % for the direct kernel, complex width 8 at 60 % against 29 %; at widths 1-4 the direct kernel was
  // faster (double width 4: 90 % against 82 %, complex width 4: 89 % against 78 %).
  static bool rows_kernel_fits(const AView& A, const BView& B) {
    const int M = A.extent(1), N = B.extent(1);
    const bool a_rows = M == 1 || A.stride(1) == 1, b_rows = N == 1 || B.stride(1) == 1;
    return a_rows && b_rows && std::max(M, N) > 4 && InnerRowsShape<Scalar>::fits(M, N);
  }

  // Device operands with contiguous columns and at most 16 columns in the wider one take the staged kernel
  // (kbla_inner_device_staged.hpp) when every tile of C fits one team. On an H200, each in one run against the direct
  // kernel (% of the read bandwidth): double widths 9-16 at 53-63 against 39-61, widths 2-8 1-3 points up, complex
  // width 16 at 60 against 52; complex widths 9 / 13 / 14, whose tiles leave slots idle, at 64 / 48 / 50 against 57 /
  // 44 / 47, width 10 at 60 against 62; both types from width 20 on 2-13 points down (more tiles than the staged rows
  // feed). Returns whether the staged kernel ran; the tile extents are chosen once per call.
  static bool run_staged_kernel(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A,
                                const BView& B, const Scalar& beta, const CView& C) {
    const int M = A.extent(1), N = B.extent(1);
    const bool a_columns = M == 0 || A.extent(0) <= 1 || A.stride(0) == 1;
    const bool b_columns = N == 0 || B.extent(0) <= 1 || B.stride(0) == 1;
    if (!a_columns || !b_columns || std::max(M, N) > 16) return false;
    bool ran = false;
    with_inner_staged_tiles<Scalar>(M, N, [&](auto TM, auto TN) {
      using Kernel =
          InnerDeviceStaged<ExecSpace, AView, BView, PartialView, decltype(TM)::value, decltype(TN)::value>;
      const int tiles = Kernel::tile_count(M, N), team_size_max = Kernel::team_size_max(exec);
      if (tiles > team_size_max) return;
      run_team_kernel<Kernel>(exec, conjA, alpha, A, B, beta, C, team_size_max);
      ran = true;
    });
    return ran;
  }

  // C(i, j) = alpha * sum_t partial(t, i, j) + beta * C(i, j), teams in order; beta = 0 never reads C.
  static void combine(const ExecSpace& exec, const Scalar& alpha, const PartialView& partial, const Scalar& beta,
                      const CView& C) {
    const int M = C.extent(0);
    const std::int64_t teams = partial.extent(0);
    const bool beta_zero = beta == ATS::zero();
    Kokkos::parallel_for(
        "kbla::inner(portable, fixed-order sum)",
        Kokkos::RangePolicy<ExecSpace>(exec, 0, std::int64_t(C.extent(0)) * std::int64_t(C.extent(1))),
        KOKKOS_LAMBDA(std::int64_t e) {
          const int i = static_cast<int>(e % M), j = static_cast<int>(e / M);
          Scalar sum = ATS::zero();
          for (std::int64_t t = 0; t < teams; ++t) sum += partial(t, i, j);
          C(i, j) = beta_zero ? alpha * sum : alpha * sum + beta * C(i, j);
        });
  }

  // The same sum on a device, where one thread per entry would add a thousand partials one after another: a team
  // per run of `lanes` consecutive entries; its threads (entry, stripe) sum every stripes-th chunk in order, then a
  // fixed-shape tree in scratch adds the stripes. Runs of one entry up to 512 entries, so that there are enough
  // teams and each thread adds a few partials only (with runs of 32, two teams at width 8, an H200 ran the call at
  // 44 % of the read bandwidth while its product kernel alone ran at 65 %); up to 32 consecutive entries
  // (coalesced loads) for larger C. The order depends only on the launch shape.
  static void combine_on_device(const ExecSpace& exec, const Scalar& alpha, const PartialView& partial,
                                const Scalar& beta, const CView& C) {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int M = C.extent(0), N = C.extent(1);
    const int entries = M * N;
    const std::int64_t chunks = partial.extent(0);
    int lanes = 1;  // entries per team, consecutive in the partials' row-major M x N
    while (lanes < 32 && lanes * 512 < entries) lanes *= 2;
    const int team_max = Policy(exec, 1, Kokkos::AUTO).team_size_max(
        KOKKOS_LAMBDA(const typename Policy::member_type&){}, Kokkos::ParallelForTag());
    int stripes = 1;
    while (stripes * lanes * 2 <= std::min(256, team_max) && stripes < chunks) stripes *= 2;
    const int team_size = stripes * lanes;
    const bool beta_zero = beta == ATS::zero();
    const Scalar* const sums = partial.data();
    const int teams = (entries + lanes - 1) / lanes;
    const Policy policy =
        Policy(exec, teams, team_size).set_scratch_size(0, Kokkos::PerTeam(sizeof(Scalar) * (team_size + 1)));
    Kokkos::parallel_for(
        "kbla::inner(portable, fixed-order sum of chunks)", policy,
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          Scalar* const tree = static_cast<Scalar*>(
              team.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * team_size, alignof(Scalar)));
          const int rank = team.team_rank(), lane = rank % lanes, stripe = rank / lanes;
          const int e = team.league_rank() * lanes + lane;
          Scalar sum = ATS::zero();
          if (e < entries)
            for (std::int64_t c = stripe; c < chunks; c += stripes) sum += sums[c * entries + e];
          tree[rank] = sum;
          for (int half = stripes / 2; half > 0; half /= 2) {
            team.team_barrier();
            if (stripe < half) tree[rank] += tree[rank + half * lanes];
          }
          team.team_barrier();
          if (stripe == 0 && e < entries) {
            const int i = e / N, j = e % N;
            C(i, j) = beta_zero ? alpha * tree[rank] : alpha * tree[rank] + beta * C(i, j);
          }
        });
  }
};

}  // namespace Impl
}  // namespace kbla
