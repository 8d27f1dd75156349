// <kbla_ortho.hpp> alone: kbla::ortho without KokkosSparse, and OrthoResult's H and R as host matrices indexed by
// int and as Kokkos host Views (kbla::dense::host_view). Includes nothing else from kbla on purpose.
#include <kbla_ortho.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

#if defined(KOKKOS_SPARSE_CRSMATRIX_HPP_) || defined(KOKKOSSPARSE_SPMV_HPP_)
constexpr bool kKokkosSparseIncluded = true;
#else
constexpr bool kKokkosSparseIncluded = false;
#endif

TEST(OrthoHeader, PullsInNoKokkosSparse) { EXPECT_FALSE(kKokkosSparseIncluded); }

// X_in = Q H + X_out R with Q (K x p) orthonormal, checked on the host through the documented accessors.
TEST(OrthoHeader, ResultMatricesOnTheHost) {
  using View = Kokkos::View<double**, Kokkos::LayoutLeft>;
  const int K = 300, p = 3, s = 4;
  const Kokkos::DefaultExecutionSpace exec;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  View Q("Q", K, p), X("X", K, s);
  auto Qh = Kokkos::create_mirror_view(Q);
  auto Xh = Kokkos::create_mirror(X);
  for (int j = 0; j < p; ++j)
    for (int i = 0; i < K; ++i) Qh(i, j) = normal(rng);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < K; ++i) Xh(i, j) = normal(rng);
  Kokkos::deep_copy(Q, Qh);
  const View empty("no basis", K, 0);
  kbla::ortho(exec, empty, Q);  // Q orthonormal (p = 0: orthonormalisation only)
  Kokkos::deep_copy(Qh, Q);
  Kokkos::deep_copy(X, Xh);

  const kbla::OrthoResult<double> r = kbla::ortho(exec, Q, X);
  EXPECT_EQ(r.rank, s);
  ASSERT_EQ(r.H.rows(), p);
  ASSERT_EQ(r.H.cols(), s);
  ASSERT_EQ(r.R.rows(), s);
  ASSERT_EQ(r.R.cols(), s);
  // host_view: the same memory, LayoutLeft, usable with deep_copy to the device
  const auto Hv = kbla::dense::host_view(r.H);
  const auto Rv = kbla::dense::host_view(r.R);
  EXPECT_EQ(Hv.data(), r.H.data());
  EXPECT_EQ(int(Rv.extent(0)), s);
  EXPECT_EQ(int(Rv.extent(1)), s);
  View R_device("R", s, s);
  Kokkos::deep_copy(R_device, Rv);
  auto R_back = Kokkos::create_mirror(R_device);
  Kokkos::deep_copy(R_back, R_device);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < s; ++i) {
      EXPECT_EQ(R_back(i, j), r.R(i, j));
      EXPECT_EQ(Rv(i, j), r.R.data()[i + j * s]);  // column-major
      if (i > j) EXPECT_EQ(r.R(i, j), 0.0);         // full rank: upper triangular
    }
  auto Xout = Kokkos::create_mirror(X);
  Kokkos::deep_copy(Xout, X);
  double err = 0, norm = 0;
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < K; ++i) {
      double v = Xh(i, j);
      for (int l = 0; l < p; ++l) v -= Qh(i, l) * Hv(l, j);
      for (int l = 0; l < s; ++l) v -= Xout(i, l) * Rv(l, j);
      err += v * v;
      norm += Xh(i, j) * Xh(i, j);
    }
  EXPECT_LT(std::sqrt(err / norm), 1e-13);
}

}  // namespace
