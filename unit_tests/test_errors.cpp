// Bad input to kbla::inner, kbla::update, kbla::update_in_place and kbla::gemm: each case must throw
// std::invalid_argument whose message names the call, the argument and the sizes, and must leave the output
// (and the inputs) bitwise untouched. Also: aliasing that IS allowed (in place, disjoint parts of one allocation).
#include "kbla_test_helpers.hpp"

namespace {

using namespace kbla_test;

template <class Cfg>
class ErrorTest : public ::testing::Test {};
TYPED_TEST_SUITE(ErrorTest, ErrorConfigs);

// ------------------------------------------------------------------------------------------------- inner
template <class TypeParam>
void InnerMismatchedExtents() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  {  // B has fewer rows than A
    auto A = mk.matrix<Scalar, LA, Dev>(10, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(9, 2);
    auto C = mk.matrix<Scalar, LC, Dev>(3, 2);
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, beta, C.view); },
                               {"kbla::inner", "B is 9 x 2", "must be 10 x 2"}));
    EXPECT_TRUE(C.unchanged());
    EXPECT_TRUE(A.unchanged());
    EXPECT_TRUE(B.unchanged());
  }
  for (auto mn : {std::make_pair(4, 2), std::make_pair(3, 3), std::make_pair(2, 3)}) {  // C is not M x N
    auto A = mk.matrix<Scalar, LA, Dev>(10, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(10, 2);
    auto C = mk.matrix<Scalar, LC, Dev>(mn.first, mn.second);
    const std::string shape = std::to_string(mn.first) + " x " + std::to_string(mn.second);
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, beta, C.view); },
                               {"kbla::inner", "C is " + shape, "must be 3 x 2"}));
    EXPECT_TRUE(C.unchanged());
  }
  {  // K = 0 is valid, but the other extents are still checked; beta = 0 must not zero C before the check
    auto A = mk.matrix<Scalar, LA, Dev>(0, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(0, 2);
    auto C = mk.matrix<Scalar, LC, Dev>(2, 2);
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, Scalar(0), C.view); },
                               {"kbla::inner", "C is 2 x 2", "must be 3 x 2"}));
    EXPECT_TRUE(C.unchanged());
  }
  {  // deterministic option: same checks
    auto A = mk.matrix<Scalar, LA, Dev>(10, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(11, 2);
    auto C = mk.matrix<Scalar, LC, Dev>(3, 2);
    kbla::InnerOptions det;
    det.deterministic = true;
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, beta, C.view, det); },
                               {"kbla::inner", "B is 11 x 2", "must be 10 x 2"}));
    EXPECT_TRUE(C.unchanged());
  }
}

template <class TypeParam>
void InnerOutputAliasesInput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  auto A = mk.matrix<Scalar, LA, Dev>(12, 3);
  auto B = mk.matrix<Scalar, LB, Dev>(12, 2);
  // C inside A's memory, inside B's memory, straddling A's last entries
  const auto in_A = alias_view<LC>(A, 3, 2, 5);
  const auto in_B = alias_view<LC>(B, 3, 2, 0);
  const auto tail_of_A = alias_view<LC>(A, 3, 2, 36 - 3);
  EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, beta, in_A); },
                             {"kbla::inner", "output C (3 x 2) overlaps input A (12 x 3)"}));
  EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, Scalar(0), in_B); },
                             {"kbla::inner", "output C (3 x 2) overlaps input B (12 x 2)"}));
  EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A.view, B.view, beta, tail_of_A); },
                             {"kbla::inner", "overlaps input A"}));
  EXPECT_TRUE(A.unchanged());  // C's memory is A's and B's: untouched means these are bitwise the same
  EXPECT_TRUE(B.unchanged());
  // C is A itself (K = M = N)
  auto X = mk.matrix<Scalar, LA, Dev>(4, 4);
  auto Y = mk.matrix<Scalar, LB, Dev>(4, 4);
  EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, X.view, Y.view, Scalar(0), alias_view<LC>(X, 4, 4, 0)); },
                             {"kbla::inner", "output C (4 x 4) overlaps input A (4 x 4)"}));
  EXPECT_TRUE(X.unchanged());
  EXPECT_TRUE(Y.unchanged());
}

// ------------------------------------------------------------------------------------------------ update
template <class TypeParam>
void UpdateMismatchedExtents() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  struct Shape {
    int a0, a1, c0, c1, b0, b1;
    std::vector<std::string> parts;
  };
  const Shape shapes[] = {
      {10, 3, 4, 2, 10, 2, {"kbla::update", "C is 4 x 2", "must be 3 x 2"}},     // C's rows != A's columns
      {10, 3, 3, 2, 9, 2, {"kbla::update", "B is 9 x 2", "must be 10 x 2"}},     // B's rows != A's rows
      {10, 3, 3, 2, 10, 3, {"kbla::update", "B is 10 x 3", "must be 10 x 2"}},   // B's columns != C's columns
      {0, 3, 3, 2, 0, 1, {"kbla::update", "B is 0 x 1", "must be 0 x 2"}},       // K = 0 still checked
      {10, 0, 1, 2, 10, 2, {"kbla::update", "C is 1 x 2", "must be 0 x 2"}},     // M = 0 still checked
  };
  for (const auto& s : shapes) {
    auto A = mk.matrix<Scalar, LA, Dev>(s.a0, s.a1);
    auto C = mk.matrix<Scalar, LB, Dev>(s.c0, s.c1);
    auto B = mk.matrix<Scalar, LC, Dev>(s.b0, s.b1);
    for (const Scalar b : {beta, Scalar(0)}) {
      ::testing::AssertionResult r = ::testing::AssertionFailure();
      try {
        kbla::update(exec, alpha, A.view, C.view, b, B.view);
        r = ::testing::AssertionFailure() << "did not throw";
      } catch (const std::invalid_argument& e) {
        r = ::testing::AssertionSuccess();
        for (const auto& p : s.parts)
          if (std::string(e.what()).find(p) == std::string::npos)
            r = ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << p << "\"";
      }
      EXPECT_TRUE(r) << "A " << s.a0 << "x" << s.a1 << ", C " << s.c0 << "x" << s.c1 << ", B " << s.b0 << "x" << s.b1;
      EXPECT_TRUE(B.unchanged());
      EXPECT_TRUE(A.unchanged());
      EXPECT_TRUE(C.unchanged());
    }
  }
}

// B sharing memory with A (other than being the very same View) or with C. A and B are subviews of one
// column-major K x 5 parent (held as LayoutStride Views, as users get them from Kokkos::subview).
template <class TypeParam>
void UpdateOutputOverlapsInput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LB = typename TypeParam::layout_b;
  using Strided = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev>;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  const int K = 20;
  const auto all = Kokkos::ALL;
  const auto cols = [](int j0, int j1) { return std::make_pair(j0, j1); };
  auto P = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K, 5);
  auto C = mk.matrix<Scalar, LB, Dev>(3, 2);
  auto C3 = mk.matrix<Scalar, LB, Dev>(3, 3);
  {  // A = columns [0, 3), B = columns [2, 4): they share column 2
    const Strided A = Kokkos::subview(P.view, all, cols(0, 3)), B = Kokkos::subview(P.view, all, cols(2, 4));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, A, C.view, beta, B); },
                               {"kbla::update", "output B (20 x 2) overlaps input A (20 x 3)"}));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, A, C.view, Scalar(0), B); }, {"overlaps input A"}));
  }
  {  // same first element, different shape: B = columns [0, 2), A = columns [0, 3) (not the in-place form)
    const Strided A = Kokkos::subview(P.view, all, cols(0, 3)), B = Kokkos::subview(P.view, all, cols(0, 2));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, A, C.view, beta, B); },
                               {"kbla::update", "output B (20 x 2) overlaps input A (20 x 3)"}));
  }
  {  // same first element and shape, other strides: A = rows [0, 10) x columns [0, 3) of the parent, B the
     // 10 x 3 matrix with strides (2, K) from the same address
    const Strided A = Kokkos::subview(P.view, std::make_pair(0, 10), cols(0, 3));
    const Strided B = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        P.view.data(), Kokkos::LayoutStride(10, 2, 3, K));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, A, C3.view, beta, B); },
                               {"kbla::update", "output B (10 x 3) overlaps input A (10 x 3)"}));
  }
  {  // B = columns [3, 5), and the small C is a 3 x 2 block inside B's memory (column 3, rows 4..)
    auto A0 = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K, 3);
    const Strided A = A0.view, B = Kokkos::subview(P.view, all, cols(3, 5));
    const auto Cin = alias_view<LB>(P, 3, 2, 3 * K + 4);
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, A, Cin, beta, B); },
                               {"kbla::update", "output B (20 x 2) overlaps input C (3 x 2)"}));
    EXPECT_TRUE(A0.unchanged());
  }
  EXPECT_TRUE(P.unchanged());
  EXPECT_TRUE(C.unchanged());
  EXPECT_TRUE(C3.unchanged());
}

// The in-place forms name the call the user made and the rule broken: update_in_place speaks of X and C (never of
// kbla::update, A or M), update with B = A of "in place needs a square C".
template <class TypeParam>
void UpdateInPlaceNeedsSquareC() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  auto X = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(15, 3);
  auto C32 = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(3, 2);
  auto C44 = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(4, 4);
  const std::vector<std::string> not_update = {"kbla::update:", " A ", "A (", " M "};
  EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(exec, alpha, X.view, C32.view); },
                             {"kbla::update_in_place: C is 3 x 2 but must be 3 x 3", "must be square",
                              "X's 3 columns"},
                             not_update));
  EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(exec, alpha, X.view, C44.view); },
                             {"kbla::update_in_place: C is 4 x 4 but must be 3 x 3", "must be square"}, not_update));
  EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(alpha, X.view, C32.view); },  // default instance
                             {"kbla::update_in_place: C is 3 x 2", "must be square"}, not_update));
  // the in-place form of update itself: X * C with a non-square C cannot land in X
  EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, X.view, C32.view, beta, X.view); },
                             {"kbla::update: C is 3 x 2 but must be 3 x 3", "in place needs a square C"}));
  EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, X.view, C44.view, Scalar(0), X.view); },
                             {"kbla::update: C is 4 x 4 but must be 3 x 3", "in place needs a square C"}));
  EXPECT_TRUE(X.unchanged());
  EXPECT_TRUE(C32.unchanged());
  EXPECT_TRUE(C44.unchanged());
  // C inside X's memory: named as update_in_place's X and C
  auto Y = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(15, 3);
  const auto in_Y = alias_view<typename TypeParam::layout_b>(Y, 3, 3, 4);
  EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(exec, alpha, Y.view, in_Y); },
                             {"kbla::update_in_place: output X (15 x 3) overlaps input C (3 x 3)"}, not_update));
  EXPECT_TRUE(Y.unchanged());
}

// Blocks of one allocation that really share elements still throw, whatever their layout: a column in common of
// two column blocks of a LayoutRight basis, a strided View (other strides) reaching into Q, a C inside A's rows,
// a row block of a LayoutLeft View one row too high. The same shapes one column / row further are accepted.
template <class TypeParam>
void InterleavedBlocksThatShareElements() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using Strided = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev>;
  using Unmanaged = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  const int K = 50, width = 12;
  const auto all = Kokkos::ALL;
  const auto cols = [](int j0, int j1) { return std::make_pair(j0, j1); };
  auto V = mk.matrix<Scalar, Kokkos::LayoutRight, Dev>(K, width);  // the basis [Q | X]
  auto C84 = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(8, 4);
  auto C82 = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(8, 2);
  auto S = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(4, 4);
  const Strided Q = Kokkos::subview(V.view, all, cols(0, 8));
  {  // X = columns [7, 11): column 7 is Q's
    const Strided X = Kokkos::subview(V.view, all, cols(7, 11));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, Scalar(-1), Q, C84.view, Scalar(1), X); },
                               {"kbla::update: output B (50 x 4) overlaps input A (50 x 8)"}));
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "N", alpha, Q, C84.view, beta, X); },
                               {"kbla::gemm: output C (50 x 4) overlaps input A (50 x 8)"}));
  }
  {  // every other column from column 1 (strides (12, 2)): columns 1, 3 are Q's
    const Strided odd = Unmanaged(V.view.data() + 1, Kokkos::LayoutStride(K, width, 2, 2));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, Q, C82.view, beta, odd); },
                               {"kbla::update: output B (50 x 2) overlaps input A (50 x 8)"}));
  }
  {  // C = rows [0, 8) x columns [8, 12) of the basis, X = columns [8, 12): C inside X
    const Strided X = Kokkos::subview(V.view, all, cols(8, 12));
    const Strided C = Kokkos::subview(V.view, cols(0, 8), cols(8, 12));
    EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, alpha, Q, C, beta, X); },
                               {"kbla::update: output B (50 x 4) overlaps input C (8 x 4)"}));
    // inner with its output in the first rows of its input A
    const Strided G = Kokkos::subview(V.view, cols(0, 8), cols(0, 4));
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, Q, X, Scalar(0), G); },
                               {"kbla::inner: output C (8 x 4) overlaps input A (50 x 8)"}));
    const Strided S_in_X = Kokkos::subview(V.view, cols(3, 7), cols(8, 12));
    EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(exec, alpha, X, S_in_X); },
                               {"kbla::update_in_place: output X (50 x 4) overlaps input C (4 x 4)"}));
  }
  EXPECT_TRUE(V.unchanged());
  {  // row blocks of a column-major (K + 3) x 3 View: C = rows [K - 1, K + 2) reaches into A = rows [0, K)
    auto W = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K + 3, 3);
    auto B = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K, 3);
    const Strided A = Kokkos::subview(W.view, cols(0, K), all);
    const Strided C_high = Kokkos::subview(W.view, cols(K - 1, K + 2), all);
    EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, alpha, A, B.view, beta, C_high); },
                               {"kbla::inner: output C (3 x 3) overlaps input A (" + std::to_string(K) + " x 3)"}));
    EXPECT_TRUE(W.unchanged());
    const Strided C_below = Kokkos::subview(W.view, cols(K, K + 3), all);
    EXPECT_NO_THROW(kbla::inner(exec, alpha, A, B.view, beta, C_below));
    Dense W1 = W.now(), W0 = W.initial();
    Dense A0(K, 3), C0(3, 3), C1(3, 3);
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < K; ++i) A0(i, j) = W0(i, j);
      for (int i = 0; i < 3; ++i) C0(i, j) = W0(K + i, j), C1(i, j) = W1(K + i, j);
    }
    EXPECT_TRUE(matches(C1, reference('C', 'N', to_cld(alpha), A0, B.initial(), to_cld(beta), C0), arith<Scalar>()));
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < K; ++i) EXPECT_TRUE(W1(i, j) == W0(i, j));
  }
  {  // accepted: every other column from column 8 (columns 8, 10) against Q, other strides than Q's
    V.reset();
    const Strided even = Unmanaged(V.view.data() + 8, Kokkos::LayoutStride(K, width, 2, 2));
    EXPECT_NO_THROW(kbla::update(exec, alpha, Q, C82.view, beta, even));
    const Dense V0 = V.initial(), V1 = V.now();
    Dense even0(K, 2), even1(K, 2);
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < 2; ++j) even0(i, j) = V0(i, 8 + 2 * j), even1(i, j) = V1(i, 8 + 2 * j);
    EXPECT_TRUE(matches(
        even1, reference('N', 'N', to_cld(alpha), V0.columns(0, 8), C82.initial(), to_cld(beta), even0),
        arith<Scalar>()));
    EXPECT_TRUE(same_values(V1.columns(0, 8), V0.columns(0, 8)));
    EXPECT_TRUE(same_values(V1.columns(9, 1), V0.columns(9, 1)));
    EXPECT_TRUE(same_values(V1.columns(11, 1), V0.columns(11, 1)));
  }
  EXPECT_TRUE(C84.unchanged());
  EXPECT_TRUE(C82.unchanged());
  EXPECT_TRUE(S.unchanged());
}

// Disjoint parts of one allocation are fine: no false alarm from the overlap check, right results, and the
// neighbouring parts stay as they were.
template <class TypeParam>
void DisjointPartsOfOneAllocationAreAccepted() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  using Strided = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev>;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  const auto ar = arith<Scalar>();
  const int K = 40;
  {  // A, B, C of inner / gemm back to back in one block of memory
    auto pool = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K * 3 + K * 2 + 6, 1);
    TestMatrix<Scalar, LA, Dev> A(pool.storage(), alias_view<LA>(pool, K, 3, 0), "A: first 3K entries of a pool");
    TestMatrix<Scalar, LB, Dev> B(pool.storage(), alias_view<LB>(pool, K, 2, 3 * K), "B: next 2K entries");
    TestMatrix<Scalar, LC, Dev> C(pool.storage(), alias_view<LC>(pool, 3, 2, 5 * K), "C: last 6 entries");
    EXPECT_NO_THROW(kbla::inner(exec, alpha, A.view, B.view, beta, C.view));
    EXPECT_TRUE(matches(C.now(), reference('C', 'N', to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial()), ar));
    EXPECT_TRUE(C.outside_unchanged());
    C.reset();
    EXPECT_NO_THROW(kbla::gemm(exec, "T", "N", alpha, A.view, B.view, beta, C.view));
    EXPECT_TRUE(matches(C.now(), reference('T', 'N', to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial()), ar));
    EXPECT_TRUE(C.outside_unchanged());
  }
  {  // update: A = columns [0, 3), B = columns [3, 5), X = columns [5, 8) of one column-major K x 8 matrix
    auto P = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K, 8);
    const auto all = Kokkos::ALL;
    const Strided A = Kokkos::subview(P.view, all, std::make_pair(0, 3));
    const Strided B = Kokkos::subview(P.view, all, std::make_pair(3, 5));
    const Strided X = Kokkos::subview(P.view, all, std::make_pair(5, 8));
    auto C = mk.matrix<Scalar, LB, Dev>(3, 2);
    auto S = mk.matrix<Scalar, LB, Dev>(3, 3);
    const Dense P0 = P.initial();
    EXPECT_NO_THROW(kbla::update(exec, alpha, A, C.view, beta, B));
    Dense P1 = P.now();
    EXPECT_TRUE(matches(P1.columns(3, 2),
                        reference('N', 'N', to_cld(alpha), P0.columns(0, 3), C.initial(), to_cld(beta), P0.columns(3, 2)), ar));
    EXPECT_TRUE(same_values(P1.columns(0, 3), P0.columns(0, 3)));
    EXPECT_TRUE(same_values(P1.columns(5, 3), P0.columns(5, 3)));
    P.reset();
    EXPECT_NO_THROW(kbla::update_in_place(exec, alpha, X, S.view));  // in place on a column range
    P1 = P.now();
    EXPECT_TRUE(matches(P1.columns(5, 3),
                        reference('N', 'N', to_cld(alpha), P0.columns(5, 3), S.initial(), 0, P0.columns(5, 3)), ar));
    EXPECT_TRUE(same_values(P1.columns(0, 5), P0.columns(0, 5)));
    EXPECT_TRUE(P.outside_unchanged());
  }
}

// An output that starts after the last element of a strided input is not an overlap, even when it lies inside
// the input's Kokkos span(): Kokkos 3.4 gives a LayoutStride View the span max_i(extent_i * stride_i), here
// 6K elements for the even columns 0, 2, 4 of a K x 10 column-major matrix whose last element is at 5K - 1.
// B = columns [5, 7) of the same matrix shares no memory with A (not even its convex hull).
template <class TypeParam>
void NoFalseOverlapBeyondLastElement() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using Strided = Kokkos::View<Scalar**, Kokkos::LayoutStride, Dev>;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  const int K = 30;
  auto W = mk.matrix<Scalar, Kokkos::LayoutLeft, Dev>(K, 10);
  Kokkos::View<Scalar***, Kokkos::LayoutLeft, Dev, Kokkos::MemoryTraits<Kokkos::Unmanaged>> W3(W.view.data(), K, 2, 5);
  const Strided A = Kokkos::subview(W3, Kokkos::ALL, 0, std::make_pair(0, 3));  // columns 0, 2, 4
  const Strided B = Kokkos::subview(W.view, Kokkos::ALL, std::make_pair(5, 7));  // columns 5, 6
  auto C = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(3, 2);
  const Dense W0 = W.initial();
  Dense A0(K, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < K; ++i) A0(i, j) = W0(i, 2 * j);
  EXPECT_NO_THROW(kbla::update(exec, alpha, A, C.view, beta, B))
      << "A: even columns of a " << K << " x 10 LayoutLeft matrix (strides " << A.stride(0) << ", " << A.stride(1)
      << ", last element at offset " << (K - 1) * A.stride(0) + 2 * A.stride(1) << ", Kokkos span() " << A.span()
      << "); B: columns [5, 7), first element at offset " << (B.data() - W.view.data());
  const Dense W1 = W.now();
  EXPECT_TRUE(matches(W1.columns(5, 2),
                      reference('N', 'N', to_cld(alpha), A0, C.initial(), to_cld(beta), W0.columns(5, 2)),
                      arith<Scalar>()));
  EXPECT_TRUE(same_values(W1.columns(0, 5), W0.columns(0, 5)));
  EXPECT_TRUE(same_values(W1.columns(7, 3), W0.columns(7, 3)));
}

// -------------------------------------------------------------------------------------------------- gemm
template <class TypeParam>
void GemmBadTrans() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(6, 6);
  auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(6, 6);
  auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(6, 6);
  auto call = [&](const char* ta, const char* tb) {
    return [&, ta, tb] { kbla::gemm(exec, ta, tb, alpha, A.view, B.view, beta, C.view); };
  };
  EXPECT_TRUE(throws_invalid(call("X", "N"), {"kbla::gemm", "transA is 'X'", "N, T or C"}));
  EXPECT_TRUE(throws_invalid(call("N", "Q"), {"kbla::gemm", "transB is 'Q'"}));
  EXPECT_TRUE(throws_invalid(call("H", "C"), {"transA is 'H'"}));  // H (BLAS-like "Hermitian") is not a gemm op
  EXPECT_TRUE(throws_invalid(call("", "N"), {"transA is ''"}));
  EXPECT_TRUE(throws_invalid(call("T", nullptr), {"transB is '(null)'"}));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
  EXPECT_TRUE(C.unchanged());
  // checked before the early exits for empty matrices
  auto E = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(0, 6);
  EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "x", alpha, A.view, B.view, beta, E.view); },
                             {"transB is 'x'"}));
}

template <class TypeParam>
void GemmMismatchedExtents() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  struct Shape {
    const char *ta, *tb;
    int a0, a1, b0, b1, c0, c1;
    std::vector<std::string> parts;
  };
  const Shape shapes[] = {
      {"N", "N", 7, 5, 6, 3, 7, 3, {"op(A) is 7 x 5 (A is 7 x 5, transA 'N')", "op(B) is 6 x 3", "inner dimensions differ"}},
      {"C", "T", 5, 7, 3, 4, 7, 3, {"op(A) is 7 x 5 (A is 5 x 7, transA 'C')", "op(B) is 4 x 3 (B is 3 x 4, transB 'T')"}},
      {"T", "N", 2000, 4, 1999, 3, 4, 3, {"op(A) is 4 x 2000", "op(B) is 1999 x 3", "inner dimensions differ"}},  // routed shape
      {"N", "C", 9, 0, 3, 1, 9, 3, {"op(A) is 9 x 0", "op(B) is 1 x 3"}},  // k = 0 against 1
      {"N", "N", 7, 5, 5, 3, 4, 4, {"kbla::gemm", "C is 4 x 4", "must be 7 x 3"}},
      {"C", "N", 2000, 4, 2000, 3, 3, 4, {"C is 3 x 4", "must be 4 x 3"}},  // routed to inner
      {"N", "N", 2000, 4, 4, 3, 2000, 4, {"C is 2000 x 4", "must be 2000 x 3"}},  // routed to update
      {"T", "C", 5, 7, 3, 5, 7, 5, {"C is 7 x 5", "must be 7 x 3"}},
  };
  for (const auto& s : shapes) {
    auto A = mk.matrix<Scalar, LA, Dev>(s.a0, s.a1);
    auto B = mk.matrix<Scalar, LB, Dev>(s.b0, s.b1);
    auto C = mk.matrix<Scalar, LC, Dev>(s.c0, s.c1);
    for (const Scalar b : {beta, Scalar(0)}) {
      ::testing::AssertionResult r = ::testing::AssertionFailure();
      try {
        kbla::gemm(exec, s.ta, s.tb, alpha, A.view, B.view, b, C.view);
        r = ::testing::AssertionFailure() << "did not throw";
      } catch (const std::invalid_argument& e) {
        r = ::testing::AssertionSuccess();
        for (const auto& p : s.parts)
          if (std::string(e.what()).find(p) == std::string::npos)
            r = ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << p << "\"";
      }
      EXPECT_TRUE(r) << s.ta << s.tb << " A " << s.a0 << "x" << s.a1 << ", B " << s.b0 << "x" << s.b1 << ", C "
                     << s.c0 << "x" << s.c1;
      EXPECT_TRUE(C.unchanged());
    }
  }
}

template <class TypeParam>
void GemmOutputAliasesInput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);  // a different random stream per part
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  // a routed shape (C^H N, long k), an update-routed one (N N, long m) and a KokkosBlas::gemm one
  {
    auto A = mk.matrix<Scalar, LA, Dev>(2000, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(2000, 2);
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "C", "N", alpha, A.view, B.view, beta, alias_view<LC>(A, 3, 2, 17)); },
                               {"kbla::gemm", "output C (3 x 2) overlaps input A (2000 x 3)"}));
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "T", "N", alpha, A.view, B.view, Scalar(0), alias_view<LC>(B, 3, 2, 0)); },
                               {"kbla::gemm", "output C (3 x 2) overlaps input B (2000 x 2)"}));
    EXPECT_TRUE(A.unchanged());
    EXPECT_TRUE(B.unchanged());
  }
  {
    auto A = mk.matrix<Scalar, LA, Dev>(2000, 3);
    auto B = mk.matrix<Scalar, LB, Dev>(3, 3);
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "N", alpha, A.view, B.view, beta, alias_view<LC>(A, 2000, 3, 0)); },
                               {"kbla::gemm", "output C (2000 x 3) overlaps input A (2000 x 3)"}));
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "N", alpha, A.view, B.view, beta, alias_view<LC>(A, 2000, 3, 2)); },
                               {"overlaps input A"}));
    EXPECT_TRUE(A.unchanged());
    EXPECT_TRUE(B.unchanged());
  }
  {
    auto A = mk.matrix<Scalar, LA, Dev>(8, 8);
    auto B = mk.matrix<Scalar, LB, Dev>(8, 8);
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "T", alpha, A.view, B.view, beta, alias_view<LC>(A, 8, 8, 0)); },
                               {"kbla::gemm", "output C (8 x 8) overlaps input A (8 x 8)"}));
    EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "C", "C", alpha, A.view, B.view, beta, alias_view<LC>(B, 8, 8, 9)); },
                               {"kbla::gemm", "overlaps input B"}));
    EXPECT_TRUE(A.unchanged());
    EXPECT_TRUE(B.unchanged());
  }
}

// ---------------------------------------------------------------------------------- inaccessible memory
// Views in a memory space the execution space cannot access. The case needs two memory spaces that do not see
// each other. The host-only build (Debian's Kokkos: Serial only) has just HostSpace, which every execution space
// it has can access, so no such argument can even be constructed there (the static_assert below documents it).
// With CUDA Kokkos, the host execution space (Serial) cannot touch CudaSpace and Kokkos::Cuda cannot touch
// HostSpace; CudaUVMSpace and CudaHostPinnedSpace are accessible from both and so are not used.
#if defined(KOKKOS_ENABLE_CUDA)

template <class ExecSpace, class MemSpace>
void check_inaccessible() {
  using View = Kokkos::View<double**, Kokkos::LayoutLeft, MemSpace>;
  static_assert(!Kokkos::SpaceAccessibility<ExecSpace, MemSpace>::accessible, "the test needs an inaccessible space");
  const ExecSpace exec;
  View A("A", 40, 3), B("B", 40, 2), C("C", 3, 2), X("X", 40, 3), S("S", 3, 3), G("G", 3, 3);
  Kokkos::deep_copy(A, 1.5);
  Kokkos::deep_copy(B, -2.0);
  Kokkos::deep_copy(C, 7.0);
  Kokkos::deep_copy(X, 3.0);
  Kokkos::deep_copy(S, 0.5);
  Kokkos::deep_copy(G, 9.0);
  const std::string where = std::string("which execution space ") + ExecSpace::name() + " cannot access";
  EXPECT_TRUE(throws_invalid([&] { kbla::inner(exec, 1.0, A, B, 0.0, C); }, {"kbla::inner: A (40 x 3", where}));
  EXPECT_TRUE(throws_invalid([&] { kbla::update(exec, 1.0, A, S, 0.0, X); }, {"kbla::update: A (40 x 3", where}));
  EXPECT_TRUE(throws_invalid([&] { kbla::update_in_place(exec, 1.0, X, S); },
                             {"kbla::update_in_place: X (40 x 3", where}));
  EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "T", "N", 1.0, A, X, 0.0, G); }, {"kbla::gemm: A (40 x 3", where}));
  EXPECT_TRUE(throws_invalid([&] { kbla::gemm(exec, "N", "N", 1.0, S, S, 0.0, G); }, {"kbla::gemm: A (3 x 3", where}));
  auto host = [](const View& v) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v); };
  const auto hc = host(C), hx = host(X), hg = host(G);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_EQ(hc(i, j), 7.0);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(hg(i, j), 9.0);
  }
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(hx(i, j), 3.0);
}

// Kokkos::Serial in the project's CUDA build (Cuda + Serial); whatever host backend Kokkos has otherwise.
TEST(InaccessibleMemory, HostExecWithCudaSpaceViews) {
  check_inaccessible<Kokkos::DefaultHostExecutionSpace, Kokkos::CudaSpace>();
}
TEST(InaccessibleMemory, CudaExecWithHostSpaceViews) { check_inaccessible<Kokkos::Cuda, Kokkos::HostSpace>(); }

#else
static_assert(Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible &&
                  Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>::accessible,
              "host-only build: every View is accessible, the inaccessible-memory case cannot be built");
#endif



TYPED_TEST(ErrorTest, InnerBadInput) {
  KBLA_PART(InnerMismatchedExtents);
  KBLA_PART(InnerOutputAliasesInput);
}
TYPED_TEST(ErrorTest, UpdateBadInput) {
  KBLA_PART(UpdateMismatchedExtents);
  KBLA_PART(UpdateOutputOverlapsInput);
}
TYPED_TEST(ErrorTest, UpdateInPlaceErrorsNameTheCall) { KBLA_PART(UpdateInPlaceNeedsSquareC); }
TYPED_TEST(ErrorTest, InterleavedBlocksThatShareElementsThrow) { KBLA_PART(InterleavedBlocksThatShareElements); }
TYPED_TEST(ErrorTest, GemmBadInput) {
  KBLA_PART(GemmBadTrans);
  KBLA_PART(GemmMismatchedExtents);
  KBLA_PART(GemmOutputAliasesInput);
}
TYPED_TEST(ErrorTest, DisjointPartsOfOneAllocationAreAccepted) {
  KBLA_PART(DisjointPartsOfOneAllocationAreAccepted);
}
TYPED_TEST(ErrorTest, NoFalseOverlapBeyondLastElement) { KBLA_PART(NoFalseOverlapBeyondLastElement); }

}  // namespace
