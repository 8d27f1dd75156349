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
#include <impl/kbla_multiply_add.hpp>
#include <impl/kbla_inner_device_team.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kbla {
namespace Impl {

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

// Entry e of tile `index` (TileM x TileN entries, plan.tiles_m tiles down a column of C) into a chunk's partial C;
// entries of a tile that overhangs C are dropped. The closing store of the kernels with tiles of C.
template <int TileM, int TileN, class PartialView, class Scalar>
KOKKOS_INLINE_FUNCTION void store_tile_entry(const PartialView& partial, const InnerDirectPlan& plan,
                                             std::int64_t chunk, int index, int e, const Scalar& sum) {
  const int i = (index % plan.tiles_m) * TileM + e / TileN, j = (index / plan.tiles_m) * TileN + e % TileN;
  if (i < static_cast<int>(partial.extent(1)) && j < static_cast<int>(partial.extent(2))) partial(chunk, i, j) = sum;
}

template <class ExecSpace, class AView, class BView, class PartialView, int TileM, int TileN>
struct InnerDeviceDirect
    : InnerTeamKernel<InnerDeviceDirect<ExecSpace, AView, BView, PartialView, TileM, TileN>, ExecSpace, AView, BView,
                      PartialView, TileM * TileN> {
  using Base = InnerTeamKernel<InnerDeviceDirect, ExecSpace, AView, BView, PartialView, TileM * TileN>;
  using typename Base::Scalar;
  using typename Base::Tile;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Real = typename ATS::mag_type;
  using Base::A;
  using Base::B;
  using Base::conjA;
  using Base::partial;
  using Base::plan;
  // Rows loaded before their multiply-adds: about 256 bytes of loads in flight per thread, 1 to 8 rows.
  static constexpr int row_bytes = int((TileM + TileN) * sizeof(Scalar));
  static constexpr int rows_in_flight =
      8 * row_bytes <= 256 ? 8 : 4 * row_bytes <= 256 ? 4 : 2 * row_bytes <= 256 ? 2 : 1;

  static const char* label() { return "kbla::inner(portable device direct)"; }

  static InnerDirectPlan plan_for(int M, int N, std::int64_t K, int team_size_max, std::int64_t concurrency) {
    InnerDirectPlan p;
    p.tiles_m = (M + TileM - 1) / TileM;
    p.tiles = p.tiles_m * ((N + TileN - 1) / TileN);
    const int target = Base::team_target(team_size_max);
    int pow2 = 1;
    while (2 * pow2 <= target) pow2 *= 2;
    // At least a warp of lanes per tile (32, or the whole team on backends with smaller teams).
    int lanes = 1;
    while (2 * lanes <= target / p.tiles) lanes *= 2;
    p.lanes = std::max(lanes, std::min(32, pow2));
    p.slots = std::max(1, std::min(p.tiles, target / p.lanes));
    p.tile_groups = (p.tiles + p.slots - 1) / p.slots;
    Base::finish_plan(p, K, concurrency);
    return p;
  }

  // The schedule of one team: slot = rank / lanes (the tile), lane = rank % lanes (the thread's rows).
  template <class Team>
  KOKKOS_INLINE_FUNCTION void team_body(Team& team, std::int64_t league) const {
    const std::int64_t chunk = league / plan.tile_groups;
    const int group = static_cast<int>(league % plan.tile_groups);
    team.each([&](int rank, Tile& tile) {
      for (int e = 0; e < TileM * TileN; ++e) tile.sum[e] = ATS::zero();
      const int index = group * plan.slots + rank / plan.lanes;
      if (index < plan.tiles) accumulate(chunk, rank % plan.lanes, index, tile.sum);
    });
    this->close_team(
        team, [&](int rank) { return rank / plan.lanes; }, [&](int rank) { return rank % plan.lanes; },
        [&](int e, int slot, const Scalar& sum) {
          const int index = group * plan.slots + slot;
          if (index < plan.tiles) store_tile_entry<TileM, TileN>(partial, plan, chunk, index, e, sum);
        });
  }

  // acc[i * TileN + j] += sum over the lane's rows of conj?(A(k, i0 + i)) * B(k, j0 + j).
  // The conjugate is a sign factor on the imaginary parts (conj_by_sign): `conjA ? conj(a) : a` compiled to a
  // negation and two selects per value; on an H200 the factor took complex column-major width 16 from 48 to 51 % of
  // the read bandwidth (widths 24-64 up 2-4 %).
  KOKKOS_INLINE_FUNCTION void accumulate(std::int64_t chunk, int lane, int index, Scalar (&acc)[TileM * TileN]) const {
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
    const Real sign = conjA ? Real(-1) : Real(1);
    std::int64_t k = k_begin + lane;
    for (; k + (rows - 1) * step < k_end; k += rows * step) {
      Scalar a[rows][TileM], b[rows][TileN];
      for (int r = 0; r < rows; ++r) {
        for (int i = 0; i < TileM; ++i) a[r][i] = A(k + r * step, col_a[i]);
        for (int j = 0; j < TileN; ++j) b[r][j] = B(k + r * step, col_b[j]);
      }
      for (int r = 0; r < rows; ++r) add_row(a[r], b[r], sign, acc);
    }
    for (; k < k_end; k += step) {
      Scalar a[TileM], b[TileN];
      for (int i = 0; i < TileM; ++i) a[i] = A(k, col_a[i]);
      for (int j = 0; j < TileN; ++j) b[j] = B(k, col_b[j]);
      add_row(a, b, sign, acc);
    }
  }

  KOKKOS_INLINE_FUNCTION void add_row(const Scalar (&a)[TileM], const Scalar (&b)[TileN], const Real& sign,
                                      Scalar (&acc)[TileM * TileN]) const {
    for (int i = 0; i < TileM; ++i) {
      const Scalar ai = conj_by_sign(a[i], sign);
      for (int j = 0; j < TileN; ++j) multiply_add(acc[i * TileN + j], ai, b[j]);
    }
  }
};

// Calls f(std::integral_constant<int, TileM>, std::integral_constant<int, TileN>) for the tile extents of C of
// M x N entries (InnerDirectTiles): the host-side dispatch to one kernel instantiation.
template <class Scalar, class Body>
void with_inner_direct_tiles(int M, int N, Body&& f) {
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
