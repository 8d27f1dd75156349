// Launch schedule of the fused Strassen kernels (strassen_fused.cu): k slices for lone launches under 2 waves and
// the stream-K tail, chosen by cost models in slab times. Host code only, no CUDA, so that the unit tests check the
// choices on any machine (unit_tests/test_strassen_schedule.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kbla {
namespace cuda {
namespace strassen_schedule {

constexpr int kProducts = 7;  // one Strassen level (gemm_tile::kMaxProducts; strassen_fused.cu checks they agree)

// ---- k slices (split k on blockIdx.y) -----------------------------------------------------------------------
// The products only add into C through atomics, so a product's k range may be cut into s slices computed by
// different blocks, at the price of s times the reductions (16-byte ones in sliced launches). Measured on the fused
// kernel (docs/strassen.md), slices pay only for a lone launch of less than 2 waves (at 2048 the 7 products of
// 1024^3 are 224 blocks on 132 SMs: 1.7 waves; from 3.8 waves on, at 3072, every split lost) and not for the
// hybrid's concurrent leaves. There s minimizes
//   ceil(s blocks / resident blocks) x (slabs per slice + kSliceOverheadSlabs),
// the overhead being a block's fixed cost (first slab's load, epilogue, block start) in slab times; 5 fits the
// measured times of the 16-byte-atomic launches at 2048, where it picks s = 4.
constexpr double kSliceOverheadSlabs = 5.0;
constexpr int kMaxKSlices = 8;
constexpr int kMinSliceSlabs = 8;  // 64 k-steps

// The slices s of choose_k_slices and their cost in slab times (s = 1: the plain grid).
struct SliceChoice {
  int slices;
  double cost;
};
// pinned_slices: a fixed slice count (0: the model, as the library calls it; others for the unit tests).
inline SliceChoice choose_k_slices(std::int64_t blocks, std::int64_t slots, int slabs, int max_slices,
                                   int pinned_slices = 0) {
  if (pinned_slices > 0) return {pinned_slices, 0.0};
  const double plain = double((blocks + slots - 1) / slots) * (slabs + kSliceOverheadSlabs);
  if (blocks >= 2 * slots) return {1, plain};
  int best = 1;
  double best_cost = 0;
  const int max_s = max_slices >= 1 ? std::min(max_slices, kMaxKSlices) : kMaxKSlices;
  for (int s = 1; s <= max_s; ++s) {
    const int per = (slabs + s - 1) / s;
    if (s > 1 && (per < kMinSliceSlabs || (slabs + per - 1) / per != s)) continue;  // too thin, or same as fewer
    const double waves = double((blocks * s + slots - 1) / slots);
    const double cost = waves * (per + kSliceOverheadSlabs);
    if (s == 1 || cost < best_cost) best = s, best_cost = cost;
  }
  return {best, best_cost};
}

// ---- stream-K tail (strassen_stream_k_kernel) ----------------------------------------------------------------------
// strassen_kernel computes tiles 0 .. t0 - 1 of each product (grid.x = t0: whole waves), then
// strassen_stream_k_kernel the rest in `slots` equal runs of slabs (one per resident block). Cost in slab times, the
// fixed cost above paid once per tile a run touches and once for the second launch, the stream-K runs kStreamKSlowdown
// times slower per slab (a kernel with a loop over runs schedules its main loop a few percent worse):
//   ceil(7 t0 / slots) (slabs + overhead) + overhead + kStreamKSlowdown 7 (tiles - t0) slabs / slots
//   + overhead (1 + ceil(runs' slabs / slabs)),
// for 7 t0 filling w whole waves, w = waves, waves - 1, waves - 2 (>= 0; w = 0: stream-K alone); taken when it beats
// the plain or sliced grid. Lone launches only (max_slices != 1): beside the hybrid's
// concurrent leaves the other launches fill the SMs.
// kStreamKMargin: taken only when the model predicts >= 2.5 % gain: the plain grid's last partial wave costs less
// than a full one (fewer busy SMs clock higher under the power cap), so the model's gains came out about 2 % high
// against measurements from 2048 to 8192; the margin keeps every measured loss out.
constexpr double kStreamKSlowdown = 1.07;
constexpr double kStreamKMargin = 0.975;

struct StreamKChoice {
  int tile0 = 0, blocks = 0;  // blocks == 0: no stream-K
  double cost = 0;
};
// mode: 0 off, 1 the model (as the library calls it), n >= 2 forced into n runs; pinned_slices as in
// choose_k_slices. The other modes serve the unit tests.
inline StreamKChoice choose_stream_k(std::int64_t tiles, std::int64_t slots, int slabs, int mode = 1,
                                     int pinned_slices = 0) {
  constexpr int P = kProducts;
  StreamKChoice best;
  if (mode >= 2) {
    best.tile0 = int(tiles / 2);
    best.blocks = int(std::min<std::int64_t>(mode, (tiles - best.tile0) * P * slabs));
    return best;
  }
  if (mode == 0 || pinned_slices > 0 || slots < 2 || (tiles * P) % slots == 0) return best;
  const std::int64_t waves = tiles * P / slots;  // whole waves
  for (std::int64_t w = std::max<std::int64_t>(0, waves - 2); w <= waves; ++w) {
    const std::int64_t t0 = std::min(tiles - 1, w * slots / P);  // strassen_kernel's tiles per product
    const std::int64_t sk = (tiles - t0) * P;
    const std::int64_t blocks = std::min<std::int64_t>(slots, sk * slabs / kMinSliceSlabs);
    if (blocks < 2) continue;
    const double per = double(sk * slabs) / double(blocks);
    const double whole_waves = double((t0 * P + slots - 1) / slots);
    const double dp = t0 > 0 ? whole_waves * (slabs + kSliceOverheadSlabs) + kSliceOverheadSlabs : 0.0;
    const double cost = dp + kStreamKSlowdown * per + kSliceOverheadSlabs * (1.0 + std::ceil(per / slabs));
    if (best.blocks == 0 || cost < best.cost) best.tile0 = int(t0), best.blocks = int(blocks), best.cost = cost;
  }
  return best;
}

// A lone launch of all 7 products takes the stream-K tail rather than the slice choice sc.
inline bool use_stream_k(const StreamKChoice& sk, const SliceChoice& sc, int mode) {
  return sk.blocks > 0 && (mode >= 2 || sk.cost < kStreamKMargin * sc.cost);
}

}  // namespace strassen_schedule
}  // namespace cuda
}  // namespace kbla
