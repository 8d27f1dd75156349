// The overlap predicate behind the "output overlaps input" checks (impl/kbla_overlap.hpp): pure integer
// footprints against a brute-force set intersection, the layouts of block Krylov bases (column blocks of a
// LayoutRight View, row blocks of a LayoutLeft one), and footprint_of() on real Views.
#include <impl/kbla_overlap.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace {

using kbla::Impl::bounded_solution_exists;
using kbla::Impl::Footprint;
using kbla::Impl::footprint_of;
using kbla::Impl::footprints_overlap;

Footprint footprint(std::int64_t first_byte, std::int64_t rows, std::int64_t cols, std::int64_t stride0,
                    std::int64_t stride1, std::int64_t element_bytes = 8) {
  Footprint f;
  f.first = std::uintptr_t(std::int64_t(1) << 40) + std::uintptr_t(first_byte);
  f.rows = rows;
  f.cols = cols;
  f.stride0 = stride0;
  f.stride1 = stride1;
  f.element_bytes = element_bytes;
  return f;
}

std::string describe(const Footprint& f) {
  std::ostringstream os;
  os << f.rows << " x " << f.cols << " strides (" << f.stride0 << ", " << f.stride1 << ") first byte "
     << std::int64_t(f.first - (std::uintptr_t(1) << 40)) << " element bytes " << f.element_bytes;
  return os.str();
}

// Every byte of a against every byte of b.
bool brute_force_overlap(const Footprint& a, const Footprint& b) {
  std::set<std::uintptr_t> bytes;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j)
      for (std::int64_t e = 0; e < a.element_bytes; ++e)
        bytes.insert(a.first + std::uintptr_t((i * a.stride0 + j * a.stride1) * a.element_bytes + e));
  for (std::int64_t i = 0; i < b.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j)
      for (std::int64_t e = 0; e < b.element_bytes; ++e)
        if (bytes.count(b.first + std::uintptr_t((i * b.stride0 + j * b.stride1) * b.element_bytes + e))) return true;
  return false;
}

::testing::AssertionResult agrees_with_brute_force(const Footprint& a, const Footprint& b) {
  const bool fast = footprints_overlap(a, b), slow = brute_force_overlap(a, b);
  const bool fast_swapped = footprints_overlap(b, a);
  if (fast == slow && fast_swapped == slow) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "a: " << describe(a) << "; b: " << describe(b) << ": predicate says "
                                       << fast << " (swapped " << fast_swapped << "), brute force " << slow;
}

TEST(OverlapPredicate, SolverMatchesBruteForce) {
  std::mt19937_64 rng(20250101);
  auto draw = [&](int lo, int hi) { return std::int64_t(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  int wrong = 0;
  for (int t = 0; t < 20000; ++t) {
    const std::int64_t p = draw(-12, 12), q = draw(-12, 12), r = draw(-80, 80);
    const std::int64_t x_lo = draw(-8, 8), x_hi = draw(-8, 8), y_lo = draw(-8, 8), y_hi = draw(-8, 8);
    bool exists = false;
    for (std::int64_t x = x_lo; x <= x_hi; ++x)
      for (std::int64_t y = y_lo; y <= y_hi; ++y) exists = exists || p * x + q * y == r;
    if (bounded_solution_exists(p, q, r, x_lo, x_hi, y_lo, y_hi) != exists && wrong++ < 5) {
      ADD_FAILURE() << p << " x + " << q << " y = " << r << ", x in [" << x_lo << ", " << x_hi << "], y in ["
                    << y_lo << ", " << y_hi << "]: brute force " << exists;
    }
  }
  EXPECT_EQ(wrong, 0);
  // large coefficients (strides of tall matrices) where a product of the Euclidean coefficients would overflow
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_TRUE(bounded_solution_exists(big + 1, big, big + 1, 0, 10, -10, 10));   // x = 1, y = 0
  EXPECT_TRUE(bounded_solution_exists(big + 1, big, 1, -10, 10, -10, 10));       // x = 1, y = -1
  EXPECT_FALSE(bounded_solution_exists(big + 1, big, 2, -1, 1, -1, 1));          // needs x = 2, y = -2
  EXPECT_TRUE(bounded_solution_exists(big + 1, big, 2, -2, 2, -2, 2));
}

// Random small footprints (same strides half of the time, element sizes 1-3 and 8, byte offsets that are not
// multiples of the element size) against brute force: exact both ways.
TEST(OverlapPredicate, RandomFootprintsMatchBruteForce) {
  std::mt19937_64 rng(7);
  auto draw = [&](int lo, int hi) { return std::int64_t(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  int wrong = 0;
  for (int t = 0; t < 40000 && wrong < 5; ++t) {
    const std::int64_t e = draw(0, 3) == 0 ? 8 : draw(1, 3);
    const Footprint a = footprint(0, draw(0, 5), draw(0, 5), draw(0, 9), draw(0, 9), e);
    const bool same = draw(0, 1) == 0;
    const Footprint b = footprint(draw(-60, 60), draw(0, 5), draw(0, 5), same ? a.stride0 : draw(0, 9),
                                  same ? a.stride1 : draw(0, 9), e);
    const auto r = agrees_with_brute_force(a, b);
    if (!r) ++wrong;
    EXPECT_TRUE(r);
  }
}

// Tall blocks of real leading dimensions (row-major and column-major parents, other strides too).
TEST(OverlapPredicate, TallBlocksMatchBruteForce) {
  std::mt19937_64 rng(11);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int wrong = 0;
  for (int t = 0; t < 400 && wrong < 5; ++t) {
    const std::int64_t ld = draw(1, 300);
    const bool row_major = draw(0, 1) == 1;
    const Footprint a = footprint(0, draw(1, 120), draw(1, 12), row_major ? ld : 1, row_major ? 1 : ld);
    const Footprint b = footprint(8 * draw(-4000, 4000), draw(1, 120), draw(1, 12),
                                  draw(0, 1) ? a.stride0 : draw(1, 300), draw(0, 1) ? a.stride1 : draw(1, 4));
    const auto r = agrees_with_brute_force(a, b);
    if (!r) ++wrong;
    EXPECT_TRUE(r);
  }
}

// The block Krylov basis [Q | X] in one LayoutRight K x 12 View: column blocks interleave in memory but share no
// element; a column in common, or a strided View that reaches into Q, is an overlap.
TEST(OverlapPredicate, ColumnBlocksOfLayoutRightBasis) {
  const std::int64_t K = 1000, width = 12;
  const Footprint Q = footprint(0, K, 8, width, 1);
  const Footprint X = footprint(8 * 8, K, 4, width, 1);
  EXPECT_FALSE(footprints_overlap(X, Q));
  EXPECT_FALSE(footprints_overlap(Q, X));
  EXPECT_TRUE(footprints_overlap(footprint(7 * 8, K, 4, width, 1), Q));   // columns 7..10: column 7 shared
  EXPECT_TRUE(footprints_overlap(footprint(0, K, 1, width, 1), Q));       // column 0
  EXPECT_TRUE(footprints_overlap(footprint(8 * 12 * 999 + 8 * 7, 1, 1, width, 1), Q));  // Q's last element
  EXPECT_FALSE(footprints_overlap(footprint(8 * 12 * 999 + 8 * 8, 1, 1, width, 1), Q));  // the one after it
  // every other column from column 1 (strides (12, 2)): 1, 3, 5, 7 are Q's; from column 8: 8, 10 are not
  EXPECT_TRUE(footprints_overlap(footprint(8 * 1, K, 4, width, 2), Q));
  EXPECT_FALSE(footprints_overlap(footprint(8 * 8, K, 2, width, 2), Q));
  // even and odd columns of the whole basis: disjoint
  EXPECT_FALSE(footprints_overlap(footprint(0, K, 6, width, 2), footprint(8, K, 6, width, 2)));
  // a 3 x 3 C in the rows of the basis past Q's last row: no overlap; one row earlier: overlap
  EXPECT_FALSE(footprints_overlap(footprint(8 * width * K, 3, 3, width, 1), Q));
  EXPECT_TRUE(footprints_overlap(footprint(8 * width * (K - 1), 3, 3, width, 1), Q));
}

// Row blocks of one column-major View: A in rows 0..63, a 3 x 3 C in rows 64..66 (leading dimension 67).
TEST(OverlapPredicate, RowBlocksOfLayoutLeftView) {
  const std::int64_t ld = 67;
  const Footprint A = footprint(0, 64, 3, 1, ld);
  EXPECT_FALSE(footprints_overlap(footprint(8 * 64, 3, 3, 1, ld), A));
  EXPECT_TRUE(footprints_overlap(footprint(8 * 63, 3, 3, 1, ld), A));
  // the same C seen transposed (strides (ld, 1) from the same element): other strides, still no shared element
  EXPECT_FALSE(footprints_overlap(footprint(8 * 64, 3, 3, ld, 1), A));
  // a C with strides (2, ld) starting in row 1 (rows 1, 3, 5): inside A
  EXPECT_TRUE(footprints_overlap(footprint(8 * 1, 3, 3, 2, ld), A));
}

// Elements that straddle each other (byte offsets that are not a multiple of the element size), empty Views,
// single elements, broadcast (stride 0) Views.
TEST(OverlapPredicate, EdgeCases) {
  EXPECT_TRUE(footprints_overlap(footprint(0, 1, 1, 0, 0, 16), footprint(8, 1, 1, 0, 0, 16)));
  EXPECT_FALSE(footprints_overlap(footprint(0, 1, 1, 0, 0, 16), footprint(16, 1, 1, 0, 0, 16)));
  EXPECT_TRUE(footprints_overlap(footprint(0, 4, 2, 1, 8, 16), footprint(8, 4, 1, 1, 8, 16)));
  EXPECT_FALSE(footprints_overlap(footprint(0, 0, 5, 1, 0), footprint(0, 5, 5, 1, 5)));
  EXPECT_FALSE(footprints_overlap(footprint(0, 5, 5, 1, 5), footprint(0, 5, 0, 1, 5)));
  EXPECT_TRUE(footprints_overlap(footprint(0, 1, 1, 0, 0), footprint(0, 1, 1, 0, 0)));
  EXPECT_TRUE(footprints_overlap(footprint(8 * 3, 7, 7, 0, 0), footprint(0, 2, 2, 1, 3)));
  EXPECT_FALSE(footprints_overlap(footprint(8 * 2, 7, 7, 0, 0), footprint(0, 2, 2, 1, 3)));
}

// Views of different strides whose short dimensions are both long: more column pairs than the budget, so the
// answer is the conservative "overlap" even though these two share no element (documented in the header).
// A: rows [0, n) of a column-major 4n x n View; B: n x n with strides (4n, 2) from row n (rows n, n + 2, ...).
TEST(OverlapPredicate, UndecidedAnswersOverlap) {
  auto top = [](std::int64_t n) { return footprint(0, n, n, 1, 4 * n); };
  auto below = [](std::int64_t n) { return footprint(8 * n, n, n, 4 * n, 2); };
  EXPECT_FALSE(brute_force_overlap(top(20), below(20)));
  EXPECT_FALSE(footprints_overlap(top(20), below(20)));  // 400 pairs: decided exactly
  EXPECT_TRUE(footprints_overlap(top(1000), below(1000)));  // 10^6 pairs: undecided, conservative
  // same strides, or one View the other's transpose, are always decided exactly, whatever the sizes
  EXPECT_FALSE(footprints_overlap(footprint(0, 1000, 1000, 1, 2000), footprint(8 * 1000, 1000, 1000, 1, 2000)));
  EXPECT_FALSE(footprints_overlap(footprint(0, 1000, 1000, 1, 2000), footprint(8 * 1000, 1000, 1000, 2000, 1)));
  EXPECT_TRUE(footprints_overlap(footprint(0, 1000, 1000, 1, 2000), footprint(8 * 999, 1000, 1000, 2000, 1)));
}

// footprint_of on real Views: the subviews a user takes of one allocation.
TEST(OverlapPredicate, FootprintOfSubviews) {
  using Right = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Left = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  const auto all = Kokkos::ALL;
  Right V("V", 100, 12);
  const auto Q = Kokkos::subview(V, all, std::make_pair(0, 8));
  const auto X = Kokkos::subview(V, all, std::make_pair(8, 12));
  const auto X7 = Kokkos::subview(V, all, std::make_pair(7, 11));
  EXPECT_FALSE(footprints_overlap(footprint_of(X), footprint_of(Q)));
  EXPECT_TRUE(footprints_overlap(footprint_of(X7), footprint_of(Q)));
  Left W("W", 67, 3);
  const auto A = Kokkos::subview(W, std::make_pair(0, 64), all);
  const auto C = Kokkos::subview(W, std::make_pair(64, 67), all);
  const auto C63 = Kokkos::subview(W, std::make_pair(63, 66), all);
  EXPECT_FALSE(footprints_overlap(footprint_of(C), footprint_of(A)));
  EXPECT_TRUE(footprints_overlap(footprint_of(C63), footprint_of(A)));
  const Left empty;
  EXPECT_FALSE(footprints_overlap(footprint_of(empty), footprint_of(A)));
}

}  // namespace
