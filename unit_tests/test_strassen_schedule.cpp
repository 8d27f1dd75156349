// The fused Strassen launch schedule (src/cuda/strassen/strassen_schedule.hpp): host-only cost models, checked here on
// any machine. The calibration cases are the H100 measurements the constants were fitted to (wide FP32 tile
// 256 x 128 x 8, one block per SM on 132 SMs): a change of the model that flips one of them needs new measurements.
#include <gtest/gtest.h>

#include <cstdint>

#include "../src/cuda/strassen/strassen_schedule.hpp"

namespace {

namespace ss = kbla::cuda::strassen_schedule;

constexpr std::int64_t kH100Slots = 132;

// One fused level of a square n: quadrants of n / 2, wide FP32 tiles.
struct Launch {
  std::int64_t tiles;
  int slabs;
};
Launch wide_fp32(std::int64_t n) {
  const std::int64_t h = n / 2;
  return {((h + 255) / 256) * ((h + 127) / 128), int((h + 7) / 8)};
}

bool stream_k_taken(std::int64_t n) {
  const Launch l = wide_fp32(n);
  const ss::SliceChoice sc = ss::choose_k_slices(l.tiles * ss::kProducts, kH100Slots, l.slabs, 0);
  return ss::use_stream_k(ss::choose_stream_k(l.tiles, kH100Slots, l.slabs), sc, 1);
}

TEST(StrassenSchedule, KSlicesOnlyForLoneLaunchesUnderTwoWaves) {
  // 2048: 224 blocks (1.7 waves), 128 slabs: 4 slices (session 7: measured 4 % faster than none)
  const Launch l2048 = wide_fp32(2048);
  EXPECT_EQ(ss::choose_k_slices(l2048.tiles * ss::kProducts, kH100Slots, l2048.slabs, 0).slices, 4);
  // the hybrid's concurrent leaves pass max_slices = 1
  EXPECT_EQ(ss::choose_k_slices(l2048.tiles * ss::kProducts, kH100Slots, l2048.slabs, 1).slices, 1);
  // KBLA_STRASSEN_KSLICES pins the count
  EXPECT_EQ(ss::choose_k_slices(l2048.tiles * ss::kProducts, kH100Slots, l2048.slabs, 0, 3).slices, 3);
  for (std::int64_t n = 3072; n <= 20480; n += 1024) {
    const Launch l = wide_fp32(n);
    EXPECT_EQ(ss::choose_k_slices(l.tiles * ss::kProducts, kH100Slots, l.slabs, 0).slices, 1) << "n = " << n;
  }
}

TEST(StrassenSchedule, KSlicesKeepSlicesThickAndDistinct) {
  for (std::int64_t blocks = 1; blocks < 2 * kH100Slots; blocks += 7)
    for (int slabs = 1; slabs <= 300; slabs += 13) {
      const ss::SliceChoice c = ss::choose_k_slices(blocks, kH100Slots, slabs, 0);
      ASSERT_GE(c.slices, 1);
      ASSERT_LE(c.slices, ss::kMaxKSlices);
      if (c.slices > 1) {
        const int per = (slabs + c.slices - 1) / c.slices;
        EXPECT_GE(per, ss::kMinSliceSlabs) << blocks << " blocks, " << slabs << " slabs";
        EXPECT_EQ((slabs + per - 1) / per, c.slices) << "no empty slice";
      }
    }
}

TEST(StrassenSchedule, StreamKWhereTheH100MeasuredAGain) {
  // session 19, 4 alternating rounds (strassen-h100-2026-11-24-s19-c-streamk-calibration.json): faster with the
  // stream-K tail at these sizes ...
  for (std::int64_t n : {2048, 2560, 3584, 5120, 6144, 8192}) EXPECT_TRUE(stream_k_taken(n)) << "n = " << n;
  // ... slower at these
  for (std::int64_t n : {3072, 4096, 7168}) EXPECT_FALSE(stream_k_taken(n)) << "n = " << n;
  // large launches: the partial last wave is a small share of the time (model gain < 1.5 %)
  for (std::int64_t n : {10240, 12288, 16384, 20480}) EXPECT_FALSE(stream_k_taken(n)) << "n = " << n;
}

TEST(StrassenSchedule, StreamKSplitIsWithinTheLaunch) {
  for (std::int64_t tiles = 1; tiles <= 600; tiles += 5)
    for (int slabs : {1, 7, 64, 128, 513, 1024}) {
      const ss::StreamKChoice c = ss::choose_stream_k(tiles, kH100Slots, slabs);
      if (c.blocks == 0) continue;
      EXPECT_GE(c.blocks, 2);
      EXPECT_LE(c.blocks, kH100Slots);
      EXPECT_GE(c.tile0, 0);
      EXPECT_LT(c.tile0, tiles) << "the stream-K kernel gets at least one tile per product";
      // strassen_kernel's part fills whole waves
      EXPECT_LE((c.tile0 * ss::kProducts + kH100Slots - 1) / kH100Slots * kH100Slots - c.tile0 * ss::kProducts,
                ss::kProducts);
      EXPECT_GT(c.cost, 0.0);
    }
}

TEST(StrassenSchedule, StreamKSwitches) {
  const Launch l = wide_fp32(2048);
  // 0: off; KBLA_STRASSEN_KSLICES set: off (slices are pinned)
  EXPECT_EQ(ss::choose_stream_k(l.tiles, kH100Slots, l.slabs, 0).blocks, 0);
  EXPECT_EQ(ss::choose_stream_k(l.tiles, kH100Slots, l.slabs, 1, 2).blocks, 0);
  // n >= 2 (test switch): half of each product's tiles in n runs, whatever the model says
  const ss::StreamKChoice forced = ss::choose_stream_k(l.tiles, kH100Slots, l.slabs, 5);
  EXPECT_EQ(forced.tile0, l.tiles / 2);
  EXPECT_EQ(forced.blocks, 5);
  EXPECT_TRUE(ss::use_stream_k(forced, ss::SliceChoice{1, 0.0}, 5));
  // never more runs than (tile, slab) iterations
  EXPECT_EQ(ss::choose_stream_k(1, kH100Slots, 1, 131).blocks, ss::kProducts);
  // whole waves already: nothing to balance
  EXPECT_EQ(ss::choose_stream_k(132, kH100Slots, 64).blocks, 0);
}

}  // namespace
