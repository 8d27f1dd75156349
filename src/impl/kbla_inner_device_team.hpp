// What the portable device kernels of kbla::inner share (kbla_inner_device_direct.hpp, kbla_inner_device_rows.hpp,
// kbla_inner_device_staged.hpp): the launch plan, the team interface the schedule is written against (a Kokkos team
// on the device, an emulated team in the tests), the closing sum of a team's register tiles, and the launch,
// emulation and team-size queries.
//
// A kernel derives from InnerTeamKernel<Kernel, ...> (CRTP) and provides
//   plan_for(M, N, K, team_size_max, concurrency)  the launch shape (finishing it with finish_plan),
//   team_body(team, league)                        one team's work: fill the threads' tiles, then close_team.
// Each thread holds one tile of `TileEntries` sums (and `CarriedScalars` other values); the closing sum reduces the
// tiles of one (entry, slot) over the plan's `lanes` threads in a fixed order, so that the bits depend only on the
// launch shape.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbla {
namespace Impl {

// The launch shape of a portable inner kernel; made on the host, read by every thread.
struct InnerDirectPlan {
  int tiles_m = 1, tiles = 1;  // tiles down a column of C; tiles in all (tile index t: rows (t % tiles_m) * TileM)
  int lanes = 1;               // threads per tile (a power of two), reading consecutive rows
  int slots = 1;               // tiles per team
  int tile_groups = 1;         // teams per chunk of rows: ceil(tiles / slots)
  int team_size = 1;           // lanes * slots
  int parts = 1;               // closing sum: runs of lanes summed side by side (divides lanes)
  int round_entries = 1;       // tile entries summed per round of the closing sum (what the scratch holds)
  std::int64_t chunks = 1, rows_per_chunk = 0;
  // Staged kernel only (kbla_inner_device_staged.hpp): rows per staged block, the distance between the two columns
  // a thread loads, threads loading each column of a block (0: teams narrower than the column pairs stage element
  // by element), the rows a lane sums, and the scratch pitch of a staged column; zero for the kernels that read the
  // Views directly.
  int block_rows = 0, stage_column_pairs = 0, stage_threads_per_column = 0, lane_rows = 0, stage_pitch = 0;
  std::size_t stage_scalars = 0;
};

// Values a thread carries from one step of its team to the next besides its tile (the staged kernel's loads in
// flight across a barrier); none for the other kernels.
template <class Scalar, int Count>
struct CarriedValues {
  Scalar value[Count];
};
template <class Scalar>
struct CarriedValues<Scalar, 0> {};

template <class Kernel, class ExecSpace, class AView, class BView, class PartialView, int TileEntries,
          int CarriedScalars = 0>
struct InnerTeamKernel {
  using Scalar = typename PartialView::non_const_value_type;
  // Teams of 256, two per multiprocessor: at most 128 registers per thread.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  using Member = typename Policy::member_type;
  static constexpr int tile_entries = TileEntries;
  static constexpr int max_team_size = 256;
  // Scratch for the closing sum; each round sums as many tile entries as it holds.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  // Each lane reads at least this many rows of its chunk, so that the closing sum is a small part of a team's time.
  static constexpr int min_rows_per_lane = 32;

  struct Tile {
    Scalar sum[TileEntries];
    CarriedValues<Scalar, CarriedScalars> carried;
  };

  AView A;
  BView B;
  PartialView partial;
  InnerDirectPlan plan;
  bool conjA = true;

  // Threads per team: 256, at most what the backend allows.
  static int team_target(int team_size_max) { return std::max(1, std::min(max_team_size, team_size_max)); }

  // The plan's fields after lanes, slots and tile_groups: team size, closing-sum shape and the chunks of rows.
  static void finish_plan(InnerDirectPlan& p, std::int64_t K, std::int64_t concurrency) {
    p.team_size = p.lanes * p.slots;
    p.parts = std::min(p.lanes, 32);
    while (p.lanes % p.parts != 0) --p.parts;
    p.round_entries = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(TileEntries, scratch_budget / (sizeof(Scalar) * p.team_size))));
    // Chunks: half the teams that would fill the device's threads (two teams of 256 per multiprocessor run at a
    // time, the launch bound; on an H200 half as many, longer chunks ran 3-5 % faster at widths 4-16: fewer
    // partials), but no lane with fewer than min_rows_per_lane rows.
    const std::int64_t fill = std::max<std::int64_t>(1, concurrency / p.team_size / p.tile_groups / 2);
    const std::int64_t min_rows = std::int64_t(p.lanes) * min_rows_per_lane;
    p.chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(fill, (K + min_rows - 1) / min_rows));
    p.rows_per_chunk = (K + p.chunks - 1) / p.chunks;
    p.chunks = K > 0 ? (K + p.rows_per_chunk - 1) / p.rows_per_chunk : 1;
  }

  // Called by the kernel too: a host-only function here compiled under nvcc with a warning only, and the kernel
  // then never ran (every GPU test of the portable inner failed).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_scalars(const InnerDirectPlan& p) {
    const std::size_t closing = std::size_t(p.team_size) * p.round_entries;
    return closing > p.stage_scalars ? closing : p.stage_scalars;
  }
  static std::size_t scratch_bytes(const InnerDirectPlan& p) { return sizeof(Scalar) * (scratch_scalars(p) + 1); }

  // ----------------------------------------------------------------------------------------------- teams
  // The schedule is written against a small team interface: `each` runs one step of every thread of the team,
  // `barrier` separates steps. On a device that is the Kokkos team member; for tests EmulatedTeam runs the same
  // steps for a team of any size on the host, in either thread order.
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

  // Host stand-in for a team of any size: every thread's step in turn (forward or reverse rank order), the barrier
  // implied by the return of `each`. Marked like team_body, which calls it (nvcc rejects a host-only function
  // called from a host-device one).
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

  // The closing sum of a team, round by round. `slot_of(rank)` / `lane_of(rank)` place a thread's tile; scratch
  // holds the value of (entry e, slot s, lane l) at (e * slots + s) * lanes + l. Part p of (entry, slot) sums lanes
  // p, p + parts, ... into lane p (consecutive threads, consecutive words), then one thread sums the parts in order
  // and hands the total to store(entry, slot, sum).
  template <class Team, class SlotOf, class LaneOf, class Store>
  KOKKOS_INLINE_FUNCTION void close_team(Team& team, const SlotOf& slot_of, const LaneOf& lane_of,
                                         const Store& store) const {
    Scalar* const scratch = team.scratch;
    const int run = plan.lanes / plan.parts;
    for (int first = 0; first < TileEntries; first += plan.round_entries) {
      const int count = TileEntries - first < plan.round_entries ? TileEntries - first : plan.round_entries;
      team.each([&](int rank, Tile& tile) {
        const int slot = slot_of(rank), lane = lane_of(rank);
        // A loop of compile-time length with indices known after unrolling keeps the tile in registers.
        for (int e = 0; e < TileEntries; ++e)
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
          store(first + job / plan.slots, job % plan.slots, sum);
        }
      });
      team.barrier();
    }
  }

  // ---------------------------------------------------------------------------------------- launch and tests
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    void* raw = member.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * scratch_scalars(plan), alignof(Scalar));
    DeviceTeam team(member, static_cast<Scalar*>(raw));
    static_cast<const Kernel&>(*this).team_body(team, member.league_rank());
  }

  static Kernel make(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                     const InnerDirectPlan& plan) {
    Kernel f;
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
    const Kernel f = make(conjA, A, B, partial, plan);
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
    const Kernel f = make(conjA, A, B, partial, plan);
    const Policy policy = Policy(exec, static_cast<int>(plan.chunks * plan.tile_groups), plan.team_size)
                              .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes(plan)));
    Kokkos::parallel_for(Kernel::label(), policy, f);
  }

  static int team_size_max(const ExecSpace& exec) {
    return Policy(exec, 1, Kokkos::AUTO).team_size_max(Kernel(), Kokkos::ParallelForTag());
  }
};

}  // namespace Impl
}  // namespace kbla
