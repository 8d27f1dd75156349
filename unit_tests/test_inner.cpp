// kbla::inner (C = alpha * A^H * B + beta * C) against the naive host reference, on the default execution space.
#include "kbla_test_helpers.hpp"

namespace {

using namespace kbla_test;

template <class Cfg>
class InnerTest : public ::testing::Test {};
TYPED_TEST_SUITE(InnerTest, Configs);

struct InnerCase {
  long long K;
  int M, N;
  Coef alpha = Coef::General;
  Coef beta = Coef::General;
  bool nan_output = false;  // C starts as NaN (only meaningful with beta = 0)
  bool deterministic = false;
  bool complex_3m = false;  // InnerOptions::complex_3m (three real products for complex; CUDA widths 57-64)
  bool default_instance = false;  // the overload without an execution space argument
};

template <class Cfg>
void run_inner(Maker& mk, const InnerCase& c) {
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  auto A = mk.matrix<Scalar, typename Cfg::layout_a, Dev>(int(c.K), c.M);
  auto B = mk.matrix<Scalar, typename Cfg::layout_b, Dev>(int(c.K), c.N);
  auto C = mk.matrix<Scalar, typename Cfg::layout_c, Dev>(c.M, c.N, c.nan_output ? Fill::NaN : Fill::Random);
  const Scalar alpha = coefficient<Scalar>(mk, c.alpha), beta = coefficient<Scalar>(mk, c.beta);
  std::ostringstream trace;
  trace << "inner K=" << c.K << " M=" << c.M << " N=" << c.N << " alpha=" << str(to_cld(alpha))
        << " beta=" << str(to_cld(beta))
        << (c.nan_output ? " C=NaN" : "") << (c.deterministic ? " deterministic" : "")
        << (c.complex_3m ? " complex_3m" : "") << "\n  A: " << A.description
        << "\n  B: " << B.description << "\n  C: " << C.description;
  SCOPED_TRACE(trace.str());

  kbla::InnerOptions options;
  options.deterministic = c.deterministic;
  options.complex_3m = c.complex_3m;
  trace_call(trace.str(), "call");
  if (c.default_instance) {
    kbla::inner(alpha, A.view, B.view, beta, C.view);
  } else {
    kbla::inner(typename Cfg::exec(), alpha, A.view, B.view, beta, C.view, options);
  }
  trace_call(trace.str(), "returned");
  const Dense result = C.now();
  trace_call(trace.str(), "read back");
  EXPECT_TRUE(matches(result, reference('C', 'N', to_cld(alpha), A.initial(), B.initial(), to_cld(beta), C.initial()),
                      arith<Scalar>()));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(B.unchanged());
  EXPECT_TRUE(C.outside_unchanged());
  if (c.alpha == Coef::Zero || c.K == 0) {
    if (c.beta == Coef::Zero) EXPECT_TRUE(all_zero(result));
    if (c.beta == Coef::One) EXPECT_TRUE(C.unchanged());  // BLAS: C is not touched at all
  }

  if (c.deterministic) {  // a second run from the same C must give the same bits
    const auto first = C.bytes();
    C.reset();
    kbla::inner(typename Cfg::exec(), alpha, A.view, B.view, beta, C.view, options);
    EXPECT_TRUE(same_bits(first, C.bytes())) << "deterministic inner differs between runs";
  }
}

const std::pair<int, int> kSmallWidths[] = {{1, 1}, {3, 5}, {5, 3}, {8, 8}, {13, 1}, {1, 17}};

template <class TypeParam>
void SmallWidthsOverK() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 2, 7, 100, 511, 512, 513, 1000, 4099})
    for (auto mn : kSmallWidths) run_inner<TypeParam>(mk, {K, mn.first, mn.second});
}

template <class TypeParam>
void WideBlocks() {
  Maker mk(__LINE__);  // a different random stream per part
  const InnerCase cases[] = {{1000, 16, 16}, {777, 31, 33}, {600, 64, 64}, {3000, 64, 1},   {3000, 1, 64},
                             {200, 96, 96},   {700, 96, 20},  {100, 130, 130}, {1500, 130, 5}, {1500, 5, 130}};
  for (const auto& c : cases) run_inner<TypeParam>(mk, c);
}

// Fewer rows than threads, warps or teams (on a GPU: K < number of blocks the kernel would like to launch).
template <class TypeParam>
void TinyK() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 2, 3, 5})
    for (auto mn : {std::make_pair(1, 1), std::make_pair(8, 8), std::make_pair(64, 64), std::make_pair(7, 40)})
      run_inner<TypeParam>(mk, {K, mn.first, mn.second});
}

template <class TypeParam>
void LargeK() {
  Maker mk(__LINE__);  // a different random stream per part
  const InnerCase cases[] = {{30011, 4, 3}, {20000, 8, 8}, {50021, 1, 2}, {12345, 16, 3}};
  for (const auto& c : cases) run_inner<TypeParam>(mk, c);
}

template <class TypeParam>
void AlphaBetaKinds() {
  Maker mk(__LINE__);  // a different random stream per part
  for (Coef a : {Coef::Zero, Coef::One, Coef::General})
    for (Coef b : {Coef::Zero, Coef::One, Coef::General}) {
      SCOPED_TRACE(std::string("alpha ") + coef_name(a) + ", beta " + coef_name(b));
      InnerCase c{777, 5, 6, a, b};
      run_inner<TypeParam>(mk, c);
      if (b == Coef::Zero) {
        c.nan_output = true;
        run_inner<TypeParam>(mk, c);
      }
    }
}

// beta = 0: whatever C holds (NaN here) must not reach the result.
template <class TypeParam>
void BetaZeroIgnoresNaNInC() {
  Maker mk(__LINE__);  // a different random stream per part
  for (InnerCase c : {InnerCase{1, 3, 2}, InnerCase{513, 7, 9}, InnerCase{20011, 4, 4}, InnerCase{300, 64, 64}}) {
    c.beta = Coef::Zero;
    c.nan_output = true;
    run_inner<TypeParam>(mk, c);
    c.deterministic = true;
    run_inner<TypeParam>(mk, c);
  }
}

// K = 0: C = beta * C (BLAS); beta = 0 gives zeros even over NaN, beta = 1 leaves C bitwise alone.
template <class TypeParam>
void EmptyInnerDimension() {
  Maker mk(__LINE__);  // a different random stream per part
  for (Coef b : {Coef::Zero, Coef::One, Coef::General})
    for (bool det : {false, true}) {
      InnerCase c{0, 4, 3, Coef::General, b};
      c.deterministic = det;
      c.nan_output = b == Coef::Zero;
      run_inner<TypeParam>(mk, c);
    }
}

// M = 0 or N = 0: nothing to compute, nothing written (the NaN guards around C stay bitwise the same).
template <class TypeParam>
void EmptyOutput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  Maker mk(__LINE__);  // a different random stream per part
  for (auto mn : {std::make_pair(0, 3), std::make_pair(3, 0), std::make_pair(0, 0)}) {
    for (long long K : {0, 50}) {
      SCOPED_TRACE("M=" + std::to_string(mn.first) + " N=" + std::to_string(mn.second) + " K=" + std::to_string(K));
      auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(int(K), mn.first);
      auto B = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(int(K), mn.second);
      auto C = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(mn.first, mn.second);
      EXPECT_NO_THROW(kbla::inner(typename TypeParam::exec(), mk.coefficient<Scalar>(), A.view, B.view,
                                  mk.coefficient<Scalar>(), C.view));
      EXPECT_TRUE(C.unchanged());
      EXPECT_TRUE(A.unchanged());
      EXPECT_TRUE(B.unchanged());
    }
  }
}

// InnerOptions{deterministic = true}: matches the reference, and two runs give the same bits.
template <class TypeParam>
void DeterministicIsReproducible() {
  Maker mk(__LINE__);  // a different random stream per part
  const InnerCase cases[] = {{1, 3, 3}, {5000, 6, 7}, {30011, 2, 5}, {2000, 64, 64}, {700, 130, 9}};
  for (InnerCase c : cases) {
    c.deterministic = true;
    run_inner<TypeParam>(mk, c);
  }
}

// InnerOptions{complex_3m = true}: the opt-in three-product complex form still meets the modulus bound (on CUDA
// it runs the Gauss DMMA rows at widths 57-64; elsewhere, and for real scalars, the option changes nothing).
template <class TypeParam>
void ComplexThreeProductOptIn() {
  Maker mk(__LINE__);  // a different random stream per part
  const InnerCase cases[] = {{2000, 60, 60}, {777, 64, 57}, {3001, 57, 64}, {5, 64, 64}, {1000, 8, 8}};
  for (InnerCase c : cases) {
    c.complex_3m = true;
    run_inner<TypeParam>(mk, c);
    c.beta = Coef::Zero;
    c.nan_output = true;
    run_inner<TypeParam>(mk, c);
  }
}

// Every width class of the portable kernels: tile extents 1, 2 and 4 (8 on devices) in both directions, runs of
// mixed extents (7 = 4 + 2 + 1, complex widths count twice on host), M != N, and K whose rows leave tails that
// fill neither a vector of lanes nor a cache block.
template <class TypeParam>
void WidthClasses() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{1, 2}, {2, 1}, {2, 4}, {4, 2}, {4, 4},  {3, 7},   {7, 3},
                                    {6, 9}, {9, 6}, {8, 16}, {16, 8}, {15, 15}, {12, 10}, {2, 33}};
  for (long long K : {37, 1029})
    for (auto p : mn) run_inner<TypeParam>(mk, {K, p.first, p.second});
}

// Many cache blocks per thread (the host kernels cut each thread's chunk into blocks; the last one is short).
template <class TypeParam>
void HugeK() {
  Maker mk(__LINE__);  // a different random stream per part
  const InnerCase cases[] = {{100003, 2, 3}, {40009, 9, 5}, {20011, 17, 16}};
  for (const auto& c : cases) run_inner<TypeParam>(mk, c);
  InnerCase d{60013, 3, 3};
  d.deterministic = true;
  run_inner<TypeParam>(mk, d);
}

// The host row kernels (kbla_host_row_kernels.hpp): operands whose rows are contiguous and at most 16 reals long
// (complex widths count twice) are read in place. Every output extent of their tiles (1, 2, 4, 8 and runs of
// them), rows of exactly 16 reals and 17 (the packed path again), M != N, and K with one row, a partial block
// and many blocks per thread. Where the Config's layouts are LayoutStride, the calls cycle through the subview
// variants, among them row-major column ranges that start one element in (unaligned rows, row stride > width).
template <class TypeParam>
void RowMajorNarrow() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 3},   {4, 8},
                                    {8, 4}, {6, 7}, {8, 8}, {12, 5}, {16, 16}, {9, 16}, {16, 17}};
  for (long long K : {1, 1003, 20011})
    for (auto p : mn) run_inner<TypeParam>(mk, {K, p.first, p.second});
  InnerCase c{4099, 4, 3, Coef::General, Coef::Zero};
  c.nan_output = true;
  run_inner<TypeParam>(mk, c);
}

// The vector tiles of the row kernels (kbla_host_vectors.hpp, AVX-512 builds): rows of B of one or two 64-byte
// vectors (8 or 16 doubles, 16 floats, complex widths 4 and 8) by up to 8 reals of A's row. Width 8 and its
// neighbours, A's width not a multiple of 8 (tiles of 4, 2 and 1), odd K (one row, a partial block, many blocks),
// beta = 0 over NaN. Builds without AVX-512 run the same calls through the scalar tiles.
template <class TypeParam>
void VectorTileWidths() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{8, 8}, {3, 8}, {8, 3}, {5, 8}, {8, 5}, {16, 8}, {7, 16}, {16, 16}, {4, 4},
                                    {1, 8}, {9, 4}};
  for (long long K : {1, 3, 1003, 20011})
    for (auto p : mn) run_inner<TypeParam>(mk, {K, p.first, p.second});
  for (auto p : {std::make_pair(8, 8), std::make_pair(5, 8)}) {
    InnerCase c{4097, p.first, p.second, Coef::General, Coef::Zero};
    c.nan_output = true;
    run_inner<TypeParam>(mk, c);
  }
}

template <class TypeParam>
void DefaultInstanceOverload() {
  Maker mk(__LINE__);  // a different random stream per part
  InnerCase c{2049, 6, 5};
  c.default_instance = true;
  run_inner<TypeParam>(mk, c);
}



TYPED_TEST(InnerTest, Shapes) {
  KBLA_PART(SmallWidthsOverK);
  KBLA_PART(WideBlocks);
  KBLA_PART(TinyK);
  KBLA_PART(LargeK);
  KBLA_PART(DefaultInstanceOverload);
}
TYPED_TEST(InnerTest, WidthClassesAndHugeK) {
  KBLA_PART(WidthClasses);
  KBLA_PART(HugeK);
  KBLA_PART(RowMajorNarrow);
  KBLA_PART(VectorTileWidths);
}
TYPED_TEST(InnerTest, SpecialCoefficients) {
  KBLA_PART(AlphaBetaKinds);
  KBLA_PART(BetaZeroIgnoresNaNInC);
}
TYPED_TEST(InnerTest, EmptyExtents) {
  KBLA_PART(EmptyInnerDimension);
  KBLA_PART(EmptyOutput);
}
TYPED_TEST(InnerTest, Deterministic) {
  KBLA_PART(DeterministicIsReproducible);
}
TYPED_TEST(InnerTest, ComplexThreeProduct) {
  KBLA_PART(ComplexThreeProductOptIn);
}

// The same kernels on Kokkos::Serial when the default execution space is another one (OpenMP: the host path with
// one team; Cuda: the host path at all), one real and one complex mix of layouts with strided subviews.
#if defined(KOKKOS_ENABLE_SERIAL) && !defined(KOKKOS_ENABLE_DEFAULT_DEVICE_TYPE_SERIAL)
struct serial_double_LSR : Config<Kokkos::Serial, double, L, S, R> {};
struct serial_cdouble_SRL : Config<Kokkos::Serial, cdouble, S, R, L> {};
using SerialConfigs = ::testing::Types<serial_double_LSR, serial_cdouble_SRL>;

template <class Cfg>
class InnerSerialTest : public ::testing::Test {};
TYPED_TEST_SUITE(InnerSerialTest, SerialConfigs);
TYPED_TEST(InnerSerialTest, Kernels) {
  KBLA_PART(WidthClasses);
  KBLA_PART(LargeK);
  KBLA_PART(BetaZeroIgnoresNaNInC);
  KBLA_PART(EmptyInnerDimension);
  KBLA_PART(DeterministicIsReproducible);
}
#endif

}  // namespace
