// kbla::gemm (C = alpha * op(A) * op(B) + beta * C, op in N/T/C) against the naive host reference: the shapes
// routed to kbla::inner (op(A) = A^T / A^H, op(B) = B, long k) and kbla::update (N/N, long m), the shapes that go
// to KokkosBlas::gemm (square ones, every other trans pair, and everything with route_tall_skinny = false).
#include "kbla_test_helpers.hpp"

namespace {

using namespace kbla_test;

template <class Cfg>
class GemmTest : public ::testing::Test {};
TYPED_TEST_SUITE(GemmTest, Configs);

struct GemmCase {
  char tA, tB;
  int m, n, k;
  Coef alpha = Coef::General;
  Coef beta = Coef::General;
  bool nan_output = false;
  bool route_tall_skinny = true;
  bool deterministic = false;  // also: run twice and compare bits
  bool lowercase = false;      // pass "n", "t", "c"
  bool default_instance = false;
};

const char kTrans[] = {'N', 'T', 'C'};

// Which path the library should take (for the trace only; results must not depend on it).
std::string route_of(const GemmCase& c) {
  const kbla::GemmOptions o;
  const auto tall = [&](long long longdim, long long a, long long b) {
    const long long w = std::max(a, b);
    return c.route_tall_skinny && w <= o.tall_skinny_max_width && longdim >= o.tall_skinny_ratio * w;
  };
  if (c.m == 0 || c.n == 0) return "nothing";
  if (c.k == 0 || c.alpha == Coef::Zero) return "C = beta * C";
  if (c.tA != 'N' && c.tB == 'N' && tall(c.k, c.m, c.n)) return "kbla::inner";
  if (c.tA == 'N' && c.tB == 'N' && tall(c.m, c.k, c.n)) return "kbla::update";
  return "KokkosBlas::gemm";
}

template <class Cfg>
void run_gemm(Maker& mk, const GemmCase& c) {
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  auto A = c.tA == 'N' ? mk.matrix<Scalar, typename Cfg::layout_a, Dev>(c.m, c.k)
                       : mk.matrix<Scalar, typename Cfg::layout_a, Dev>(c.k, c.m);
  auto B = c.tB == 'N' ? mk.matrix<Scalar, typename Cfg::layout_b, Dev>(c.k, c.n)
                       : mk.matrix<Scalar, typename Cfg::layout_b, Dev>(c.n, c.k);
  auto C = mk.matrix<Scalar, typename Cfg::layout_c, Dev>(c.m, c.n, c.nan_output ? Fill::NaN : Fill::Random);
  const Scalar alpha = coefficient<Scalar>(mk, c.alpha), beta = coefficient<Scalar>(mk, c.beta);
  const char tA[2] = {char(c.lowercase ? c.tA - 'A' + 'a' : c.tA), '\0'};
  const char tB[2] = {char(c.lowercase ? c.tB - 'A' + 'a' : c.tB), '\0'};
  std::ostringstream trace;
  trace << "gemm(\"" << tA << "\", \"" << tB << "\") m=" << c.m << " n=" << c.n << " k=" << c.k
        << " alpha=" << str(to_cld(alpha)) << " beta=" << str(to_cld(beta)) << (c.nan_output ? " C=NaN" : "")
        << (c.route_tall_skinny ? "" : " route_tall_skinny=false") << (c.deterministic ? " deterministic" : "")
        << " -> " << route_of(c) << "\n  A: " << A.description << "\n  B: " << B.description
        << "\n  C: " << C.description;
  SCOPED_TRACE(trace.str());

  kbla::GemmOptions options;
  options.route_tall_skinny = c.route_tall_skinny;
  options.deterministic = c.deterministic;
  if (c.default_instance) {
    kbla::gemm(tA, tB, alpha, A.view, B.view, beta, C.view, options);
  } else {
    kbla::gemm(typename Cfg::exec(), tA, tB, alpha, A.view, B.view, beta, C.view, options);
  }
  const Dense result = C.now();
  EXPECT_TRUE(matches(result,
                      reference(c.tA, c.tB, to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial()),
                      arith<Scalar>()));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
  EXPECT_TRUE(C.outside_unchanged());
  if (c.alpha == Coef::Zero || c.k == 0) {
    if (c.beta == Coef::Zero) EXPECT_TRUE(all_zero(result));
    if (c.beta == Coef::One) EXPECT_TRUE(C.unchanged());
  }
  if (c.deterministic) {
    const auto first = C.bytes();
    C.reset();
    kbla::gemm(typename Cfg::exec(), tA, tB, alpha, A.view, B.view, beta, C.view, options);
    EXPECT_TRUE(same_bits(first, C.bytes())) << "deterministic gemm differs between runs";
  }
}

// Every trans pair on a shape with a long k (inner-routed for T/C x N), a long m (update-routed for N x N), a
// long n (routed nowhere) and a square-ish one, each also with routing switched off.
template <class TypeParam>
void AllTransPairsAndRoutes() {
  Maker mk(__LINE__);  // a different random stream per part
  const int shapes[][3] = {{5, 3, 2000}, {2000, 3, 5}, {3, 2000, 5}, {37, 29, 41}, {1, 1, 1}};
  for (char tA : kTrans)
    for (char tB : kTrans)
      for (const auto& s : shapes)
        for (bool route : {true, false}) {
          GemmCase c{tA, tB, s[0], s[1], s[2]};
          c.route_tall_skinny = route;
          run_gemm<TypeParam>(mk, c);
        }
}

template <class TypeParam>
void BetaZeroIgnoresNaNInC() {
  Maker mk(__LINE__);  // a different random stream per part
  const int shapes[][3] = {{5, 3, 2000}, {2000, 3, 5}, {23, 17, 19}};
  for (char tA : kTrans)
    for (char tB : kTrans)
      for (const auto& s : shapes) {
        GemmCase c{tA, tB, s[0], s[1], s[2], Coef::General, Coef::Zero, true};
        run_gemm<TypeParam>(mk, c);
      }
}

template <class TypeParam>
void AlphaBetaKinds() {
  Maker mk(__LINE__);  // a different random stream per part
  const int shapes[][3] = {{6, 4, 1500}, {1500, 4, 6}, {21, 18, 25}};
  for (const auto& s : shapes)
    for (Coef a : {Coef::Zero, Coef::One, Coef::General})
      for (Coef b : {Coef::Zero, Coef::One, Coef::General}) {
        SCOPED_TRACE(std::string("alpha ") + coef_name(a) + ", beta " + coef_name(b));
        GemmCase c{s[0] > s[2] ? 'N' : 'C', 'N', s[0], s[1], s[2], a, b, b == Coef::Zero};
        run_gemm<TypeParam>(mk, c);
      }
}

template <class TypeParam>
void WideTallSkinny() {
  Maker mk(__LINE__);  // a different random stream per part
  const GemmCase cases[] = {{'C', 'N', 64, 64, 1100}, {'T', 'N', 96, 9, 1600}, {'C', 'N', 130, 7, 2100},
                            {'N', 'N', 1100, 64, 64}, {'N', 'N', 2100, 5, 130}, {'N', 'N', 1600, 96, 11}};
  for (const auto& c : cases) run_gemm<TypeParam>(mk, c);
}

template <class TypeParam>
void TinyAndLargeK() {
  Maker mk(__LINE__);  // a different random stream per part
  const GemmCase cases[] = {{'C', 'N', 1, 1, 1},  {'T', 'N', 8, 8, 2},      {'C', 'N', 3, 4, 30011},
                            {'N', 'N', 30011, 3, 4}, {'T', 'N', 2, 2, 50021}, {'N', 'T', 3, 5, 4000},
                            {'C', 'C', 4, 3, 5000}};
  for (const auto& c : cases) run_gemm<TypeParam>(mk, c);
}

// k = 0: C = beta * C on every route; beta = 0 gives zeros even over NaN; beta = 1 leaves C alone.
template <class TypeParam>
void EmptyInnerDimension() {
  Maker mk(__LINE__);  // a different random stream per part
  for (char tA : kTrans)
    for (char tB : {'N', 'C'})
      for (Coef b : {Coef::Zero, Coef::One, Coef::General}) {
        GemmCase c{tA, tB, 5, 4, 0, Coef::General, b, b == Coef::Zero};
        run_gemm<TypeParam>(mk, c);
      }
}

// m = 0 or n = 0: nothing written.
template <class TypeParam>
void EmptyOutput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  Maker mk(__LINE__);  // a different random stream per part
  for (auto mn : {std::make_pair(0, 3), std::make_pair(3, 0), std::make_pair(0, 0)})
    for (int k : {0, 40})
      for (const char* t : {"N", "C"}) {
        SCOPED_TRACE(std::string("trans ") + t + " m=" + std::to_string(mn.first) + " n=" + std::to_string(mn.second) +
                     " k=" + std::to_string(k));
        auto A = t[0] == 'N' ? mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(mn.first, k)
                             : mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(k, mn.first);
        auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(k, mn.second);
        auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(mn.first, mn.second);
        EXPECT_NO_THROW(kbla::gemm(typename TypeParam::exec(), t, "N", mk.coefficient<Scalar>(), A.view, B.view,
                                   mk.coefficient<Scalar>(), C.view));
        EXPECT_TRUE(C.unchanged());
      }
}

template <class TypeParam>
void LowercaseTransAndDefaultInstance() {
  Maker mk(__LINE__);  // a different random stream per part
  for (char tA : kTrans)
    for (char tB : kTrans) {
      GemmCase c{tA, tB, 9, 7, 11};
      c.lowercase = true;
      run_gemm<TypeParam>(mk, c);
    }
  GemmCase routed{'C', 'N', 4, 5, 900};
  routed.default_instance = true;
  run_gemm<TypeParam>(mk, routed);
  GemmCase square{'T', 'C', 12, 13, 14};
  square.default_instance = true;
  run_gemm<TypeParam>(mk, square);
}

// GemmOptions{deterministic = true} reaches kbla::inner: bitwise the same from run to run.
template <class TypeParam>
void DeterministicOption() {
  Maker mk(__LINE__);  // a different random stream per part
  for (char tA : {'T', 'C'})
    for (Coef b : {Coef::Zero, Coef::General}) {
      GemmCase c{tA, 'N', 6, 5, 7000, Coef::General, b, b == Coef::Zero};
      c.deterministic = true;
      run_gemm<TypeParam>(mk, c);
    }
}



TYPED_TEST(GemmTest, AllTransPairsAndRoutes) {
  KBLA_PART(AllTransPairsAndRoutes);
}
TYPED_TEST(GemmTest, Shapes) {
  KBLA_PART(WideTallSkinny);
  KBLA_PART(TinyAndLargeK);
  KBLA_PART(LowercaseTransAndDefaultInstance);
  KBLA_PART(DeterministicOption);
}
TYPED_TEST(GemmTest, SpecialCoefficients) {
  KBLA_PART(AlphaBetaKinds);
  KBLA_PART(BetaZeroIgnoresNaNInC);
}
TYPED_TEST(GemmTest, EmptyExtents) {
  KBLA_PART(EmptyInnerDimension);
  KBLA_PART(EmptyOutput);
}

}  // namespace
