// Whether two rank-2 strided Views share memory: the overlap test behind the "output overlaps input" checks.
//
// Comparing address ranges is not enough: column blocks of one LayoutRight View (and row blocks of one
// LayoutLeft View) interleave in memory without sharing an element, e.g. the basis [Q | X] of block Krylov
// methods, where X -= Q C must be allowed. So the test decides whether the two sets of elements intersect:
// element (i, j) of a View is at first + (i * stride0 + j * stride1) * element_bytes, and the question is
// whether some element of one View shares a byte with some element of the other.
//
//   1. Disjoint address ranges (the usual case of separate allocations): no overlap.
//   2. Same element size: the two element grids meet iff i a0 + j a1 - k b0 - l b1 = D has a solution in the
//      index boxes, for the one or two D the byte offset between the Views allows (two when it is not a
//      multiple of the element size: the elements then straddle each other). Views with the same strides (the
//      subviews of one parent; also one seen transposed) reduce to one equation in two unknowns (di, dj): solved
//      exactly by the extended Euclidean algorithm. Other strides: enumerate the shorter dimension of each View and solve the same
//      two-unknown equation for each pair: exact while that is at most kOverlapPairBudget pairs.
//   3. Undecided (different element sizes, more pairs than the budget, offsets beyond 2^62): "overlap". A
//      conservative answer makes the call throw; it never lets a real overlap through.
//
// Pure integer functions (no Kokkos) below, so that they can be tested alone; footprint_of() turns a View into
// the integers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace kbla {
namespace Impl {

// The memory of a rank-2 strided View: element (i, j), 0 <= i < rows, 0 <= j < cols, occupies the bytes
// [first + (i * stride0 + j * stride1) * element_bytes, ... + element_bytes).
struct Footprint {
  std::uintptr_t first = 0;
  std::int64_t rows = 0, cols = 0;
  std::int64_t stride0 = 0, stride1 = 0;  // in elements
  std::int64_t element_bytes = 1;
};

// Pairs of (column of one View, column of the other) the exact test may enumerate for Views of different
// strides before it answers "overlap" (about a millisecond).
constexpr std::int64_t kOverlapPairBudget = std::int64_t(1) << 16;

namespace overlap_detail {

constexpr std::int64_t kLimit = std::int64_t(1) << 62;  // offsets (elements or bytes) handled exactly

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {  // b != 0
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {  // b != 0
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
inline std::int64_t positive_mod(std::int64_t a, std::int64_t m) {  // m > 0
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}
// (a * b) mod m for 0 <= a, b < m < 2^62 without overflow (binary multiplication).
inline std::int64_t mul_mod(std::int64_t a, std::int64_t b, std::int64_t m) {
  std::int64_t result = 0;
  while (b > 0) {
    if (b & 1) {
      result += a;
      if (result >= m) result -= m;
    }
    a += a;
    if (a >= m) a -= m;
    b >>= 1;
  }
  return result;
}
// g = gcd(a, b) = a u + b v for a, b >= 0 (|u| <= b, |v| <= a).
inline std::int64_t extended_gcd(std::int64_t a, std::int64_t b, std::int64_t& u, std::int64_t& v) {
  std::int64_t u0 = 1, v0 = 0, u1 = 0, v1 = 1;
  while (b != 0) {
    const std::int64_t q = a / b;
    std::int64_t t = a - q * b;
    a = b;
    b = t;
    t = u0 - q * u1;
    u0 = u1;
    u1 = t;
    t = v0 - q * v1;
    v0 = v1;
    v1 = t;
  }
  u = u0;
  v = v0;
  return a;
}
inline std::int64_t gcd(std::int64_t a, std::int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Intersects [lo, hi] with the x that satisfy lo_c <= c * x <= hi_c (c != 0).
inline void restrict_by_multiple(std::int64_t c, std::int64_t lo_c, std::int64_t hi_c, std::int64_t& lo,
                                 std::int64_t& hi) {
  if (c > 0) {
    lo = std::max(lo, ceil_div(lo_c, c));
    hi = std::min(hi, floor_div(hi_c, c));
  } else {
    lo = std::max(lo, ceil_div(hi_c, c));
    hi = std::min(hi, floor_div(lo_c, c));
  }
}

}  // namespace overlap_detail

// Whether p x + q y = r has an integer solution with x in [x_lo, x_hi] and y in [y_lo, y_hi]. Exact when every
// |p x|, |q y| and |r| over the boxes stays below 2^62 (offsets inside one allocation do).
inline bool bounded_solution_exists(std::int64_t p, std::int64_t q, std::int64_t r, std::int64_t x_lo,
                                    std::int64_t x_hi, std::int64_t y_lo, std::int64_t y_hi) {
  using namespace overlap_detail;
  if (x_lo > x_hi || y_lo > y_hi) return false;
  if (p == 0 && q == 0) return r == 0;
  if (p == 0) return r % q == 0 && r / q >= y_lo && r / q <= y_hi;
  if (q == 0) return r % p == 0 && r / p >= x_lo && r / p <= x_hi;
  std::int64_t u = 0, v = 0;
  const std::int64_t g = extended_gcd(p < 0 ? -p : p, q < 0 ? -q : q, u, v);
  if (r % g != 0) return false;
  // Every solution has x = x0 (mod m), x0 = u' (r / g) with p u' + q v' = g; y = (r - p x) / q.
  const std::int64_t m = (q < 0 ? -q : q) / g;
  const std::int64_t u_signed = p < 0 ? -u : u;
  const std::int64_t x0 = mul_mod(positive_mod(u_signed, m), positive_mod(r / g, m), m);
  // x within its box and y = (r - p x) / q within its box: r - q y_hi <= p x <= r - q y_lo (q > 0), reversed
  // for q < 0.
  std::int64_t lo = x_lo, hi = x_hi;
  const std::int64_t a = r - q * y_hi, b = r - q * y_lo;
  restrict_by_multiple(p, std::min(a, b), std::max(a, b), lo, hi);
  if (lo > hi) return false;
  return lo + positive_mod(x0 - lo, m) <= hi;
}

namespace overlap_detail {

// The same set of elements with non-negative strides, and stride 0 along dimensions of extent 1.
inline Footprint normalized(Footprint f) {
  if (f.rows == 1) f.stride0 = 0;
  if (f.cols == 1) f.stride1 = 0;
  if (f.stride0 < 0) {
    f.first -= std::uintptr_t((f.rows - 1) * -f.stride0 * f.element_bytes);
    f.stride0 = -f.stride0;
  }
  if (f.stride1 < 0) {
    f.first -= std::uintptr_t((f.cols - 1) * -f.stride1 * f.element_bytes);
    f.stride1 = -f.stride1;
  }
  return f;
}

// Bytes from `first` to the end of the last element; false when that is not below kLimit.
inline bool extent_bytes(const Footprint& f, std::int64_t& bytes) {
  const std::int64_t per_element_limit = kLimit / 4 / std::max<std::int64_t>(f.element_bytes, 1);
  if (f.rows - 1 > 0 && f.stride0 > per_element_limit / (f.rows - 1)) return false;
  if (f.cols - 1 > 0 && f.stride1 > per_element_limit / (f.cols - 1)) return false;
  bytes = ((f.rows - 1) * f.stride0 + (f.cols - 1) * f.stride1 + 1) * f.element_bytes;
  return true;
}

// Whether i a0 + j a1 - (k b0 + l b1) = D for some (i, j) in a's box and (k, l) in b's box (element units).
inline bool grids_meet(const Footprint& a, Footprint b, std::int64_t D) {
  const std::int64_t g = gcd(gcd(a.stride0, a.stride1), gcd(b.stride0, b.stride1));
  if (g == 0) return D == 0;  // both single elements
  if (D % g != 0) return false;
  if (a.stride0 != b.stride0 && a.stride0 == b.stride1 && a.stride1 == b.stride0) {  // b transposed: same set
    std::swap(b.rows, b.cols);
    std::swap(b.stride0, b.stride1);
  }
  if (a.stride0 == b.stride0 && a.stride1 == b.stride1) {
    // one parent's strides: (i - k) a0 + (j - l) a1 = D, i - k in [-(b.rows - 1), a.rows - 1], likewise j - l
    return bounded_solution_exists(a.stride0, a.stride1, D, 1 - b.rows, a.rows - 1, 1 - b.cols, a.cols - 1);
  }
  // Enumerate the shorter dimension of each grid; the longer ones give p x + q y = r with x in a, y in b.
  const bool a_rows_short = a.rows < a.cols, b_rows_short = b.rows < b.cols;
  const std::int64_t a_short = a_rows_short ? a.rows : a.cols, a_long = a_rows_short ? a.cols : a.rows;
  const std::int64_t b_short = b_rows_short ? b.rows : b.cols, b_long = b_rows_short ? b.cols : b.rows;
  const std::int64_t a_short_stride = a_rows_short ? a.stride0 : a.stride1;
  const std::int64_t a_long_stride = a_rows_short ? a.stride1 : a.stride0;
  const std::int64_t b_short_stride = b_rows_short ? b.stride0 : b.stride1;
  const std::int64_t b_long_stride = b_rows_short ? b.stride1 : b.stride0;
  if (a_short > kOverlapPairBudget / b_short) return true;  // undecided: conservative
  for (std::int64_t s = 0; s < a_short; ++s)
    for (std::int64_t t = 0; t < b_short; ++t) {
      const std::int64_t r = D - s * a_short_stride + t * b_short_stride;
      if (bounded_solution_exists(a_long_stride, -b_long_stride, r, 0, a_long - 1, 0, b_long - 1)) return true;
    }
  return false;
}

}  // namespace overlap_detail

// Whether some element of `x` shares a byte with some element of `y` (exact except where the header comment
// says; undecided cases answer true).
inline bool footprints_overlap(const Footprint& x, const Footprint& y) {
  using namespace overlap_detail;
  if (x.rows <= 0 || x.cols <= 0 || y.rows <= 0 || y.cols <= 0) return false;
  const Footprint a = normalized(x), b = normalized(y);
  std::int64_t a_bytes = 0, b_bytes = 0;
  const std::int64_t offset = static_cast<std::int64_t>(b.first - a.first);  // bytes from a's first to b's first
  const bool sizes_known = extent_bytes(a, a_bytes) && extent_bytes(b, b_bytes);
  if (sizes_known && (offset >= a_bytes || -offset >= b_bytes)) return false;  // disjoint address ranges
  if (!sizes_known || a.element_bytes != b.element_bytes || a.element_bytes <= 0) return true;
  if (offset >= kLimit || -offset >= kLimit) return true;
  // Element P of a and element Q of b share a byte iff |E P - offset - E Q| < E, i.e. P - Q is offset / E when
  // that is an integer, else floor(offset / E) or the next integer.
  const std::int64_t E = a.element_bytes;
  const std::int64_t D = floor_div(offset, E);
  if (grids_meet(a, b, D)) return true;
  return offset % E != 0 && grids_meet(a, b, D + 1);
}

// The footprint of a rank-2 View.
template <class View>
Footprint footprint_of(const View& v) {
  Footprint f;
  f.first = reinterpret_cast<std::uintptr_t>(v.data());
  f.rows = static_cast<std::int64_t>(v.extent(0));
  f.cols = static_cast<std::int64_t>(v.extent(1));
  f.stride0 = static_cast<std::int64_t>(v.stride(0));
  f.stride1 = static_cast<std::int64_t>(v.stride(1));
  f.element_bytes = static_cast<std::int64_t>(sizeof(typename View::value_type));
  if (v.data() == nullptr) f.rows = f.cols = 0;  // no memory at all
  return f;
}

}  // namespace Impl
}  // namespace kbla
