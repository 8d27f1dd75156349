// kbla::ortho: BCGS2 + CholQR2 of a block against an orthonormal basis, on the default backend.
// Checks loss of orthogonality ||I - [Q X]^H [Q X]||_F, the factorisation X_in = Q H + X_out R, rank detection
// and recovery for well-conditioned, ill-conditioned (cond 1e12), rank-deficient and degenerate blocks.
#include "solver_test_helpers.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

using namespace kbla_test;

namespace {

// ||X_in - Q H - X_out R||_F / ||X_in||_F
template <class T>
double factorisation_error(const HostMatrix<T>& Xin, const HostMatrix<T>& Q, const HostMatrix<T>& Xout,
                           const kbla::OrthoResult<T>& r) {
  HostMatrix<T> E = Xin;
  const HostMatrix<T> XR = kbla::dense::multiply(Xout, r.R);
  for (int j = 0; j < E.cols(); ++j)
    for (int i = 0; i < E.rows(); ++i) E(i, j) -= XR(i, j);
  if (Q.cols() > 0) {
    const HostMatrix<T> QH = kbla::dense::multiply(Q, r.H);
    for (int j = 0; j < E.cols(); ++j)
      for (int i = 0; i < E.rows(); ++i) E(i, j) -= QH(i, j);
  }
  return frobenius(E) / frobenius(Xin);
}

// Q: K x p orthonormal (host reference construction).
template <class T>
HostMatrix<T> basis(int K, int p, std::uint64_t seed) {
  return orthonormalize(random_matrix<T>(K, p, seed));
}

// X = Q C + U diag(sigma) W^H with U orthonormal and orthogonal to Q, W unitary: cond(X_perp) = sigma_0/sigma_min.
template <class T>
HostMatrix<T> block_with_singular_values(const HostMatrix<T>& Q, const std::vector<double>& sigma, double q_weight,
                                         std::uint64_t seed) {
  const int K = Q.rows(), p = Q.cols(), s = int(sigma.size());
  HostMatrix<T> QU = orthonormalize(hcat(Q, random_matrix<T>(K, s, seed)));
  HostMatrix<T> U(K, s);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < K; ++i) U(i, j) = QU(i, p + j);
  const HostMatrix<T> W = orthonormalize(random_matrix<T>(s, s, seed + 1));
  HostMatrix<T> SW(s, s);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < s; ++i) SW(i, j) = T(sigma[i]) * kbla::dense::conj(W(j, i));
  HostMatrix<T> X = kbla::dense::multiply(U, SW);
  if (p > 0 && q_weight != 0) {
    const HostMatrix<T> QC = kbla::dense::multiply(Q, random_matrix<T>(p, s, seed + 2));
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < K; ++i) X(i, j) += T(q_weight) * QC(i, j);
  }
  return X;
}

template <class T>
struct Outcome {
  kbla::OrthoResult<T> result;
  HostMatrix<T> Xout;
  double loss = 0, factorisation = 0;
};

template <class T>
Outcome<T> run_ortho(const HostMatrix<T>& Q, const HostMatrix<T>& Xin, const kbla::OrthoOptions& opt = {}) {
  // Q and X side by side in one View, as the eigen-solver holds them.
  const int K = Xin.rows(), p = Q.cols(), s = Xin.cols();
  DeviceBlock<T> V = to_device(hcat(Q, Xin), "V");
  auto Qd = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(0, p));
  auto Xd = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(p, p + s));
  Outcome<T> o;
  o.result = kbla::ortho(Exec(), Qd, Xd, opt);
  o.Xout = to_host(Xd);
  o.loss = orthogonality_loss(hcat(Q, o.Xout));
  o.factorisation = factorisation_error(Xin, Q, o.Xout, o.result);
  (void)K;
  if (std::getenv("KBLA_TEST_VERBOSE"))
    std::printf("  ortho: loss %.2e factorisation %.2e rank %d rounds %d shifted %d replaced %d\n", o.loss,
                o.factorisation, o.result.rank, o.result.rounds, int(o.result.shifted), o.result.replaced);
  return o;
}

template <class T>
bool upper_triangular(const HostMatrix<T>& R) {
  for (int j = 0; j < R.cols(); ++j)
    for (int i = j + 1; i < R.rows(); ++i)
      if (R(i, j) != T(0)) return false;
  return true;
}

template <class T>
void well_conditioned(int K, int p, int s) {
  const HostMatrix<T> Q = basis<T>(K, p, 11);
  const HostMatrix<T> X = random_matrix<T>(K, s, 12);
  const Outcome<T> o = run_ortho(Q, X);
  EXPECT_LE(o.loss, 1e-13);
  EXPECT_LE(o.factorisation, 1e-14);
  EXPECT_EQ(o.result.rank, s);
  EXPECT_EQ(o.result.rounds, 2);  // BCGS2 + CholQR2
  EXPECT_FALSE(o.result.shifted);
  EXPECT_EQ(o.result.replaced, 0);
  EXPECT_TRUE(o.result.complete);
  EXPECT_TRUE(upper_triangular(o.result.R));
}

}  // namespace

TEST(Ortho, WellConditionedDouble) { well_conditioned<double>(3000, 24, 8); }
TEST(Ortho, WellConditionedComplex) { well_conditioned<Kokkos::complex<double>>(2000, 16, 6); }
TEST(Ortho, NoBasisIsCholQR2) { well_conditioned<double>(2500, 0, 12); }
TEST(Ortho, SingleColumn) { well_conditioned<double>(1000, 5, 1); }

template <class T>
void ill_conditioned(double cond) {
  const int K = 4000, p = 16, s = 8;
  const HostMatrix<T> Q = basis<T>(K, p, 21);
  std::vector<double> sigma(s);
  for (int i = 0; i < s; ++i) sigma[i] = std::pow(cond, -double(i) / (s - 1));  // 1 ... 1/cond
  const HostMatrix<T> X = block_with_singular_values(Q, sigma, 1.0, 22);
  const Outcome<T> o = run_ortho(Q, X);
  EXPECT_LE(o.loss, 1e-12) << "cond " << cond;
  EXPECT_LE(o.factorisation, 1e-13) << "cond " << cond;
  EXPECT_EQ(o.result.rank, s) << "a block of condition number " << cond << " has full numerical rank";
  EXPECT_EQ(o.result.replaced, 0);
  EXPECT_TRUE(upper_triangular(o.result.R));
  EXPECT_TRUE(o.result.shifted) << "cond " << cond;
  EXPECT_GE(o.result.rounds, 3);  // shifted CholQR3 or more
}

TEST(Ortho, IllConditioned1e12Double) { ill_conditioned<double>(1e12); }
TEST(Ortho, IllConditioned1e12Complex) { ill_conditioned<Kokkos::complex<double>>(1e12); }
TEST(Ortho, IllConditioned1e9Double) { ill_conditioned<double>(1e9); }

TEST(Ortho, ModeratelyConditionedStaysCheap) {
  const int K = 3000, p = 8, s = 6;
  const HostMatrix<double> Q = basis<double>(K, p, 31);
  std::vector<double> sigma = {1, 0.5, 1e-1, 1e-2, 1e-3, 1e-4};
  const Outcome<double> o = run_ortho(Q, block_with_singular_values(Q, sigma, 1.0, 32));
  EXPECT_LE(o.loss, 1e-13);
  EXPECT_LE(o.factorisation, 1e-14);
  EXPECT_EQ(o.result.rank, s);
  EXPECT_EQ(o.result.rounds, 2);
}

template <class T>
void rank_deficient() {
  const int K = 2500, p = 12, s = 8;
  const HostMatrix<T> Q = basis<T>(K, p, 41);
  HostMatrix<T> X = random_matrix<T>(K, s, 42);
  for (int i = 0; i < K; ++i) {
    X(i, 3) = T(2.0) * X(i, 0) - T(0.5) * X(i, 1);  // dependent on other columns
    X(i, 5) = T(0);
    for (int k = 0; k < p; ++k) X(i, 5) += Q(i, k) * T(double(k + 1));  // in span(Q)
  }
  const Outcome<T> o = run_ortho(Q, X);
  EXPECT_EQ(o.result.rank, s - 2);
  EXPECT_EQ(o.result.replaced, 2);
  EXPECT_TRUE(o.result.complete);
  EXPECT_LE(o.loss, 1e-13);
  EXPECT_LE(o.factorisation, 1e-13);
  for (int i = o.result.rank; i < s; ++i)
    for (int j = 0; j < s; ++j) EXPECT_EQ(o.result.R(i, j), T(0));
}

TEST(Ortho, RankDeficientDouble) { rank_deficient<double>(); }
TEST(Ortho, RankDeficientComplex) { rank_deficient<Kokkos::complex<double>>(); }

TEST(Ortho, BlockInsideBasisIsRankZero) {
  const int K = 1500, p = 10, s = 4;
  const HostMatrix<double> Q = basis<double>(K, p, 51);
  const HostMatrix<double> X = kbla::dense::multiply(Q, random_matrix<double>(p, s, 52));
  const Outcome<double> o = run_ortho(Q, X);
  EXPECT_EQ(o.result.rank, 0);
  EXPECT_EQ(o.result.replaced, s);
  EXPECT_LE(o.loss, 1e-13);
  EXPECT_LE(o.factorisation, 1e-13);
}

TEST(Ortho, ZeroBlock) {
  const int K = 800, p = 4, s = 3;
  const HostMatrix<double> Q = basis<double>(K, p, 61);
  const Outcome<double> o = run_ortho(Q, HostMatrix<double>(K, s));
  EXPECT_EQ(o.result.rank, 0);
  EXPECT_LE(o.loss, 1e-13);
}

TEST(Ortho, WithoutReplacementDependentColumnsAreZeroed) {
  const int K = 1000, p = 6, s = 4;
  const HostMatrix<double> Q = basis<double>(K, p, 71);
  HostMatrix<double> X = random_matrix<double>(K, s, 72);
  for (int i = 0; i < K; ++i) X(i, 2) = X(i, 0) + X(i, 1);
  kbla::OrthoOptions opt;
  opt.replace_dependent = false;
  const Outcome<double> o = run_ortho(Q, X, opt);
  EXPECT_EQ(o.result.rank, 3);
  EXPECT_FALSE(o.result.complete);
  EXPECT_LE(o.factorisation, 1e-13);
  HostMatrix<double> kept(K, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < K; ++i) kept(i, j) = o.Xout(i, j);
  EXPECT_LE(orthogonality_loss(hcat(Q, kept)), 1e-13);
  for (int i = 0; i < K; ++i) EXPECT_EQ(o.Xout(i, 3), 0.0);
}

TEST(Ortho, NoRoomLeftIsReportedIncomplete) {
  const int K = 10, p = 8, s = 4;  // only 2 directions outside span(Q)
  const HostMatrix<double> Q = basis<double>(K, p, 81);
  const Outcome<double> o = run_ortho(Q, random_matrix<double>(K, s, 82));
  EXPECT_EQ(o.result.rank, 2);
  EXPECT_FALSE(o.result.complete);
}

TEST(Ortho, ReusableOrthogonalizerCountsTraffic) {
  const int K = 2000, s = 4;
  DeviceBlock<double> V = to_device(random_matrix<double>(K, 3 * s, 91), "V");
  kbla::BlockOrthogonalizer<Exec, double> orth(Exec{});
  for (int b = 0; b < 3; ++b) {
    const auto& r = orth(Kokkos::subview(V, Kokkos::ALL(), std::make_pair(0, b * s)),
                         Kokkos::subview(V, Kokkos::ALL(), std::make_pair(b * s, (b + 1) * s)));
    EXPECT_EQ(r.rank, s);
  }
  EXPECT_LE(orthogonality_loss(to_host(V)), 1e-13);
  EXPECT_GT(orth.bytes_moved(), 0.0);
}

namespace {

// Block Lanczos on a diagonal operator whose spectrum clusters at 10 (W = A V_c is mostly along V_c: the
// cancellation that makes a single classical Gram-Schmidt pass unsafe) with the local form of the orthogonaliser:
// every step projects against the last two blocks, then the one-pass test decides on the full re-projection.
template <class T>
void lanczos_with_local_projection(double one_pass_ratio, int expect_projections_per_step) {
  const int K = 1500, s = 4, steps = 24;
  std::vector<double> d(K);
  for (int i = 0; i < K; ++i) d[i] = 10.0 + double(i) / K + (i % 7 == 0 ? 0.5 : 0.0);
  DeviceBlock<T> V("V", K, (steps + 1) * s);
  auto cols = [&](int a, int b) { return Kokkos::subview(V, Kokkos::ALL(), std::make_pair(a, b)); };
  Kokkos::deep_copy(cols(0, s), to_device(random_matrix<T>(K, s, 5)));
  kbla::OrthoOptions opt;
  opt.one_pass_ratio = one_pass_ratio;
  kbla::BlockOrthogonalizer<Exec, T> orth(Exec{}, opt);
  orth(cols(0, 0), cols(0, s));
  int projections = 0;
  double max_factorisation = 0;
  for (int c = 0; c < steps; ++c) {
    const HostMatrix<T> Vc = to_host(cols(c * s, (c + 1) * s));
    HostMatrix<T> W(K, s);
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < K; ++i) W(i, j) = T(d[i]) * Vc(i, j);
    Kokkos::deep_copy(cols((c + 1) * s, (c + 2) * s), to_device(W));
    const HostMatrix<T> Q = to_host(cols(0, (c + 1) * s));
    const auto& r = orth(cols(0, (c + 1) * s), cols((c + 1) * s, (c + 2) * s), std::min(2 * s, (c + 1) * s));
    EXPECT_EQ(r.rank, s);
    projections += r.projections;
    max_factorisation = std::max(max_factorisation, factorisation_error(W, Q, to_host(cols((c + 1) * s, (c + 2) * s)), r));
  }
  const double loss = orthogonality_loss(to_host(V));
  if (std::getenv("KBLA_TEST_VERBOSE"))
    std::printf("  lanczos (one_pass_ratio %.2f): loss %.2e factorisation %.2e projections %d in %d steps\n",
                one_pass_ratio, loss, max_factorisation, projections, steps);
  EXPECT_LE(loss, 1e-13);
  EXPECT_LE(max_factorisation, 1e-14);
  EXPECT_EQ(projections, expect_projections_per_step * steps);
}

}  // namespace

TEST(Ortho, LocalProjectionOnePassDouble) { lanczos_with_local_projection<double>(0.5, 1); }
TEST(Ortho, LocalProjectionOnePassComplex) { lanczos_with_local_projection<Kokkos::complex<double>>(0.5, 1); }
TEST(Ortho, LocalProjectionWithoutOnePassTestIsBCGS2) { lanczos_with_local_projection<double>(0, 2); }

// A block that is mostly along old (non-local) basis columns fails the one-pass test: BCGS2 as before.
TEST(Ortho, OnePassTestFallsBackWhenMostOfTheBlockIsInTheBasis) {
  const int K = 2000, p = 24, s = 6;
  const HostMatrix<double> Q = basis<double>(K, p, 31);
  std::vector<double> sigma(s, 1e-3);
  const HostMatrix<double> X = block_with_singular_values(Q, sigma, 1.0, 32);
  kbla::OrthoOptions opt;
  opt.one_pass_ratio = 0.5;
  const Outcome<double> o = run_ortho(Q, X, opt);
  EXPECT_EQ(o.result.projections, 2);
  EXPECT_LE(o.loss, 1e-13);
  EXPECT_LE(o.factorisation, 1e-14);
  // A block orthogonal to Q already passes with one projection and one Cholesky QR.
  const HostMatrix<double> Y = block_with_singular_values(Q, std::vector<double>(s, 1.0), 0.0, 33);
  const Outcome<double> o2 = run_ortho(Q, Y, opt);
  EXPECT_EQ(o2.result.projections, 1);
  EXPECT_EQ(o2.result.rounds, 1);
  EXPECT_LE(o2.loss, 1e-13);
}

// The hook of the Krylov form: called once, before the rest of the step, with Q_local^H X_in (local x s), the local
// window's share of H; without a local window it is not called. Double and complex.
template <class T>
void local_hook_gets_local_coefficients() {
  const int K = 800, p = 12, s = 4, local = 8;
  const HostMatrix<T> Q = basis<T>(K, p, 41);
  const HostMatrix<T> Xin = block_with_singular_values(Q, std::vector<double>(s, 1.0), 0.7, 42);
  DeviceBlock<T> V("V", K, p + s);
  auto cols = [&](int a, int b) { return Kokkos::subview(V, Kokkos::ALL(), std::make_pair(a, b)); };
  Kokkos::deep_copy(cols(0, p), to_device(Q));
  Kokkos::deep_copy(cols(p, p + s), to_device(Xin));
  HostMatrix<T> Ql(K, local);
  for (int j = 0; j < local; ++j)
    for (int i = 0; i < K; ++i) Ql(i, j) = Q(i, p - local + j);
  const HostMatrix<T> expected = kbla::dense::multiply(Ql, Xin, true);  // Q_local^H X_in
  kbla::OrthoOptions opt;
  opt.one_pass_ratio = 0.5;
  kbla::BlockOrthogonalizer<Exec, T> orth(Exec{}, opt);
  int calls = 0;
  HostMatrix<T> got;
  const auto& r = orth(cols(0, p), cols(p, p + s), local, [&](const kbla::dense::Matrix<T>& c) {
    ++calls;
    got = c;
  });
  ASSERT_EQ(calls, 1);
  ASSERT_EQ(got.rows(), local);
  ASSERT_EQ(got.cols(), s);
  double err = 0, scale = 0;
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < local; ++i) {
      err = std::max(err, double(std::sqrt(kbla::dense::abs2(got(i, j) - expected(i, j)))));
      scale = std::max(scale, double(std::sqrt(kbla::dense::abs2(expected(i, j)))));
      // H holds the local coefficients plus the (rounding-level) full projection's corrections.
      EXPECT_LE(double(std::sqrt(kbla::dense::abs2(r.H(p - local + i, j) - got(i, j)))), 1e-12);
    }
  EXPECT_GT(scale, 0.1);
  EXPECT_LE(err, 1e-13 * scale);
  calls = 0;
  Kokkos::deep_copy(cols(p, p + s), to_device(Xin));
  orth(cols(0, p), cols(p, p + s), 0, [&](const kbla::dense::Matrix<T>&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(Ortho, LocalHookGetsTheLocalCoefficientsDouble) { local_hook_gets_local_coefficients<double>(); }
TEST(Ortho, LocalHookGetsTheLocalCoefficientsComplex) { local_hook_gets_local_coefficients<Kokkos::complex<double>>(); }

TEST(Ortho, LocalProjectionRejectsBadLocal) {
  DeviceBlock<double> V("V", 100, 6);
  kbla::BlockOrthogonalizer<Exec, double> orth(Exec{});
  auto Q = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(0, 4));
  auto X = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(4, 6));
  EXPECT_THROW(orth(Q, X, 5), std::invalid_argument);
  EXPECT_THROW(orth(Q, X, -1), std::invalid_argument);
}

TEST(Ortho, RejectsMismatchedRowsAndOverlap) {
  DeviceBlock<double> Q("Q", 100, 3), X("X", 90, 2), V("V", 100, 6);
  EXPECT_THROW(kbla::ortho(Exec(), Q, X), std::invalid_argument);
  auto a = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(0, 4));
  auto b = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(3, 6));
  EXPECT_THROW(kbla::ortho(Exec(), a, b), std::invalid_argument);
}
