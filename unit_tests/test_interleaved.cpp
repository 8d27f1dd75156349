// Operands that interleave in memory without sharing an element, as block Krylov and block Gram-Schmidt use them:
// the column blocks Q and X of one LayoutRight basis V = [Q | X] (X -= Q C by kbla::update, C = Q^H X by
// kbla::inner, X <- X S in place) and the row blocks of one LayoutLeft View (B below A, a small C below both).
// The overlap check must accept them, the result must match a host reference computed by plain loops, and nothing
// but the output may change: Q, the NaN guard rows and columns around the blocks and the small matrices stay bit
// for bit as they were (a kernel writing whole 32-byte sectors past the last column of B would clobber Q's next
// row). The Views live in the default memory space: on a CUDA build they go through the CUDA kernels (src/tpls ->
// src/cuda) at every width class of those kernels, and a CUDA-only part runs the row counts where the bulk-copy
// kernels take over.
#include "kbla_test_helpers.hpp"

#include <cstring>

namespace {

using namespace kbla_test;

template <class Scalar>
class InterleavedTest : public ::testing::Test {};
using InterleavedScalars = ::testing::Types<float, double, cfloat, cdouble>;
TYPED_TEST_SUITE(InterleavedTest, InterleavedScalars);

using Mem = Exec::memory_space;
using Range = std::pair<int, int>;
constexpr bool kOnHost = std::is_same<Exec, Kokkos::DefaultHostExecutionSpace>::value;

// The width classes of the CUDA tall & skinny kernels; each appears three times as M and three times as N, M != N.
const int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64};
constexpr int kWidthCount = int(sizeof(kWidths) / sizeof(kWidths[0]));
const int kPartnerSteps[] = {1, 4, 9};
// Rows: several chunks of every kernel and a partial one (on the host the loops are the same, the data smaller).
const int kRows = kOnHost ? 203 : 2053;

std::vector<std::pair<int, int>> width_pairs() {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < kWidthCount; ++i)
    for (int step : kPartnerSteps) pairs.emplace_back(kWidths[i], kWidths[(i + step) % kWidthCount]);
  return pairs;
}

// ------------------------------------------------------------------------------------------------ storage
// A matrix in the default memory space with a host snapshot: operands are blocks (subviews) of it, the rest
// of it is NaN and must stay so.
template <class Scalar, class Layout>
struct Parent {
  using View = Kokkos::View<Scalar**, Layout, Mem>;
  using Host = typename View::HostMirror;
  using Strided = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem>;

  View view;
  Host before;

  Parent(int rows, int cols, const std::string& label)
      : view(label, rows, cols), before(Kokkos::create_mirror(view)) {}

  // Random entries in `blocks`, NaN everywhere else; becomes the snapshot.
  void fill(std::mt19937_64& rng, const std::vector<std::pair<Range, Range>>& blocks) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int i = 0; i < int(before.extent(0)); ++i)
      for (int j = 0; j < int(before.extent(1)); ++j) before(i, j) = quiet_nan<Scalar>();
    for (const auto& b : blocks)
      for (int i = b.first.first; i < b.first.second; ++i)
        for (int j = b.second.first; j < b.second.second; ++j) {
          const double re = dist(rng), im = dist(rng);
          before(i, j) = ScalarInfo<Scalar>::make(re, im);
        }
    Kokkos::deep_copy(view, before);
  }
  Strided block(Range rows, Range cols) const { return Kokkos::subview(view, rows, cols); }
  Host now() const {
    Host h = Kokkos::create_mirror(view);
    Kokkos::fence();
    Kokkos::deep_copy(h, view);
    return h;
  }
};

// Every entry outside `out` (rows x cols of the parent) bitwise as in the snapshot.
template <class Host>
::testing::AssertionResult unchanged_outside(const Host& before, const Host& after, Range rows, Range cols,
                                             const char* what) {
  using Scalar = typename Host::non_const_value_type;
  long changed = 0;
  std::ostringstream first;
  for (int i = 0; i < int(before.extent(0)); ++i)
    for (int j = 0; j < int(before.extent(1)); ++j) {
      if (i >= rows.first && i < rows.second && j >= cols.first && j < cols.second) continue;
      if (std::memcmp(&before(i, j), &after(i, j), sizeof(Scalar)) != 0 && changed++ < 3)
        first << "\n  (" << i << ", " << j << "): " << to_cld(before(i, j)) << " -> " << to_cld(after(i, j));
    }
  if (changed == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << changed << " entries outside the output changed"
                                       << first.str();
}

// ---------------------------------------------------------------------------------------------- reference
struct Wide {
  long double re = 0, im = 0, abs = 0;
};
template <class Scalar>
Wide widen(const Scalar& x, bool conjugate = false) {
  const cld c = to_cld(x);
  const long double im = conjugate ? -c.imag() : c.imag();
  return {c.real(), im, std::sqrt(c.real() * c.real() + im * im)};
}

// One output entry: the product sum in long double and the magnitude its rounding errors scale with.
struct Entry {
  long double re = 0, im = 0, bound = 0;
  void add(const Wide& a, const Wide& b) {
    re += a.re * b.re - a.im * b.im;
    im += a.re * b.im + a.im * b.re;
    bound += a.abs * b.abs;
  }
};

// got(i, j) against alpha * sums(i, j) + beta * old(i, j) (old not read when beta = 0), entry by entry.
template <class Scalar, class Host>
::testing::AssertionResult entries_match(const std::vector<Entry>& sums, int rows, int cols, long long inner,
                                         const Scalar& alpha, const Scalar& beta, const Host& old_view,
                                         Range old_rows, Range old_cols, const Host& got_view, Range got_rows,
                                         Range got_cols) {
  const Wide a = widen(alpha), b = widen(beta);
  const bool beta_zero = b.re == 0 && b.im == 0;
  const long double factor = tolerance_factor(arith<Scalar>(), inner);
  long bad = 0;
  std::ostringstream first;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const Entry& s = sums[std::size_t(i) * cols + j];
      long double re = a.re * s.re - a.im * s.im, im = a.re * s.im + a.im * s.re, bound = a.abs * s.bound;
      if (!beta_zero) {
        const Wide o = widen(old_view(old_rows.first + i, old_cols.first + j));
        re += b.re * o.re - b.im * o.im;
        im += b.re * o.im + b.im * o.re;
        bound += b.abs * o.abs;
      }
      const Wide g = widen(got_view(got_rows.first + i, got_cols.first + j));
      const long double err = std::sqrt((g.re - re) * (g.re - re) + (g.im - im) * (g.im - im));
      if (!(err <= factor * bound) && bad++ < 3)
        first << "\n  (" << i << ", " << j << "): got (" << g.re << ", " << g.im << "), expected (" << re << ", "
              << im << "), |error| " << err << " > " << factor * bound;
    }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << long(rows) * cols << " entries off the reference"
                                       << first.str();
}

// sums(i, j) = sum_m A(i, m) C(m, j) for A = blockA of hostA, C = blockC of hostC (update: B = alpha A C + beta B).
template <class HostA, class HostC>
std::vector<Entry> product_sums(const HostA& hostA, Range ar, Range ac, const HostC& hostC, Range cr, Range cc) {
  const int K = ar.second - ar.first, M = ac.second - ac.first, N = cc.second - cc.first;
  std::vector<Wide> c(std::size_t(M) * N);  // column j of C contiguous
  for (int j = 0; j < N; ++j)
    for (int m = 0; m < M; ++m) c[std::size_t(j) * M + m] = widen(hostC(cr.first + m, cc.first + j));
  std::vector<Entry> sums(std::size_t(K) * N);
  std::vector<Wide> row(M);
  for (int i = 0; i < K; ++i) {
    for (int m = 0; m < M; ++m) row[m] = widen(hostA(ar.first + i, ac.first + m));
    for (int j = 0; j < N; ++j) {
      Entry& e = sums[std::size_t(i) * N + j];
      for (int m = 0; m < M; ++m) e.add(row[m], c[std::size_t(j) * M + m]);
    }
  }
  return sums;
}

// sums(m, n) = sum_k conj(A(k, m)) B(k, n) (inner: C = alpha A^H B + beta C).
template <class Host>
std::vector<Entry> inner_sums(const Host& hostA, Range ar, Range ac, const Host& hostB, Range br, Range bc) {
  const int K = ar.second - ar.first, M = ac.second - ac.first, N = bc.second - bc.first;
  std::vector<Entry> sums(std::size_t(M) * N);
  std::vector<Wide> a(M), b(N);
  for (int k = 0; k < K; ++k) {
    for (int m = 0; m < M; ++m) a[m] = widen(hostA(ar.first + k, ac.first + m), true);
    for (int n = 0; n < N; ++n) b[n] = widen(hostB(br.first + k, bc.first + n));
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) sums[std::size_t(m) * N + n].add(a[m], b[n]);
  }
  return sums;
}

template <class Scalar>
Scalar random_coefficient(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  return ScalarInfo<Scalar>::make(dist(rng), ScalarInfo<Scalar>::is_complex ? dist(rng) - 1.0 : 0.0);
}

inline std::mt19937_64 rng_for(std::uint64_t salt) { return std::mt19937_64(seed_for_current_test(salt)); }

std::string widths_trace(const char* what, int K, int M, int N) {
  return std::string(what) + ": K=" + std::to_string(K) + " M=" + std::to_string(M) + " N=" + std::to_string(N);
}

// ------------------------------------------------------------------------------ column blocks, LayoutRight
// Parent (K + 2) x (M + N + 3), row-major: a NaN guard row above and below, Q = columns [0, M), X = columns
// [M, M + N), three NaN guard columns after X. The small matrices live in their own NaN-guarded parents.
template <class Scalar>
struct RightBasis {
  int K, M, N;
  Range rows, q_cols, x_cols;
  Parent<Scalar, Kokkos::LayoutRight> basis;
  RightBasis(std::mt19937_64& rng, int K_, int M_, int N_, bool x_nan)
      : K(K_), M(M_), N(N_), rows(1, K_ + 1), q_cols(0, M_), x_cols(M_, M_ + N_),
        basis(K_ + 2, M_ + N_ + 3, "kbla_test basis [Q | X]") {
    std::vector<std::pair<Range, Range>> random{{rows, q_cols}};
    if (!x_nan) random.push_back({rows, x_cols});
    basis.fill(rng, random);
  }
  typename Parent<Scalar, Kokkos::LayoutRight>::Strided Q() const { return basis.block(rows, q_cols); }
  typename Parent<Scalar, Kokkos::LayoutRight>::Strided X() const { return basis.block(rows, x_cols); }
};

// A small matrix (rows x cols) inside a NaN frame (one row above, one column after), column-major.
template <class Scalar>
struct Small {
  Range rows, cols;
  Parent<Scalar, Kokkos::LayoutLeft> frame;
  Small(std::mt19937_64& rng, int r, int c, bool nan)
      : rows(1, r + 1), cols(0, c), frame(r + 2, c + 1, "kbla_test small") {
    frame.fill(rng, nan ? std::vector<std::pair<Range, Range>>{} : std::vector<std::pair<Range, Range>>{{rows, cols}});
  }
  typename Parent<Scalar, Kokkos::LayoutLeft>::Strided view() const { return frame.block(rows, cols); }
};

// X = alpha Q C + beta X on column blocks of one LayoutRight basis (X -= Q C: alpha = -1, beta = 1).
template <class Scalar>
void update_on_right_basis(int K, int M, int N, const Scalar& alpha, const Scalar& beta, bool through_gemm) {
  SCOPED_TRACE(widths_trace(through_gemm ? "gemm N N into a column block" : "update X = alpha Q C + beta X", K, M, N));
  auto rng = rng_for(std::uint64_t(K) * 131 + M * 7 + N);
  const bool beta_zero = beta == Scalar(0);
  RightBasis<Scalar> V(rng, K, M, N, beta_zero);  // beta = 0 never reads X: NaN there must not spread
  Small<Scalar> C(rng, M, N, false);
  if (through_gemm) {
    ASSERT_NO_THROW(kbla::gemm(Exec(), "N", "N", alpha, V.Q(), C.view(), beta, V.X()));
  } else {
    ASSERT_NO_THROW(kbla::update(Exec(), alpha, V.Q(), C.view(), beta, V.X()));
  }
  const auto after = V.basis.now();
  EXPECT_TRUE(entries_match(product_sums(V.basis.before, V.rows, V.q_cols, C.frame.before, C.rows, C.cols), K, N, M,
                            alpha, beta, V.basis.before, V.rows, V.x_cols, after, V.rows, V.x_cols));
  EXPECT_TRUE(unchanged_outside(V.basis.before, after, V.rows, V.x_cols, "basis [Q | X]"));
  EXPECT_TRUE(unchanged_outside(C.frame.before, C.frame.now(), {0, 0}, {0, 0}, "C"));
}

// C = alpha Q^H X + beta C with Q and X column blocks of one LayoutRight basis.
template <class Scalar>
void inner_on_right_basis(int K, int M, int N, const Scalar& alpha, const Scalar& beta, bool through_gemm) {
  SCOPED_TRACE(
      widths_trace(through_gemm ? "gemm C N of two column blocks" : "inner C = alpha Q^H X + beta C", K, M, N));
  auto rng = rng_for(std::uint64_t(K) * 137 + M * 11 + N);
  RightBasis<Scalar> V(rng, K, M, N, false);
  Small<Scalar> C(rng, M, N, beta == Scalar(0));
  if (through_gemm) {
    ASSERT_NO_THROW(kbla::gemm(Exec(), "C", "N", alpha, V.Q(), V.X(), beta, C.view()));
  } else {
    ASSERT_NO_THROW(kbla::inner(Exec(), alpha, V.Q(), V.X(), beta, C.view()));
  }
  const auto c_after = C.frame.now();
  EXPECT_TRUE(entries_match(inner_sums(V.basis.before, V.rows, V.q_cols, V.basis.before, V.rows, V.x_cols), M, N, K,
                            alpha, beta, C.frame.before, C.rows, C.cols, c_after, C.rows, C.cols));
  EXPECT_TRUE(unchanged_outside(C.frame.before, c_after, C.rows, C.cols, "C's frame"));
  EXPECT_TRUE(unchanged_outside(V.basis.before, V.basis.now(), {0, 0}, {0, 0}, "basis [Q | X]"));
}

// X <- alpha X S (update_in_place) and X <- alpha X S + beta X (update with B = A) on the column block X of
// [Q | X]: Q is read by neither and must stay as it was.
template <class Scalar>
void in_place_on_right_basis(int K, int M, int N, const Scalar& alpha, const Scalar& beta, bool through_update) {
  SCOPED_TRACE(widths_trace(through_update ? "update(X, S, beta, X) on a column block"
                                           : "update_in_place on a column block",
                            K, M, N));
  auto rng = rng_for(std::uint64_t(K) * 139 + M * 13 + N);
  RightBasis<Scalar> V(rng, K, M, N, false);
  Small<Scalar> S(rng, N, N, false);
  const Scalar b = through_update ? beta : Scalar(0);
  if (through_update) {
    ASSERT_NO_THROW(kbla::update(Exec(), alpha, V.X(), S.view(), b, V.X()));
  } else {
    ASSERT_NO_THROW(kbla::update_in_place(Exec(), alpha, V.X(), S.view()));
  }
  const auto after = V.basis.now();
  EXPECT_TRUE(entries_match(product_sums(V.basis.before, V.rows, V.x_cols, S.frame.before, S.rows, S.cols), K, N, N,
                            alpha, b, V.basis.before, V.rows, V.x_cols, after, V.rows, V.x_cols));
  EXPECT_TRUE(unchanged_outside(V.basis.before, after, V.rows, V.x_cols, "basis [Q | X]"));
}

// ------------------------------------------------------------------------------ row blocks, LayoutLeft
// Parent (2K + 3 + max(M, N)) x (max(M, N) + 1), column-major: A = rows [0, K) x columns [0, M), a NaN row, B =
// rows [K + 1, 2K + 1) x columns [0, N), a NaN row, then the small block rows [2K + 2, 2K + 2 + rows) x [0, cols)
// (C of update, the output of inner, or S of the in-place update); a NaN column at the end. B interleaves with A
// and with the small block (each column of the parent holds a piece of each).
template <class Scalar>
struct LeftStack {
  int K, M, N;
  Range a_rows, b_rows;
  Parent<Scalar, Kokkos::LayoutLeft> stack;
  LeftStack(int K_, int M_, int N_)
      : K(K_), M(M_), N(N_), a_rows(0, K_), b_rows(K_ + 1, 2 * K_ + 1),
        stack(2 * K_ + 3 + std::max(M_, N_), std::max(M_, N_) + 1, "kbla_test stacked rows") {}
  Range small_rows(int r) const { return {2 * K + 2, 2 * K + 2 + r}; }
  typename Parent<Scalar, Kokkos::LayoutLeft>::Strided block(Range r, Range c) const { return stack.block(r, c); }
};

// B = alpha A C + beta B with A, B and C row blocks of one column-major View.
template <class Scalar>
void update_on_left_rows(int K, int M, int N, const Scalar& alpha, const Scalar& beta) {
  SCOPED_TRACE(widths_trace("update on row blocks of one LayoutLeft View", K, M, N));
  auto rng = rng_for(std::uint64_t(K) * 149 + M * 17 + N);
  LeftStack<Scalar> W(K, M, N);
  const Range a_cols(0, M), b_cols(0, N), c_rows = W.small_rows(M), c_cols(0, N);
  const bool beta_zero = beta == Scalar(0);
  std::vector<std::pair<Range, Range>> random{{W.a_rows, a_cols}, {c_rows, c_cols}};
  if (!beta_zero) random.push_back({W.b_rows, b_cols});
  W.stack.fill(rng, random);
  ASSERT_NO_THROW(kbla::update(Exec(), alpha, W.block(W.a_rows, a_cols), W.block(c_rows, c_cols), beta,
                               W.block(W.b_rows, b_cols)));
  const auto after = W.stack.now();
  EXPECT_TRUE(entries_match(product_sums(W.stack.before, W.a_rows, a_cols, W.stack.before, c_rows, c_cols), K, N, M,
                            alpha, beta, W.stack.before, W.b_rows, b_cols, after, W.b_rows, b_cols));
  EXPECT_TRUE(unchanged_outside(W.stack.before, after, W.b_rows, b_cols, "stacked rows"));
}

// C = alpha A^H B + beta C with A, B and C row blocks of one column-major View (C in the rows below A and B).
template <class Scalar>
void inner_on_left_rows(int K, int M, int N, const Scalar& alpha, const Scalar& beta) {
  SCOPED_TRACE(widths_trace("inner on row blocks of one LayoutLeft View", K, M, N));
  auto rng = rng_for(std::uint64_t(K) * 151 + M * 19 + N);
  LeftStack<Scalar> W(K, M, N);
  const Range a_cols(0, M), b_cols(0, N), c_rows = W.small_rows(M), c_cols(0, N);
  std::vector<std::pair<Range, Range>> random{{W.a_rows, a_cols}, {W.b_rows, b_cols}};
  if (beta != Scalar(0)) random.push_back({c_rows, c_cols});
  W.stack.fill(rng, random);
  ASSERT_NO_THROW(kbla::inner(Exec(), alpha, W.block(W.a_rows, a_cols), W.block(W.b_rows, b_cols), beta,
                              W.block(c_rows, c_cols)));
  const auto after = W.stack.now();
  EXPECT_TRUE(entries_match(inner_sums(W.stack.before, W.a_rows, a_cols, W.stack.before, W.b_rows, b_cols), M, N, K,
                            alpha, beta, W.stack.before, c_rows, c_cols, after, c_rows, c_cols));
  EXPECT_TRUE(unchanged_outside(W.stack.before, after, c_rows, c_cols, "stacked rows"));
}

// X <- alpha X S in place, X and S row blocks of one column-major View (S in the rows below X).
template <class Scalar>
void in_place_on_left_rows(int K, int N, const Scalar& alpha) {
  SCOPED_TRACE(widths_trace("update_in_place on row blocks of one LayoutLeft View", K, N, N));
  auto rng = rng_for(std::uint64_t(K) * 157 + N);
  LeftStack<Scalar> W(K, N, N);
  const Range x_cols(0, N), s_rows = W.small_rows(N), s_cols(0, N);
  W.stack.fill(rng, {{W.b_rows, x_cols}, {s_rows, s_cols}});
  ASSERT_NO_THROW(kbla::update_in_place(Exec(), alpha, W.block(W.b_rows, x_cols), W.block(s_rows, s_cols)));
  const auto after = W.stack.now();
  EXPECT_TRUE(entries_match(product_sums(W.stack.before, W.b_rows, x_cols, W.stack.before, s_rows, s_cols), K, N, N,
                            alpha, Scalar(0), W.stack.before, W.b_rows, x_cols, after, W.b_rows, x_cols));
  EXPECT_TRUE(unchanged_outside(W.stack.before, after, W.b_rows, x_cols, "stacked rows"));
}

// ------------------------------------------------------------------------------------------------- parts
template <class Scalar>
void UpdateColumnBlocksOfLayoutRightBasis() {
  auto rng = rng_for(1);
  int index = 0;
  for (const auto& mn : width_pairs()) {
    update_on_right_basis<Scalar>(kRows, mn.first, mn.second, Scalar(-1), Scalar(1), false);  // X -= Q C
    update_on_right_basis<Scalar>(kRows, mn.first, mn.second, random_coefficient<Scalar>(rng), Scalar(0), false);
    if (index++ % 3 == 0)
      update_on_right_basis<Scalar>(kRows, mn.first, mn.second, random_coefficient<Scalar>(rng),
                                    random_coefficient<Scalar>(rng), true);
  }
}

template <class Scalar>
void InnerColumnBlocksOfLayoutRightBasis() {
  auto rng = rng_for(2);
  int index = 0;
  for (const auto& mn : width_pairs()) {
    inner_on_right_basis<Scalar>(kRows, mn.first, mn.second, Scalar(1), Scalar(0), false);  // C = Q^H X
    inner_on_right_basis<Scalar>(kRows, mn.first, mn.second, random_coefficient<Scalar>(rng),
                                 random_coefficient<Scalar>(rng), false);
    if (index++ % 3 == 1)
      inner_on_right_basis<Scalar>(kRows, mn.first, mn.second, random_coefficient<Scalar>(rng), Scalar(0), true);
  }
}

template <class Scalar>
void InPlaceColumnBlockOfLayoutRightBasis() {
  auto rng = rng_for(3);
  for (int i = 0; i < kWidthCount; ++i) {
    const int M = kWidths[(i + 5) % kWidthCount], N = kWidths[i];
    in_place_on_right_basis<Scalar>(kRows, M, N, random_coefficient<Scalar>(rng), Scalar(0), false);
    in_place_on_right_basis<Scalar>(kRows, M, N, random_coefficient<Scalar>(rng), random_coefficient<Scalar>(rng),
                                    true);
  }
}

template <class Scalar>
void RowBlocksOfLayoutLeftView() {
  auto rng = rng_for(4);
  int index = 0;
  for (const auto& mn : width_pairs()) {
    const bool general = index++ % 2 == 0;
    const Scalar alpha = random_coefficient<Scalar>(rng), beta = general ? random_coefficient<Scalar>(rng) : Scalar(0);
    update_on_left_rows<Scalar>(kRows, mn.first, mn.second, alpha, beta);
    inner_on_left_rows<Scalar>(kRows, mn.first, mn.second, alpha, beta);
  }
  for (int N : kWidths) in_place_on_left_rows<Scalar>(kRows, N, random_coefficient<Scalar>(rng));
  // the shape: a 3 x 3 C in rows 64..66 of the View whose rows 0..63 are A
  inner_on_left_rows<Scalar>(64, 3, 3, Scalar(1), Scalar(0));
}

// KokkosBlas::gemm (cuBLAS on CUDA) and strassen_gemm writing a column block of a row-major View that also holds
// A: not tall & skinny, so neither goes to the tall & skinny kernels.
template <class Scalar>
void GeneralProductsIntoColumnBlocks() {
  auto rng = rng_for(5);
  for (const bool strassen : {false, true}) {
    const int K = 70, M = 66, N = 66;
    SCOPED_TRACE(strassen ? "strassen_gemm into a column block" : "gemm into a column block");
    RightBasis<Scalar> V(rng, K, M, N, false);
    Small<Scalar> C(rng, M, N, false);
    const Scalar alpha = random_coefficient<Scalar>(rng), beta = random_coefficient<Scalar>(rng);
    if (strassen) {
      kbla::GemmOptions o;
      o.winograd_tau = 32;  // the portable path splits at this size too
      ASSERT_NO_THROW(kbla::strassen_gemm(Exec(), "N", "N", alpha, V.Q(), C.view(), beta, V.X(), o));
    } else {
      ASSERT_NO_THROW(kbla::gemm(Exec(), "N", "N", alpha, V.Q(), C.view(), beta, V.X()));
    }
    const auto after = V.basis.now();
    auto sums = product_sums(V.basis.before, V.rows, V.q_cols, C.frame.before, C.rows, C.cols);
    if (strassen) {
      // Strassen's error is normwise (kbla_options.hpp): eps |alpha| 12 (k0^2 + 5 k0) |Q|_max |C|_max for one
      // level, k0 = ceil(M / 2); entries have modulus <= 1 (complex: <= sqrt 2, and complex arithmetic's larger
      // product error: x 4). Added to every entry's bound, divided by the test's factor (M + 2 or M + 6) / eps.
      constexpr bool is_complex = ScalarInfo<Scalar>::is_complex;
      const long double k0 = (M + 1) / 2, normwise = 12 * (k0 * k0 + 5 * k0) * (is_complex ? 4 : 1);
      const long double scale = normwise / (M + (is_complex ? 6 : 2));
      for (auto& s : sums) s.bound += scale;
    }
    EXPECT_TRUE(entries_match(sums, K, N, M, alpha, beta, V.basis.before, V.rows, V.x_cols, after, V.rows, V.x_cols));
    EXPECT_TRUE(unchanged_outside(V.basis.before, after, V.rows, V.x_cols, "basis [Q | X]"));
  }
}

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA builds only (registered there): row counts at which the CUDA bulk-copy kernels (column-major double and
// complex, row-major complex, beta = 0, tall_skinny_params.hpp) run their whole chunks and hand the remainder to the
// other kernels.
template <class Scalar>
void LongBlocksOnTheDevice() {
  auto rng = rng_for(6);
  const Scalar alpha = random_coefficient<Scalar>(rng);
  if (ScalarInfo<Scalar>::is_complex) {
    update_on_left_rows<Scalar>((1 << 13) + 5, 20, 17, alpha, Scalar(0));
    update_on_right_basis<Scalar>((1 << 18) + 3, 36, 34, alpha, Scalar(0), false);
  } else {
    update_on_left_rows<Scalar>((1 << 18) + 3, 30, 27, alpha, Scalar(0));
    update_on_right_basis<Scalar>((1 << 17) + 5, 24, 31, alpha, Scalar(0), false);
  }
  inner_on_right_basis<Scalar>((1 << 17) + 5, 8, 5, alpha, Scalar(0), false);
}
#endif

TYPED_TEST(InterleavedTest, UpdateColumnBlocksOfLayoutRightBasis) { KBLA_PART(UpdateColumnBlocksOfLayoutRightBasis); }
TYPED_TEST(InterleavedTest, InnerColumnBlocksOfLayoutRightBasis) { KBLA_PART(InnerColumnBlocksOfLayoutRightBasis); }
TYPED_TEST(InterleavedTest, InPlaceColumnBlockOfLayoutRightBasis) { KBLA_PART(InPlaceColumnBlockOfLayoutRightBasis); }
TYPED_TEST(InterleavedTest, RowBlocksOfLayoutLeftView) { KBLA_PART(RowBlocksOfLayoutLeftView); }
TYPED_TEST(InterleavedTest, GeneralProductsIntoColumnBlocks) { KBLA_PART(GeneralProductsIntoColumnBlocks); }
#if defined(KOKKOS_ENABLE_CUDA)
TYPED_TEST(InterleavedTest, LongBlocksOnTheDevice) { KBLA_PART(LongBlocksOnTheDevice); }
#endif

}  // namespace
