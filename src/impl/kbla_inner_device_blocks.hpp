// Portable kbla::inner on device execution spaces for widths above 4: threads own ENTRIES of C, not rows.
//
// Each thread owns one register tile of C (tile_m x tile_n entries). A team walks its chunk of rows in blocks: the
// team copies the block's rows of A (conjugated when asked) and of B into scratch memory, consecutive threads on
// consecutive addresses of each operand (down the columns or along the rows, whichever stride is smaller), waits
// at a barrier, and every thread adds the block's rows into its tile from scratch. Each value of A and B is read
// from device memory once, and no sums cross threads inside the loop. When C has fewer tiles than the team has
// threads, the team is split into groups that take every groups-th row of each block; their tiles are summed once
// at the end by a fixed-order tree in scratch. The team's partial C is then summed with the other teams' partials
// in team order (kbla_inner_impl.hpp), so results are bitwise reproducible for a given launch shape.
//
// The schedule is written once (team_body) against a small team interface: `each` runs one step of every thread,
// `barrier` separates steps. On a device that is the Kokkos team member itself; for tests EmulatedTeam runs the
// same steps for every thread of a team of any size on the host, in either order (a step that read what another
// thread of the same step wrote would then give different bits).
#pragma once

#include <impl/kbla_arith_traits.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbla {
namespace Impl {

// How a team of InnerDeviceBlocks is laid out; made on the host, read by every thread.
struct InnerBlockPlan {
  int padded_m = 0, padded_n = 0;  // M and N rounded up to whole tiles: the row pitches of the scratch copies
  int tiles_m = 0, tiles = 0;      // tiles down one column of C, tiles in all (tile index: column-major order)
  int team_size = 1;
  int groups = 1;          // thread groups that split every block's rows; summed by the closing tree when > 1
  int owners = 1;          // threads per group, thread rank = group * owners + owner
  int passes = 1;          // ceil(tiles / owners): 1 on devices; teams smaller than C (host tests) loop over tiles
  int block_rows = 1;      // rows staged per block, a multiple of groups
  int reduce_entries = 1;  // tile entries summed per round of the closing tree (what the scratch holds)
  std::size_t scratch_scalars = 0;
  std::int64_t rows_per_team = 0;
};

template <class ExecSpace, class AView, class BView, class PartialView>
struct InnerDeviceBlocks {
  using Scalar = typename PartialView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  // One tile per thread: 4 x 4 real or 4 x 2 complex entries, 16 real sums either way (the register budget of the
  // row kernel this replaces). A row of a block costs the tile tile_m + tile_n scratch loads for
  // tile_m * tile_n multiply-adds; a square-ish tile is what keeps that ratio low.
  static constexpr int tile_m = 4, tile_n = ATS::is_complex ? 2 : 4;
  static constexpr int tile_entries = tile_m * tile_n;
  // A team of 256 threads unless C has more tiles: enough threads to keep many loads of a block in flight, and
  // small enough that several teams share a multiprocessor. Wider C takes one thread per tile, rounded up to a
  // multiple of 64 threads (whole warps / wavefronts of 32 or 64 lanes).
  static constexpr int base_team_size = 256;
  static constexpr int team_size_step = 64;
  // Scratch per team for the staged block: 32 KiB (or what the backend allows, if less) lets several teams share
  // a multiprocessor's scratch, so one team's barrier is hidden behind another team's loads.
  static constexpr std::size_t scratch_budget = 32 * 1024;
  static constexpr int max_block_rows = 4096;
  static constexpr int min_group_rows = 4;

  struct Tile {
    Scalar sum[tile_m][tile_n];
  };

  AView A;
  BView B;
  PartialView partial;
  InnerBlockPlan plan;
  bool conjA = true;

  // ------------------------------------------------------------------------------------------- planning
  static int tile_count(int M, int N) { return ((M + tile_m - 1) / tile_m) * ((N + tile_n - 1) / tile_n); }

  // The team size for C of `tiles` tiles when the backend allows teams of up to team_size_max threads.
  static int device_team_size(int tiles, int team_size_max) {
    const int wanted = tiles <= base_team_size ? base_team_size
                                               : (tiles + team_size_step - 1) / team_size_step * team_size_step;
    return std::max(1, std::min(wanted, team_size_max));
  }

  // The layout of a team of team_size threads (any size >= 1) with budget_bytes of scratch for a staged block.
  static InnerBlockPlan plan_for(int M, int N, int team_size, std::size_t budget_bytes) {
    InnerBlockPlan p;
    p.tiles_m = (M + tile_m - 1) / tile_m;
    const int tiles_n = (N + tile_n - 1) / tile_n;
    p.padded_m = p.tiles_m * tile_m;
    p.padded_n = tiles_n * tile_n;
    p.tiles = p.tiles_m * tiles_n;
    p.team_size = std::max(1, team_size);
    // As many rows as the budget holds; at most one group per min_group_rows of them, so that a thread's share of
    // a block is worth the block's two barriers (threads beyond groups * owners only help to copy).
    const std::size_t row_scalars = std::size_t(p.padded_m) + p.padded_n;
    const std::size_t fit = std::min<std::size_t>(budget_bytes / (sizeof(Scalar) * row_scalars), max_block_rows);
    p.groups = std::max(1, std::min(p.team_size / p.tiles, static_cast<int>(fit) / min_group_rows));
    p.owners = p.team_size / p.groups;
    p.passes = (p.tiles + p.owners - 1) / p.owners;
    // A whole number of rows per group, at least one.
    p.block_rows = std::max(p.groups, static_cast<int>(fit) / p.groups * p.groups);
    const std::size_t block_scalars = std::size_t(p.block_rows) * row_scalars;
    const std::size_t slots = std::size_t(p.groups) * p.owners;
    // The closing tree reuses the block's scratch: as many tile entries per round as it holds.
    p.reduce_entries = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(tile_entries, block_scalars / slots)));
    p.scratch_scalars = std::max(block_scalars, slots * p.reduce_entries);
    return p;
  }

  // Scratch bytes to request: the plan's scalars plus room to align the first one.
  static std::size_t scratch_bytes(const InnerBlockPlan& p) { return sizeof(Scalar) * (p.scratch_scalars + 1); }

  // The plan for this backend, or false where InnerDeviceTeams is the better kernel:
  //  - M and N both at most 4: C is at most one register tile of InnerDeviceTeams, whose threads read their rows
  //    straight from device memory and sum one tile per team (41-62 % of the read bandwidth on an H200 at widths
  //    1-4); staging would add two barriers per block for no saved reads;
  //  - C with more tiles than a team may have threads, or a plan over the backend's scratch limit (each thread
  //    would loop over several tiles and read A and B once per loop).
  static bool choose(const ExecSpace& exec, int M, int N, InnerBlockPlan& plan) {
    if (M <= 4 && N <= 4) return false;
    const int team_size_max = Policy(exec, 1, Kokkos::AUTO).team_size_max(InnerDeviceBlocks(), Kokkos::ParallelForTag());
    const std::size_t scratch_max = static_cast<std::size_t>(Policy::scratch_size_max(0));
    const int tiles = tile_count(M, N);
    plan = plan_for(M, N, device_team_size(tiles, team_size_max), std::min(scratch_budget, scratch_max));
    return plan.passes == 1 && scratch_bytes(plan) <= scratch_max;
  }

  // ----------------------------------------------------------------------------------------- the schedule
  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t K = A.extent(0);
    const std::int64_t k_begin = league * plan.rows_per_team;
    const std::int64_t k_end = k_begin + plan.rows_per_team < K ? k_begin + plan.rows_per_team : K;
    Scalar* const a_rows = team.scratch;
    Scalar* const b_rows = team.scratch + std::size_t(plan.block_rows) * plan.padded_m;
    for (int pass = 0; pass < plan.passes; ++pass) {
      // The padding columns are never written by staging; zeroed once per pass (the closing tree reuses them).
      team.each([&](int rank, Tile& tile) {
        for (int i = 0; i < tile_m; ++i)
          for (int j = 0; j < tile_n; ++j) tile.sum[i][j] = ATS::zero();
        zero_padding(a_rows, plan.padded_m, static_cast<int>(A.extent(1)), rank);
        zero_padding(b_rows, plan.padded_n, static_cast<int>(B.extent(1)), rank);
      });
      for (std::int64_t k0 = k_begin; k0 < k_end; k0 += plan.block_rows) {
        const int rows = static_cast<int>(k_end - k0 < plan.block_rows ? k_end - k0 : plan.block_rows);
        team.each([&](int rank, Tile&) {
          stage(A, conjA, a_rows, plan.padded_m, k0, rows, rank);
          stage(B, false, b_rows, plan.padded_n, k0, rows, rank);
        });
        team.barrier();
        team.each([&](int rank, Tile& tile) { accumulate(a_rows, b_rows, rows, rank, pass, tile); });
        team.barrier();
      }
      if (plan.groups == 1) {
        team.each([&](int rank, Tile& tile) {
          for (int e = 0; e < tile_entries; ++e) store(league, rank, pass, e, tile.sum[e / tile_n][e % tile_n]);
        });
      } else {
        close_groups(team, league, pass);
      }
    }
  }

  // Sums the groups' tiles by a fixed-order tree (group g adds group g + step when g is a multiple of 2 step),
  // reduce_entries tile entries per round, and writes group 0's sums. Slot of a thread: its rank.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void close_groups(Team& team, std::int64_t league, int pass) const {
    const int slots = plan.groups * plan.owners;
    Scalar* const tree = team.scratch;
    for (int first = 0; first < tile_entries; first += plan.reduce_entries) {
      const int count = tile_entries - first < plan.reduce_entries ? tile_entries - first : plan.reduce_entries;
      team.each([&](int rank, Tile& tile) {
        if (rank >= slots) return;
        // A loop of compile-time length with indices known after unrolling keeps the tile in registers.
        for (int e = 0; e < tile_entries; ++e)
          if (e >= first && e < first + count) tree[std::size_t(e - first) * slots + rank] = tile.sum[e / tile_n][e % tile_n];
      });
      team.barrier();
      for (int step = 1; step < plan.groups; step *= 2) {
        team.each([&](int rank, Tile&) {
          const int group = rank / plan.owners;
          if (rank >= slots || group % (2 * step) != 0 || group + step >= plan.groups) return;
          for (int e = 0; e < count; ++e)
            tree[std::size_t(e) * slots + rank] += tree[std::size_t(e) * slots + rank + step * plan.owners];
        });
        team.barrier();
      }
      team.each([&](int rank, Tile&) {
        for (int e = 0; e < count; ++e) store(league, rank, pass, first + e, tree[std::size_t(e) * slots + rank]);
      });
      team.barrier();
    }
  }

  // ------------------------------------------------------------------------------------- one thread's steps
  // Copies rows [k0, k0 + rows) of V into dst (row r at dst + r * pitch). Consecutive ranks take consecutive
  // elements along V's smaller stride, so that a warp's loads are coalesced for LayoutLeft, LayoutRight and
  // strided Views alike.
  template <class View>
  KOKKOS_INLINE_FUNCTION void stage(const View& V, bool conjugate, Scalar* dst, int pitch, std::int64_t k0, int rows,
                                    int rank) const {
    const int cols = static_cast<int>(V.extent(1));
    const int n = rows * cols;
    const bool rows_fast = V.stride(0) <= V.stride(1);
    // Element e = (fast index e % fast, slow index e / fast), stepped by team_size without a division per element
    // (an integer division costs about as many instructions as a copied element may, at full bandwidth).
    const int fast = rows_fast ? rows : cols;
    const int step_slow = plan.team_size / fast, step_fast = plan.team_size % fast;
    int f = rank % fast, s = rank / fast;
    for (int e = rank; e < n; e += plan.team_size) {
      const int r = rows_fast ? f : s;
      const int c = rows_fast ? s : f;
      const Scalar v = V(k0 + r, c);
      dst[r * pitch + c] = conjugate ? ATS::conj(v) : v;
      f += step_fast;
      s += step_slow;
      if (f >= fast) {
        f -= fast;
        ++s;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void zero_padding(Scalar* dst, int pitch, int cols, int rank) const {
    const int pad = pitch - cols;
    if (pad == 0) return;
    for (int e = rank; e < plan.block_rows * pad; e += plan.team_size) dst[(e / pad) * pitch + cols + e % pad] = ATS::zero();
  }

  // Adds rows group, group + groups, ... of the staged block into the thread's tile.
  KOKKOS_INLINE_FUNCTION void accumulate(const Scalar* a_rows, const Scalar* b_rows, int rows, int rank, int pass,
                                         Tile& tile) const {
    const int group = rank / plan.owners, index = pass * plan.owners + rank % plan.owners;
    if (group >= plan.groups || index >= plan.tiles) return;
    const Scalar* a = a_rows + (index % plan.tiles_m) * tile_m;
    const Scalar* b = b_rows + (index / plan.tiles_m) * tile_n;
    for (int r = group; r < rows; r += plan.groups) {
      Scalar av[tile_m], bv[tile_n];
      for (int i = 0; i < tile_m; ++i) av[i] = a[r * plan.padded_m + i];
      for (int j = 0; j < tile_n; ++j) bv[j] = b[r * plan.padded_n + j];
      for (int i = 0; i < tile_m; ++i)
        for (int j = 0; j < tile_n; ++j) tile.sum[i][j] += av[i] * bv[j];
    }
  }

  // Entry e of the tile that thread `rank` owns in `pass`, into the team's partial C; group 0 writes, padding
  // entries are dropped.
  KOKKOS_INLINE_FUNCTION void store(std::int64_t league, int rank, int pass, int e, const Scalar& value) const {
    const int index = pass * plan.owners + rank % plan.owners;
    if (rank >= plan.owners || index >= plan.tiles) return;
    const int i = (index % plan.tiles_m) * tile_m + e / tile_n;
    const int j = (index / plan.tiles_m) * tile_n + e % tile_n;
    if (i < static_cast<int>(partial.extent(1)) && j < static_cast<int>(partial.extent(2))) partial(league, i, j) = value;
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
  // barrier implied by the return of `each`.
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
    void* raw = member.team_scratch(0).get_shmem_aligned(sizeof(Scalar) * plan.scratch_scalars, alignof(Scalar));
    DeviceTeam team(member, static_cast<Scalar*>(raw));
    team_body(team, member.league_rank());
  }

  static InnerDeviceBlocks make(bool conjA, const AView& A, const BView& B, const PartialView& partial,
                                const InnerBlockPlan& plan) {
    InnerDeviceBlocks f;
    f.A = A;
    f.B = B;
    f.partial = partial;
    f.plan = plan;
    f.conjA = conjA;
    return f;
  }

  // One team per partial (partial.extent(0) teams of plan.rows_per_team rows each).
  static void run(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                  const InnerBlockPlan& plan) {
    const Policy policy = Policy(exec, static_cast<int>(partial.extent(0)), plan.team_size)
                              .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes(plan)));
    Kokkos::parallel_for("kbla::inner(portable device blocks)", policy, make(conjA, A, B, partial, plan));
  }

  // Test hook: the same schedule on the host for host-accessible Views, one emulated team after another.
  static void emulate(bool conjA, const AView& A, const BView& B, const PartialView& partial, const InnerBlockPlan& plan,
                      bool reverse) {
    const InnerDeviceBlocks f = make(conjA, A, B, partial, plan);
    std::vector<Scalar> scratch(plan.scratch_scalars);
    std::vector<Tile> tiles(plan.team_size);
    for (std::int64_t league = 0; league < std::int64_t(partial.extent(0)); ++league) {
      EmulatedTeam team{scratch.data(), tiles.data(), plan.team_size, reverse};
      f.team_body(team, league);
    }
  }
};

}  // namespace Impl
}  // namespace kbla
