// Portable kbla::inner on device execution spaces for column-major operands of at most 16 columns: a team stages
// blocks of rows of A and B in scratch memory, and its threads sum register tiles of C from there.
//
// The direct kernel (kbla_inner_device_direct.hpp) reads every tile's rows straight from device memory. From 9
// columns on, C has more tiles than a team holds a warp of lanes for, each thread's loads in flight fill its 128
// registers, and the kernel waits on memory with a quarter of the warps a multiprocessor can hold: on an H200 double
// widths 9-14 ran at 39-52 % of the read bandwidth, complex width 16 at 52 %. Here the loads are the team's, not the
// tile's: each block of rows (all columns of A and B) is read once with coalesced loads, a fixed number per thread,
// issued before the team sums the previous block from scratch and stored there after it. A thread's tile then costs
// TileM + TileN scratch loads per row and no index arithmetic on the Views.
//
// The team holds every tile of C in `slots` (the tiles rounded up to a power of two, up to the team size; tile groups
// on backends with small teams), `lanes` threads per slot, each summing a contiguous run of a block's rows. Rows past
// the chunk's end are staged as zeros. Scratch keeps a block column-major with an odd pitch, so that the threads of
// a warp reading one row of several columns hit different banks. Tile extents (1 to 4) come from
// with_inner_staged_tiles at the end of this file. The plan, the closing sum, the launch and the host emulation are
// the direct kernel's (InnerTeamKernel, kbla_inner_device_team.hpp); a thread's loads in flight are carried beside
// its tile, so the emulation runs the same steps.
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

// Values each thread loads per block: 160 bytes, carried in registers across the barrier while the team sums the
// previous block. A team's block then takes at most 40 KiB of scratch for teams of 256, within the 48 KiB a team may
// have on every backend; two teams per multiprocessor keep 80 KiB of loads in flight.
template <class Scalar>
struct InnerStagedLoads {
  static constexpr int per_thread = 160 / sizeof(Scalar) > 0 ? int(160 / sizeof(Scalar)) : 1;
};

template <class ExecSpace, class AView, class BView, class PartialView, int TileM, int TileN>
struct InnerDeviceStaged
    : InnerTeamKernel<InnerDeviceStaged<ExecSpace, AView, BView, PartialView, TileM, TileN>, ExecSpace, AView, BView,
                      PartialView, TileM * TileN,
                      InnerStagedLoads<typename PartialView::non_const_value_type>::per_thread> {
  using Base = InnerTeamKernel<InnerDeviceStaged, ExecSpace, AView, BView, PartialView, TileM * TileN,
                               InnerStagedLoads<typename PartialView::non_const_value_type>::per_thread>;
  using typename Base::Scalar;
  using typename Base::Tile;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Real = typename ATS::mag_type;
  using Base::A;
  using Base::B;
  using Base::conjA;
  using Base::partial;
  using Base::plan;
  static constexpr int loads_per_thread = InnerStagedLoads<Scalar>::per_thread;
  static constexpr int loads_per_column = loads_per_thread / 2;  // a thread's loads of each of its two columns
  static_assert(loads_per_thread % 2 == 0, "a staged thread loads two columns alike");
  using Loads = Scalar[loads_per_thread];

  static const char* label() { return "kbla::inner(portable device staged)"; }

  // Tiles of C for the shape (extents from with_inner_staged_tiles).
  static int tile_count(int M, int N) { return ((M + TileM - 1) / TileM) * ((N + TileN - 1) / TileN); }

  static InnerDirectPlan plan_for(int M, int N, std::int64_t K, int team_size_max, std::int64_t concurrency) {
    InnerDirectPlan p;
    p.tiles_m = (M + TileM - 1) / TileM;
    p.tiles = tile_count(M, N);
    const int target = Base::team_target(team_size_max);
    // Slots: the tiles rounded up to a power of two, so that a warp holds whole lanes of every slot and the threads
    // of a warp reading one row of a column read the same word.
    int slots = 1;
    while (slots < p.tiles && 2 * slots <= target) slots *= 2;
    p.slots = slots;
    p.tile_groups = (p.tiles + p.slots - 1) / p.slots;
    p.lanes = std::max(1, target / p.slots);
    Base::finish_plan(p, K, concurrency);
    // The block: each thread loads two columns of A and B, c and c + column_pairs (A's columns, then B's), half
    // its loads each; each column by threads_per_column consecutive threads, consecutive rows, loads_per_column
    // rows each, threads_per_column rows apart. Two columns per thread rather than one halve the columns a warp's
    // load and store span: on an H200 the stores of a warp spread over 4 columns (double width 16) took 5.5 times
    // the ideal shared-memory wavefronts, from bank conflicts.
    const int columns = M + N;
    p.stage_column_pairs = (columns + 1) / 2;
    p.stage_threads_per_column = p.team_size / p.stage_column_pairs;
    // Threads per column rounded down to whole 128-byte lines (each run of a column's loads on a line of its own)
    // where more than 3/4 of the team still loads. H200, in one run: double widths 13 / 14 / 15 at 60 / 63 / 66 % of
    // the read bandwidth against 56 / 57 / 60 % with 19, 18 and 17 threads per column, but widths 9 / 11 at 53 / 61 %
    // against 59 / 67 % (16 threads where 28 and 23 load, a bit over half and 69 % of the team), complex width 12 at
    // 63 against 67 % (16 of 21, 75 %).
    const int line_threads = std::max(1, int(128 / sizeof(Scalar)));
    const int aligned = p.stage_threads_per_column - p.stage_threads_per_column % line_threads;
    if (aligned > 0 && 4 * aligned * p.stage_column_pairs > 3 * p.team_size) p.stage_threads_per_column = aligned;
    p.block_rows = std::max(1, p.stage_threads_per_column) * loads_per_column;
    p.lane_rows = (p.block_rows + p.lanes - 1) / p.lanes;
    p.stage_pitch = p.block_rows | 1;
    p.stage_scalars = std::size_t(columns) * p.stage_pitch;
    // Chunks of whole blocks.
    if (K > 0) {
      p.rows_per_chunk = (p.rows_per_chunk + p.block_rows - 1) / p.block_rows * p.block_rows;
      p.chunks = (K + p.rows_per_chunk - 1) / p.rows_per_chunk;
    }
    return p;
  }

  // slot = rank % slots (the tile), lane = rank / slots.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t chunk = league / plan.tile_groups;
    const int group = static_cast<int>(league % plan.tile_groups);
    const std::int64_t K = A.extent(0);
    const std::int64_t k_begin = chunk * plan.rows_per_chunk;
    const std::int64_t k_end = k_begin + plan.rows_per_chunk < K ? k_begin + plan.rows_per_chunk : K;
    const std::int64_t blocks = (k_end - k_begin + plan.block_rows - 1) / plan.block_rows;
    Scalar* const stage = team.scratch;
    const bool carried = plan.stage_threads_per_column > 0;

    team.each([&](int rank, Tile& tile) {
      for (int e = 0; e < TileM * TileN; ++e) tile.sum[e] = ATS::zero();
      if (carried) load_block(k_begin, k_end, rank, tile.carried.value);
    });
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = k_begin + b * plan.block_rows, next = first + plan.block_rows;
      // The block's loads were issued before the previous block's sums; now they land in scratch.
      team.each([&](int rank, Tile& tile) {
        if (carried)
          store_block(stage, rank, tile.carried.value);
        else
          stage_elements(first, k_end, rank, stage);
      });
      team.barrier();
      team.each([&](int rank, Tile& tile) {
        if (carried && next < k_end) load_block(next, k_end, rank, tile.carried.value);
        const int index = group * plan.slots + rank % plan.slots;
        if (index < plan.tiles) accumulate(stage, index, rank / plan.slots, tile.sum);
      });
      team.barrier();
    }
    this->close_team(
        team, [&](int rank) { return rank % plan.slots; }, [&](int rank) { return rank / plan.slots; },
        [&](int e, int slot, const Scalar& sum) {
          const int index = group * plan.slots + slot;
          if (index < plan.tiles) store_tile_entry<TileM, TileN>(partial, plan, chunk, index, e, sum);
        });
  }

  // The thread's loads of the block of rows from k0: columns c = rank / threads_per_column and c + column_pairs (A's
  // columns, then B's), rows rank % threads_per_column + f * threads_per_column; zero past k_end or the last column.
  KOKKOS_INLINE_FUNCTION void load_block(std::int64_t k0, std::int64_t k_end, int rank, Loads& v) const {
    const int per_column = plan.stage_threads_per_column;
    const int column = rank / per_column, row = rank % per_column;
    for (int f = 0; f < loads_per_thread; ++f) v[f] = ATS::zero();
    const std::int64_t rows_left = k_end - k0 - row;
    if (column >= plan.stage_column_pairs || rows_left <= 0) return;
    load_column(k0 + row, column, rows_left, v, 0);
    load_column(k0 + row, column + plan.stage_column_pairs, rows_left, v, loads_per_column);
  }

  // Rows k, k + threads_per_column, ... of column `column` (of A, or of B past A's) while they are before k_end
  // (rows_left), into v[first] onwards.
  KOKKOS_INLINE_FUNCTION void load_column(std::int64_t k, int column, std::int64_t rows_left, Loads& v,
                                          int first) const {
    const int M = static_cast<int>(A.extent(1));
    if (column >= M + static_cast<int>(B.extent(1))) return;
    const bool in_a = column < M;
    const std::int64_t stride = in_a ? A.stride(0) : B.stride(0);
    const Scalar* const p = in_a ? A.data() + k * stride + std::int64_t(column) * A.stride(1)
                                 : B.data() + k * stride + std::int64_t(column - M) * B.stride(1);
    const std::int64_t step = std::int64_t(plan.stage_threads_per_column) * stride;
    for (int f = 0; f < loads_per_column; ++f)
      if (std::int64_t(f) * plan.stage_threads_per_column < rows_left) v[first + f] = p[f * step];
  }

  KOKKOS_INLINE_FUNCTION void store_block(Scalar* stage, int rank, const Loads& v) const {
    const int per_column = plan.stage_threads_per_column;
    const int column = rank / per_column, row = rank % per_column;
    const int columns = static_cast<int>(A.extent(1) + B.extent(1));
    if (column >= plan.stage_column_pairs) return;
    Scalar* const q = stage + std::size_t(column) * plan.stage_pitch + row;
    for (int f = 0; f < loads_per_column; ++f) q[f * per_column] = v[f];
    if (column + plan.stage_column_pairs >= columns) return;
    Scalar* const q2 = stage + std::size_t(column + plan.stage_column_pairs) * plan.stage_pitch + row;
    for (int f = 0; f < loads_per_column; ++f) q2[f * per_column] = v[loads_per_column + f];
  }

  // Teams with fewer threads than column pairs (small host teams, tests): the block element by element, loaded
  // and stored in turn.
  KOKKOS_INLINE_FUNCTION void stage_elements(std::int64_t k0, std::int64_t k_end, int rank, Scalar* stage) const {
    const int M = static_cast<int>(A.extent(1)), columns = M + static_cast<int>(B.extent(1));
    for (int e = rank; e < columns * plan.block_rows; e += plan.team_size) {
      const int row = e % plan.block_rows, column = e / plan.block_rows;
      const std::int64_t k = k0 + row;
      Scalar value = ATS::zero();
      if (k < k_end) value = column < M ? A(k, column) : B(k, column - M);
      stage[std::size_t(column) * plan.stage_pitch + row] = value;
    }
  }

  // acc[i * TileN + j] += sum over the lane's rows of the block of conj?(A(k, i0 + i)) * B(k, j0 + j), two rows at
  // a time; a tile that overhangs C reads a clamped column and drops those sums. The conjugate is a sign factor
  // (kbla_multiply_add.hpp).
  KOKKOS_INLINE_FUNCTION void accumulate(const Scalar* stage, int index, int lane,
                                         Scalar (&acc)[TileM * TileN]) const {
    const int M = static_cast<int>(A.extent(1)), N = static_cast<int>(B.extent(1));
    const int i0 = (index % plan.tiles_m) * TileM, j0 = (index / plan.tiles_m) * TileN;
    const int r_begin = lane * plan.lane_rows;
    const int r_end = r_begin + plan.lane_rows < plan.block_rows ? r_begin + plan.lane_rows : plan.block_rows;
    const Scalar* col_a[TileM];
    const Scalar* col_b[TileN];
    for (int i = 0; i < TileM; ++i) col_a[i] = stage + std::size_t(i0 + i < M ? i0 + i : M - 1) * plan.stage_pitch;
    for (int j = 0; j < TileN; ++j)
      col_b[j] = stage + std::size_t(M + (j0 + j < N ? j0 + j : N - 1)) * plan.stage_pitch;
    const Real sign = conjA ? Real(-1) : Real(1);
    int r = r_begin;
    for (; r + 1 < r_end; r += 2) {
      Scalar a[2][TileM], b[2][TileN];
      for (int h = 0; h < 2; ++h) {
        for (int i = 0; i < TileM; ++i) a[h][i] = conj_by_sign(col_a[i][r + h], sign);
        for (int j = 0; j < TileN; ++j) b[h][j] = col_b[j][r + h];
      }
      for (int h = 0; h < 2; ++h) add_row(a[h], b[h], acc);
    }
    if (r < r_end) {
      Scalar a[TileM], b[TileN];
      for (int i = 0; i < TileM; ++i) a[i] = conj_by_sign(col_a[i][r], sign);
      for (int j = 0; j < TileN; ++j) b[j] = col_b[j][r];
      add_row(a, b, acc);
    }
  }

  KOKKOS_INLINE_FUNCTION static void add_row(const Scalar (&a)[TileM], const Scalar (&b)[TileN],
                                             Scalar (&acc)[TileM * TileN]) {
    for (int i = 0; i < TileM; ++i)
      for (int j = 0; j < TileN; ++j) multiply_add(acc[i * TileN + j], a[i], b[j]);
  }
};

// Calls f(std::integral_constant<int, TileM>, std::integral_constant<int, TileN>) with the staged kernel's tile
// extents for C of M x N entries. A width of at most 4 (real) or 2 (complex) takes the direct kernel's power of two;
// a wider one 4 or 3 (real), 2 or 3 rows by 4, 3 or 2 columns (complex, at most 9 entries, 18 real sums). Of those,
// the pair that costs a warp the fewest instructions per row: (slots, the tiles rounded up to a power of two) x
// (TileM + TileN scratch loads + TileM x TileN multiply-adds, four per complex one), since the lanes of idle slots
// issue with the others. Double width 12 then takes 16 tiles of 3 x 3 (16 x 15) instead of 9 of 4 x 4 in 16 slots
// (16 x 24); width 16 keeps 4 x 4 (16 x 24 against 64 x 15); complex width 12 takes 16 tiles of 3 x 3 (16 x 42)
// instead of 18 of 2 x 4 in 32 slots (32 x 38). Complex tiles of 4 x 2 measured slower than 2 x 4 (H200, widths
// 15 / 16: 47 / 51 % of the read bandwidth against 55 / 59 %), hence at most 3 rows.
template <class Scalar, class Body>
void with_inner_staged_tiles(int M, int N, Body&& f) {
  constexpr bool is_complex = kbla::Impl::ArithTraits<Scalar>::is_complex;
  constexpr int products = is_complex ? 4 : 1, max_entries = is_complex ? 9 : 16;
  auto pow2_at_least = [](int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
  };
  // Candidate extents of one dimension (rows of a tile: `rows` true).
  auto candidates = [](int width, bool rows, int (&out)[3]) {
    if (width <= (is_complex ? 2 : 4)) {
      out[0] = InnerDirectTiles<Scalar>::extent(width, 4);
      return 1;
    }
    if (is_complex && rows) {
      out[0] = 3;
      out[1] = 2;
      return 2;
    }
    out[0] = 4;
    out[1] = 3;
    out[2] = 2;
    return is_complex ? 3 : 2;
  };
  int options_m[3], options_n[3];
  const int count_m = candidates(M, true, options_m), count_n = candidates(N, false, options_n);
  int best_m = options_m[0], best_n = options_n[0];
  long best_cost = -1;
  for (int a = 0; a < count_m; ++a)
    for (int b = 0; b < count_n; ++b) {
      const int tm = options_m[a], tn = options_n[b];
      if (tm * tn > max_entries) continue;
      const long cost =
          long(pow2_at_least(((M + tm - 1) / tm) * ((N + tn - 1) / tn))) * (tm + tn + products * tm * tn);
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best_m = tm;
        best_n = tn;
      }
    }
  auto by_n = [&](auto TM) {
    switch (best_n) {
      case 1: f(TM, std::integral_constant<int, 1>()); break;
      case 2: f(TM, std::integral_constant<int, 2>()); break;
      case 3: f(TM, std::integral_constant<int, 3>()); break;
      default: f(TM, std::integral_constant<int, 4>()); break;
    }
  };
  switch (best_m) {
    case 1: by_n(std::integral_constant<int, 1>()); break;
    case 2: by_n(std::integral_constant<int, 2>()); break;
    case 3: by_n(std::integral_constant<int, 3>()); break;
    default: by_n(std::integral_constant<int, 4>()); break;
  }
}

}  // namespace Impl
}  // namespace kbla
