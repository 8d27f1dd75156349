// The portable device kernels of kbla::update (src/impl/kbla_update_device_direct.hpp and
// src/impl/kbla_update_portable_device.hpp), launched on the host execution space: they are generic Kokkos code,
// so their indexing (sweeps of rows, tiles, staged blocks, strides, in place) runs here against a naive long double
// reference; on a GPU the unit tests of kbla::update run them through the public call.
#include <impl/kbla_update_impl.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
using cld = std::complex<long double>;

template <class Scalar>
struct Parts {
  using real = Scalar;
  static cld get(const Scalar& v) { return cld(v, 0); }
  static Scalar make(long double re, long double) { return static_cast<Scalar>(re); }
};
template <class Real>
struct Parts<Kokkos::complex<Real>> {
  using real = Real;
  static cld get(const Kokkos::complex<Real>& v) { return cld(v.real(), v.imag()); }
  static Kokkos::complex<Real> make(long double re, long double im) {
    return Kokkos::complex<Real>(static_cast<Real>(re), static_cast<Real>(im));
  }
};

// A rows x cols View of the layout; LayoutStride with gaps and neither stride 1 (rows_fast: the smaller stride
// runs down the columns).
template <class Scalar, class Layout>
Kokkos::View<Scalar**, Layout, Kokkos::HostSpace> make_view(std::int64_t rows, int cols, bool rows_fast) {
  using View = Kokkos::View<Scalar**, Layout, Kokkos::HostSpace>;
  if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
    const std::size_t r = static_cast<std::size_t>(rows);
    return View("v", rows_fast ? Kokkos::LayoutStride(r, 2, cols, 2 * r + 3)
                               : Kokkos::LayoutStride(r, 2 * cols + 1, cols, 2));
  } else {
    return View("v", rows, cols);
  }
}

template <class ScalarT, class LayoutT>
struct Config {
  using Scalar = ScalarT;
  using Layout = LayoutT;
};
using cdouble = Kokkos::complex<double>;
using cfloat = Kokkos::complex<float>;
using Configs = ::testing::Types<Config<double, Kokkos::LayoutLeft>, Config<double, Kokkos::LayoutRight>,
                                 Config<double, Kokkos::LayoutStride>, Config<float, Kokkos::LayoutLeft>,
                                 Config<cdouble, Kokkos::LayoutLeft>, Config<cdouble, Kokkos::LayoutRight>,
                                 Config<cdouble, Kokkos::LayoutStride>, Config<cfloat, Kokkos::LayoutRight>>;

template <class Cfg>
class UpdateDeviceKernel : public ::testing::Test {};
TYPED_TEST_SUITE(UpdateDeviceKernel, Configs);

enum class Kernel { direct, staged };

// B = alpha A C + beta B0 (or X = alpha X C + beta X in place) through one kernel, against long double.
template <class Cfg>
void check(std::int64_t K, int M, int N, bool in_place, bool beta_zero, Kernel kernel, int variant) {
  using Scalar = typename Cfg::Scalar;
  using View = Kokkos::View<Scalar**, typename Cfg::Layout, Kokkos::HostSpace>;
  using CView = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  if (in_place) N = M;
  SCOPED_TRACE("K=" + std::to_string(K) + " M=" + std::to_string(M) + " N=" + std::to_string(N) +
               (in_place ? " in place" : "") + (beta_zero ? " beta=0" : "") +
               (kernel == Kernel::direct ? " direct" : " staged"));
  std::mt19937_64 rng(variant * 7919 + K * 31 + M * 7 + N);
  std::uniform_int_distribution<int> d(-3, 3);  // small integers: every sum exact, so equality is the test
  auto draw = [&] { return Parts<Scalar>::make(d(rng), d(rng)); };
  const View A = make_view<Scalar, typename Cfg::Layout>(K, M, variant % 2 == 0);
  const View B = in_place ? A : make_view<Scalar, typename Cfg::Layout>(K, N, variant % 3 != 1);
  const CView C("C", M, N);
  for (std::int64_t k = 0; k < K; ++k)
    for (int i = 0; i < M; ++i) A(k, i) = draw();
  if (!in_place)
    for (std::int64_t k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) B(k, j) = draw();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) C(i, j) = draw();
  const Scalar alpha = Parts<Scalar>::make(2, -1), beta = beta_zero ? Scalar(0) : Parts<Scalar>::make(-1, 1);
  std::vector<cld> expected(std::size_t(K) * N);
  for (std::int64_t k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      cld sum = 0;
      for (int i = 0; i < M; ++i) sum += Parts<Scalar>::get(A(k, i)) * Parts<Scalar>::get(C(i, j));
      expected[k * N + j] = Parts<Scalar>::get(alpha) * sum +
                            (beta_zero ? cld(0) : Parts<Scalar>::get(beta) * Parts<Scalar>::get(B(k, j)));
    }
  if (kernel == Kernel::direct)
    kbla::Impl::with_update_direct_tile(N, [&](auto TN) {
      kbla::Impl::UpdateDeviceDirect<Host, View, CView, View, decltype(TN)::value>::run(Host(), alpha, A, C, beta, B);
    });
  else
    kbla::Impl::update_staged(Host(), alpha, A, C, beta, B);
  Host().fence();
  int bad = 0;
  for (std::int64_t k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j)
      if (Parts<Scalar>::get(B(k, j)) != expected[k * N + j] && bad++ < 5)
        ADD_FAILURE() << "B(" << k << ", " << j << ") = " << Parts<Scalar>::get(B(k, j)) << ", expected "
                      << expected[k * N + j];
  EXPECT_EQ(bad, 0);
}

TYPED_TEST(UpdateDeviceKernel, DirectKernelUpToEightColumns) {
  int variant = 0;
  for (std::int64_t K : {0, 1, 17, 255, 1025, 5003})
    for (int M : {1, 3, 4, 5, 8, 13})
      for (int N : {1, 2, 3, 5, 8}) {
        check<TypeParam>(K, M, N, false, variant % 2 == 0, Kernel::direct, variant);
        ++variant;
      }
  for (std::int64_t K : {1, 1025, 5003})
    for (int M : {1, 2, 3, 7, 8}) check<TypeParam>(K, M, M, true, K % 2 == 0, Kernel::direct, variant++);
}

TYPED_TEST(UpdateDeviceKernel, StagedKernelAnyWidth) {
  int variant = 0;
  for (std::int64_t K : {0, 1, 17, 1025, 5003})
    for (int M : {1, 4, 9, 16, 33})
      for (int N : {1, 3, 8, 12, 17, 40}) {  // complex from 9 and double from 16 columns: column groups
        check<TypeParam>(K, M, N, false, variant % 2 == 0, Kernel::staged, variant);
        ++variant;
      }
  for (std::int64_t K : {1, 1025, 5003})
    for (int M : {1, 5, 16, 33, 64}) check<TypeParam>(K, M, M, true, K % 2 == 1, Kernel::staged, variant++);
}

// The staged kernel's walk over a block: the elements of all ranks of a team together, each exactly once, for
// GPU-sized teams (the host launches above have teams of one or two threads) and blocks narrower and wider than
// the team.
TEST(UpdateDeviceKernelWalk, EveryElementOnce) {
  for (int step : {1, 2, 37, 256})
    for (int inner_n : {1, 3, 16, 255, 256, 257, 1000})
      for (int outer_n : {1, 2, 7, 64}) {
        std::vector<int> seen(std::size_t(inner_n) * outer_n, 0);
        for (int rank = 0; rank < step; ++rank)
          for (kbla::Impl::StridedWalk walk(inner_n, outer_n, rank, step); !walk.done(); walk.next()) {
            ASSERT_GE(walk.inner, 0);
            ASSERT_LT(walk.inner, inner_n);
            ++seen[std::size_t(walk.outer) * inner_n + walk.inner];
          }
        for (std::size_t e = 0; e < seen.size(); ++e)
          ASSERT_EQ(seen[e], 1) << "element " << e << ", inner " << inner_n << ", outer " << outer_n << ", step "
                                << step;
      }
}

}  // namespace
