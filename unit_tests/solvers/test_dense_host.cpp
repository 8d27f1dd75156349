// The host dense helpers of the solvers: Hermitian eigen-solver (Householder + QL), Cholesky, triangular
// inverse, singular values of small factors.
#include "solver_test_helpers.hpp"

using namespace kbla_test;

namespace {

template <class T>
HostMatrix<T> with_spectrum(const std::vector<double>& lambda, std::uint64_t seed) {
  const int n = int(lambda.size());
  const HostMatrix<T> U = orthonormalize(random_matrix<T>(n, n, seed));
  HostMatrix<T> D(n, n);
  for (int i = 0; i < n; ++i) D(i, i) = T(lambda[i]);
  HostMatrix<T> A = kbla::dense::multiply(U, kbla::dense::multiply(D, U, false), false);
  HostMatrix<T> B(n, n);  // A = U D U^H
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      T s(0);
      for (int k = 0; k < n; ++k) s += U(i, k) * T(lambda[k]) * kbla::dense::conj(U(j, k));
      B(i, j) = s;
    }
  (void)A;
  for (int j = 0; j < n; ++j)  // exactly Hermitian
    for (int i = 0; i <= j; ++i) {
      const T h = (B(i, j) + kbla::dense::conj(B(j, i))) / T(2);
      B(i, j) = h;
      B(j, i) = kbla::dense::conj(h);
    }
  return B;
}

template <class T>
void check_eigen(const std::vector<double>& lambda, std::uint64_t seed) {
  const int n = int(lambda.size());
  const HostMatrix<T> A = with_spectrum<T>(lambda, seed);
  std::vector<double> w;
  HostMatrix<T> Z;
  kbla::dense::hermitian_eigen(A, w, Z);
  std::vector<double> sorted = lambda;
  std::sort(sorted.begin(), sorted.end());
  double scale = 1;
  for (double l : lambda) scale = std::max(scale, std::abs(l));
  for (int i = 0; i < n; ++i) EXPECT_NEAR(w[i], sorted[i], 1e-13 * scale * n) << i;
  EXPECT_LE(orthogonality_loss(Z), 1e-13 * n);
  HostMatrix<T> R = kbla::dense::multiply(A, Z);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) R(i, j) -= Z(i, j) * T(w[j]);
  EXPECT_LE(frobenius(R), 1e-13 * scale * n);
}

}  // namespace

TEST(DenseHost, HermitianEigenReal) {
  check_eigen<double>({3.0}, 1);
  check_eigen<double>({1.0, -2.0}, 2);
  std::vector<double> l;
  for (int i = 0; i < 60; ++i) l.push_back(std::sin(1.0 + i) * 10);
  check_eigen<double>(l, 3);
}

TEST(DenseHost, HermitianEigenRepeated) {
  check_eigen<double>({5, 5, 5, 1, 1, -2, 0, 0, 0, 0, 3, 5}, 4);
  check_eigen<Kokkos::complex<double>>({2, 2, 2, 2, -1, 7, 7, 0.5}, 5);
}

TEST(DenseHost, HermitianEigenComplex) {
  std::vector<double> l;
  for (int i = 0; i < 45; ++i) l.push_back(std::cos(0.3 * i) * 3 + 0.01 * i);
  check_eigen<Kokkos::complex<double>>(l, 6);
}

TEST(DenseHost, HermitianEigenDiagonalAndZero) {
  HostMatrix<double> D(4, 4);
  D(0, 0) = 3;
  D(2, 2) = -1;
  std::vector<double> w;
  HostMatrix<double> Z;
  kbla::dense::hermitian_eigen(D, w, Z);
  EXPECT_EQ(w, (std::vector<double>{-1, 0, 0, 3}));
  kbla::dense::hermitian_eigen(HostMatrix<double>(0, 0), w, Z);
  EXPECT_TRUE(w.empty());
}

TEST(DenseHost, CholeskyAndInverse) {
  using T = Kokkos::complex<double>;
  const HostMatrix<T> X = random_matrix<T>(30, 6, 7);
  const HostMatrix<T> G = kbla::dense::multiply(X, X, true);
  HostMatrix<T> R;
  const auto info = kbla::dense::cholesky_upper(G, R);
  ASSERT_TRUE(info.ok);
  HostMatrix<T> E = kbla::dense::multiply(R, R, true);
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) E(i, j) -= G(i, j);
  EXPECT_LE(frobenius(E), 1e-12 * frobenius(G));
  const HostMatrix<T> I = kbla::dense::multiply(R, kbla::dense::inverse_upper(R));
  EXPECT_LE(kbla::dense::distance_from_identity(I), 1e-13);
  HostMatrix<double> S(2, 2);
  S(0, 0) = 1;
  S(0, 1) = S(1, 0) = 2;
  S(1, 1) = 1;  // indefinite
  HostMatrix<double> RS;
  EXPECT_FALSE(kbla::dense::cholesky_upper(S, RS).ok);
  EXPECT_TRUE(kbla::dense::cholesky_upper(S, RS, 1.5).ok);
}

TEST(DenseHost, SingularValuesResolveTinyOnes) {
  const int n = 6;
  const HostMatrix<double> U = orthonormalize(random_matrix<double>(n, n, 8));
  const HostMatrix<double> W = orthonormalize(random_matrix<double>(n, n, 9));
  const std::vector<double> sigma = {1, 1e-3, 1e-6, 1e-9, 1e-12, 0};
  HostMatrix<double> A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) A(i, j) += U(i, k) * sigma[k] * W(j, k);
  std::vector<double> s;
  HostMatrix<double> Uc;
  kbla::dense::singular_values_left(A, s, Uc);
  for (int k = 0; k < n; ++k) EXPECT_NEAR(s[k], sigma[k], 1e-15) << k;
  EXPECT_LE(orthogonality_loss(Uc), 1e-14);
  for (int k = 0; k < 4; ++k) {  // leading left singular vectors match up to sign
    double dot = 0;
    for (int i = 0; i < n; ++i) dot += Uc(i, k) * U(i, k);
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-6) << k;
  }
}
