// kbla::strassen_gemm (and kbla::gemm with a Strassen-type GemmOptions::algorithm) against the naive long double
// host reference: strassen (1 level), strassen2 (2 levels), winograd (several levels) with small thresholds so
// that the recursion really splits at the test sizes; odd, prime and unequal m, n, k (peeling); every trans pair;
// beta = 0 over NaN; K = 0; strided subviews (the LayoutStride configurations); user workspace; Li et al.'s
// accuracy matrix; bad input. On a CUDA build the default execution space is Kokkos::Cuda and the real cases
// with a unit-stride direction go through src/cuda's kernels, the rest through the portable recursion.
#include "kbla_test_helpers.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace {

using namespace kbla_test;

// A modest set (compile time): every scalar type, every layout in every role, a row-major C for real scalars
// (the CUDA path's transposed call) and no-unit-stride subviews (LayoutStride cycles through its variants).
using StrassenConfigs = ::testing::Types<float_RRR, float_LSL, double_LLL, double_SRS, cfloat_RLR, cdouble_RSS>;

template <class Cfg>
class StrassenTest : public ::testing::Test {};
TYPED_TEST_SUITE(StrassenTest, StrassenConfigs);

const char kTrans[] = {'N', 'T', 'C'};
const kbla::GemmAlgorithm kAlgorithms[] = {kbla::GemmAlgorithm::strassen, kbla::GemmAlgorithm::strassen2,
                                           kbla::GemmAlgorithm::strassen_conventional,
                                           kbla::GemmAlgorithm::winograd};

const char* algorithm_name(kbla::GemmAlgorithm a) {
  switch (a) {
    case kbla::GemmAlgorithm::strassen: return "strassen";
    case kbla::GemmAlgorithm::strassen2: return "strassen2";
    case kbla::GemmAlgorithm::strassen_conventional: return "strassen_conventional";
    case kbla::GemmAlgorithm::winograd: return "winograd";
    case kbla::GemmAlgorithm::call_default: return "call_default";
    case kbla::GemmAlgorithm::automatic: return "automatic";
    default: return "classical";
  }
}

// Options that make the portable recursion split at test sizes (tau = 16: a 64 x 64 product splits twice).
kbla::GemmOptions options_for(kbla::GemmAlgorithm a, int levels = 2, std::int64_t tau = 16) {
  kbla::GemmOptions o;
  o.algorithm = a;
  o.levels = levels;
  o.winograd_tau = tau;
  return o;
}

// ------------------------------------------------------------------------------------------- tolerance
// Strassen-type algorithms are only normwise stable. Higham (Accuracy and Stability of Numerical Algorithms,
// 2nd ed., Thm. 23.2 and 23.3), L levels over classical leaves of inner dimension k0, max-element norms:
//     Strassen:  |C^ - C|_max <= [12^L (k0^2 + 5 k0) - 5 k] u |A|_max |B|_max + O(u^2)
//     Winograd:  |C^ - C|_max <= [18^L (k0^2 + 6 k0) - 6 k] u |A|_max |B|_max + O(u^2)
// Here op(A) op(B) is scaled by alpha (one more rounding per product, inside the leaf), peeling adds classical
// products (covered by the componentwise classical term below), and k0 <= ceil(k / 2^L) (each split halves k,
// rounding down). We use L = the levels the algorithm asks for: the actual depth can be smaller (threshold,
// or the CUDA kernels' own choice), and 12^L (k / 2^L)^2 = 3^L k^2 (18^L: 4.5^L k^2) only grows with L, so the
// bound stays valid. Allowed error per entry:
//     classical part (kbla_test_helpers: (K + 2) eps |alpha| sum |a||b| + |beta| |C0|, complex K + 6), plus
//     eps * F * |alpha| |A|_max |B|_max,   F = 12^L (k0^2 + 5 k0) (Winograd 18^L (k0^2 + 6 k0)), x2 for complex
// i.e. c = 2 over the first-order bound in u = eps / 2 (as the helpers do), and complex arithmetic's larger
// product error (sqrt(2) gamma_2 per product instead of u, Higham Lemma 3.5) taken as a further factor 2.
struct StrassenBound {
  int levels;
  bool winograd;
};

StrassenBound bound_for(const kbla::GemmOptions& o) {
  if (o.algorithm == kbla::GemmAlgorithm::automatic) return {2, true};  // the loosest of its candidates
  const int L = o.algorithm == kbla::GemmAlgorithm::strassen                ? 1
                : o.algorithm == kbla::GemmAlgorithm::strassen2             ? 2
                : o.algorithm == kbla::GemmAlgorithm::strassen_conventional ? o.levels
                : o.algorithm == kbla::GemmAlgorithm::winograd              ? o.levels
                                                                            : 0;
  return {L, o.algorithm == kbla::GemmAlgorithm::winograd};
}

long double max_modulus(const Dense& d) {
  long double m = 0;
  for (const auto& x : d.v) m = std::max(m, modulus(x));
  return m;
}

::testing::AssertionResult strassen_matches(const Dense& result, const Reference& ref, const Arith& arith,
                                            const StrassenBound& sb, long double alpha_abs, long double a_max,
                                            long double b_max) {
  if (result.rows != ref.value.rows || result.cols != ref.value.cols)
    return ::testing::AssertionFailure() << "result has the wrong shape";
  const long double k = static_cast<long double>(ref.inner_dim);
  const long double k0 = std::ceil(k / std::pow(2.0L, sb.levels));
  const long double F = sb.winograd ? std::pow(18.0L, sb.levels) * (k0 * k0 + 6 * k0)
                                    : std::pow(12.0L, sb.levels) * (k0 * k0 + 5 * k0);
  const long double normwise = arith.eps * F * (arith.is_complex ? 2 : 1) * alpha_abs * a_max * b_max;
  const long double factor = tolerance_factor(arith, ref.inner_dim);
  long bad = 0;
  long double worst = 0;
  std::ostringstream first;
  for (int j = 0; j < result.cols; ++j)
    for (int i = 0; i < result.rows; ++i) {
      const long double err = modulus(result(i, j) - ref.value(i, j));
      const long double tol = factor * ref.bound[std::size_t(j) * result.rows + i] + normwise;
      worst = std::max(worst, err / tol);
      if (!(err <= tol) && bad++ < 3)  // also catches NaN
        first << "\n  (" << i << ", " << j << "): got " << result(i, j) << ", expected " << ref.value(i, j)
              << ", |error| " << err << " > tolerance " << tol << " (normwise part " << normwise << ")";
    }
  if (bad == 0) return ::testing::AssertionSuccess() << "worst error / tolerance " << worst;
  return ::testing::AssertionFailure() << bad << " of " << long(result.rows) * result.cols
                                       << " entries off the reference (K = " << ref.inner_dim << ", L = " << sb.levels
                                       << ")" << first.str();
}

// ------------------------------------------------------------------------------------------- one case
struct Case {
  char tA, tB;
  int m, n, k;
  kbla::GemmOptions options;
  Coef alpha = Coef::General;
  Coef beta = Coef::General;
  bool nan_output = false;
  bool user_workspace = false;
};

enum class Via { StrassenGemm, Gemm };

// Runs one case and compares with the reference; A, B, C filled by the Maker unless `fill` says otherwise.
template <class Cfg, Via via = Via::StrassenGemm>
void run_case(Maker& mk, const Case& c,
              const std::function<void(TestMatrix<typename Cfg::scalar, typename Cfg::layout_a, typename Cfg::device>&,
                                       TestMatrix<typename Cfg::scalar, typename Cfg::layout_b, typename Cfg::device>&)>&
                  fill = nullptr) {
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  using Exec = typename Cfg::exec;
  auto A = c.tA == 'N' ? mk.matrix<Scalar, typename Cfg::layout_a, Dev>(c.m, c.k)
                       : mk.matrix<Scalar, typename Cfg::layout_a, Dev>(c.k, c.m);
  auto B = c.tB == 'N' ? mk.matrix<Scalar, typename Cfg::layout_b, Dev>(c.k, c.n)
                       : mk.matrix<Scalar, typename Cfg::layout_b, Dev>(c.n, c.k);
  if (fill) fill(A, B);
  auto C = mk.matrix<Scalar, typename Cfg::layout_c, Dev>(c.m, c.n, c.nan_output ? Fill::NaN : Fill::Random);
  const Scalar alpha = coefficient<Scalar>(mk, c.alpha), beta = coefficient<Scalar>(mk, c.beta);
  const char tA[2] = {c.tA, '\0'}, tB[2] = {c.tB, '\0'};
  std::ostringstream trace;
  trace << (via == Via::Gemm ? "gemm" : "strassen_gemm") << "(\"" << tA << "\", \"" << tB << "\") "
        << algorithm_name(c.options.algorithm) << " levels=" << c.options.levels << " tau=" << c.options.winograd_tau
        << " m=" << c.m << " n=" << c.n << " k=" << c.k << " alpha=" << str(to_cld(alpha))
        << " beta=" << str(to_cld(beta)) << (c.nan_output ? " C=NaN" : "")
        << (c.user_workspace ? " user workspace" : "") << "\n  A: " << A.description << "\n  B: " << B.description
        << "\n  C: " << C.description;
  SCOPED_TRACE(trace.str());

  kbla::GemmOptions options = c.options;
  Kokkos::View<char*, typename Exec::memory_space> workspace;
  if (c.user_workspace) {
    const std::size_t bytes = kbla::strassen_workspace_bytes<Exec, Scalar>(options, c.m, c.n, c.k);
    workspace = Kokkos::View<char*, typename Exec::memory_space>("strassen test workspace", bytes);
    options.workspace = workspace.data();
    options.workspace_bytes = bytes;
  }
  if (via == Via::Gemm) {
    kbla::gemm(Exec(), tA, tB, alpha, A.view, B.view, beta, C.view, options);
  } else {
    kbla::strassen_gemm(Exec(), tA, tB, alpha, A.view, B.view, beta, C.view, options);
  }
  const Dense result = C.now();
  const Dense a0 = A.initial(), b0 = B.initial();
  EXPECT_TRUE(strassen_matches(result, reference(c.tA, c.tB, to_cld(alpha), a0, b0, to_cld(beta), C.initial()),
                               arith<Scalar>(), bound_for(c.options), modulus(to_cld(alpha)), max_modulus(a0),
                               max_modulus(b0)));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
  EXPECT_TRUE(C.outside_unchanged());
  if (c.alpha == Coef::Zero || c.k == 0) {
    if (c.beta == Coef::Zero) EXPECT_TRUE(all_zero(result));
    if (c.beta == Coef::One) EXPECT_TRUE(C.unchanged());
  }
}

// ------------------------------------------------------------------------------------------------ parts
// Each algorithm on even, odd, prime and unequal shapes (every parity mix of m, n, k), a few trans pairs.
template <class TypeParam>
void ShapesPerAlgorithm() {
  Maker mk(__LINE__);
  const int shapes[][3] = {{64, 64, 64}, {97, 83, 131}, {128, 200, 72}, {101, 66, 89}, {70, 103, 64}, {33, 34, 35}};
  int i = 0;
  for (auto a : kAlgorithms)
    for (const auto& s : shapes) {
      const char tA = kTrans[i % 3], tB = kTrans[(i / 3) % 3];
      ++i;
      run_case<TypeParam>(mk, Case{tA, tB, s[0], s[1], s[2], options_for(a)});
    }
}

// Deeper Winograd recursion (3 levels: 150 -> 75 -> 37 -> 18, peeling at two depths), and levels = 0 (classical);
// the same for strassen_conventional.
template <class TypeParam>
void WinogradLevels() {
  Maker mk(__LINE__);
  run_case<TypeParam>(mk, Case{'N', 'N', 150, 151, 157, options_for(kbla::GemmAlgorithm::winograd, 3)});
  run_case<TypeParam>(mk, Case{'T', 'N', 61, 59, 67, options_for(kbla::GemmAlgorithm::winograd, 0)});
  // library default threshold (the portable path does not split this; CUDA decides for itself)
  run_case<TypeParam>(mk, Case{'N', 'C', 80, 72, 90, options_for(kbla::GemmAlgorithm::winograd, 1, 0)});
  // strassen_conventional takes `levels` the same way: 3 levels, and 0 (one classical product)
  run_case<TypeParam>(mk, Case{'T', 'T', 150, 151, 157, options_for(kbla::GemmAlgorithm::strassen_conventional, 3)});
  run_case<TypeParam>(mk, Case{'N', 'T', 61, 59, 67, options_for(kbla::GemmAlgorithm::strassen_conventional, 0)});
}

// All 9 trans pairs on one shape with odd m and k, even n, for every algorithm.
template <class TypeParam>
void AllTransPairs() {
  Maker mk(__LINE__);
  for (auto a : kAlgorithms)
    for (char tA : kTrans)
      for (char tB : kTrans) run_case<TypeParam>(mk, Case{tA, tB, 71, 66, 59, options_for(a)});
}

// beta = 0 never reads C (NaN there must not show up), with alpha = 1 and general alpha; alpha = 0.
template <class TypeParam>
void SpecialCoefficients() {
  Maker mk(__LINE__);
  for (auto a : kAlgorithms) {
    run_case<TypeParam>(mk, Case{'N', 'T', 67, 64, 73, options_for(a), Coef::General, Coef::Zero, true});
    run_case<TypeParam>(mk, Case{'C', 'N', 64, 69, 66, options_for(a), Coef::One, Coef::Zero, true});
    run_case<TypeParam>(mk, Case{'N', 'N', 64, 64, 64, options_for(a), Coef::One, Coef::One});
  }
  for (Coef b : {Coef::Zero, Coef::One, Coef::General})
    run_case<TypeParam>(mk, Case{'N', 'N', 40, 36, 48, options_for(kbla::GemmAlgorithm::strassen), Coef::Zero, b,
                                 b == Coef::Zero});
}

// K = 0: C = beta * C (beta = 0 over NaN gives zeros, beta = 1 leaves C alone); m = 0 or n = 0: nothing written.
template <class TypeParam>
void EmptyExtents() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  Maker mk(__LINE__);
  for (auto a : kAlgorithms)
    for (Coef b : {Coef::Zero, Coef::One, Coef::General})
      run_case<TypeParam>(mk, Case{'N', 'C', 40, 34, 0, options_for(a), Coef::General, b, b == Coef::Zero});
  for (auto mn : {std::make_pair(0, 40), std::make_pair(40, 0)}) {
    auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(mn.first, 40);
    auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(40, mn.second);
    auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(mn.first, mn.second);
    EXPECT_NO_THROW(kbla::strassen_gemm(typename TypeParam::exec(), "N", "N", mk.coefficient<Scalar>(), A.view,
                                        B.view, mk.coefficient<Scalar>(), C.view));
    EXPECT_TRUE(C.unchanged());
  }
}

// Caller-provided workspace (sized by kbla::strassen_workspace_bytes) and the default instance overload.
template <class TypeParam>
void WorkspaceAndDefaults() {
  Maker mk(__LINE__);
  for (auto a : kAlgorithms) {
    Case c{'T', 'N', 96, 90, 101, options_for(a)};
    c.user_workspace = true;
    run_case<TypeParam>(mk, c);
  }
  // a plain GemmOptions leaves the algorithm to the call: 1-level Strassen in strassen_gemm, classical in gemm
  EXPECT_TRUE(kbla::GemmOptions().algorithm == kbla::GemmAlgorithm::call_default);
  EXPECT_TRUE(kbla::Impl::with_call_algorithm(kbla::GemmOptions(), kbla::GemmAlgorithm::strassen).algorithm ==
              kbla::GemmAlgorithm::strassen);
  EXPECT_TRUE(kbla::Impl::with_call_algorithm(kbla::GemmOptions(), kbla::GemmAlgorithm::classical).algorithm ==
              kbla::GemmAlgorithm::classical);
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(70, 66);
  auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(66, 68);
  auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(70, 68);
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  kbla::GemmOptions o;
  o.algorithm = kbla::GemmAlgorithm::strassen;  // default threshold: no split on the portable path at this size
  kbla::strassen_gemm("N", "N", alpha, A.view, B.view, beta, C.view, o);
  EXPECT_TRUE(strassen_matches(C.now(),
                               reference('N', 'N', to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial()),
                               arith<Scalar>(), bound_for(o), modulus(to_cld(alpha)), max_modulus(A.initial()),
                               max_modulus(B.initial())));
}

// strassen_gemm with a plain GemmOptions{} (algorithm left at call_default) runs Strassen, as strassen_gemm
// without options does; a classical product from strassen_gemm needs GemmAlgorithm::classical by name; kbla::gemm
// with a plain GemmOptions{} stays classical. Seen from outside through the workspace check: a caller workspace too
// small for Strassen is refused by every call that runs Strassen and needs no room in a classical product.
template <class TypeParam>
void PlainOptionsMeanStrassen() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using Exec = typename TypeParam::exec;
  Maker mk(__LINE__);
  const int m = 96, n = 90, k = 101;  // split once by the portable path's default threshold (64)
  auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(m, k);
  auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(k, n);
  auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(m, n);
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  kbla::GemmOptions strassen, classical;
  strassen.algorithm = kbla::GemmAlgorithm::strassen;
  classical.algorithm = kbla::GemmAlgorithm::classical;
  const std::size_t plain_bytes = kbla::strassen_workspace_bytes<Exec, Scalar>(kbla::GemmOptions{}, m, n, k);
  EXPECT_EQ(plain_bytes, (kbla::strassen_workspace_bytes<Exec, Scalar>(strassen, m, n, k)));
  EXPECT_GT(plain_bytes, 64u);
  EXPECT_EQ((kbla::strassen_workspace_bytes<Exec, Scalar>(classical, m, n, k)), 0u);
  Kokkos::View<char*, typename Exec::memory_space> small("small workspace", 64);
  const auto with_small_workspace = [&](kbla::GemmOptions o) {
    o.workspace = small.data();
    o.workspace_bytes = 64;
    return o;
  };
  const Reference ref = reference('N', 'N', to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial());
  EXPECT_TRUE(throws_invalid(
      [&] {
        kbla::strassen_gemm(Exec(), "N", "N", alpha, A.view, B.view, beta, C.view,
                            with_small_workspace(kbla::GemmOptions{}));
      },
      {"kbla::strassen_gemm", "options.workspace_bytes is 64", "needs"}));
  EXPECT_TRUE(C.unchanged());
  kbla::strassen_gemm(Exec(), "N", "N", alpha, A.view, B.view, beta, C.view, kbla::GemmOptions{});
  EXPECT_TRUE(strassen_matches(C.now(), ref, arith<Scalar>(), bound_for(strassen), modulus(to_cld(alpha)),
                               max_modulus(A.initial()), max_modulus(B.initial())));
  C.reset();
  EXPECT_NO_THROW(kbla::strassen_gemm(Exec(), "N", "N", alpha, A.view, B.view, beta, C.view,
                                      with_small_workspace(classical)));
  EXPECT_TRUE(matches(C.now(), ref, arith<Scalar>()));  // classical: the classical tolerance
  C.reset();
  EXPECT_NO_THROW(kbla::gemm(Exec(), "N", "N", alpha, A.view, B.view, beta, C.view,
                             with_small_workspace(kbla::GemmOptions{})));
  EXPECT_TRUE(matches(C.now(), ref, arith<Scalar>()));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
}

// Li, Ranka, Sahni (2011) / Kaporin's accuracy matrix: A = I + u v^T, B = I - u v^T / (1 + v^T u), so that
// A B = I exactly in real arithmetic (the reference uses the rounded A and B as stored).
template <class TypeParam>
void LiAccuracyMatrix() {
  using Scalar = typename TypeParam::scalar;
  Maker mk(__LINE__);
  const int n = 128;
  std::uniform_real_distribution<long double> dist(0.0L, 1.0L);
  std::vector<long double> u(n), v(n);
  long double vu = 0;
  for (int i = 0; i < n; ++i) {
    u[i] = dist(mk.rng());
    v[i] = dist(mk.rng());
    vu += v[i] * u[i];
  }
  for (auto a : kAlgorithms)
    for (int levels : {1, 2}) {
      const bool leveled =
          a == kbla::GemmAlgorithm::winograd || a == kbla::GemmAlgorithm::strassen_conventional;
      if (!leveled && levels == 2) continue;
      run_case<TypeParam>(mk, Case{'N', 'N', n, n, n, options_for(a, levels), Coef::One, Coef::Zero, true},
                          [&](auto& A, auto& B) {
                            A.set([&](int i, int j) { return ScalarInfo<Scalar>::make((i == j) + u[i] * v[j], 0); });
                            B.set([&](int i, int j) {
                              return ScalarInfo<Scalar>::make((i == j) - u[i] * v[j] / (1 + vu), 0);
                            });
                          });
    }
}

// Bad input: each throws std::invalid_argument naming the call, the argument and the sizes; nothing written.
template <class TypeParam>
void BadInput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  using LA = typename TypeParam::layout_a;
  using LB = typename TypeParam::layout_b;
  using LC = typename TypeParam::layout_c;
  typename TypeParam::exec exec;
  Maker mk(__LINE__);
  const Scalar alpha = mk.coefficient<Scalar>(), beta = mk.coefficient<Scalar>();
  const auto o = options_for(kbla::GemmAlgorithm::winograd);
  auto A = mk.matrix<Scalar, LA, Dev>(40, 36);
  auto B = mk.matrix<Scalar, LB, Dev>(36, 34);
  auto C = mk.matrix<Scalar, LC, Dev>(40, 34);
  auto B2 = mk.matrix<Scalar, LB, Dev>(35, 34);
  auto C2 = mk.matrix<Scalar, LC, Dev>(40, 35);
  const auto call = [=](const char* tA, const char* tB, auto a, auto b, auto c, const kbla::GemmOptions& opt) {
    return [=] { kbla::strassen_gemm(exec, tA, tB, alpha, a, b, beta, c, opt); };
  };
  EXPECT_TRUE(throws_invalid(call("X", "N", A.view, B.view, C.view, o), {"kbla::strassen_gemm", "transA", "'X'"}));
  EXPECT_TRUE(throws_invalid(call("N", "", A.view, B.view, C.view, o), {"kbla::strassen_gemm", "transB"}));
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B2.view, C.view, o),
                             {"kbla::strassen_gemm", "op(A) is 40 x 36", "B is 35 x 34", "inner dimensions differ"}));
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B.view, C2.view, o),
                             {"kbla::strassen_gemm", "C is 40 x 35", "must be 40 x 34"}));
  EXPECT_TRUE(throws_invalid(call("T", "N", A.view, B.view, C.view, o),
                             {"kbla::strassen_gemm", "op(A) is 36 x 40", "inner dimensions differ"}));
  // C inside A's memory; C inside B's memory
  const auto in_A = alias_view<LC>(A, 40, 34, 3);
  const auto in_B = alias_view<LC>(B, 34, 34, 0);
  auto A34 = mk.matrix<Scalar, LA, Dev>(34, 36);
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B.view, in_A, o),
                             {"kbla::strassen_gemm", "output C (40 x 34) overlaps input A (40 x 36)"}));
  EXPECT_TRUE(throws_invalid(call("N", "N", A34.view, B.view, in_B, o),
                             {"kbla::strassen_gemm", "output C (34 x 34) overlaps input B (36 x 34)"}));
  // options
  auto neg = o;
  neg.levels = -1;
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B.view, C.view, neg), {"kbla::strassen_gemm", "options.levels is -1"}));
  auto tau = o;
  tau.winograd_tau = -5;
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B.view, C.view, tau), {"options.winograd_tau is -5"}));
  Kokkos::View<char*, typename TypeParam::exec::memory_space> small("small workspace", 64);
  auto ws = o;
  ws.workspace = small.data();
  ws.workspace_bytes = 64;
  EXPECT_TRUE(throws_invalid(call("N", "N", A.view, B.view, C.view, ws),
                             {"kbla::strassen_gemm", "options.workspace_bytes is 64", "needs"}));
  // default options (1-level Strassen)
  EXPECT_TRUE(throws_invalid([&] { kbla::strassen_gemm(exec, "N", "Q", alpha, A.view, B.view, beta, C.view); },
                             {"kbla::strassen_gemm", "transB is 'Q'"}));
  EXPECT_TRUE(C.unchanged());
  EXPECT_TRUE(C2.unchanged());
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
}


TYPED_TEST(StrassenTest, Shapes) {
  KBLA_PART(ShapesPerAlgorithm);
  KBLA_PART(WinogradLevels);
}
TYPED_TEST(StrassenTest, AllTransPairs) { KBLA_PART(AllTransPairs); }
TYPED_TEST(StrassenTest, CoefficientsAndEmpty) {
  KBLA_PART(SpecialCoefficients);
  KBLA_PART(EmptyExtents);
}
TYPED_TEST(StrassenTest, WorkspaceAccuracyErrors) {
  KBLA_PART(WorkspaceAndDefaults);
  KBLA_PART(LiAccuracyMatrix);
  KBLA_PART(BadInput);
}
TYPED_TEST(StrassenTest, PlainOptionsMeanStrassen) { KBLA_PART(PlainOptionsMeanStrassen); }

// kbla::gemm routes to the Strassen paths when asked (one configuration: kbla::gemm's other routes are
// instantiated per View type, and test_gemm.cpp covers them). Tall & skinny shapes too (no inner/update then).
TEST(StrassenRouting, GemmUsesRequestedAlgorithm) {
  Maker mk(__LINE__);
  for (auto a : kAlgorithms) {
    run_case<double_LLL, Via::Gemm>(mk, Case{'N', 'T', 69, 64, 71, options_for(a)});
    run_case<double_LLL, Via::Gemm>(mk, Case{'C', 'N', 5, 4, 700, options_for(a)});  // tall & skinny shape
    run_case<double_LLL, Via::Gemm>(mk, Case{'N', 'N', 700, 4, 5, options_for(a)});
  }
  using Dev = double_LLL::device;
  auto A = mk.matrix<double, L, Dev>(40, 36);
  auto B = mk.matrix<double, L, Dev>(36, 34);
  auto C = mk.matrix<double, L, Dev>(40, 34);
  auto neg = options_for(kbla::GemmAlgorithm::winograd);
  neg.levels = -2;
  EXPECT_TRUE(throws_invalid([&] { kbla::gemm(Exec(), "N", "N", 1.0, A.view, B.view, 0.0, C.view, neg); },
                             {"kbla::gemm", "options.levels is -2"}));
  neg.algorithm = kbla::GemmAlgorithm::strassen_conventional;
  EXPECT_TRUE(throws_invalid([&] { kbla::gemm(Exec(), "N", "N", 1.0, A.view, B.view, 0.0, C.view, neg); },
                             {"kbla::gemm", "options.levels is -2", "Strassen recursion"}));
  EXPECT_TRUE(C.unchanged());
}

// GemmAlgorithm::automatic: the product is right whichever candidate wins; the first call of a class times the
// candidates once, later ones (and a second process reading the cache file) follow the record; a recorded choice
// is what runs; deterministic and model_only take the classical product; a user workspace covers every candidate.
namespace automatic_gemm {

using Cfg = double_LLL;
using Dev = Cfg::device;
using MatrixView = decltype(std::declval<Maker&>().matrix<double, L, Dev>(1, 1).view);

kbla::GemmOptions automatic_options(const std::string& cache_path) {
  kbla::GemmOptions o = options_for(kbla::GemmAlgorithm::automatic);
  o.tuning.cache_path = cache_path;
  return o;
}

std::string temp_cache(const char* name) {
  const std::string path = ::testing::TempDir() + "kbla_automatic_gemm_" + name + "_" + std::to_string(::getpid());
  std::remove(path.c_str());
  return path;
}

long long calls(const kbla::AutomaticGemmStats& s) {
  return s.classical_chosen + s.strassen_chosen + s.strassen2_chosen + s.strassen_conventional_chosen +
         s.strassen_conventional2_chosen + s.winograd_chosen + s.winograd2_chosen;
}

// What a tuning run on this device would have recorded for kbla::gemm's class of an N N m x n x k product with
// beta != 0 (double, column-major): `choice`. Returns the class.
std::string record_choice(const std::string& cache, int m, int n, int k, const char* choice) {
  const std::string device = kbla::Impl::route_device_key(Exec(), "gemm automatic");
  const std::string cls =
      kbla::Impl::automatic_gemm_class<MatrixView, MatrixView, MatrixView>("kbla::gemm", 'N', 'N', m, n, k, false);
  kbla::tuning::process_choice_cache(cache).record(device, cls, kbla::tuning::Choice{choice, 1e-3});
  return cls;
}

}  // namespace automatic_gemm

TEST(StrassenAutomatic, RightResultAndOneMeasurementPerClass) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("measure");
  for (const Via via : {Via::Gemm, Via::StrassenGemm}) {
    const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
    if (via == Via::Gemm)
      run_case<Cfg, Via::Gemm>(mk, Case{'N', 'T', 96, 80, 112, automatic_options(cache)});
    else
      run_case<Cfg, Via::StrassenGemm>(mk, Case{'N', 'T', 96, 80, 112, automatic_options(cache)});
    const kbla::AutomaticGemmStats first = kbla::automatic_gemm_stats();
    EXPECT_EQ(first.classes_measured, before.classes_measured + 1);
    EXPECT_EQ(calls(first), calls(before) + 1);
    if (via == Via::Gemm)  // the same class again (other values, same shape): the record, no measurement
      run_case<Cfg, Via::Gemm>(mk, Case{'N', 'T', 96, 80, 112, automatic_options(cache), Coef::General, Coef::Zero, true});
    else
      run_case<Cfg, Via::StrassenGemm>(mk, Case{'N', 'T', 96, 80, 112, automatic_options(cache)});
    const kbla::AutomaticGemmStats second = kbla::automatic_gemm_stats();
    const bool beta_class_changed = via == Via::Gemm;  // beta = 0 is another class
    EXPECT_EQ(second.classes_measured, first.classes_measured + (beta_class_changed ? 1 : 0));
    EXPECT_EQ(calls(second), calls(first) + 1);
  }
  std::remove(cache.c_str());
}

// A choice holds for the shape it was measured on: a size in the same half octave is a class of its own.
TEST(StrassenAutomatic, EachShapeIsItsOwnClass) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("shapes");
  const std::string cls =
      kbla::Impl::automatic_gemm_class<MatrixView, MatrixView, MatrixView>("kbla::gemm", 'N', 'N', 96, 80, 112, true);
  EXPECT_NE(cls.find(" m 96 n 80 k 112 beta=0"), std::string::npos) << cls;
  // 96, then 100 (a new class), then 96 again (its record).
  for (const auto& [m, measures] : {std::pair<int, int>{96, 1}, {100, 1}, {96, 0}}) {
    const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
    run_case<Cfg, Via::Gemm>(mk, Case{'N', 'N', m, 80, 112, automatic_options(cache)});
    const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
    EXPECT_EQ(after.classes_measured, before.classes_measured + measures) << "m = " << m;
    EXPECT_EQ(calls(after), calls(before) + 1);
  }
  std::remove(cache.c_str());
}

TEST(StrassenAutomatic, RecordedChoiceRuns) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("recorded");
  const int m = 64, n = 72, k = 80;
  kbla::GemmOptions o = automatic_options(cache);
  o.winograd_tau = 16;  // two Winograd levels at this shape on every backend (the defaults split far larger ones)
  // What a tuning run on this device would have recorded: winograd with 2 levels for this class.
  const std::string cls = record_choice(cache, m, n, k, "winograd2");
  EXPECT_NE(cls.find("kbla::gemm automatic D NN AL BL CL"), std::string::npos) << cls;
  const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
  run_case<Cfg, Via::Gemm>(mk, Case{'N', 'N', m, n, k, o});
  const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
  EXPECT_EQ(after.classes_measured, before.classes_measured);
  EXPECT_EQ(after.winograd2_chosen, before.winograd2_chosen + 1);
  EXPECT_EQ(calls(after), calls(before) + 1);
  std::remove(cache.c_str());
}

// The decision a thread used last is only reused for the same class: another cache file is another class.
TEST(StrassenAutomatic, EachCacheFileKeepsItsOwnChoice) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string first = temp_cache("first"), second = temp_cache("second");
  const int m = 64, n = 72, k = 80;
  kbla::GemmOptions in_first = automatic_options(first), in_second = automatic_options(second);
  in_first.winograd_tau = in_second.winograd_tau = 16;  // two Winograd levels fit this shape on every backend
  record_choice(first, m, n, k, "classical");
  record_choice(second, m, n, k, "winograd2");
  const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
  for (const kbla::GemmOptions* o : {&in_first, &in_second, &in_first, &in_second})
    run_case<Cfg, Via::Gemm>(mk, Case{'N', 'N', m, n, k, *o});
  const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
  EXPECT_EQ(after.classical_chosen, before.classical_chosen + 2);
  EXPECT_EQ(after.winograd2_chosen, before.winograd2_chosen + 2);
  EXPECT_EQ(after.classes_measured, before.classes_measured);
  std::remove(first.c_str());
  std::remove(second.c_str());
}

// Below its recursion threshold a Strassen type is the classical product plus its own costs, and two levels asked
// for where only one fits are the one-level variant: neither is a candidate, even when a cache names it.
TEST(StrassenAutomatic, TypesThatWouldNotRecurseAreNoCandidates) {
  using namespace automatic_gemm;
  using Spec = kbla::Impl::Strassen<Exec, MatrixView, MatrixView, MatrixView>;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("below_threshold");
  const int m = 40, n = 34, k = 36;
  auto A = mk.matrix<double, L, Dev>(m, k);
  auto B = mk.matrix<double, L, Dev>(k, n);
  auto C = mk.matrix<double, L, Dev>(m, n);
  kbla::GemmOptions o = automatic_options(cache);
  o.winograd_tau = 0;  // the library's thresholds (the other tests here take 16)
  using Candidate = kbla::Impl::AutomaticGemmCandidate;
  const auto levels = [&](Candidate c, std::int64_t tau) {
    kbla::GemmOptions x = kbla::Impl::automatic_gemm_options(o, c);
    x.winograd_tau = tau;
    return Spec::levels_run(x, A.view, B.view, C.view, m, n, k);
  };
  EXPECT_EQ(levels(Candidate::classical, 0), 0);
  EXPECT_EQ(levels(Candidate::winograd, 0), 0);   // default thresholds: 64 (portable), thousands (CUDA)
  EXPECT_EQ(levels(Candidate::winograd2, 0), 0);
  EXPECT_EQ(levels(Candidate::winograd, 16), 1);
  EXPECT_EQ(levels(Candidate::winograd2, 16), 2);  // 34 / 2 = 17 >= 16
  EXPECT_EQ(levels(Candidate::winograd2, 20), 1);  // 17 < 20: one level only
  // A cache naming winograd for this class is not followed: the call runs another candidate, and right.
  record_choice(cache, m, n, k, "winograd");
  const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
  run_case<Cfg, Via::Gemm>(mk, Case{'N', 'N', m, n, k, o});
  const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
  EXPECT_EQ(after.winograd_chosen, before.winograd_chosen);
  EXPECT_EQ(after.winograd2_chosen, before.winograd2_chosen);
  EXPECT_EQ(calls(after), calls(before) + 1);
  std::remove(cache.c_str());
}

TEST(StrassenAutomatic, DeterministicAndModelOnlyTakeClassical) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("classical");
  kbla::GemmOptions deterministic = automatic_options(cache), model_only = automatic_options(cache);
  deterministic.deterministic = true;
  model_only.tuning.mode = kbla::tuning::TuningMode::model_only;
  for (const kbla::GemmOptions& o : {deterministic, model_only}) {
    const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
    run_case<Cfg, Via::Gemm>(mk, Case{'T', 'N', 70, 66, 90, o});
    const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
    EXPECT_EQ(after.classes_measured, before.classes_measured);
    EXPECT_EQ(after.classical_chosen, before.classical_chosen + 1);
  }
  std::remove(cache.c_str());
}

// strassen_conventional runs the strassen / strassen2 recursion on the portable path: there it is no candidate of
// its own (a cache naming it is not followed); where it runs other code (the CUDA library's conventional levels
// over cuBLAS) it is one, and a recorded choice of it runs.
TEST(StrassenAutomatic, CandidatesRunningTheSameCodeAreOne) {
  using namespace automatic_gemm;
  using Spec = kbla::Impl::Strassen<Exec, MatrixView, MatrixView, MatrixView>;
  using Candidate = kbla::Impl::AutomaticGemmCandidate;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("twins");
  const int m = 64, n = 72, k = 80;
  auto A = mk.matrix<double, L, Dev>(m, k);
  auto B = mk.matrix<double, L, Dev>(k, n);
  auto C = mk.matrix<double, L, Dev>(m, n);
  kbla::GemmOptions o = automatic_options(cache);
  o.winograd_tau = 16;
  const auto implementation = [&](Candidate c) {
    return Spec::implementation(kbla::Impl::automatic_gemm_options(o, c), A.view, B.view, C.view);
  };
  const bool distinct = implementation(Candidate::strassen_conventional) != implementation(Candidate::strassen);
  const bool portable = !kbla::Impl::strassen_tpl_spec_avail<Exec, MatrixView, MatrixView, MatrixView>::value;
  if (portable) EXPECT_FALSE(distinct);
  EXPECT_NE(implementation(Candidate::winograd), implementation(Candidate::strassen));
  record_choice(cache, m, n, k, "strassen_conventional");
  const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
  run_case<Cfg, Via::Gemm>(mk, Case{'N', 'N', m, n, k, o});
  const kbla::AutomaticGemmStats after = kbla::automatic_gemm_stats();
  const kbla::GemmOptions conventional = kbla::Impl::automatic_gemm_options(o, Candidate::strassen_conventional);
  const bool candidate = distinct && Spec::levels_run(conventional, A.view, B.view, C.view, m, n, k) >= 1;
  EXPECT_EQ(after.strassen_conventional_chosen, before.strassen_conventional_chosen + (candidate ? 1 : 0));
  EXPECT_EQ(calls(after), calls(before) + 1);
  std::remove(cache.c_str());
}

TEST(StrassenAutomatic, WorkspaceCoversEveryCandidate) {
  using namespace automatic_gemm;
  Maker mk(__LINE__);
  const std::string cache = temp_cache("workspace");
  const kbla::GemmOptions o = automatic_options(cache);
  const std::size_t automatic_bytes = kbla::strassen_workspace_bytes<Exec, double>(o, 96, 96, 96);
  for (const kbla::Impl::AutomaticGemmCandidate c : kbla::Impl::automatic_gemm_candidates()) {
    const kbla::GemmOptions candidate = kbla::Impl::automatic_gemm_options(o, c);
    const std::size_t bytes = kbla::strassen_workspace_bytes<Exec, double>(candidate, 96, 96, 96);
    EXPECT_GE(automatic_bytes, bytes) << kbla::Impl::automatic_gemm_name(c);
  }
  Case c{'N', 'N', 96, 96, 96, o};
  c.user_workspace = true;
  run_case<Cfg, Via::StrassenGemm>(mk, c);
  std::remove(cache.c_str());
}

}  // namespace
