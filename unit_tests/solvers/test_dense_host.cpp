// The host dense helpers of the solvers: Hermitian eigen-solver (Householder, QL, inverse iteration), Cholesky,
// triangular inverse, singular values of small factors.
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

namespace {

// The eigen-solver's contract on any Hermitian A: w ascending, Z orthonormal, A Z = Z diag(w), to `tol` (relative
// to max(1, ||A||_max) for the residual), for double, float and their complex types.
template <class T>
using Mag = kbla::dense::mag_t<T>;

template <class T>
T from_double(const Kokkos::complex<double>& z) {
  if constexpr (kbla::Impl::ArithTraits<T>::is_complex)
    return T(Mag<T>(z.real()), Mag<T>(z.imag()));
  else
    return T(Mag<T>(z.real()));
}

template <class T>
double scaled_tolerance(int n) {  // the double checks' 1e-13 n, in units of the type's epsilon
  return 450.0 * double(std::numeric_limits<Mag<T>>::epsilon()) * std::max(n, 1);
}

template <class T>
void check_contract(const HostMatrix<T>& A, const std::string& what) {
  SCOPED_TRACE(what);
  const int n = A.rows();
  std::vector<Mag<T>> w;
  HostMatrix<T> Z;
  kbla::dense::hermitian_eigen(A, w, Z);
  ASSERT_EQ(int(w.size()), n);
  ASSERT_EQ(Z.rows(), n);
  ASSERT_EQ(Z.cols(), n);
  for (int i = 0; i + 1 < n; ++i) EXPECT_LE(w[i], w[i + 1]) << i;
  double scale = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) scale = std::max(scale, std::sqrt(double(kbla::dense::abs2(A(i, j)))));
  const double tol = scaled_tolerance<T>(n);
  if (n > 0) EXPECT_LE(orthogonality_loss(Z), tol);
  HostMatrix<T> R = kbla::dense::multiply(A, Z);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) R(i, j) -= Z(i, j) * T(w[j]);
  EXPECT_LE(frobenius(R), tol * scale);
  // Eigenvectors of a range only (the Rayleigh-Ritz step's kept Ritz vectors: the top or bottom part, ranges that
  // cut through clusters and repeated values, none): the same eigenvalues bit for bit, orthonormal vectors, each
  // with its own eigenvalue's residual.
  const int half = n / 2, third = n / 3;
  const std::pair<int, int> ranges[] = {{n - half, half}, {0, third + 1}, {third, half - third + 1}, {n, 0}, {0, n}};
  for (const auto& [first, count] : ranges) {
    if (first < 0 || count < 0 || first + count > n) continue;
    SCOPED_TRACE("eigenvectors " + std::to_string(first) + " + " + std::to_string(count));
    std::vector<Mag<T>> wr;
    HostMatrix<T> Zr;
    kbla::dense::hermitian_eigen(A, wr, Zr, first, count);
    EXPECT_EQ(wr, w);
    ASSERT_EQ(Zr.rows(), n);
    ASSERT_EQ(Zr.cols(), count);
    if (count == 0) continue;
    EXPECT_LE(orthogonality_loss(Zr), tol);
    HostMatrix<T> Rr = kbla::dense::multiply(A, Zr);
    for (int j = 0; j < count; ++j)
      for (int i = 0; i < n; ++i) Rr(i, j) -= Zr(i, j) * T(w[first + j]);
    EXPECT_LE(frobenius(Rr), tol * scale);
  }
}

// U diag(lambda) U^H with a random unitary U (computed in double, then rounded to T and made exactly Hermitian).
template <class T>
HostMatrix<T> planted(const std::vector<double>& lambda, std::uint64_t seed) {
  using C = Kokkos::complex<double>;
  constexpr bool complex_data = kbla::Impl::ArithTraits<T>::is_complex;
  const int n = int(lambda.size());
  const HostMatrix<C> B = complex_data ? with_spectrum<C>(lambda, seed) : [&] {
    const HostMatrix<double> R = with_spectrum<double>(lambda, seed);  // real U for real data
    HostMatrix<C> RC(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) RC(i, j) = C(R(i, j), 0);
    return RC;
  }();
  HostMatrix<T> A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = from_double<T>(B(i, j));
  for (int i = 0; i < n; ++i) A(i, i) = T(kbla::dense::real(A(i, i)));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) A(i, j) = kbla::dense::conj(A(j, i));
  return A;
}

template <class T>
HostMatrix<T> random_hermitian(int n, std::uint64_t seed) {
  const HostMatrix<Kokkos::complex<double>> G = random_matrix<Kokkos::complex<double>>(n, n, seed);
  HostMatrix<T> A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      A(i, j) = i == j ? T(Mag<T>(G(i, j).real())) : from_double<T>(G(i, j));
      A(j, i) = kbla::dense::conj(A(i, j));
    }
  return A;
}

// Spectra that stress the eigenvectors: every multiplicity from 2 to 8, clusters 1e-12 apart (relative), a few
// distinct values in between.
std::vector<double> repeated_and_clustered(int n) {
  std::vector<double> l;
  for (int m = 2; int(l.size()) < n; m = m == 8 ? 2 : m + 1) {
    const double value = 0.5 + 0.75 * double(l.size());
    for (int c = 0; c < m && int(l.size()) < n; ++c) l.push_back(value);  // exactly repeated
    for (int c = 0; c < 3 && int(l.size()) < n; ++c) l.push_back(-value * (1 + 1e-12 * c));  // tight cluster
    if (int(l.size()) < n) l.push_back(0.1 * value);
  }
  return l;
}

// Shaped like the block Lanczos T after a thick restart: kept Ritz values on the diagonal (some converged copies
// of one value), an arrowhead block coupling them to the first new block, then a block tridiagonal with upper
// triangular sub-diagonal blocks.
template <class T>
HostMatrix<T> lanczos_like(int kept, int block, int blocks, std::uint64_t seed) {
  const int n = kept + block * blocks;
  const HostMatrix<Kokkos::complex<double>> G = random_matrix<Kokkos::complex<double>>(n, n, seed);
  HostMatrix<T> A(n, n);
  for (int i = 0; i < kept; ++i) A(i, i) = T(Mag<T>(i < 6 ? 11.9 : 11.0 - 0.1 * i));
  for (int j = 0; j < kept; ++j)  // arrowhead: the first new block couples to every kept vector (small for converged)
    for (int i = kept; i < kept + block; ++i) A(i, j) = from_double<T>(G(i, j) * (j < 6 ? 1e-11 : 0.1));
  for (int b = 0; b < blocks; ++b) {
    const int o = kept + b * block;
    for (int j = 0; j < block; ++j)
      for (int i = j; i < block; ++i) A(o + i, o + j) = from_double<T>(G(o + i, o + j));
    if (b + 1 < blocks)
      for (int j = 0; j < block; ++j)
        for (int i = 0; i <= j; ++i) A(o + block + i, o + j) = from_double<T>(G(o + block + i, o + j) * 0.5);
  }
  for (int j = 0; j < n; ++j) {
    A(j, j) = T(kbla::dense::real(A(j, j)));
    for (int i = j + 1; i < n; ++i) A(j, i) = kbla::dense::conj(A(i, j));
  }
  return A;
}

template <class T>
void check_all_shapes() {
  for (int n : {0, 1, 2, 3, 5, 17, 64, 120})
    check_contract(random_hermitian<T>(n, 100 + n), "random n=" + std::to_string(n));
  for (int n : {2, 3, 12, 48, 88, 120})
    check_contract(planted<T>(repeated_and_clustered(n), 200 + n), "repeated/clustered n=" + std::to_string(n));
  {
    HostMatrix<T> D(40, 40);  // diagonal, unsorted, with repeats and zeros
    for (int i = 0; i < 40; ++i) D(i, i) = T(Mag<T>((i * 7) % 5) - Mag<T>(2));
    check_contract(D, "diagonal");
    std::vector<Mag<T>> w;
    HostMatrix<T> Z;
    kbla::dense::hermitian_eigen(D, w, Z);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(w[i], Mag<T>(i / 8) - Mag<T>(2)) << i;
  }
  {
    const int n = 60;  // already tridiagonal (real off-diagonal, then complex phases), and one with a zero coupling
    HostMatrix<T> A(n, n);
    const HostMatrix<Kokkos::complex<double>> G = random_matrix<Kokkos::complex<double>>(n, n, 300);
    for (int i = 0; i < n; ++i) A(i, i) = T(Mag<T>(G(i, i).real()));
    for (int i = 0; i + 1 < n; ++i) {
      A(i + 1, i) = i == n / 2 ? T(0) : from_double<T>(G(i + 1, i));
      A(i, i + 1) = kbla::dense::conj(A(i + 1, i));
    }
    check_contract(A, "tridiagonal");
    HostMatrix<T> W(n, n);  // Wilkinson's W+: pairs of eigenvalues agreeing to many digits
    for (int i = 0; i < n; ++i) W(i, i) = T(Mag<T>(std::abs(i - (n - 1) / 2.0)));
    for (int i = 0; i + 1 < n; ++i) W(i + 1, i) = W(i, i + 1) = T(1);
    check_contract(W, "Wilkinson");
  }
  check_contract(lanczos_like<T>(20, 8, 8, 400), "block tridiagonal with arrowhead");
  check_contract(lanczos_like<T>(0, 8, 11, 401), "block tridiagonal");
  {
    HostMatrix<T> Z0(7, 7);  // zero matrix, and a multiple of the identity: any orthonormal basis
    check_contract(Z0, "zero");
    check_contract(HostMatrix<T>::identity(9), "identity");
  }
}

}  // namespace

TEST(DenseHost, HermitianEigenContractDouble) { check_all_shapes<double>(); }

TEST(DenseHost, HermitianEigenBadRange) {
  const HostMatrix<double> A = random_hermitian<double>(20, 7);
  std::vector<double> w = {1.0};
  HostMatrix<double> Z(3, 3);
  for (const auto& [first, count] : {std::pair<int, int>{-1, 2}, {0, -1}, {15, 6}, {21, 0}}) {
    try {
      kbla::dense::hermitian_eigen(A, w, Z, first, count);
      ADD_FAILURE() << "no exception for first " << first << " count " << count;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("first = " + std::to_string(first)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("20 eigenvalues"), std::string::npos) << e.what();
    }
    EXPECT_EQ(w, std::vector<double>{1.0});  // nothing written
    EXPECT_EQ(Z.rows(), 3);
  }
}
TEST(DenseHost, HermitianEigenContractComplexDouble) { check_all_shapes<Kokkos::complex<double>>(); }
TEST(DenseHost, HermitianEigenContractFloat) { check_all_shapes<float>(); }
TEST(DenseHost, HermitianEigenContractComplexFloat) { check_all_shapes<Kokkos::complex<float>>(); }

// Exactly repeated eigenvalues must come out exactly (to rounding) and as a basis of their eigenspace: the
// projector onto the computed vectors of one value equals the planted one.
TEST(DenseHost, HermitianEigenInvariantSubspaces) {
  using T = Kokkos::complex<double>;
  const int n = 48;
  std::vector<double> lambda;
  for (int i = 0; int(lambda.size()) < n; ++i)
    for (int m = 0; m < 1 + i % 8 && int(lambda.size()) < n; ++m) lambda.push_back(double(i));
  const HostMatrix<T> U = orthonormalize(random_matrix<T>(n, n, 500));
  HostMatrix<T> A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) A(i, j) += U(i, k) * T(lambda[k]) * kbla::dense::conj(U(j, k));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) {
      const T h = (A(i, j) + kbla::dense::conj(A(j, i))) / T(2);
      A(i, j) = h;
      A(j, i) = kbla::dense::conj(h);
    }
  std::vector<double> w;
  HostMatrix<T> Z;
  kbla::dense::hermitian_eigen(A, w, Z);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(w[i], lambda[i], 1e-12 * n) << i;
  for (int first = 0; first < n;) {  // each eigenspace: || P_computed - P_planted ||_F small
    int last = first;
    while (last + 1 < n && lambda[last + 1] == lambda[first]) ++last;
    double diff2 = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        T pc(0), pp(0);
        for (int k = first; k <= last; ++k) {
          pc += Z(i, k) * kbla::dense::conj(Z(j, k));
          pp += U(i, k) * kbla::dense::conj(U(j, k));
        }
        diff2 += kbla::dense::abs2(pc - pp);
      }
    EXPECT_LE(std::sqrt(diff2), 1e-11) << "eigenvalue " << lambda[first];
    first = last + 1;
  }
}

// The fallback route of the tridiagonal stage (QL with the rotations accumulated, when inverse iteration fails) on
// its own: Y orthogonal and T Y = Y diag(d), on Wilkinson's W+ (close pairs) and a random tridiagonal.
TEST(DenseHost, TridiagonalQLWithVectors) {
  for (int shape = 0; shape < 2; ++shape) {
    const int n = 41;
    const HostMatrix<double> G = random_matrix<double>(n, 2, 700);
    std::vector<double> d(n), e(n, 0.0);
    for (int i = 0; i < n; ++i) d[i] = shape == 0 ? std::abs(i - (n - 1) / 2.0) : G(i, 0);
    for (int i = 0; i + 1 < n; ++i) e[i] = shape == 0 ? 1.0 : G(i, 1);
    std::vector<double> w = d, scratch = e;
    HostMatrix<double> Y = HostMatrix<double>::identity(n);
    ASSERT_TRUE(kbla::dense::eigen_detail::tridiagonal_ql(w.data(), scratch.data(), n, Y.data(), n, n));
    EXPECT_LE(orthogonality_loss(Y), 1e-13 * n);
    double r2 = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double t = (d[i] - w[j]) * Y(i, j);
        if (i > 0) t += e[i - 1] * Y(i - 1, j);
        if (i + 1 < n) t += e[i] * Y(i + 1, j);
        r2 += t * t;
      }
    EXPECT_LE(std::sqrt(r2), 1e-13 * n * 20) << shape;
    // The whole tridiagonal stage by either route (with a split in the middle): same eigenvalues, both valid.
    e[n / 2] = 0;
    for (bool use_ql : {false, true}) {
      std::vector<double> wr, Yr;
      kbla::dense::eigen_detail::tridiagonal_eigen(d, e, wr, Yr, use_ql);
      HostMatrix<double> Yq(n, n);
      std::copy(Yr.begin(), Yr.end(), Yq.data());
      EXPECT_LE(orthogonality_loss(Yq), 1e-13 * n) << use_ql;
      double s2 = 0;
      for (int j = 0; j < n; ++j) {
        if (j + 1 < n) EXPECT_LE(wr[j], wr[j + 1]);
        for (int i = 0; i < n; ++i) {
          double t = (d[i] - wr[j]) * Yq(i, j);
          if (i > 0) t += e[i - 1] * Yq(i - 1, j);
          if (i + 1 < n) t += e[i] * Yq(i + 1, j);
          s2 += t * t;
        }
      }
      EXPECT_LE(std::sqrt(s2), 1e-13 * n * 20) << use_ql;
      if (use_ql) {
        std::vector<double> wi;
        kbla::dense::eigen_detail::tridiagonal_eigen(d, e, wi, Yr, false);
        for (int j = 0; j < n; ++j) EXPECT_NEAR(wr[j], wi[j], 1e-13 * n) << j;
      }
    }
  }
}

// Scaling: tiny and huge matrices come out as the scaled decomposition (no overflow or underflow in the squares).
TEST(DenseHost, HermitianEigenScaling) {
  for (int n : {8, 30}) {  // both routes (small matrices take the Householder + tql2 one)
    const HostMatrix<double> A = random_hermitian<double>(n, 600 + n);
    std::vector<double> w, ws;
    HostMatrix<double> Z, Zs;
    kbla::dense::hermitian_eigen(A, w, Z);
    for (double factor : {1e-170, 1e170}) {
      HostMatrix<double> B = A;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) B(i, j) *= factor;
      kbla::dense::hermitian_eigen(B, ws, Zs);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(ws[i] / factor, w[i], 1e-13 * n) << factor << " " << i;
      EXPECT_LE(orthogonality_loss(Zs), 1e-13 * n);
    }
  }
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
