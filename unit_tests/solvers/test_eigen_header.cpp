// <kbla_eigen.hpp> alone: kbla::eigen with an operator functor, without KokkosSparse. Runs the example of the
// comment above kbla::eigen (solvers/kbla_eigen.hpp) as written there, and the same operator as a raw-pointer kernel
// that takes the column stride of the blocks it is given (X.stride(1), not n).
#include <kbla_eigen.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#if defined(KOKKOS_SPARSE_CRSMATRIX_HPP_) || defined(KOKKOSSPARSE_SPMV_HPP_)
constexpr bool kEigenHeaderHasKokkosSparse = true;
#else
constexpr bool kEigenHeaderHasKokkosSparse = false;
#endif

namespace app {  // not an anonymous namespace: nvcc refuses device lambdas in members of classes there

// The header's example, verbatim.
struct Laplacian1D {
  std::int64_t n;
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    using Exec = typename YView::execution_space;
    const std::int64_t rows = n;
    const int cols = int(X.extent(1));
    Kokkos::parallel_for(
        "app::Laplacian1D", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
          for (int j = 0; j < cols; ++j) {  // X(i, j), Y(i, j): the strides are Kokkos's business
            double y = 2 * X(i, j);
            if (i > 0) y -= X(i - 1, j);
            if (i + 1 < rows) y -= X(i + 1, j);
            Y(i, j) = y;
          }
        });
  }
};

// The same operator on raw pointers with the leading dimensions the blocks have; counts the calls whose leading
// dimension was not n (host-side bookkeeping).
struct Laplacian1DRaw {
  std::int64_t n;
  std::vector<std::int64_t>* leading_dimensions;
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    using Exec = typename YView::execution_space;
    const std::int64_t rows = n, ldx = X.stride(1), ldy = Y.stride(1);
    leading_dimensions->push_back(ldx);
    leading_dimensions->push_back(ldy);
    const int cols = int(X.extent(1));
    const double* x = X.data();
    double* y = Y.data();
    Kokkos::parallel_for(
        "app::Laplacian1DRaw", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
          for (int j = 0; j < cols; ++j) {
            const double* xj = x + j * ldx;
            double v = 2 * xj[i];
            if (i > 0) v -= xj[i - 1];
            if (i + 1 < rows) v -= xj[i + 1];
            y[i + j * ldy] = v;
          }
        });
  }
};

}  // namespace app

namespace {

std::vector<double> largest_laplacian_eigenvalues(std::int64_t n, int k) {
  const double pi = std::acos(-1.0);
  std::vector<double> v;
  for (int j = 0; j < k; ++j) v.push_back(2 - 2 * std::cos(double(n - j) * pi / double(n + 1)));
  return v;
}

TEST(EigenHeader, PullsInNoKokkosSparse) { EXPECT_FALSE(kEigenHeaderHasKokkosSparse); }

TEST(EigenHeader, OperatorFunctorExample) {
  const std::int64_t n = 100;
  kbla::EigenOptions options;
  options.nev = 4;
  options.block_size = 2;
  options.which = kbla::EigenWhich::largest;
  options.tol = 1e-10;
  const Kokkos::DefaultExecutionSpace exec;
  const auto result = kbla::eigen<double>(exec, app::Laplacian1D{n}, n, options);
  EXPECT_TRUE(result.converged);
  ASSERT_EQ(result.eigenvalues.size(), 4u);
  EXPECT_EQ(int(result.eigenvectors.extent(0)), n);
  EXPECT_EQ(int(result.eigenvectors.extent(1)), 4);
  const auto exact = largest_laplacian_eigenvalues(n, 4);
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(result.eigenvalues[j], exact[j], 1e-8) << "eigenvalue " << j;
    EXPECT_LT(result.residuals[j], 1e-8) << "eigenvalue " << j;
  }

  std::vector<std::int64_t> leading_dimensions;
  const auto raw = kbla::eigen<double>(exec, app::Laplacian1DRaw{n, &leading_dimensions}, n, options);
  EXPECT_TRUE(raw.converged);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(raw.eigenvalues[j], exact[j], 1e-8) << "eigenvalue " << j;
  ASSERT_FALSE(leading_dimensions.empty());
  for (const std::int64_t ld : leading_dimensions) EXPECT_GE(ld, n);
}

}  // namespace
