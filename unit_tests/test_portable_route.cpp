// The portable path's route between the portable kernel and KokkosBlas::gemm (src/impl/kbla_portable_route.hpp):
// a measurement picks one of the two and records it, a second call of the class reads the record instead of
// measuring, a choice recorded in a cache file is followed (each of the two forced in turn, results against the
// naive reference), corrupt records are ignored, deterministic calls and calls inside a host parallel region never
// measure. Only where the public calls take the portable path (not the CUDA kernels).
#include "kbla_test_helpers.hpp"

#include <tuning/kbla_choice_cache.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

using namespace kbla_test;

template <class Cfg>
class PortableRouteTest : public ::testing::Test {};
// Every scalar type, LayoutLeft and LayoutRight operands (strided Views never reach the route).
using RouteConfigs = ::testing::Types<float_RRR, double_LLL, cfloat_LRL, cdouble_LLL>;
TYPED_TEST_SUITE(PortableRouteTest, RouteConfigs);

// A cache file path of its own per test (removed, with its lock file, at the end).
struct TempCacheFile {
  std::string path;
  TempCacheFile() {
    char name[] = "/tmp/kbla_route_cache_XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd >= 0) ::close(fd);
    std::remove(name);  // a missing file is an empty cache
    path = name;
  }
  ~TempCacheFile() {
    std::remove(path.c_str());
    std::remove((path + ".lock").c_str());
  }
};

enum class Op { inner, update };

template <class Cfg>
struct RouteCall {
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  using AMatrix = TestMatrix<Scalar, typename Cfg::layout_a, Dev>;
  using BMatrix = TestMatrix<Scalar, typename Cfg::layout_b, Dev>;
  using CMatrix = TestMatrix<Scalar, typename Cfg::layout_c, Dev>;
  using InnerRoute = kbla::Impl::InnerRoute<typename Cfg::exec, typename AMatrix::view_type,
                                            typename BMatrix::view_type, typename CMatrix::view_type>;
  using UpdateRoute = kbla::Impl::UpdateRoute<typename Cfg::exec, typename AMatrix::view_type,
                                              typename BMatrix::view_type, typename CMatrix::view_type>;

  // Whether the public calls of this configuration take the portable path and the route serves it.
  static bool routed() {
    return !kbla::Impl::inner_tpl_spec_avail<typename Cfg::exec, typename AMatrix::view_type,
                                             typename BMatrix::view_type, typename CMatrix::view_type>::value &&
           InnerRoute::has_choice && UpdateRoute::has_choice;
  }

  static std::string device() { return kbla::Impl::route_device_key(typename Cfg::exec()); }
  static std::string call_class(Op op, long long K, int M, int N, bool beta_zero) {
    return op == Op::inner ? InnerRoute::call_class(K, M, N, beta_zero) : UpdateRoute::call_class(K, M, N, beta_zero);
  }
};

// One call of `op` (inner: C = alpha A^H B + beta C with A K x M, B K x N; update: B = alpha A C + beta B with A
// K x M, C M x N) with the given tuning, checked against the naive reference. A's layout is Cfg's layout_a, the
// second operand's layout_b, the output's layout_c (the route's class names them so).
template <class Cfg>
void call_and_check(Maker& mk, Op op, long long K, int M, int N, bool beta_zero, const kbla::TuningOptions& tuning,
                    bool deterministic = false) {
  using Call = RouteCall<Cfg>;
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  const bool inner = op == Op::inner;
  auto A = mk.matrix<Scalar, typename Cfg::layout_a, Dev>(int(K), M);
  auto X = inner ? mk.matrix<Scalar, typename Cfg::layout_b, Dev>(int(K), N)
                 : mk.matrix<Scalar, typename Cfg::layout_b, Dev>(M, N);
  auto Y = inner ? mk.matrix<Scalar, typename Cfg::layout_c, Dev>(M, N, beta_zero ? Fill::NaN : Fill::Random)
                 : mk.matrix<Scalar, typename Cfg::layout_c, Dev>(int(K), N, beta_zero ? Fill::NaN : Fill::Random);
  const Scalar alpha = mk.coefficient<Scalar>();
  const Scalar beta = beta_zero ? Scalar(0) : mk.coefficient<Scalar>();
  SCOPED_TRACE(std::string(inner ? "inner" : "update") + " K=" + std::to_string(K) + " M=" + std::to_string(M) +
               " N=" + std::to_string(N) + (beta_zero ? " beta=0 over NaN" : " beta general"));
  if (inner) {
    kbla::InnerOptions options;
    options.tuning = tuning;
    options.deterministic = deterministic;
    kbla::inner(typename Cfg::exec(), alpha, A.view, X.view, beta, Y.view, options);
  } else {
    kbla::UpdateOptions options;
    options.tuning = tuning;
    kbla::update(typename Cfg::exec(), alpha, A.view, X.view, beta, Y.view, options);
  }
  EXPECT_TRUE(matches(Y.now(),
                      reference(inner ? 'C' : 'N', 'N', to_cld(alpha), A.initial(), X.initial(), to_cld(beta),
                                Y.initial()),
                      arith<Scalar>()));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(X.unchanged());
  EXPECT_TRUE(Y.outside_unchanged());
  (void)sizeof(Call);
}

kbla::TuningOptions tuning_with(const std::string& path, kbla::tuning::TuningMode mode) {
  kbla::TuningOptions t;
  t.cache_path = path;
  t.mode = mode;
  return t;
}

// The first call of a class measures both kernels and records the winner (one of the two) in the cache file; the
// second call of the class (another K in the same half octave) reads it and measures nothing.
TYPED_TEST(PortableRouteTest, MeasuresOncePerClass) {
  using Call = RouteCall<TypeParam>;
  if (!Call::routed()) GTEST_SKIP() << "no route here: CUDA kernels, or a host space without a BLAS TPL";
  Maker mk(__LINE__);
  for (Op op : {Op::inner, Op::update}) {
    const TempCacheFile file;
    const auto tuning = tuning_with(file.path, kbla::tuning::TuningMode::measure);
    const kbla::PortableRouteStats before = kbla::portable_route_stats();
    call_and_check<TypeParam>(mk, op, 3000, 4, 3, false, tuning);
    const kbla::PortableRouteStats first = kbla::portable_route_stats();
    EXPECT_EQ(first.classes_measured, before.classes_measured + 1);
    EXPECT_EQ(first.portable_chosen + first.kokkosblas_chosen, before.portable_chosen + before.kokkosblas_chosen + 1);
    kbla::tuning::Choice recorded;
    ASSERT_TRUE(kbla::tuning::ChoiceCache(file.path).find(Call::device(), Call::call_class(op, 3000, 4, 3, false),
                                                          recorded))
        << "no record in " << file.path;
    EXPECT_TRUE(recorded.kernel == "portable" || recorded.kernel == "kokkosblas") << recorded.kernel;
    const long long kokkosblas_before = first.kokkosblas_chosen;

    call_and_check<TypeParam>(mk, op, 3100, 4, 3, false, tuning);  // 2 log2(3000) and 2 log2(3100): both 23
    const kbla::PortableRouteStats second = kbla::portable_route_stats();
    EXPECT_EQ(second.classes_measured, first.classes_measured) << "the second call of the class measured again";
    EXPECT_EQ(second.kokkosblas_chosen - kokkosblas_before, recorded.kernel == "kokkosblas" ? 1 : 0);
  }
}

// A choice recorded in the cache file is followed without measuring, and both kernels give the reference result,
// with beta = 0 over NaN (never read) and a general beta, at widths 1 (Kokkos Kernels' gemv path) and 5 x 7.
TYPED_TEST(PortableRouteTest, FollowsRecordedChoiceAndBothKernelsAreRight) {
  using Call = RouteCall<TypeParam>;
  if (!Call::routed()) GTEST_SKIP() << "no route here: CUDA kernels, or a host space without a BLAS TPL";
  Maker mk(__LINE__);
  for (const char* kernel : {"portable", "kokkosblas"})
    for (Op op : {Op::inner, Op::update})
      for (bool beta_zero : {true, false})
        for (auto mn : {std::make_pair(1, 1), std::make_pair(5, 7)}) {
          SCOPED_TRACE(std::string("recorded choice ") + kernel);
          const TempCacheFile file;
          const long long K = 777;
          kbla::tuning::ChoiceCache(file.path).record(
              Call::device(), Call::call_class(op, K, mn.first, mn.second, beta_zero), {kernel, 1e-3});
          const kbla::PortableRouteStats before = kbla::portable_route_stats();
          call_and_check<TypeParam>(mk, op, K, mn.first, mn.second, beta_zero,
                                    tuning_with(file.path, kbla::tuning::TuningMode::measure));
          const kbla::PortableRouteStats after = kbla::portable_route_stats();
          EXPECT_EQ(after.classes_measured, before.classes_measured);
          EXPECT_EQ(after.kokkosblas_chosen - before.kokkosblas_chosen, std::string(kernel) == "kokkosblas" ? 1 : 0);
          EXPECT_EQ(after.portable_chosen - before.portable_chosen, std::string(kernel) == "portable" ? 1 : 0);
        }
}

// A record whose time does not parse is ignored (model_only then takes the portable kernel, nothing timed); a record
// naming a kernel the route does not have is measured afresh.
TYPED_TEST(PortableRouteTest, CorruptRecordIgnored) {
  using Call = RouteCall<TypeParam>;
  if (!Call::routed()) GTEST_SKIP() << "no route here: CUDA kernels, or a host space without a BLAS TPL";
  Maker mk(__LINE__);
  const long long K = 2000;
  const std::string call_class = Call::call_class(Op::update, K, 3, 2, false);
  {
    const TempCacheFile file;
    std::ofstream(file.path) << kbla::tuning::cache_file_header() << '\n'
                             << Call::device() << '\t' << call_class << "\tkokkosblas\tnot-a-time\n";
    const kbla::PortableRouteStats before = kbla::portable_route_stats();
    call_and_check<TypeParam>(mk, Op::update, K, 3, 2, false,
                              tuning_with(file.path, kbla::tuning::TuningMode::model_only));
    const kbla::PortableRouteStats after = kbla::portable_route_stats();
    EXPECT_EQ(after.classes_measured, before.classes_measured);
    EXPECT_EQ(after.kokkosblas_chosen, before.kokkosblas_chosen);
    EXPECT_EQ(after.portable_chosen, before.portable_chosen + 1);
  }
  {
    const TempCacheFile file;
    std::ofstream(file.path) << kbla::tuning::cache_file_header() << '\n'
                             << Call::device() << '\t' << call_class << "\tno-such-kernel\t0.001\n";
    const kbla::PortableRouteStats before = kbla::portable_route_stats();
    call_and_check<TypeParam>(mk, Op::update, K, 3, 2, false,
                              tuning_with(file.path, kbla::tuning::TuningMode::measure));
    EXPECT_EQ(kbla::portable_route_stats().classes_measured, before.classes_measured + 1);
    kbla::tuning::Choice recorded;
    ASSERT_TRUE(kbla::tuning::ChoiceCache(file.path).find(Call::device(), call_class, recorded));
    EXPECT_TRUE(recorded.kernel == "portable" || recorded.kernel == "kokkosblas") << recorded.kernel;
  }
}

// Deterministic inner calls take the portable kernel whatever is recorded, and measure nothing.
TYPED_TEST(PortableRouteTest, DeterministicNeverMeasuresNorFollowsRecords) {
  using Call = RouteCall<TypeParam>;
  if (!Call::routed()) GTEST_SKIP() << "no route here: CUDA kernels, or a host space without a BLAS TPL";
  Maker mk(__LINE__);
  const TempCacheFile file;
  kbla::tuning::ChoiceCache(file.path).record(Call::device(), Call::call_class(Op::inner, 900, 2, 2, false),
                                              {"kokkosblas", 1e-3});
  const auto tuning = tuning_with(file.path, kbla::tuning::TuningMode::measure);
  const kbla::PortableRouteStats before = kbla::portable_route_stats();
  call_and_check<TypeParam>(mk, Op::inner, 900, 2, 2, false, tuning, true);
  call_and_check<TypeParam>(mk, Op::inner, 5000, 3, 3, false, tuning, true);  // no record: still not measured
  const kbla::PortableRouteStats after = kbla::portable_route_stats();
  EXPECT_EQ(after.classes_measured, before.classes_measured);
  EXPECT_EQ(after.kokkosblas_chosen, before.kokkosblas_chosen);
  EXPECT_EQ(after.portable_chosen, before.portable_chosen + 2);
}

// model_only with nothing recorded: the portable kernel, nothing timed.
TYPED_TEST(PortableRouteTest, ModelOnlyTakesThePortableKernel) {
  using Call = RouteCall<TypeParam>;
  if (!Call::routed()) GTEST_SKIP() << "no route here: CUDA kernels, or a host space without a BLAS TPL";
  Maker mk(__LINE__);
  const TempCacheFile file;
  const kbla::PortableRouteStats before = kbla::portable_route_stats();
  call_and_check<TypeParam>(mk, Op::update, 1500, 6, 6, true,
                            tuning_with(file.path, kbla::tuning::TuningMode::model_only));
  const kbla::PortableRouteStats after = kbla::portable_route_stats();
  EXPECT_EQ(after.classes_measured, before.classes_measured);
  EXPECT_EQ(after.portable_chosen, before.portable_chosen + 1);
}

#if defined(_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
// A call from inside an OpenMP parallel region (here on Kokkos::Serial, from one of two threads) does not measure.
TEST(PortableRouteParallelRegion, DoesNotMeasure) {
  using View = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using Route = kbla::Impl::UpdateRoute<Kokkos::Serial, View, View, View>;
  if (!Route::has_choice) GTEST_SKIP() << "Kokkos Kernels cannot run this gemm on Kokkos::Serial here";
  const View A("A", 4000, 3), C("C", 3, 3), B("B", 4000, 3);
  Kokkos::deep_copy(A, 1.0);
  Kokkos::deep_copy(C, 0.5);
  const TempCacheFile file;
  kbla::UpdateOptions options;
  options.tuning = tuning_with(file.path, kbla::tuning::TuningMode::measure);
  const kbla::PortableRouteStats before = kbla::portable_route_stats();
  bool active = false;
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      active = omp_in_parallel() != 0;
      kbla::update(Kokkos::Serial(), 1.0, A, C, 0.0, B, options);
    }
  }
  if (!active) GTEST_SKIP() << "OpenMP gave the region one thread (not active): nothing to check";
  EXPECT_EQ(kbla::portable_route_stats().classes_measured, before.classes_measured);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  EXPECT_EQ(hb(3999, 2), 1.5);
}
#endif

}  // namespace
