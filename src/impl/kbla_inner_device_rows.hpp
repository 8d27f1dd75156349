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
// The schedule, the launch and the closing sum follow the direct kernel (the same InnerDirectPlan fields: slot = the
// owned column, lane = the group), so the same host emulation tests both.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_inner_device_direct.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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
struct InnerDeviceRows {
  using Scalar = typename PartialView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  // As the direct kernel: teams of 256, two per multiprocessor (at most 128 registers per thread).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  using Member = typename Policy::member_type;
  static constexpr int tile_entries = Sums;
  static constexpr int max_team_size = 256;
  // Rows loaded before their multiply-adds: about 256 bytes of loads in flight per thread, 1 to 8 rows.
  static constexpr int row_bytes = int((1 + Sums) * sizeof(Scalar));
  static constexpr int rows_in_flight =
      8 * row_bytes <= 256 ? 8 : 4 * row_bytes <= 256 ? 4 : 2 * row_bytes <= 256 ? 2 : 1;
  // Scratch for the closing sum; each round sums as many entries as it holds.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  // Each group reads at least this many rows of its chunk (the closing sum a small part of a team's time).
  static constexpr int min_rows_per_lane = 32;

  AView A;
  BView B;
  PartialView partial;
  InnerDirectPlan plan;
  bool conjA = true;

  static InnerDirectPlan plan_for(int M, int N, std::int64_t K, int team_size_max, std::int64_t concurrency) {
    InnerDirectPlan p;
    const int owned = OwnsA ? M : N;
    int group = 1;
    while (group < owned) group *= 2;
    const int target = std::max(1, std::min(max_team_size, team_size_max));
    p.slots = std::min(group, target);  // a team smaller than the owned width loops over it (column groups)
    p.lanes = std::max(1, target / p.slots);
    p.tiles = group;  // owned columns, padded
    p.tiles_m = 1;
    p.tile_groups = (group + p.slots - 1) / p.slots;
    p.team_size = p.lanes * p.slots;
    p.parts = std::min(p.lanes, 32);
    while (p.lanes % p.parts != 0) --p.parts;
    p.round_entries = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(tile_entries, scratch_budget / (sizeof(Scalar) * p.team_size))));
    // Half the teams that would fill the device's threads: two teams of 256 per multiprocessor run at a time
    // (the launch bound), and fewer, longer chunks measured faster than one per thread slot (fewer partials).
    const std::int64_t fill = std::max<std::int64_t>(1, concurrency / p.team_size / p.tile_groups / 2);
    const std::int64_t min_rows = std::int64_t(p.lanes) * min_rows_per_lane;
    p.chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(fill, (K + min_rows - 1) / min_rows));
    p.rows_per_chunk = (K + p.chunks - 1) / p.chunks;
    p.chunks = K > 0 ? (K + p.rows_per_chunk - 1) / p.rows_per_chunk : 1;
    return p;
  }

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_scalars(const InnerDirectPlan& p) {
    return std::size_t(p.team_size) * p.round_entries;
  }
  static std::size_t scratch_bytes(const InnerDirectPlan& p) { return sizeof(Scalar) * (scratch_scalars(p) + 1); }

  struct Tile {
    Scalar sum[Sums];
  };

  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t chunk = league / plan.tile_groups;
    const int column_group = static_cast<int>(league % plan.tile_groups);
    team.each([&](int rank, Tile& tile) {
      for (int s = 0; s < Sums; ++s) tile.sum[s] = ATS::zero();
      accumulate(chunk, rank / plan.slots, column_group * plan.slots + rank % plan.slots, tile.sum);
    });
    close(team, chunk, column_group);
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
      for (int s = 0; s < Sums; ++s) acc[s] += a * oth[s];
    } else {
      for (int s = 0; s < Sums; ++s) acc[s] += (conjA ? ATS::conj(oth[s]) : oth[s]) * own;
    }
  }

  // The direct kernel's closing sum with slot = owned column, lane = group: scratch holds (entry e, slot, lane) at
  // (e * slots + slot) * lanes + lane; parts threads per (entry, slot) sum every parts-th lane, one thread the parts.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void close(Team& team, std::int64_t chunk, int column_group) const {
    Scalar* const scratch = team.scratch;
    const int run = plan.lanes / plan.parts;
    const int M = static_cast<int>(partial.extent(1)), N = static_cast<int>(partial.extent(2));
    for (int first = 0; first < tile_entries; first += plan.round_entries) {
      const int count = tile_entries - first < plan.round_entries ? tile_entries - first : plan.round_entries;
      team.each([&](int rank, Tile& tile) {
        const int slot = rank % plan.slots, lane = rank / plan.slots;
        for (int e = 0; e < tile_entries; ++e)
          if (e >= first && e < first + count)
            scratch[(std::size_t(e - first) * plan.slots + slot) * plan.lanes + lane] = tile.sum[e];
      });
      team.barrier();
      team.each([&](int rank, Tile&) {
        for (int job = rank; job < count * plan.slots * plan.parts; job += plan.team_size) {
          Scalar* const v = scratch + std::size_t(job / plan.parts) * plan.lanes + job % plan.parts;
          Scalar sum = v[0];
          for (int l = 1; l < run; ++l) sum += v[l * plan.parts];
          v[0] = sum;
        }
      });
      team.barrier();
      team.each([&](int rank, Tile&) {
        for (int job = rank; job < count * plan.slots; job += plan.team_size) {
          const Scalar* const v = scratch + std::size_t(job) * plan.lanes;
          Scalar sum = v[0];
          for (int p = 1; p < plan.parts; ++p) sum += v[p];
          const int s = first + job / plan.slots, c = column_group * plan.slots + job % plan.slots;
          const int i = OwnsA ? c : s, j = OwnsA ? s : c;
          if (i < M && j < N) partial(chunk, i, j) = sum;
        }
      });
      team.barrier();
    }
  }

  struct DeviceTeam {
    const Member& member;
    Scalar* scratch;
    Tile tile;
    KOKKOS_INLINE_FUNCTION DeviceTeam(const Member& m, Scalar* s) : member(m), scratch(s) {}
    template <class Step>
    KOKKOS_INLINE_FUNCTION void each(const Step& step) {
      step(member.team_rank(), tile);
    }
    KOKKOS_INLINE_FUNCTION void barrier() const { member.team_barrier(); }
  };

  struct EmulatedTeam {
    Scalar* scratch;
    Tile* tiles;
    int size;
    bool reverse;
    template <class Step>
    KOKKOS_INLINE_FUNCTION void each(const Step& step) {
      for (int t = 0; t < size; ++t) {
        const int rank = reverse ? size - 1 - t : t;
        step(rank, tiles[rank]);
      }
    }
    KOKKOS_INLINE_FUNCTION void barrier() const {}
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    void* raw = member.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * scratch_scalars(plan), alignof(Scalar));
    DeviceTeam team(member, static_cast<Scalar*>(raw));
    team_body(team, member.league_rank());
  }

  static InnerDeviceRows make(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                              const InnerDirectPlan& plan) {
    InnerDeviceRows f;
    f.A = A;
    f.B = B;
    f.partial = partial;
    f.plan = plan;
    f.conjA = conjA;
    return f;
  }

  static void emulate(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                      const InnerDirectPlan& plan, bool reverse) {
    const InnerDeviceRows f = make(conjA, A, B, partial, plan);
    std::vector<Scalar> scratch(scratch_scalars(plan));
    std::vector<Tile> tiles(plan.team_size);
    for (std::int64_t league = 0; league < plan.chunks * plan.tile_groups; ++league) {
      EmulatedTeam team{scratch.data(), tiles.data(), plan.team_size, reverse};
      f.team_body(team, league);
    }
  }

  static void run(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                  const InnerDirectPlan& plan) {
    const InnerDeviceRows f = make(conjA, A, B, partial, plan);
    const Policy policy = Policy(exec, static_cast<int>(plan.chunks * plan.tile_groups), plan.team_size)
                              .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes(plan)));
    Kokkos::parallel_for("kbla::inner(portable device rows)", policy, f);
  }

  static int team_size_max(const ExecSpace& exec) {
    return Policy(exec, 1, Kokkos::AUTO).team_size_max(InnerDeviceRows(), Kokkos::ParallelForTag());
  }
};

// Calls f(std::integral_constant<int, Sums>, std::integral_constant<bool, OwnsA>) for C of M x N entries
// (InnerRowsShape::fits(M, N) must hold).
template <class Scalar, class F>
void with_inner_rows_shape(int M, int N, F&& f) {
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
