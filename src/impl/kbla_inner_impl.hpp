// Portable kbla::inner: C = alpha * op(A)^T * B + beta * C with op = conj (A^H) or identity (A^T).
//
// The rows are cut into contiguous chunks, one per team; each team sums its chunk into a partial C with the
// tiles of C held in registers (compile-time tile extents per width class, kbla_portable_tiles.hpp), and a
// second pass sums the partials in team order and applies alpha and beta. No atomics: the result is bitwise
// reproducible for a given number of teams, so InnerOptions::deterministic needs no separate path.
//  - host execution spaces (kbla_inner_portable_host.hpp): one team per hardware thread, blocks of rows packed
//    into cache and summed by vectorisable tiles;
//  - device execution spaces: a team of many threads per chunk, as many chunks as fill the device; C wider than
//    4 x 4 through kbla_inner_device_blocks.hpp (threads own entries of C, rows staged in scratch), narrower C
//    (or C too large for one team) through kbla_inner_portable_device.hpp (threads own rows).
// This is the path of every backend without a vendor / hand-written one, and the reference those are tested
// against.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_inner_device_blocks.hpp>
#include <impl/kbla_inner_portable_device.hpp>
#include <impl/kbla_inner_portable_host.hpp>
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
  using DeviceKernel = InnerDeviceTeams<ExecSpace, AView, BView, PartialView>;
  using DeviceBlocks = InnerDeviceBlocks<ExecSpace, AView, BView, PartialView>;

  static void run(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const InnerOptions& /*every variant is deterministic*/) {
    const std::int64_t K = A.extent(0);
    const int M = C.extent(0), N = C.extent(1);
    if (M == 0 || N == 0) return;
    if (K == 0 || alpha == ATS::zero()) {
      scale_matrix(exec, beta, C);
      return;
    }
    std::int64_t teams = 1, rows_per_team = K;
    int device_threads = 1;
    InnerBlockPlan block_plan;
    bool use_blocks = false;
    if constexpr (runs_on_host<ExecSpace>::value) {
      // One chunk per hardware thread, but no chunk shorter than one packed block.
      const std::int64_t block = HostKernel::block_rows(M, N);
      teams = std::max<std::int64_t>(1, std::min<std::int64_t>(exec.concurrency(), (K + block - 1) / block));
    } else if ((use_blocks = DeviceBlocks::choose(exec, M, N, block_plan))) {
      // Four times the teams that fill the device's threads once: how many teams a multiprocessor holds at once
      // also depends on their scratch, which Kokkos does not report, and with four waves or more the last,
      // partly filled one is a small part of the run. Each team at least four staged blocks long, so that its
      // closing sum across thread groups is paid for by many rows.
      const std::int64_t fill =
          std::max<std::int64_t>(1, 4 * std::int64_t(exec.concurrency()) / block_plan.team_size);
      const std::int64_t min_rows = 4 * std::int64_t(block_plan.block_rows);
      teams = std::max<std::int64_t>(1, std::min<std::int64_t>(fill, (K + min_rows - 1) / min_rows));
    } else {
      // Enough teams to fill the device once, each with at least 16 rows per thread so that the team's
      // reduction of every tile is paid for by many loads.
      device_threads = DeviceKernel::team_threads(exec);
      const std::int64_t fill = std::max<std::int64_t>(1, std::int64_t(exec.concurrency()) / device_threads);
      const std::int64_t min_rows = 16 * std::int64_t(device_threads);
      teams = std::max<std::int64_t>(1, std::min<std::int64_t>(fill, (K + min_rows - 1) / min_rows));
    }
    rows_per_team = (K + teams - 1) / teams;
    teams = (K + rows_per_team - 1) / rows_per_team;
    const PartialView partial(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::inner partial sums"), teams, M,
                              N);
    if constexpr (runs_on_host<ExecSpace>::value) {
      HostKernel::run(exec, conjA, A, B, partial, rows_per_team);
    } else if (use_blocks) {
      block_plan.rows_per_team = rows_per_team;
      DeviceBlocks::run(exec, conjA, A, B, partial, block_plan);
    } else {
      DeviceKernel::run(exec, conjA, A, B, partial, rows_per_team, device_threads);
    }
    combine(exec, alpha, partial, beta, C);
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
};

}  // namespace Impl
}  // namespace kbla
