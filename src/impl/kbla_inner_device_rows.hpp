// Portable kbla::inner on device execution spaces for operands whose rows are contiguous (LayoutRight and its
// column-range subviews) and narrow: the threads of a group read one row together.
//
// The direct kernel (kbla_inner_device_direct.hpp) gives each thread whole rows. On row-major operands each of its
// load instructions then touches one cache line per thread, and the cache's request rate, not the memory, bounds
// it: on an H200, double width 8 ran at 42 % of the read bandwidth with the L1 at 98 % of its throughput (ncu).
// Here a group of `slots` threads (a power of two, at least the owned width) shares a row: thread c of the group
// reads column c of the wider operand (the owned one; consecutive threads, consecutive addresses) and the whole
// row of the other operand (the same addresses for the whole group: one request per row), and sums
// own(k, c) against every column of the other operand. The team's `lanes` groups take consecutive rows; a thread
// loads several rows before their multiply-adds.
//
// The plan, the closing sum, the launch and the host emulation are the direct kernel's (InnerTeamKernel,
// kbla_inner_device_team.hpp) with slot = the owned column and lane = the group, so the same tests cover both.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_multiply_add.hpp>
#include <impl/kbla_inner_device_direct.hpp>
#include <impl/kbla_inner_device_team.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kbla {
namespace Impl {

// Sums per thread: the other operand's width rounded up to 4, 8 or 16 (at most 16 real or 8 complex sums, the
// register budget of the direct kernel's tiles). The owned width is at most 32 (one group within a warp).
template <class Scalar>
struct InnerRowsShape {
  static constexpr bool is_complex = kbla::Impl::ArithTraits<Scalar>::is_complex;
  static constexpr int max_sums = is_complex ? 8 : 16, max_owned = 32;
  // Owns A's columns when A is at least as wide as B.
  static bool owns_a(int M, int N) { return M >= N; }
  // At least 4 (a narrower other operand repeats its last column; those sums are dropped): fewer instantiations.
  static int sums(int M, int N) {
    const int s = InnerDirectTiles<Scalar>::extent(owns_a(M, N) ? N : M, max_sums);
    return s < 4 ? 4 : s;
  }
  static bool fits(int M, int N) {
    const int owned = owns_a(M, N) ? M : N, other = owns_a(M, N) ? N : M;
    return owned <= max_owned && other <= max_sums;
  }
};

template <class ExecSpace, class AView, class BView, class PartialView, int Sums, bool OwnsA>
struct InnerDeviceRows : InnerTeamKernel<InnerDeviceRows<ExecSpace, AView, BView, PartialView, Sums, OwnsA>,
                                         ExecSpace, AView, BView, PartialView, Sums> {
  using Base = InnerTeamKernel<InnerDeviceRows, ExecSpace, AView, BView, PartialView, Sums>;
  using typename Base::Scalar;
  using typename Base::Tile;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Base::A;
  using Base::B;
  using Base::conjA;
  using Base::partial;
  using Base::plan;
  // Rows loaded before their multiply-adds: about 256 bytes of loads in flight per thread, 1 to 8 rows.
  static constexpr int row_bytes = int((1 + Sums) * sizeof(Scalar));
  static constexpr int rows_in_flight =
      8 * row_bytes <= 256 ? 8 : 4 * row_bytes <= 256 ? 4 : 2 * row_bytes <= 256 ? 2 : 1;

  static const char* label() { return "kbla::inner(portable device rows)"; }

  static InnerDirectPlan plan_for(int M, int N, std::int64_t K, int team_size_max, std::int64_t concurrency) {
    InnerDirectPlan p;
    const int owned = OwnsA ? M : N;
    int group = 1;
    while (group < owned) group *= 2;
    const int target = Base::team_target(team_size_max);
    p.slots = std::min(group, target);  // a team smaller than the owned width loops over it (column groups)
    p.lanes = std::max(1, target / p.slots);
    p.tiles = group;  // owned columns, padded
    p.tiles_m = 1;
    p.tile_groups = (group + p.slots - 1) / p.slots;
    Base::finish_plan(p, K, concurrency);
    return p;
  }

  // The schedule of one team: slot = rank % slots (the owned column), lane = rank / slots (the group's rows).
  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t chunk = league / plan.tile_groups;
    const int column_group = static_cast<int>(league % plan.tile_groups);
    team.each([&](int rank, Tile& tile) {
      for (int s = 0; s < Sums; ++s) tile.sum[s] = ATS::zero();
      accumulate(chunk, rank / plan.slots, column_group * plan.slots + rank % plan.slots, tile.sum);
    });
    const int M = static_cast<int>(partial.extent(1)), N = static_cast<int>(partial.extent(2));
    this->close_team(
        team, [&](int rank) { return rank % plan.slots; }, [&](int rank) { return rank / plan.slots; },
        [&](int s, int slot, const Scalar& sum) {
          const int c = column_group * plan.slots + slot;
          const int i = OwnsA ? c : s, j = OwnsA ? s : c;
          if (i < M && j < N) partial(chunk, i, j) = sum;
        });
  }

  // own(k, c) * other(k, s) for the chunk's rows lane, lane + lanes, ...; A's values conjugated when conjA.
  KOKKOS_INLINE_FUNCTION void accumulate(std::int64_t chunk, int lane, int owned_column, Scalar (&acc)[Sums]) const {
    const int M = static_cast<int>(A.extent(1)), N = static_cast<int>(B.extent(1));
    const int owned = OwnsA ? M : N, other = OwnsA ? N : M;
    const int c = owned_column < owned ? owned_column : owned - 1;
    int cols[Sums];
    for (int s = 0; s < Sums; ++s) cols[s] = s < other ? s : other - 1;
    const std::int64_t K = A.extent(0);
    const std::int64_t k_begin = chunk * plan.rows_per_chunk;
    const std::int64_t k_end = k_begin + plan.rows_per_chunk < K ? k_begin + plan.rows_per_chunk : K;
    const std::int64_t step = plan.lanes;
    constexpr int rows = rows_in_flight;
    std::int64_t k = k_begin + lane;
    for (; k + (rows - 1) * step < k_end; k += rows * step) {
      Scalar own[rows], oth[rows][Sums];
      for (int r = 0; r < rows; ++r) {
        own[r] = OwnsA ? A(k + r * step, c) : B(k + r * step, c);
        for (int s = 0; s < Sums; ++s) oth[r][s] = OwnsA ? B(k + r * step, cols[s]) : A(k + r * step, cols[s]);
      }
      for (int r = 0; r < rows; ++r) add_row(own[r], oth[r], acc);
    }
    for (; k < k_end; k += step) {
      Scalar oth[Sums];
      const Scalar own = OwnsA ? A(k, c) : B(k, c);
      for (int s = 0; s < Sums; ++s) oth[s] = OwnsA ? B(k, cols[s]) : A(k, cols[s]);
      add_row(own, oth, acc);
    }
  }

  KOKKOS_INLINE_FUNCTION void add_row(const Scalar& own, const Scalar (&oth)[Sums], Scalar (&acc)[Sums]) const {
    if (OwnsA) {
      const Scalar a = conjA ? ATS::conj(own) : own;
      for (int s = 0; s < Sums; ++s) multiply_add(acc[s], a, oth[s]);
    } else {
      for (int s = 0; s < Sums; ++s) multiply_add(acc[s], conjA ? ATS::conj(oth[s]) : oth[s], own);
    }
  }
};

// Calls f(std::integral_constant<int, Sums>, std::integral_constant<bool, OwnsA>) for C of M x N entries
// (InnerRowsShape::fits(M, N) must hold).
template <class Scalar, class Body>
void with_inner_rows_shape(int M, int N, Body&& f) {
  using Shape = InnerRowsShape<Scalar>;
  auto by_owner = [&](auto S) {
    if (Shape::owns_a(M, N))
      f(S, std::true_type());
    else
      f(S, std::false_type());
  };
  switch (Shape::sums(M, N)) {
    case 4: by_owner(std::integral_constant<int, 4>()); break;
    case 8: by_owner(std::integral_constant<int, 8>()); break;
    default: by_owner(std::integral_constant<int, Shape::max_sums>()); break;
  }
}

}  // namespace Impl
}  // namespace kbla
