// kbla::update (B = alpha * A * C + beta * B) and its in-place forms against the naive host reference, on the
// default execution space. Config's layout_a is A's (or X's) layout, layout_b the small C's, layout_c B's.
#include "kbla_test_helpers.hpp"

namespace {

using namespace kbla_test;

template <class Cfg>
class UpdateTest : public ::testing::Test {};
TYPED_TEST_SUITE(UpdateTest, Configs);

struct UpdateCase {
  long long K;
  int M, N;
  Coef alpha = Coef::General;
  Coef beta = Coef::General;
  bool nan_output = false;  // B starts as NaN (only meaningful with beta = 0)
  bool default_instance = false;
  bool with_options = false;  // the overloads taking kbla::UpdateOptions (model_only tuning)
};

// Options that differ from the defaults, so that the overloads taking them are seen to work with any tuning.
inline kbla::UpdateOptions model_only_options() {
  kbla::UpdateOptions options;
  options.tuning.mode = kbla::tuning::TuningMode::model_only;
  return options;
}

template <class Cfg>
void run_update(Maker& mk, const UpdateCase& c) {
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  auto A = mk.matrix<Scalar, typename Cfg::layout_a, Dev>(int(c.K), c.M);
  auto C = mk.matrix<Scalar, typename Cfg::layout_b, Dev>(c.M, c.N);
  auto B = mk.matrix<Scalar, typename Cfg::layout_c, Dev>(int(c.K), c.N, c.nan_output ? Fill::NaN : Fill::Random);
  const Scalar alpha = coefficient<Scalar>(mk, c.alpha), beta = coefficient<Scalar>(mk, c.beta);
  std::ostringstream trace;
  trace << "update K=" << c.K << " M=" << c.M << " N=" << c.N << " alpha=" << str(to_cld(alpha))
        << " beta=" << str(to_cld(beta))
        << (c.nan_output ? " B=NaN" : "") << (c.with_options ? " UpdateOptions" : "") << "\n  A: " << A.description
        << "\n  C: " << C.description
        << "\n  B: " << B.description;
  SCOPED_TRACE(trace.str());

  if (c.default_instance && c.with_options) {
    kbla::update(alpha, A.view, C.view, beta, B.view, model_only_options());
  } else if (c.with_options) {
    kbla::update(typename Cfg::exec(), alpha, A.view, C.view, beta, B.view, model_only_options());
  } else if (c.default_instance) {
    kbla::update(alpha, A.view, C.view, beta, B.view);
  } else {
    kbla::update(typename Cfg::exec(), alpha, A.view, C.view, beta, B.view);
  }
  const Dense result = B.now();
  EXPECT_TRUE(matches(result, reference('N', 'N', to_cld(alpha), A.initial(), C.initial(), to_cld(beta), B.initial()),
                      arith<Scalar>()));
  EXPECT_TRUE(A.unchanged());
  EXPECT_TRUE(C.unchanged());
  EXPECT_TRUE(B.outside_unchanged());
  if (c.alpha == Coef::Zero || c.M == 0) {
    if (c.beta == Coef::Zero) EXPECT_TRUE(all_zero(result));
    if (c.beta == Coef::One) EXPECT_TRUE(B.unchanged());
  }
}

// The in-place forms: update(exec, alpha, X, C, beta, X), update_in_place(exec, alpha, X, C) and
// update_in_place(alpha, X, C) on the default instance of X's execution space.
// The _options forms: the overloads taking kbla::UpdateOptions.
enum class InPlaceForm {
  update,
  update_in_place,
  update_in_place_default_instance,
  update_in_place_options,
  update_in_place_options_default_instance
};

// X <- alpha * X * C + beta * X, through update (any beta) or update_in_place (beta = 0).
template <class Cfg>
void run_in_place(Maker& mk, long long K, int M, Coef beta_kind, InPlaceForm form) {
  const bool through_update_in_place = form != InPlaceForm::update;
  using Scalar = typename Cfg::scalar;
  using Dev = typename Cfg::device;
  auto X = mk.matrix<Scalar, typename Cfg::layout_a, Dev>(int(K), M);
  auto C = mk.matrix<Scalar, typename Cfg::layout_b, Dev>(M, M);
  const Scalar alpha = mk.coefficient<Scalar>();
  const Scalar beta = through_update_in_place ? Scalar(0) : coefficient<Scalar>(mk, beta_kind);
  std::ostringstream trace;
  trace << (form == InPlaceForm::update            ? "update(X, C, X)"
            : form == InPlaceForm::update_in_place ? "update_in_place"
            : form == InPlaceForm::update_in_place_options ? "update_in_place (options)"
            : form == InPlaceForm::update_in_place_options_default_instance
                ? "update_in_place (options, default instance)"
                : "update_in_place (default instance)")
        << " K=" << K << " M=" << M
        << " alpha=" << str(to_cld(alpha)) << " beta=" << str(to_cld(beta)) << "\n  X: " << X.description << "\n  C: " << C.description;
  SCOPED_TRACE(trace.str());

  if (form == InPlaceForm::update_in_place_default_instance) {
    kbla::update_in_place(alpha, X.view, C.view);
  } else if (form == InPlaceForm::update_in_place_options) {
    kbla::update_in_place(typename Cfg::exec(), alpha, X.view, C.view, model_only_options());
  } else if (form == InPlaceForm::update_in_place_options_default_instance) {
    kbla::update_in_place(alpha, X.view, C.view, model_only_options());
  } else if (through_update_in_place) {
    kbla::update_in_place(typename Cfg::exec(), alpha, X.view, C.view);
  } else {
    kbla::update(typename Cfg::exec(), alpha, X.view, C.view, beta, X.view);
  }
  EXPECT_TRUE(matches(X.now(), reference('N', 'N', to_cld(alpha), X.initial(), C.initial(), to_cld(beta), X.initial()),
                      arith<Scalar>()));
  EXPECT_TRUE(C.unchanged());
  EXPECT_TRUE(X.outside_unchanged());
}

const std::pair<int, int> kSmallWidths[] = {{1, 1}, {3, 5}, {5, 3}, {8, 8}, {13, 1}, {1, 17}};

template <class TypeParam>
void SmallWidthsOverK() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 2, 7, 63, 64, 65, 100, 513, 4099})
    for (auto mn : kSmallWidths) run_update<TypeParam>(mk, {K, mn.first, mn.second});
}

template <class TypeParam>
void WideBlocks() {
  Maker mk(__LINE__);  // a different random stream per part
  const UpdateCase cases[] = {{500, 16, 16}, {400, 33, 31}, {300, 64, 64}, {1000, 64, 1}, {1000, 1, 64},
                              {200, 96, 96}, {100, 130, 130}, {700, 130, 3}, {700, 3, 130}};
  for (const auto& c : cases) run_update<TypeParam>(mk, c);
}

template <class TypeParam>
void TinyK() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 2, 3, 5})
    for (auto mn : {std::make_pair(1, 1), std::make_pair(8, 8), std::make_pair(64, 64), std::make_pair(40, 7)})
      run_update<TypeParam>(mk, {K, mn.first, mn.second});
}

template <class TypeParam>
void LargeK() {
  Maker mk(__LINE__);  // a different random stream per part
  const UpdateCase cases[] = {{30011, 4, 3}, {20000, 8, 8}, {50021, 2, 1}, {12345, 3, 16}};
  for (const auto& c : cases) run_update<TypeParam>(mk, c);
}

template <class TypeParam>
void AlphaBetaKinds() {
  Maker mk(__LINE__);  // a different random stream per part
  for (Coef a : {Coef::Zero, Coef::One, Coef::General})
    for (Coef b : {Coef::Zero, Coef::One, Coef::General}) {
      SCOPED_TRACE(std::string("alpha ") + coef_name(a) + ", beta " + coef_name(b));
      UpdateCase c{777, 5, 6, a, b};
      run_update<TypeParam>(mk, c);
      if (b == Coef::Zero) {
        c.nan_output = true;
        run_update<TypeParam>(mk, c);
      }
    }
}

template <class TypeParam>
void BetaZeroIgnoresNaNInB() {
  Maker mk(__LINE__);  // a different random stream per part
  for (UpdateCase c : {UpdateCase{1, 3, 2}, UpdateCase{513, 7, 9}, UpdateCase{20011, 4, 4}, UpdateCase{300, 64, 64}}) {
    c.beta = Coef::Zero;
    c.nan_output = true;
    run_update<TypeParam>(mk, c);
  }
}

// M = 0 (A is K x 0, C is 0 x N): B = beta * B, as BLAS does for an empty inner dimension.
template <class TypeParam>
void EmptyInnerDimension() {
  Maker mk(__LINE__);  // a different random stream per part
  for (Coef b : {Coef::Zero, Coef::One, Coef::General}) {
    UpdateCase c{37, 0, 3, Coef::General, b};
    c.nan_output = b == Coef::Zero;
    run_update<TypeParam>(mk, c);
  }
}

// K = 0 or N = 0: B is empty, nothing is written (the NaN guards around B stay bitwise the same).
template <class TypeParam>
void EmptyOutput() {
  using Scalar = typename TypeParam::scalar;
  using Dev = typename TypeParam::device;
  Maker mk(__LINE__);  // a different random stream per part
  for (auto kn : {std::make_pair(0, 3), std::make_pair(50, 0), std::make_pair(0, 0)}) {
    for (int M : {0, 4}) {
      SCOPED_TRACE("K=" + std::to_string(kn.first) + " N=" + std::to_string(kn.second) + " M=" + std::to_string(M));
      auto A = mk.matrix<Scalar, typename TypeParam::layout_a, Dev>(kn.first, M);
      auto C = mk.matrix<Scalar, typename TypeParam::layout_b, Dev>(M, kn.second);
      auto B = mk.matrix<Scalar, typename TypeParam::layout_c, Dev>(kn.first, kn.second);
      EXPECT_NO_THROW(kbla::update(typename TypeParam::exec(), mk.coefficient<Scalar>(), A.view, C.view,
                                   mk.coefficient<Scalar>(), B.view));
      EXPECT_TRUE(B.unchanged());
      EXPECT_TRUE(A.unchanged());
      EXPECT_TRUE(C.unchanged());
    }
  }
}

template <class TypeParam>
void InPlaceThroughUpdate() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 7, 1000, 4099})
    for (int M : {1, 2, 4, 5, 16, 64}) run_in_place<TypeParam>(mk, K, M, Coef::General, InPlaceForm::update);
  run_in_place<TypeParam>(mk, 300, 130, Coef::General, InPlaceForm::update);
  run_in_place<TypeParam>(mk, 2000, 7, Coef::Zero, InPlaceForm::update);
  run_in_place<TypeParam>(mk, 2000, 7, Coef::One, InPlaceForm::update);
}

template <class TypeParam>
void UpdateInPlace() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {1, 7, 1000, 4099})
    for (int M : {1, 5, 16, 64}) run_in_place<TypeParam>(mk, K, M, Coef::Zero, InPlaceForm::update_in_place);
  run_in_place<TypeParam>(mk, 300, 130, Coef::Zero, InPlaceForm::update_in_place);
  run_in_place<TypeParam>(mk, 20000, 4, Coef::Zero, InPlaceForm::update_in_place);
}

// update_in_place(alpha, X, C) without an execution space, as inner, update and gemm have.
template <class TypeParam>
void UpdateInPlaceDefaultInstance() {
  Maker mk(__LINE__);  // a different random stream per part
  for (long long K : {7, 4099})
    for (int M : {1, 5, 16})
      run_in_place<TypeParam>(mk, K, M, Coef::Zero, InPlaceForm::update_in_place_default_instance);
}

// Every width class of the portable kernels: column tiles of 1, 2, 4 and 8 and runs of mixed extents (7 = 4 + 2 +
// 1, complex widths count twice on host), M != N, and K whose rows leave tails that fill neither a register tile
// of rows nor a cache block (the host kernel packs those rows even where it reads the others in place).
template <class TypeParam>
void WidthClasses() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{1, 2}, {2, 1}, {2, 4}, {4, 2}, {4, 4},  {3, 7},   {7, 3},
                                    {6, 9}, {9, 6}, {8, 16}, {16, 8}, {15, 15}, {12, 10}, {2, 33}};
  for (long long K : {37, 1029})
    for (auto p : mn) run_update<TypeParam>(mk, {K, p.first, p.second});
}

// Many cache blocks per thread (the host kernels cut each thread's rows into blocks; the last one is short).
template <class TypeParam>
void HugeK() {
  Maker mk(__LINE__);  // a different random stream per part
  const UpdateCase cases[] = {{100003, 3, 2}, {40009, 5, 9}, {20011, 16, 17}};
  for (const auto& c : cases) run_update<TypeParam>(mk, c);
  run_in_place<TypeParam>(mk, 40009, 9, Coef::General, InPlaceForm::update);
  run_in_place<TypeParam>(mk, 40009, 9, Coef::Zero, InPlaceForm::update_in_place);
}

// The host row kernels (kbla_host_row_kernels.hpp): A and B whose rows are contiguous and at most 16 reals long
// (complex widths count twice) are read and written in place. Every output extent of their tiles (1, 2, 4, 8 and
// runs of them), rows of exactly 16 reals and 17 (the packed path again), M != N, K with one row, a partial block
// and many blocks per thread, beta = 0 over NaN; in place through update(X, C, X) with beta and through
// update_in_place. LayoutStride Configs cycle through the subview variants, among them row-major column ranges
// that start one element in (unaligned rows, row stride > width).
template <class TypeParam>
void RowMajorNarrow() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 3},   {4, 8},
                                    {8, 4}, {6, 7}, {8, 8}, {12, 5}, {16, 16}, {9, 16}, {16, 17}};
  for (long long K : {1, 1003, 20011})
    for (auto p : mn) run_update<TypeParam>(mk, {K, p.first, p.second});
  UpdateCase c{4099, 3, 4, Coef::General, Coef::Zero};
  c.nan_output = true;
  run_update<TypeParam>(mk, c);
  for (long long K : {1, 1003, 20011})
    for (int M : {1, 2, 3, 4, 5, 8, 9, 16, 17}) {
      run_in_place<TypeParam>(mk, K, M, Coef::General, InPlaceForm::update);
      run_in_place<TypeParam>(mk, K, M, Coef::Zero, InPlaceForm::update_in_place);
    }
}

// The vector tiles (kbla_host_vectors.hpp, AVX-512 builds) of the complex column kernel (up to 8 columns of B by
// one vector of rows) and of the row kernels: width 8 and its neighbours, odd K (rows that fill no tile, a partial
// block, many blocks), beta = 0 over NaN, and in place at widths 4 and 8 (one tile holds every column, so the
// complex column kernel runs in place there) through update(X, C, X) with beta and through update_in_place.
// Builds without AVX-512 run the same calls through the scalar tiles.
template <class TypeParam>
void VectorTileWidths() {
  Maker mk(__LINE__);  // a different random stream per part
  const std::pair<int, int> mn[] = {{8, 8}, {3, 8}, {8, 3}, {5, 8}, {8, 5}, {7, 8}, {8, 1}, {4, 4}, {1, 8}, {16, 8}};
  for (long long K : {1, 3, 5, 1003, 20011})
    for (auto p : mn) run_update<TypeParam>(mk, {K, p.first, p.second});
  for (auto p : {std::make_pair(8, 8), std::make_pair(5, 8)}) {
    UpdateCase c{4097, p.first, p.second, Coef::General, Coef::Zero};
    c.nan_output = true;
    run_update<TypeParam>(mk, c);
  }
  for (long long K : {3, 1003, 20011})
    for (int M : {4, 8}) {
      run_in_place<TypeParam>(mk, K, M, Coef::General, InPlaceForm::update);
      run_in_place<TypeParam>(mk, K, M, Coef::Zero, InPlaceForm::update_in_place);
    }
}

template <class TypeParam>
void DefaultInstanceOverload() {
  Maker mk(__LINE__);  // a different random stream per part
  UpdateCase c{2049, 6, 5};
  c.default_instance = true;
  run_update<TypeParam>(mk, c);
}



TYPED_TEST(UpdateTest, Shapes) {
  KBLA_PART(SmallWidthsOverK);
  KBLA_PART(WideBlocks);
  KBLA_PART(TinyK);
  KBLA_PART(LargeK);
  KBLA_PART(DefaultInstanceOverload);
}
TYPED_TEST(UpdateTest, WidthClassesAndHugeK) {
  KBLA_PART(WidthClasses);
  KBLA_PART(HugeK);
  KBLA_PART(RowMajorNarrow);
  KBLA_PART(VectorTileWidths);
}
TYPED_TEST(UpdateTest, SpecialCoefficients) {
  KBLA_PART(AlphaBetaKinds);
  KBLA_PART(BetaZeroIgnoresNaNInB);
}
TYPED_TEST(UpdateTest, EmptyExtents) {
  KBLA_PART(EmptyInnerDimension);
  KBLA_PART(EmptyOutput);
}
TYPED_TEST(UpdateTest, InPlace) {
  KBLA_PART(InPlaceThroughUpdate);
  KBLA_PART(UpdateInPlace);
}
TYPED_TEST(UpdateTest, InPlaceDefaultInstance) { KBLA_PART(UpdateInPlaceDefaultInstance); }

// The overloads taking kbla::UpdateOptions: update with and without an execution space, update_in_place likewise.
template <class TypeParam>
void OptionsOverloads() {
  Maker mk(__LINE__);  // a different random stream per part
  for (bool default_instance : {false, true})
    for (UpdateCase c :
         {UpdateCase{2049, 6, 5}, UpdateCase{300, 1, 1}, UpdateCase{777, 5, 6, Coef::General, Coef::Zero, true}}) {
      c.with_options = true;
      c.default_instance = default_instance;
      run_update<TypeParam>(mk, c);
    }
  run_in_place<TypeParam>(mk, 1000, 5, Coef::Zero, InPlaceForm::update_in_place_options);
  run_in_place<TypeParam>(mk, 1000, 5, Coef::Zero, InPlaceForm::update_in_place_options_default_instance);
}
TYPED_TEST(UpdateTest, OptionsOverloads) { KBLA_PART(OptionsOverloads); }

// The same kernels on Kokkos::Serial when the default execution space is another one (OpenMP: the host path with
// one team; Cuda: the host path at all), one real and one complex mix of layouts with strided subviews.
#if defined(KOKKOS_ENABLE_SERIAL) && !defined(KOKKOS_ENABLE_DEFAULT_DEVICE_TYPE_SERIAL)
struct serial_double_LSR : Config<Kokkos::Serial, double, L, S, R> {};
struct serial_cdouble_SRL : Config<Kokkos::Serial, cdouble, S, R, L> {};
using SerialConfigs = ::testing::Types<serial_double_LSR, serial_cdouble_SRL>;

template <class Cfg>
class UpdateSerialTest : public ::testing::Test {};
TYPED_TEST_SUITE(UpdateSerialTest, SerialConfigs);
TYPED_TEST(UpdateSerialTest, Kernels) {
  KBLA_PART(WidthClasses);
  KBLA_PART(LargeK);
  KBLA_PART(BetaZeroIgnoresNaNInB);
  KBLA_PART(EmptyInnerDimension);
  KBLA_PART(UpdateInPlace);
}
#endif

}  // namespace
