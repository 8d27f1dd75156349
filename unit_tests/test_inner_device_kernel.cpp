// The portable device kernels of kbla::inner (src/impl/kbla_inner_device_direct.hpp and, in the *_rows
// configurations, kbla_inner_device_rows.hpp where it fits the shape), on the host. The kernel is
// generic Kokkos team code: it is launched on the host execution space (teams of one thread on Serial), and its
// schedule is also run by the host emulation of teams of GPU size (128 or 256 threads, several tiles per team,
// tile groups, the closing sum), in forward and reverse thread order (equal bits, or a step read what another
// thread of the same step wrote). Every run's partials go through the public path's fixed-order combine
// with alpha and beta, and are compared with a naive long double reference: exactly for small-integer data (every
// sum exact in float), within a bound relative to the sum of |terms| for random data.
#include <impl/kbla_inner_impl.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
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

enum class Values { Random, SmallIntegers };

template <class Scalar>
Scalar draw(std::mt19937_64& rng, Values values) {
  if (values == Values::SmallIntegers) {
    std::uniform_int_distribution<int> d(-3, 3);
    return Parts<Scalar>::make(d(rng), d(rng));
  }
  std::uniform_real_distribution<long double> d(-1, 1);
  return Parts<Scalar>::make(d(rng), d(rng));
}

// A rows x cols operand of the given layout. LayoutStride Views have gaps and neither stride 1; rows_fast picks
// which of the two strides is the smaller one (the kernel's copy follows the smaller stride).
template <class Scalar, class Layout>
Kokkos::View<Scalar**, Layout, Kokkos::HostSpace> make_operand(std::int64_t rows, int cols, bool rows_fast,
                                                                std::mt19937_64& rng, Values values) {
  using View = Kokkos::View<Scalar**, Layout, Kokkos::HostSpace>;
  View v;
  if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
    const std::size_t r = static_cast<std::size_t>(rows);
    const Kokkos::LayoutStride layout =
        rows_fast ? Kokkos::LayoutStride(r, 2, cols, 2 * r + 3) : Kokkos::LayoutStride(r, 2 * cols + 1, cols, 2);
    v = View("operand", layout);
  } else {
    v = View("operand", rows, cols);
  }
  for (std::int64_t k = 0; k < rows; ++k)
    for (int c = 0; c < cols; ++c) v(k, c) = draw<Scalar>(rng, values);
  return v;
}

// The kernel under test: the direct kernel; the rows kernel (kbla_inner_device_rows.hpp) where it fits the shape;
// or the staged kernel (kbla_inner_device_staged.hpp) at every shape.
enum class KernelKind { direct, rows, staged };

template <class ScalarT, class LayoutA, class LayoutB, KernelKind Which = KernelKind::direct>
struct KernelConfig {
  using Scalar = ScalarT;
  static constexpr bool rows = Which == KernelKind::rows;
  static constexpr bool staged = Which == KernelKind::staged;
  using AView = Kokkos::View<Scalar**, LayoutA, Kokkos::HostSpace>;
  using BView = Kokkos::View<Scalar**, LayoutB, Kokkos::HostSpace>;
  using CView = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using Portable = kbla::Impl::InnerPortable<Host, AView, BView, CView>;
  using PartialView = typename Portable::PartialView;
  // Calls f(kernel) with a value of the kernel type for C of M x N entries.
  template <class F>
  static void with_kernel(int M, int N, F&& f) {
    if (rows && kbla::Impl::InnerRowsShape<Scalar>::fits(M, N)) {
      kbla::Impl::with_inner_rows_shape<Scalar>(M, N, [&](auto Sums, auto OwnsA) {
        f(kbla::Impl::InnerDeviceRows<Host, AView, BView, PartialView, decltype(Sums)::value,
                                      decltype(OwnsA)::value>());
      });
      return;
    }
    if constexpr (staged) {
      kbla::Impl::with_inner_staged_tiles<Scalar>(M, N, [&](auto TM, auto TN) {
        f(kbla::Impl::InnerDeviceStaged<Host, AView, BView, PartialView, decltype(TM)::value, decltype(TN)::value>());
      });
    } else {
      kbla::Impl::with_inner_direct_tiles<Scalar>(M, N, [&](auto TM, auto TN) {
        f(kbla::Impl::InnerDeviceDirect<Host, AView, BView, PartialView, decltype(TM)::value, decltype(TN)::value>());
      });
    }
  }
};

using L = Kokkos::LayoutLeft;
using R = Kokkos::LayoutRight;
using S = Kokkos::LayoutStride;
using cfloat = Kokkos::complex<float>;
using cdouble = Kokkos::complex<double>;
#define KBLA_KERNEL_CONFIG(SCALAR, LA, LB) \
  struct SCALAR##_##LA##LB : KernelConfig<SCALAR, LA, LB> {}
KBLA_KERNEL_CONFIG(double, L, L);
KBLA_KERNEL_CONFIG(double, R, R);
KBLA_KERNEL_CONFIG(double, S, S);
KBLA_KERNEL_CONFIG(float, L, L);
KBLA_KERNEL_CONFIG(float, R, R);
KBLA_KERNEL_CONFIG(float, S, S);
KBLA_KERNEL_CONFIG(cdouble, L, L);
KBLA_KERNEL_CONFIG(cdouble, R, R);
KBLA_KERNEL_CONFIG(cdouble, S, S);
KBLA_KERNEL_CONFIG(cfloat, L, R);
KBLA_KERNEL_CONFIG(cfloat, R, L);
KBLA_KERNEL_CONFIG(cfloat, S, S);
#undef KBLA_KERNEL_CONFIG
struct double_RR_rows : KernelConfig<double, R, R, KernelKind::rows> {};
struct cdouble_RR_rows : KernelConfig<cdouble, R, R, KernelKind::rows> {};
struct float_SL_rows : KernelConfig<float, S, L, KernelKind::rows> {};
struct cfloat_LR_rows : KernelConfig<cfloat, L, R, KernelKind::rows> {};
struct double_LL_staged : KernelConfig<double, L, L, KernelKind::staged> {};
struct cdouble_LL_staged : KernelConfig<cdouble, L, L, KernelKind::staged> {};
struct float_SR_staged : KernelConfig<float, S, R, KernelKind::staged> {};
struct cfloat_LS_staged : KernelConfig<cfloat, L, S, KernelKind::staged> {};
using KernelConfigs =
    ::testing::Types<double_LL, double_RR, double_SS, float_LL, float_RR, float_SS, cdouble_LL, cdouble_RR,
                     cdouble_SS, cfloat_LR, cfloat_RL, cfloat_SS, double_RR_rows, cdouble_RR_rows, float_SL_rows,
                     cfloat_LR_rows, double_LL_staged, cdouble_LL_staged, float_SR_staged, cfloat_LS_staged>;

template <class Cfg>
class InnerDeviceKernel : public ::testing::Test {};
TYPED_TEST_SUITE(InnerDeviceKernel, KernelConfigs);

// Exact sums A^H B and sums of |terms| per entry, in long double.
struct Reference {
  int M = 0, N = 0;
  std::vector<cld> sum;
  std::vector<long double> magnitude;
};

template <class AView, class BView>
Reference reference(const AView& A, const BView& B, bool conjA) {
  using Scalar = typename AView::non_const_value_type;
  Reference ref;
  ref.M = static_cast<int>(A.extent(1));
  ref.N = static_cast<int>(B.extent(1));
  ref.sum.assign(std::size_t(ref.M) * ref.N, cld(0));
  ref.magnitude.assign(ref.sum.size(), 0);
  std::vector<cld> a(ref.M), b(ref.N);
  for (std::int64_t k = 0; k < std::int64_t(A.extent(0)); ++k) {
    for (int i = 0; i < ref.M; ++i) a[i] = conjA ? std::conj(Parts<Scalar>::get(A(k, i))) : Parts<Scalar>::get(A(k, i));
    for (int j = 0; j < ref.N; ++j) b[j] = Parts<Scalar>::get(B(k, j));
    for (int j = 0; j < ref.N; ++j)
      for (int i = 0; i < ref.M; ++i) {
        // Written out: std::complex's operator* checks for infinities on every call (slow at K = 100003).
        ref.sum[std::size_t(j) * ref.M + i] += cld(a[i].real() * b[j].real() - a[i].imag() * b[j].imag(),
                                                   a[i].real() * b[j].imag() + a[i].imag() * b[j].real());
        ref.magnitude[std::size_t(j) * ref.M + i] += std::abs(a[i]) * std::abs(b[j]);
      }
  }
  return ref;
}

template <class Cfg>
class ShapeRun {
 public:
  using Scalar = typename Cfg::Scalar;
  using Real = typename Parts<Scalar>::real;
  using PartialView = typename Cfg::PartialView;

  ShapeRun(std::int64_t K, int M, int N, bool a_rows_fast, bool b_rows_fast, Values values, std::uint64_t seed)
      : K_(K), values_(values), rng_(seed) {
    A_ = make_operand<Scalar, typename Cfg::AView::array_layout>(K, M, a_rows_fast, rng_, values);
    B_ = make_operand<Scalar, typename Cfg::BView::array_layout>(K, N, b_rows_fast, rng_, values);
    C0_ = typename Cfg::CView("C0", M, N);
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) C0_(i, j) = draw<Scalar>(rng_, values);
    alpha_ = values == Values::SmallIntegers ? Parts<Scalar>::make(2, -1) : draw<Scalar>(rng_, values);
    beta_ = values == Values::SmallIntegers ? Parts<Scalar>::make(-1, 1) : draw<Scalar>(rng_, values);
    std::ostringstream d;
    d << "K=" << K << " M=" << M << " N=" << N << " A stride(0) " << A_.stride(0) << " stride(1) " << A_.stride(1)
      << ", B stride(0) " << B_.stride(0) << " stride(1) " << B_.stride(1) << ", "
      << (values == Values::Random ? "random" : "small integers");
    description_ = d.str();
  }

  // Runs the schedule under the plan for a team of at most team_size_max threads and a device of `concurrency`
  // threads (emulated in the given thread order, or launched through Kokkos on the host space) and checks
  // C = alpha A^H B + beta C0 through the combine step. Returns the partials.
  PartialView check(int team_size_max, std::int64_t concurrency, bool conjA, int mode, const char* what) {
    const int M = static_cast<int>(A_.extent(1)), N = static_cast<int>(B_.extent(1));
    kbla::Impl::InnerDirectPlan plan;
    Cfg::with_kernel(M, N, [&](auto kernel) {
      plan = decltype(kernel)::plan_for(M, N, K_, team_size_max, concurrency);
    });
    SCOPED_TRACE(description_ + ", " + what + ", team " + std::to_string(plan.team_size) + ", lanes " +
                 std::to_string(plan.lanes) + ", slots " + std::to_string(plan.slots) + ", tile groups " +
                 std::to_string(plan.tile_groups) + ", chunks " + std::to_string(plan.chunks) + ", round entries " +
                 std::to_string(plan.round_entries) + ", conj " + std::to_string(conjA));
    PartialView partial("partial", plan.chunks, M, N);
    Kokkos::deep_copy(partial, Parts<Scalar>::make(std::numeric_limits<Real>::quiet_NaN(), 0));  // unwritten shows
    Cfg::with_kernel(M, N, [&](auto kernel) {
      using Kernel = decltype(kernel);
      if (mode == launch)
        Kernel::run(Host(), conjA, A_, B_, partial, plan);
      else
        Kernel::emulate(conjA, A_, B_, partial, plan, mode == emulate_reverse);
    });
    Host().fence();
    typename Cfg::CView C("C", M, N);
    Kokkos::deep_copy(C, C0_);
    Cfg::Portable::combine(Host(), alpha_, partial, beta_, C);
    Host().fence();

    const Reference& ref = reference_for(conjA);
    const cld alpha = Parts<Scalar>::get(alpha_), beta = Parts<Scalar>::get(beta_);
    // Longest chain of roundings to one entry: a thread's rows, the closing tree, the teams, alpha and beta.
    const long double chain = static_cast<long double>(plan.rows_per_chunk) + plan.lanes + plan.chunks + 4;
    const long double eps = std::numeric_limits<Real>::epsilon();
    int bad = 0;
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) {
        const std::size_t e = std::size_t(j) * M + i;
        const cld c0 = Parts<Scalar>::get(C0_(i, j));
        const cld expected = alpha * ref.sum[e] + beta * c0;
        const long double bound = values_ == Values::SmallIntegers
                                      ? 0
                                      : 4 * eps * chain * (std::abs(alpha) * ref.magnitude[e] + std::abs(beta * c0));
        const long double error = std::abs(Parts<Scalar>::get(C(i, j)) - expected);
        if (!(error <= bound) && bad++ < 5)
          ADD_FAILURE() << "C(" << i << ", " << j << ") = " << Parts<Scalar>::get(C(i, j)) << ", expected "
                        << expected << " (error " << error << ", bound " << bound << ")";
      }
    EXPECT_EQ(bad, 0);
    return partial;
  }

  static constexpr int emulate_forward = 0, emulate_reverse = 1, launch = 2;

 private:
  const Reference& reference_for(bool conjA) {
    Reference& r = conjA ? ref_conj_ : ref_plain_;
    if (r.sum.empty() && A_.extent(1) > 0) r = reference(A_, B_, conjA);
    return r;
  }

  std::int64_t K_;
  Values values_;
  std::mt19937_64 rng_;
  typename Cfg::AView A_;
  typename Cfg::BView B_;
  typename Cfg::CView C0_;
  Scalar alpha_, beta_;
  Reference ref_conj_, ref_plain_;
  std::string description_;
};

template <class PartialView>
bool same_bits(const PartialView& x, const PartialView& y) {
  return x.span() == y.span() &&
         std::memcmp(x.data(), y.data(), x.span() * sizeof(typename PartialView::value_type)) == 0;
}

// The launch and the emulation are two compiled copies of the same sums. Where the target has fused multiply-add
// (__FMA__, e.g. -march=native), GCC contracts a * b + c in each copy as it sees fit, so their last bits may differ
// (seen with -march=native on an AVX-512 CPU); the schedule is then checked to a few roundings per term.
template <class PartialView>
bool same_schedule(const PartialView& launched, const PartialView& emulated) {
#if defined(__FMA__)
  using Real = typename Parts<typename PartialView::value_type>::real;
  if (launched.span() != emulated.span()) return false;
  long double largest = 0, diff = 0;
  for (std::size_t e = 0; e < launched.span(); ++e) {
    const cld x = Parts<typename PartialView::value_type>::get(launched.data()[e]);
    const cld y = Parts<typename PartialView::value_type>::get(emulated.data()[e]);
    largest = std::max(largest, std::abs(y));
    diff = std::max(diff, std::abs(x - y));
  }
  return diff <= 64 * std::numeric_limits<Real>::epsilon() * largest;
#else
  return same_bits(launched, emulated);
#endif
}

// One shape: the plans a GPU would get (teams of up to 256 threads; a device of 8 or 4 teams, so that a short K
// still makes several chunks) in both thread orders, a small odd team limit, and a real Kokkos launch on the host
// space with the team size it allows, which must match the emulation of the same plan bit for bit.
template <class Cfg>
void check_shape(std::int64_t K, int M, int N, int variant, Values values, bool all_plans = true) {
  using Run = ShapeRun<Cfg>;
  const bool a_rows_fast = variant % 2 == 0, b_rows_fast = variant % 3 != 1;
  Run run(K, M, N, a_rows_fast, b_rows_fast, values, 0x9e3779b97f4a7c15ull * (variant + 1) + K * 131 + M * 7 + N);
  const bool conjA = variant % 4 != 3;

  const auto forward = run.check(1024, 2048, conjA, Run::emulate_forward, "device plan, emulated");
  const auto reverse = run.check(1024, 2048, conjA, Run::emulate_reverse, "device plan, emulated in reverse");
  EXPECT_TRUE(same_bits(forward, reverse)) << "thread order changed the result: a step reads another thread's write";

  if (!all_plans) return;

  int host_max = 1;
  Cfg::with_kernel(M, N, [&](auto kernel) { host_max = decltype(kernel)::team_size_max(Host()); });
  const auto launched = run.check(host_max, 4, conjA, Run::launch, "Kokkos launch on the host space");
  const auto emulated = run.check(host_max, 4, conjA, Run::emulate_forward, "the host launch's plan, emulated");
  EXPECT_TRUE(same_schedule(launched, emulated)) << "the Kokkos launch and the emulation of its plan differ";

  const auto small_forward = run.check(37, 1000, conjA, Run::emulate_forward, "at most 37 threads, emulated");
  const auto small_reverse = run.check(37, 1000, conjA, Run::emulate_reverse, "at most 37 threads, reverse");
  EXPECT_TRUE(same_bits(small_forward, small_reverse));
}

template <class Cfg>
void check_both_values(std::int64_t K, int M, int N, int variant) {
  check_shape<Cfg>(K, M, N, variant, Values::SmallIntegers);
  check_shape<Cfg>(K, M, N, variant, Values::Random);
}

TYPED_TEST(InnerDeviceKernel, SquareWidths) {
  for (int w = 1; w <= 70; ++w) check_both_values<TypeParam>(17, w, w, w);
  for (int w : {1, 4, 5, 8, 9, 16, 17, 33, 64, 70}) check_both_values<TypeParam>(1000, w, w, w + 1);
}

TYPED_TEST(InnerDeviceKernel, RectangularAndEdgeRows) {
  // {3, 12}, {9, 30}, {1, 7}: the rows kernel owning B's columns (B the wider operand, at most 32 columns)
  const std::pair<int, int> shapes[] = {{13, 40}, {40, 13}, {64, 7}, {7, 64}, {1, 64}, {70, 3},
                                        {5, 66},  {6, 5},   {3, 12}, {9, 30}, {1, 7}};
  int variant = 0;
  for (long long K : {0, 1, 17, 1000})
    for (auto mn : shapes) check_both_values<TypeParam>(K, mn.first, mn.second, variant++);
  // Long chunks: exact data, so that a single lost or repeated row shows.
  check_shape<TypeParam>(100003, 13, 40, 1, Values::SmallIntegers, false);
  check_shape<TypeParam>(100003, 9, 6, 2, Values::SmallIntegers, false);
}

// The device plan's promises for every width 1-64: every tile owned by one slot of one tile group, lanes a whole
// number of parts, the closing sum's scratch within 48 KiB (the smallest common per-team limit), every row in one
// chunk.
TYPED_TEST(InnerDeviceKernel, DevicePlans) {
  for (int M = 1; M <= 64; ++M)
    for (int N = 1; N <= 64; ++N)
      TypeParam::with_kernel(M, N, [&](auto kernel) {
        using Kernel = decltype(kernel);
        for (std::int64_t K : {std::int64_t(1), std::int64_t(1000), std::int64_t(1) << 26}) {
          const auto plan = Kernel::plan_for(M, N, K, 1024, 132 * 2048);
          SCOPED_TRACE("M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K));
          ASSERT_EQ(plan.team_size, plan.lanes * plan.slots);
          ASSERT_LE(plan.team_size, 256);
          // direct: at least a warp of lanes per tile; rows: the owned columns in one group; staged: every tile
          // of C in one team up to the team size, a staged block within the scratch
          if (TypeParam::staged) {
            ASSERT_EQ(plan.slots & (plan.slots - 1), 0);
            ASSERT_TRUE(plan.slots >= plan.tiles || plan.slots * 2 > 256);
            ASSERT_GE(plan.block_rows, 1);
            ASSERT_GE(plan.lane_rows * plan.lanes, plan.block_rows);
            ASSERT_EQ(plan.stage_pitch % 2, 1);
            ASSERT_GE(plan.stage_pitch, plan.block_rows);
            ASSERT_EQ(plan.stage_column_pairs, (M + N + 1) / 2);
            ASSERT_LE(plan.stage_threads_per_column * plan.stage_column_pairs, plan.team_size);
            ASSERT_EQ(plan.block_rows, std::max(1, plan.stage_threads_per_column) *
                                           kbla::Impl::InnerStagedLoads<typename TypeParam::Scalar>::per_thread / 2);
            ASSERT_EQ(plan.rows_per_chunk % plan.block_rows, 0);
            ASSERT_EQ(plan.stage_scalars, std::size_t(M + N) * plan.stage_pitch);
          } else {
            ASSERT_GE(plan.lanes,
                      TypeParam::rows && kbla::Impl::InnerRowsShape<typename TypeParam::Scalar>::fits(M, N) ? 1 : 32);
          }
          ASSERT_EQ(plan.lanes % plan.parts, 0);
          ASSERT_GE(plan.slots * plan.tile_groups, plan.tiles);
          ASSERT_LT(plan.slots * (plan.tile_groups - 1), plan.tiles);
          ASSERT_LE(Kernel::scratch_bytes(plan), std::size_t(48 * 1024));
          ASSERT_GE(plan.chunks * plan.rows_per_chunk, K);
          ASSERT_LT((plan.chunks - 1) * plan.rows_per_chunk, K);
          if constexpr (!TypeParam::staged) {
            ASSERT_GE(Kernel::rows_in_flight, 1);
            ASSERT_LE(Kernel::rows_in_flight, 8);
          }
          const int real_parts = kbla::Impl::ArithTraits<typename TypeParam::Scalar>::is_complex ? 2 : 1;
          ASSERT_LE(Kernel::tile_entries * real_parts, TypeParam::staged ? 18 : 16);  // staged: up to 3 x 3 complex
        }
      });
}

}  // namespace
