// kbla::eigen (thick-restart block Lanczos) on the default backend: the 3D and 2D Laplacians against their analytic
// spectra with repeated eigenvalues, diagonal matrices with planted spectra (user functor operator; repeated values
// and a tight cluster), a complex Hermitian matrix, the dense fallback for tiny problems, and option checking; the
// Chebyshev-accelerated solver (EigenOptions::chebyshev_degree) on the same problems, and its residual bound.
#include "solver_test_helpers.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <map>
#include <random>
#include <stdexcept>
#if defined(__linux__)
#include <sched.h>
#endif

using namespace kbla_test;

namespace {

using Crs = KokkosSparse::CrsMatrix<double, int, Exec>;

bool verbose() { return std::getenv("KBLA_TEST_VERBOSE") != nullptr; }

template <class T>
void print_summary(const char* name, const kbla::EigenResult<T, Mem>& r) {
  if (!verbose()) return;
  std::printf("  %s: restarts %d iterations %d op vectors %ld basis %d, time %.3f s (op %.3f ortho %.3f rr %.3f)\n",
              name, r.restarts, r.iterations, r.operator_applications, r.basis_size, r.timings.total,
              r.timings.operator_apply, r.timings.ortho, r.timings.rayleigh_ritz);
}

// Every computed value within rel_tol of the expected one (both in the wanted order), residuals small, and the
// eigenvectors orthonormal.
template <class T>
void check_against(const kbla::EigenResult<T, Mem>& r, const std::vector<double>& expected, double rel_tol,
                   double residual_tol) {
  ASSERT_EQ(r.eigenvalues.size(), expected.size());
  EXPECT_TRUE(r.converged);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_LE(std::abs(r.eigenvalues[i] - expected[i]), rel_tol * std::abs(expected[i]))
        << "eigenvalue " << i << ": computed " << r.eigenvalues[i] << " expected " << expected[i];
    EXPECT_LE(r.residuals[i], residual_tol) << "eigenvalue " << i;
  }
  EXPECT_LE(orthogonality_loss(to_host(r.eigenvectors)), 1e-12);
  EXPECT_GT(r.operator_applications, 0);
  if (!r.dense) EXPECT_GT(r.iterations, 0);
}

// Multiplicities: clusters of the computed values (gap 1e-8) must have the analytic sizes, except the last one,
// which k may cut.
void check_multiplicities(const std::vector<double>& computed, const std::vector<double>& expected) {
  auto clusters = [](const std::vector<double>& v) {
    std::vector<int> sizes;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i == 0 || std::abs(v[i] - v[i - 1]) > 1e-8 * std::abs(v[i])) sizes.push_back(0);
      ++sizes.back();
    }
    return sizes;
  };
  EXPECT_EQ(clusters(computed), clusters(expected));
}

std::vector<double> laplacian_wanted(int n, int k, kbla::EigenWhich which) {
  std::vector<double> all = kbla::laplacian_3d_eigenvalues(n);
  if (which == kbla::EigenWhich::largest) std::reverse(all.begin(), all.end());
  all.resize(k);
  return all;
}

void laplacian_case(int n, int k, int s, kbla::EigenWhich which, int expect_min_multiplicity,
                    bool bcgs2_every_step = false, int chebyshev_degree = 0) {
  const Crs A = kbla::laplacian_3d<Crs>(n);
  kbla::EigenOptions opt;
  if (bcgs2_every_step) {  // the scheme before the local projection and the one-pass test
    opt.local_projection = false;
    opt.ortho.one_pass_ratio = 0;
  }
  opt.nev = k;
  opt.block_size = s;
  opt.tol = 1e-10;
  opt.which = which;
  opt.chebyshev_degree = chebyshev_degree;
  const auto r = kbla::eigen(Exec(), A, opt);
  print_summary("laplacian", r);
  EXPECT_EQ(r.chebyshev_degree, chebyshev_degree) << "the filter must have been used (the first fill did not converge)";
  const std::vector<double> expected = laplacian_wanted(n, k, which);
  check_against(r, expected, 1e-10, 1.5e-10);
  check_multiplicities(r.eigenvalues, expected);
  int max_mult = 0;
  for (std::size_t i = 0, c = 0; i < expected.size(); ++i) {
    c = (i > 0 && std::abs(expected[i] - expected[i - 1]) < 1e-9) ? c + 1 : 1;
    max_mult = std::max<int>(max_mult, int(c));
  }
  EXPECT_GE(max_mult, expect_min_multiplicity) << "the case is meant to contain repeated eigenvalues";
  EXPECT_FALSE(r.dense);
}

}  // namespace

// n = 10: the 17 largest are 1 + 3 + 3 + 3 + 1 + 6 (multiplicities), the 10 smallest 1 + 3 + 3 + 3.
TEST(Eigen, Laplacian3dLargestWithSixfoldEigenvalue) { laplacian_case(10, 17, 8, kbla::EigenWhich::largest, 6); }
TEST(Eigen, Laplacian3dLargestBCGS2EveryStep) { laplacian_case(10, 17, 8, kbla::EigenWhich::largest, 6, true); }
// Chebyshev acceleration: the same values and multiplicities from block Lanczos on the filter p(A).
TEST(Eigen, ChebyshevLaplacian3dLargestWithSixfoldEigenvalue) {
  laplacian_case(10, 17, 8, kbla::EigenWhich::largest, 6, false, 7);
}
TEST(Eigen, ChebyshevLaplacian3dSmallestBlockEqualsMultiplicity) {
  laplacian_case(12, 17, 6, kbla::EigenWhich::smallest, 6, false, 5);
}
TEST(Eigen, ChebyshevLaplacian3dLargestBCGS2EveryStep) {
  laplacian_case(10, 17, 8, kbla::EigenWhich::largest, 6, true, 3);
}

// The filter's residual bound: for any unit x and mu > 1, ||A x - lambda x|| <= factor(mu) ||p(A) x - mu x|| with
// lambda = preimage(mu), on a diagonal A whose spectrum lies on the wanted side, inside the interval and beyond its
// far end; and p's values: T_d at the interval's ends, monotone growth on the wanted side, preimage inverts p there.
TEST(Eigen, ChebyshevFilterResidualBoundHolds) {
  for (const double sign : {1.0, -1.0}) {
    kbla::Impl::ChebyshevPolynomial p;
    p.degree = 7;
    p.center = 2.0;
    p.half_width = 3.0;
    p.sign = sign;
    EXPECT_NEAR(p.value(p.center + sign * p.half_width), 1.0, 1e-12);
    EXPECT_NEAR(p.value(p.center - sign * p.half_width), -1.0, 1e-12);  // odd degree
    double previous = 1.0;
    for (int i = 1; i <= 20; ++i) {
      const double x = p.center + sign * (p.half_width + 0.05 * i), v = p.value(x);
      EXPECT_GT(v, previous);
      EXPECT_NEAR(p.preimage(v), x, 1e-9 * std::abs(x));
      previous = v;
    }
    std::mt19937_64 g(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> normal;
    std::vector<double> spectrum;
    for (int i = 0; i < 60; ++i) spectrum.push_back(p.center + sign * p.half_width * (-1.0 + 2.0 * u(g)));  // inside
    for (int i = 0; i < 10; ++i) spectrum.push_back(p.center + sign * p.half_width * (1.0 + 0.3 * u(g)));   // wanted
    for (int i = 0; i < 5; ++i) spectrum.push_back(p.center - sign * p.half_width * (1.0 + 0.5 * u(g)));   // far end
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> x(spectrum.size());
      double norm2 = 0;
      for (double& c : x) {
        c = normal(g) * (trial % 2 ? 1.0 : u(g) * u(g));
        norm2 += c * c;
      }
      const double mu = 1.0 + 2.0 * u(g) * u(g) + 1e-3;
      const double lambda = p.preimage(mu);
      double ra = 0, rp = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double c = x[i] / std::sqrt(norm2);
        ra += c * c * (spectrum[i] - lambda) * (spectrum[i] - lambda);
        rp += c * c * (p.value(spectrum[i]) - mu) * (p.value(spectrum[i]) - mu);
      }
      EXPECT_LE(std::sqrt(ra), p.residual_factor(mu) * std::sqrt(rp) * (1 + 1e-12)) << "trial " << trial;
    }
  }
}
// The Rayleigh-Ritz step's dense eigenproblem on a host thread during the step that fills the basis (the default on a
// device backend) or after it: the same projected matrix, so the same values; both against the analytic ones.
TEST(Eigen, OverlappedRayleighRitzGivesTheSameValues) {
  const Crs A = kbla::laplacian_3d<Crs>(10);
  kbla::EigenOptions opt;
  opt.nev = 17;
  opt.block_size = 8;
  opt.tol = 1e-10;
  const std::vector<double> expected = laplacian_wanted(10, 17, kbla::EigenWhich::largest);
  opt.overlap_rayleigh_ritz = false;
  const auto after = kbla::eigen(Exec(), A, opt);
  opt.overlap_rayleigh_ritz = true;
  const auto during = kbla::eigen(Exec(), A, opt);
  check_against(after, expected, 1e-10, 1.5e-10);
  check_against(during, expected, 1e-10, 1.5e-10);
  ASSERT_EQ(after.eigenvalues.size(), during.eigenvalues.size());
  for (std::size_t i = 0; i < after.eigenvalues.size(); ++i)
    EXPECT_NEAR(after.eigenvalues[i], during.eigenvalues[i], 1e-12 * std::abs(after.eigenvalues[i])) << "value " << i;
  EXPECT_GT(during.timings.projected_eigen, 0);
}
#if defined(__linux__)
// The overlap's second thread is started only with a second CPU in the process's affinity mask: one CPU in the mask
// (an MPI rank bound to one core) counts as one, whatever the machine has.
TEST(Eigen, UsableHostCpusFollowTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(kbla::Impl::usable_host_cpus(), CPU_COUNT(&saved));
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const int with_one = kbla::Impl::usable_host_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(with_one, 1);
}
#endif

TEST(Eigen, Laplacian3dSmallest) { laplacian_case(10, 10, 4, kbla::EigenWhich::smallest, 3); }
// n = 12, block size equal to the largest multiplicity (6): the 17 smallest are 1 + 3 + 3 + 3 + 1 + 6.
TEST(Eigen, Laplacian3dSmallestBlockEqualsMultiplicity) { laplacian_case(12, 17, 6, kbla::EigenWhich::smallest, 6); }

namespace kbla_test {  // named: nvcc refuses device lambdas in members of classes in anonymous namespaces

struct DiagonalOperator {
  Kokkos::View<double*, Mem> d;
  template <class XV, class YV>
  void operator()(const XV& X, const YV& Y) const {
    const auto dd = d;
    const std::int64_t cols = X.extent(1);
    Kokkos::parallel_for(
        "diag op", Kokkos::RangePolicy<Exec>(0, X.extent(0)), KOKKOS_LAMBDA(const std::int64_t i) {
          for (std::int64_t j = 0; j < cols; ++j) Y(i, j) = dd(i) * X(i, j);
        });
  }
};

}  // namespace kbla_test

TEST(Eigen, DiagonalWithChosenSpectrumFunctorOperator) {
  // 600 values: a 4-fold 50, a double 49.5, 49.2, then 1..48 spread, and a 3-fold -7 and -6.5 at the bottom.
  const int n = 600;
  std::vector<double> spectrum;
  for (int i = 0; i < 4; ++i) spectrum.push_back(50.0);
  spectrum.push_back(49.5);
  spectrum.push_back(49.5);
  spectrum.push_back(49.2);
  for (int i = 0; i < 3; ++i) spectrum.push_back(-7.0);
  spectrum.push_back(-6.5);
  while (int(spectrum.size()) < n) spectrum.push_back(1.0 + 47.0 * (spectrum.size() % 97) / 97.0 + 1e-3 * spectrum.size());
  std::vector<double> permuted = spectrum;
  std::mt19937_64 g(3);
  std::shuffle(permuted.begin(), permuted.end(), g);
  Kokkos::View<double*, Mem> d("d", n);
  auto dh = Kokkos::create_mirror_view(d);
  for (int i = 0; i < n; ++i) dh(i) = permuted[i];
  Kokkos::deep_copy(d, dh);
  std::sort(spectrum.begin(), spectrum.end());

  kbla::EigenOptions opt;
  opt.nev = 7;
  opt.block_size = 4;
  opt.tol = 1e-11;
  auto r = kbla::eigen<double>(Exec(), DiagonalOperator{d}, n, opt);
  print_summary("diagonal largest", r);
  check_against(r, std::vector<double>(spectrum.rbegin(), spectrum.rbegin() + 7), 1e-10, 1e-10);
  check_multiplicities(r.eigenvalues, std::vector<double>(spectrum.rbegin(), spectrum.rbegin() + 7));

  opt.which = kbla::EigenWhich::smallest;
  opt.nev = 4;
  r = kbla::eigen<double>(Exec(), DiagonalOperator{d}, n, opt);
  print_summary("diagonal smallest", r);
  check_against(r, std::vector<double>(spectrum.begin(), spectrum.begin() + 4), 1e-10, 1e-10);
}

// A planted spectrum with a tight cluster (three values 1e-9 apart: numerically one triple value to the solver's
// 1e-10 tolerance, yet not equal), a repeated value and close neighbours, on the diagonal functor operator: the
// solver must return every member of the cluster and of the repeated value.
TEST(Eigen, PlantedTightClusterAndRepeatedValues) {
  const int n = 500;
  std::vector<double> spectrum = {20.0, 20.0 - 1e-9, 20.0 - 2e-9, 19.5, 19.5, 19.5, 19.4, 19.4 - 1e-3};
  while (int(spectrum.size()) < n) spectrum.push_back(-5.0 + 23.0 * double(spectrum.size()) / n);
  std::vector<double> permuted = spectrum;
  std::mt19937_64 g(11);
  std::shuffle(permuted.begin(), permuted.end(), g);
  Kokkos::View<double*, Mem> d("d", n);
  auto dh = Kokkos::create_mirror_view(d);
  for (int i = 0; i < n; ++i) dh(i) = permuted[i];
  Kokkos::deep_copy(d, dh);
  std::sort(spectrum.begin(), spectrum.end(), std::greater<double>());

  kbla::EigenOptions opt;
  opt.nev = 8;
  opt.block_size = 4;
  opt.tol = 1e-10;
  for (const int degree : {0, 9}) {
    opt.chebyshev_degree = degree;
    const auto r = kbla::eigen<double>(Exec(), DiagonalOperator{d}, n, opt);
    print_summary(degree ? "planted clusters, Chebyshev" : "planted clusters", r);
    const std::vector<double> expected(spectrum.begin(), spectrum.begin() + 8);
    check_against(r, expected, 1e-10, 1e-10);
    check_multiplicities(r.eigenvalues, expected);
    EXPECT_FALSE(r.dense);
    EXPECT_EQ(r.chebyshev_degree, degree);
  }
}

namespace {

// The diagonal operator of a spectrum, in a shuffled order, and the spectrum sorted into the wanted order.
Kokkos::View<double*, Mem> shuffled_diagonal(std::vector<double>& spectrum, kbla::EigenWhich which) {
  std::vector<double> permuted = spectrum;
  std::mt19937_64 g(23);
  std::shuffle(permuted.begin(), permuted.end(), g);
  Kokkos::View<double*, Mem> d("d", permuted.size());
  auto dh = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < permuted.size(); ++i) dh(i) = permuted[i];
  Kokkos::deep_copy(d, dh);
  std::sort(spectrum.begin(), spectrum.end());
  if (which == kbla::EigenWhich::largest) std::reverse(spectrum.begin(), spectrum.end());
  return d;
}

}  // namespace

// A wanted eigenvalue far beyond the others (1e4 over a bulk in [-5, 5]) makes any Chebyshev filter's values there
// so large that p(A) cannot be formed accurately enough for tol: the solver must notice from the first fill's Ritz
// values, run the plain iteration instead (chebyshev_degree 0 in the result), and still report its restarts in order.
// A cluster far beyond the other end (50 values near -50) is inside the filter's interval: the filter runs.
TEST(Eigen, ChebyshevFilterOnlyWhereItIsAccurate) {
  const int n = 4000;
  for (const bool outlier : {true, false}) {
    std::vector<double> spectrum;
    for (int i = 0; i < n; ++i) spectrum.push_back(-5.0 + 10.0 * i / n);
    if (outlier)
      spectrum.back() = 1e4;
    else
      for (int i = 0; i < 50; ++i) spectrum[std::size_t(i)] = -50.0 + 0.01 * i;
    const Kokkos::View<double*, Mem> d = shuffled_diagonal(spectrum, kbla::EigenWhich::largest);
    kbla::EigenOptions opt;
    opt.nev = 6;
    opt.block_size = 4;
    opt.chebyshev_degree = 7;
    int calls = 0;
    opt.progress = [&](const kbla::EigenProgress& p) { EXPECT_EQ(p.restart, calls++); };
    const auto r = kbla::eigen<double>(Exec(), DiagonalOperator{d}, n, opt);
    print_summary(outlier ? "wanted outlier, filter off" : "far cluster, filter on", r);
    check_against(r, std::vector<double>(spectrum.begin(), spectrum.begin() + 6), 1e-10, 1e-10);
    EXPECT_EQ(r.chebyshev_degree, outlier ? 0 : 7);
    EXPECT_EQ(calls, r.restarts + 1);
  }
}

namespace kbla_test {

// The 2D Laplacian (5-point stencil, Dirichlet) on an nx x nx grid, matrix-free, as a user functor.
struct Laplacian2DOperator {
  int nx = 0;
  template <class XV, class YV>
  void operator()(const XV& X, const YV& Y) const {
    const int m = nx;
    const std::int64_t cols = X.extent(1);
    Kokkos::parallel_for(
        "laplacian 2d", Kokkos::RangePolicy<Exec>(0, X.extent(0)), KOKKOS_LAMBDA(const std::int64_t row) {
          const int i = int(row % m), j = int(row / m);
          for (std::int64_t c = 0; c < cols; ++c) {
            double y = 4.0 * X(row, c);
            if (i > 0) y -= X(row - 1, c);
            if (i + 1 < m) y -= X(row + 1, c);
            if (j > 0) y -= X(row - m, c);
            if (j + 1 < m) y -= X(row + m, c);
            Y(row, c) = y;
          }
        });
  }
};

}  // namespace kbla_test

// 2D Laplacian on 40 x 40: eigenvalues 4 - 2 cos(i pi / 41) - 2 cos(j pi / 41), double wherever i != j; the 12
// largest have multiplicities 1 + 2 + 1 + 2 + 2 + 2 + 1 + 1 (the last double cut by k), block size 4.
TEST(Eigen, Laplacian2dLargestAnalytic) {
  const int nx = 40, k = 12;
  std::vector<double> all;
  const double pi = std::acos(-1.0);
  for (int i = 1; i <= nx; ++i)
    for (int j = 1; j <= nx; ++j)
      all.push_back(4.0 - 2.0 * std::cos(i * pi / (nx + 1)) - 2.0 * std::cos(j * pi / (nx + 1)));
  std::sort(all.begin(), all.end(), std::greater<double>());
  const std::vector<double> expected(all.begin(), all.begin() + k);
  kbla::EigenOptions opt;
  opt.nev = k;
  opt.block_size = 4;
  opt.tol = 1e-10;
  for (const int degree : {0, 5}) {
    opt.chebyshev_degree = degree;
    const auto r = kbla::eigen<double>(Exec(), Laplacian2DOperator{nx}, std::int64_t(nx) * nx, opt);
    print_summary(degree ? "laplacian 2d, Chebyshev" : "laplacian 2d", r);
    check_against(r, expected, 1e-10, 1.5e-10);
    check_multiplicities(r.eigenvalues, expected);
    EXPECT_FALSE(r.dense);
    EXPECT_EQ(r.chebyshev_degree, degree);
  }
  int doubles = 0;
  for (int i = 1; i < k; ++i) doubles += std::abs(expected[i] - expected[i - 1]) < 1e-12 ? 1 : 0;
  EXPECT_GE(doubles, 4) << "the case is meant to contain double eigenvalues";
}

namespace kbla_test {

struct DenseOperator {
  DeviceBlock<Kokkos::complex<double>> A;
  template <class XV, class YV>
  void operator()(const XV& X, const YV& Y) const {
    kbla::update(Exec(), Kokkos::complex<double>(1), A, X, Kokkos::complex<double>(0), Y);  // Y = A X
  }
};

}  // namespace kbla_test

TEST(Eigen, ComplexHermitian) {
  using T = Kokkos::complex<double>;
  const int n = 240;
  std::vector<double> lambda;
  for (int i = 0; i < n; ++i) lambda.push_back(-3.0 + 6.0 * i / n);
  lambda[0] = lambda[1] = lambda[2] = -5.0;  // 3-fold smallest
  lambda[n - 1] = 9.0;
  lambda[n - 2] = 8.5;
  const HostMatrix<T> U = orthonormalize(random_matrix<T>(n, n, 17));
  HostMatrix<T> A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) {
      T s(0);
      for (int k = 0; k < n; ++k) s += U(i, k) * T(lambda[k]) * kbla::dense::conj(U(j, k));
      A(i, j) = s;
      A(j, i) = kbla::dense::conj(s);
    }
  for (int i = 0; i < n; ++i) A(i, i) = T(kbla::dense::real(A(i, i)));
  kbla::EigenOptions opt;
  opt.nev = 5;
  opt.block_size = 4;
  opt.which = kbla::EigenWhich::smallest;
  std::vector<double> sorted = lambda;
  std::sort(sorted.begin(), sorted.end());
  const DeviceBlock<T> Ad = to_device(A, "A");
  for (const int degree : {0, 7}) {
    opt.chebyshev_degree = degree;
    const auto r = kbla::eigen<T>(Exec(), DenseOperator{Ad}, n, opt);
    print_summary(degree ? "complex hermitian, Chebyshev" : "complex hermitian", r);
    check_against(r, std::vector<double>(sorted.begin(), sorted.begin() + 5), 1e-10, 1e-10);
    check_multiplicities(r.eigenvalues, std::vector<double>(sorted.begin(), sorted.begin() + 5));
    if (degree > 0 && r.restarts > 0) EXPECT_EQ(r.chebyshev_degree, degree);
  }
}

TEST(Eigen, TinyProblemFallsBackToDense) {
  const Crs A = kbla::laplacian_3d<Crs>(3);  // 27 rows
  kbla::EigenOptions opt;
  opt.nev = 7;
  opt.block_size = 8;
  const auto r = kbla::eigen(Exec(), A, opt);
  EXPECT_TRUE(r.dense);
  check_against(r, laplacian_wanted(3, 7, kbla::EigenWhich::largest), 1e-12, 1e-12);
}

TEST(Eigen, ProgressIsReportedPerRestart) {
  const Crs A = kbla::laplacian_3d<Crs>(8);
  kbla::EigenOptions opt;
  opt.nev = 4;
  opt.block_size = 4;
  for (const int degree : {0, 5}) {  // with the filter: the plain basis fill's report, then the filtered restarts'
    opt.chebyshev_degree = degree;
    int calls = 0, last_converged = -1;
    long last_applications = 0;
    opt.progress = [&](const kbla::EigenProgress& p) {
      EXPECT_EQ(p.restart, calls);
      EXPECT_GE(p.converged, last_converged);
      EXPECT_GT(p.operator_applications, last_applications);
      EXPECT_EQ(p.nev, 4);
      last_converged = p.converged;
      last_applications = p.operator_applications;
      ++calls;
    };
    const auto r = kbla::eigen(Exec(), A, opt);
    EXPECT_EQ(calls, r.restarts + 1) << "degree " << degree;
    EXPECT_EQ(last_converged, 4) << "degree " << degree;
  }
}

// The CRS operator's combined step (the Chebyshev filter's recurrence in its pass): Y = alpha A X + beta X + gamma Z
// against the same sum formed on the host from the matrix's arrays, for 8 columns (one full chunk) and 13 (a full and
// a narrower chunk), with Z a separate block and with Z the very block Y (in place, as the filter calls it).
TEST(Eigen, CrsCombinedApplyMatchesTheSumOnTheHost) {
  const Crs A = kbla::laplacian_3d<Crs>(7);
  const int n = int(A.numRows());
  const auto rowmap = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  const double alpha = 0.37, beta = -1.25, gamma = -1.0;
  for (const int cols : {8, 13}) {
    const HostMatrix<double> X = random_matrix<double>(n, cols, 3), Z = random_matrix<double>(n, cols, 4);
    HostMatrix<double> expected(n, cols);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < n; ++i) {
        double ax = 0;
        for (auto q = rowmap(i); q < rowmap(i + 1); ++q) ax += values(q) * X(entries(q), j);
        expected(i, j) = alpha * ax + beta * X(i, j) + gamma * Z(i, j);
      }
    const DeviceBlock<double> Xd = to_device(X, "X"), Zd = to_device(Z, "Z"), Yd("Y", n, cols), Wd = to_device(Z, "W");
    const kbla::CrsRowwiseOperator<Crs> op{A};
    op.apply_combined(Xd, Yd, alpha, beta, Zd, gamma);
    op.apply_combined(Xd, Wd, alpha, beta, Wd, gamma);  // in place: W held Z
    const HostMatrix<double> Y = to_host(Yd), W = to_host(Wd);
    double worst = 0, worst_in_place = 0;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < n; ++i) {
        worst = std::max(worst, std::abs(Y(i, j) - expected(i, j)));
        worst_in_place = std::max(worst_in_place, std::abs(W(i, j) - expected(i, j)));
      }
    EXPECT_LE(worst, 1e-13) << cols << " columns";
    EXPECT_LE(worst_in_place, 1e-13) << cols << " columns, in place";
  }
}

TEST(Eigen, RejectsBadOptions) {
  const Crs A = kbla::laplacian_3d<Crs>(3);
  kbla::EigenOptions opt;
  opt.nev = 28;  // n = 27
  EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument);
  opt.nev = 4;
  opt.block_size = 0;
  EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument);
  opt.block_size = 4;
  opt.num_blocks = 2;  // 8 < k + 2 s = 12
  EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument);
  opt.num_blocks = 0;
  opt.tol = 0;
  EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument);
  opt.tol = 1e-8;
  opt.nev = 0;
  EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument);
  opt.nev = 4;
  for (const int degree : {1, 2, 4, -3, 101}) {
    opt.chebyshev_degree = degree;
    EXPECT_THROW(kbla::eigen(Exec(), A, opt), std::invalid_argument) << "chebyshev_degree " << degree;
  }
}
