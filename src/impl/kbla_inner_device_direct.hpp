// Portable kbla::inner on device execution spaces (GPUs): threads read their rows straight from device memory into
// a register tile of C, and a team sums its threads' tiles once, at the end.
//
// C is cut into tiles of TileM x TileN entries (compile-time extents 1, 2 or 4 from the widths, InnerDirectTiles).
// A team holds `slots` tiles with `lanes` threads each; the lanes of a tile read consecutive rows (coalesced loads
// of a column-major operand, whole rows of a row-major one) and several rows at a time, all loads before the
// multiply-adds, so that enough bytes are in flight to reach the memory bandwidth. Nothing is staged in scratch:
// a variant that copied blocks of row-major rows to scratch with coalesced loads first ran inner at width 8 at
// 21 % of the read bandwidth on an H200, against 34 % for this kernel. The tiles of one team read
// the same rows, so their repeated loads of A and B hit the cache. C with more tiles than a team holds takes
// several teams per chunk of rows (tile groups). Tiles that overhang C read a clamped column and drop those sums.
//
// Closing sum, fixed order: the lanes' tiles go to scratch; `parts` threads per entry sum every parts-th lane, then
// one thread sums the parts in order and writes the team's partial C. The partials of the chunks are summed in
// chunk order afterwards (kbla_inner_impl.hpp): no atomics, and bits that depend only on the launch shape.
#pragma once

#include <impl/kbla_arith_traits.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbla {
namespace Impl {

// The launch shape of InnerDeviceDirect; made on the host, read by every thread.
struct InnerDirectPlan {
  int tiles_m = 1, tiles = 1;  // tiles down a column of C; tiles in all (tile index t: rows (t % tiles_m) * TileM)
  int lanes = 1;               // threads per tile (a power of two), reading consecutive rows
  int slots = 1;               // tiles per team
  int tile_groups = 1;         // teams per chunk of rows: ceil(tiles / slots)
  int team_size = 1;           // lanes * slots
  int parts = 1;               // closing sum: runs of lanes summed side by side (divides lanes)
  int round_entries = 1;       // tile entries summed per round of the closing sum (what the scratch holds)
  std::int64_t chunks = 1, rows_per_chunk = 0;
};

// Register tile extents for C of M x N entries: the power of two from {1, 2, 4} that covers each width, at most
// 4 x 4 real or 2 x 4 complex entries (16 real sums), so that a thread fits in 128 registers with four rows of
// loads in flight and two teams of 256 share a multiprocessor. Measured on an H200 before this rule: tiles of 64
// real sums spilled at 255 registers (inner at width 8: 38 % of the read bandwidth), tiles of 32 sums ran in 168
// registers, three teams of 128 per multiprocessor, at 65 % in the kernel.
template <class Scalar>
struct InnerDirectTiles {
  static constexpr bool is_complex = kbla::Impl::ArithTraits<Scalar>::is_complex;
  static constexpr int max_m = is_complex ? 2 : 4, max_n = 4;
  static int extent(int width, int max_extent) {
    int t = 1;
    while (t < width && t < max_extent) t *= 2;
    return t;
  }
};

template <class ExecSpace, class AView, class BView, class PartialView, int TileM, int TileN>
struct InnerDeviceDirect {
  using Scalar = typename PartialView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  // Teams of 256, two per multiprocessor: at most 128 registers per thread.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  using Member = typename Policy::member_type;
  static constexpr int tile_entries = TileM * TileN;
  static constexpr int max_team_size = 256;
  // Rows loaded before their multiply-adds: about 256 bytes of loads in flight per thread, 1 to 8 rows.
  static constexpr int row_bytes = int((TileM + TileN) * sizeof(Scalar));
  static constexpr int rows_in_flight =
      8 * row_bytes <= 256 ? 8 : 4 * row_bytes <= 256 ? 4 : 2 * row_bytes <= 256 ? 2 : 1;
  // Scratch for the closing sum; each round sums as many tile entries as it holds.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  // Each lane reads at least this many rows of its chunk, so that the closing sum is a small part of a team's time.
  static constexpr int min_rows_per_lane = 32;

  AView A;
  BView B;
  PartialView partial;
  InnerDirectPlan plan;
  bool conjA = true;

  // Threads per team: 256, at most what the backend allows.
  static int team_target(int team_size_max) { return std::max(1, std::min(max_team_size, team_size_max)); }

  static InnerDirectPlan plan_for(int M, int N, std::int64_t K, int team_size_max, std::int64_t concurrency) {
    InnerDirectPlan p;
    p.tiles_m = (M + TileM - 1) / TileM;
    p.tiles = p.tiles_m * ((N + TileN - 1) / TileN);
    const int target = team_target(team_size_max);
    int pow2 = 1;
    while (2 * pow2 <= target) pow2 *= 2;
    // At least a warp of lanes per tile (32, or the whole team on backends with smaller teams).
    int lanes = 1;
    while (2 * lanes <= target / p.tiles) lanes *= 2;
    p.lanes = std::max(lanes, std::min(32, pow2));
    p.slots = std::max(1, std::min(p.tiles, target / p.lanes));
    p.tile_groups = (p.tiles + p.slots - 1) / p.slots;
    p.team_size = p.lanes * p.slots;
    p.parts = std::min(p.lanes, 32);
    p.round_entries = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(tile_entries, scratch_budget / (sizeof(Scalar) * p.team_size))));
    // Chunks: half the teams that would fill the device's threads (two teams of 256 per multiprocessor run at a
    // time, the launch bound; on an H200 half as many, longer chunks ran 3-5 % faster at widths 4-16: fewer
    // partials), but no lane with fewer than min_rows_per_lane rows.
    const std::int64_t fill = std::max<std::int64_t>(1, concurrency / p.team_size / p.tile_groups / 2);
    const std::int64_t min_rows = std::int64_t(p.lanes) * min_rows_per_lane;
    p.chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(fill, (K + min_rows - 1) / min_rows));
    p.rows_per_chunk = (K + p.chunks - 1) / p.chunks;
    p.chunks = K > 0 ? (K + p.rows_per_chunk - 1) / p.rows_per_chunk : 1;
    return p;
  }

  // Called by the kernel too: a host-only function here compiled under nvcc with a warning only, and the kernel
  // then never ran (every GPU test of the portable inner failed).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_scalars(const InnerDirectPlan& p) {
    return std::size_t(p.team_size) * p.round_entries;
  }
  static std::size_t scratch_bytes(const InnerDirectPlan& p) { return sizeof(Scalar) * (scratch_scalars(p) + 1); }

  struct Tile {
    Scalar sum[TileM][TileN];
  };

  // ----------------------------------------------------------------------------------------- the schedule
  // Written once against a small team interface: `each` runs one step of every thread of the team, `barrier`
  // separates steps. On a device that is the Kokkos team member; for tests EmulatedTeam runs the same steps for a
  // team of any size on the host, in either thread order.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t chunk = league / plan.tile_groups;
    const int group = static_cast<int>(league % plan.tile_groups);
    team.each([&](int rank, Tile& tile) {
      for (int i = 0; i < TileM; ++i)
        for (int j = 0; j < TileN; ++j) tile.sum[i][j] = ATS::zero();
      const int index = group * plan.slots + rank / plan.lanes;
      if (index < plan.tiles) accumulate(chunk, rank % plan.lanes, index, tile.sum);
    });
    close(team, chunk, group);
  }

  KOKKOS_INLINE_FUNCTION void accumulate(std::int64_t chunk, int lane, int index, Scalar (&acc)[TileM][TileN]) const {
    const int M = static_cast<int>(A.extent(1)), N = static_cast<int>(B.extent(1));
    const std::int64_t K = A.extent(0);
    const int i0 = (index % plan.tiles_m) * TileM, j0 = (index / plan.tiles_m) * TileN;
    int col_a[TileM], col_b[TileN];
    for (int i = 0; i < TileM; ++i) col_a[i] = i0 + i < M ? i0 + i : M - 1;
    for (int j = 0; j < TileN; ++j) col_b[j] = j0 + j < N ? j0 + j : N - 1;
    const std::int64_t k_begin = chunk * plan.rows_per_chunk;
    const std::int64_t k_end = k_begin + plan.rows_per_chunk < K ? k_begin + plan.rows_per_chunk : K;
    const std::int64_t step = plan.lanes;
    constexpr int rows = rows_in_flight;
    std::int64_t k = k_begin + lane;
    for (; k + (rows - 1) * step < k_end; k += rows * step) {
      Scalar a[rows][TileM], b[rows][TileN];
      for (int r = 0; r < rows; ++r) {
        for (int i = 0; i < TileM; ++i) a[r][i] = A(k + r * step, col_a[i]);
        for (int j = 0; j < TileN; ++j) b[r][j] = B(k + r * step, col_b[j]);
      }
      for (int r = 0; r < rows; ++r) add_row(a[r], b[r], acc);
    }
    for (; k < k_end; k += step) {
      Scalar a[TileM], b[TileN];
      for (int i = 0; i < TileM; ++i) a[i] = A(k, col_a[i]);
      for (int j = 0; j < TileN; ++j) b[j] = B(k, col_b[j]);
      add_row(a, b, acc);
    }
  }

  KOKKOS_INLINE_FUNCTION void add_row(const Scalar (&a)[TileM], const Scalar (&b)[TileN],
                                      Scalar (&acc)[TileM][TileN]) const {
    for (int i = 0; i < TileM; ++i) {
      const Scalar ai = conjA ? ATS::conj(a[i]) : a[i];
      for (int j = 0; j < TileN; ++j) acc[i][j] += ai * b[j];
    }
  }

  // The closing sum of the team, round by round; scratch holds the value of (entry e, slot s, lane l) at
  // (e * slots + s) * lanes + l.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void close(Team& team, std::int64_t chunk, int group) const {
    Scalar* const scratch = team.scratch;
    const int run = plan.lanes / plan.parts;
    for (int first = 0; first < tile_entries; first += plan.round_entries) {
      const int count = tile_entries - first < plan.round_entries ? tile_entries - first : plan.round_entries;
      team.each([&](int rank, Tile& tile) {
        const int slot = rank / plan.lanes, lane = rank % plan.lanes;
        // A loop of compile-time length with indices known after unrolling keeps the tile in registers.
        for (int e = 0; e < tile_entries; ++e)
          if (e >= first && e < first + count)
            scratch[(std::size_t(e - first) * plan.slots + slot) * plan.lanes + lane] = tile.sum[e / TileN][e % TileN];
      });
      team.barrier();
      // Part p of (entry, slot) sums lanes p, p + parts, ... into lane p: consecutive threads, consecutive words.
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
          const int e = first + job / plan.slots, index = group * plan.slots + job % plan.slots;
          if (index >= plan.tiles) continue;
          const int i = (index % plan.tiles_m) * TileM + e / TileN, j = (index / plan.tiles_m) * TileN + e % TileN;
          if (i < static_cast<int>(partial.extent(1)) && j < static_cast<int>(partial.extent(2)))
            partial(chunk, i, j) = sum;
        }
      });
      team.barrier();
    }
  }

  // ---------------------------------------------------------------------------------------------- teams
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

  // Host stand-in for a team of any size: every thread's step in turn (forward or reverse rank order), the
  // barrier implied by the return of `each`. Marked like team_body, which calls it (nvcc rejects a host-only
  // function called from a host-device one).
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

  static InnerDeviceDirect make(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                                const InnerDirectPlan& plan) {
    InnerDeviceDirect f;
    f.A = A;
    f.B = B;
    f.partial = partial;
    f.plan = plan;
    f.conjA = conjA;
    return f;
  }

  // Test hook: the same schedule on the host for host-accessible Views, one emulated team after another.
  static void emulate(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                      const InnerDirectPlan& plan, bool reverse) {
    const InnerDeviceDirect f = make(conjA, A, B, partial, plan);
    std::vector<Scalar> scratch(scratch_scalars(plan));
    std::vector<Tile> tiles(plan.team_size);
    for (std::int64_t league = 0; league < plan.chunks * plan.tile_groups; ++league) {
      EmulatedTeam team{scratch.data(), tiles.data(), plan.team_size, reverse};
      f.team_body(team, league);
    }
  }

  // One team per (chunk, tile group): plan.chunks * plan.tile_groups teams; partial has plan.chunks rows.
  static void run(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                  const InnerDirectPlan& plan) {
    const InnerDeviceDirect f = make(conjA, A, B, partial, plan);
    const Policy policy = Policy(exec, static_cast<int>(plan.chunks * plan.tile_groups), plan.team_size)
                              .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes(plan)));
    Kokkos::parallel_for("kbla::inner(portable device direct)", policy, f);
  }

  static int team_size_max(const ExecSpace& exec) {
    return Policy(exec, 1, Kokkos::AUTO).team_size_max(InnerDeviceDirect(), Kokkos::ParallelForTag());
  }
};

// Calls f(std::integral_constant<int, TileM>, std::integral_constant<int, TileN>) for the tile extents of C of
// M x N entries (InnerDirectTiles): the host-side dispatch to one kernel instantiation.
template <class Scalar, class F>
void with_inner_direct_tiles(int M, int N, F&& f) {
  using Tiles = InnerDirectTiles<Scalar>;
  const int tm = Tiles::extent(M, Tiles::max_m), tn = Tiles::extent(N, Tiles::max_n);
  auto by_n = [&](auto TM) {
    switch (tn) {
      case 1: f(TM, std::integral_constant<int, 1>()); break;
      case 2: f(TM, std::integral_constant<int, 2>()); break;
      default: f(TM, std::integral_constant<int, 4>()); break;
    }
  };
  switch (tm) {
    case 1: by_n(std::integral_constant<int, 1>()); break;
    case 2: by_n(std::integral_constant<int, 2>()); break;
    default: by_n(std::integral_constant<int, Tiles::max_m>()); break;
  }
}

}  // namespace Impl
}  // namespace kbla
