// Shared helpers of the kbla unit tests.
//
//  - Config<Exec, Scalar, LayoutA, LayoutB, LayoutC>: the parameter of every typed test. Views live in
//    Exec's memory space (Kokkos::DefaultExecutionSpace: Serial on the Debian build, Cuda on a CUDA build), so
//    the same tests drive the CUDA kernels when Kokkos has CUDA. Host access goes through host copies only.
//  - TestMatrix: a View under test over a storage block that also holds NaN guard zones (and, for LayoutStride,
//    the parent matrix the strided subview is cut from). Reads of the padding show up as NaN in the result,
//    writes outside the View show up as changed guard bits.
//  - Maker: fresh random data per test (seeded from the test's full name), random scalars, LayoutStride variants.
//  - reference(): naive op(A) * op(B) in complex<long double> on the host, with the elementwise error bound.
#pragma once

#include <kbla.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kbla_test {

using cld = std::complex<long double>;

// ------------------------------------------------------------------------------------------ scalar traits
template <class T>
struct ScalarInfo {
  using real = T;
  static constexpr bool is_complex = false;
  static const char* name() { return std::is_same<T, float>::value ? "float" : "double"; }
  static cld to_cld(const T& x) { return cld(static_cast<long double>(x), 0.0L); }
  static T make(long double re, long double /*im*/) { return static_cast<T>(re); }
};
template <class T>
struct ScalarInfo<Kokkos::complex<T>> {
  using real = T;
  static constexpr bool is_complex = true;
  static const char* name() { return std::is_same<T, float>::value ? "cfloat" : "cdouble"; }
  static cld to_cld(const Kokkos::complex<T>& x) { return cld(x.real(), x.imag()); }
  static Kokkos::complex<T> make(long double re, long double im) {
    return Kokkos::complex<T>(static_cast<T>(re), static_cast<T>(im));
  }
};

template <class T>
T quiet_nan() {
  const auto n = std::numeric_limits<typename ScalarInfo<T>::real>::quiet_NaN();
  return ScalarInfo<T>::make(n, n);
}

template <class L>
const char* layout_letter() {
  return std::is_same<L, Kokkos::LayoutLeft>::value ? "L" : std::is_same<L, Kokkos::LayoutRight>::value ? "R" : "S";
}

// --------------------------------------------------------------------------------------- test parameters
// For inner and gemm: A, B inputs, C output. For update (B = alpha A C + beta B): LayoutA for A, LayoutB for
// the small C, LayoutC for the output B.
template <class Exec, class Scalar, class LA, class LB, class LC>
struct Config {
  using exec = Exec;
  using device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using scalar = Scalar;
  using layout_a = LA;
  using layout_b = LB;
  using layout_c = LC;
};

using L = Kokkos::LayoutLeft;
using R = Kokkos::LayoutRight;
using S = Kokkos::LayoutStride;
using Exec = Kokkos::DefaultExecutionSpace;
using cfloat = Kokkos::complex<float>;
using cdouble = Kokkos::complex<double>;

// Four scalar types x three configurations: per scalar type one with a single layout and two mixed ones, chosen
// so that every layout appears in every role (A, B, C) for every scalar type, and every layout alone once or
// more (LayoutLeft throughout for double and complex<double>: the case cuBLAS takes in KokkosBlas::gemm).
// Named types (not Config<...> directly) so that test names stay short: gtest lists them as
// "InnerTest/3.  # TypeParam = kbla_test::double_LLL" and ctest as "InnerTest.Shapes<kbla_test::double_LLL>".
#define KBLA_TEST_CONFIG(SCALAR, LA, LB, LC) \
  struct SCALAR##_##LA##LB##LC : Config<Exec, SCALAR, LA, LB, LC> {}
KBLA_TEST_CONFIG(float, R, R, R);
KBLA_TEST_CONFIG(float, L, S, L);
KBLA_TEST_CONFIG(float, S, L, S);
KBLA_TEST_CONFIG(float, R, S, L);
KBLA_TEST_CONFIG(double, L, L, L);
KBLA_TEST_CONFIG(double, R, S, R);
KBLA_TEST_CONFIG(double, S, R, S);
KBLA_TEST_CONFIG(cfloat, S, S, S);
KBLA_TEST_CONFIG(cfloat, L, R, L);
KBLA_TEST_CONFIG(cfloat, R, L, R);
KBLA_TEST_CONFIG(cfloat, S, R, S);
KBLA_TEST_CONFIG(cdouble, L, L, L);
KBLA_TEST_CONFIG(cdouble, R, S, S);
KBLA_TEST_CONFIG(cdouble, S, R, R);
KBLA_TEST_CONFIG(cdouble, L, R, S);
#undef KBLA_TEST_CONFIG

using Configs = ::testing::Types<float_RRR, float_LSL, float_SLS, double_LLL, double_RSR, double_SRS, cfloat_SSS,
                                 cfloat_LRL, cfloat_RLR, cdouble_LLL, cdouble_RSS, cdouble_SRR>;

// The bad-input tests: the checks run before any kernel; one mix per scalar type.
using ErrorConfigs = ::testing::Types<float_RSL, double_LLL, cfloat_SRS, cdouble_LRS>;

// ------------------------------------------------------------------------------------------------ seeding
inline std::uint64_t seed_for_current_test(std::uint64_t salt) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string key = "kbla";
  if (info != nullptr) {
    key += std::string(info->test_suite_name()) + "." + info->name();
    if (info->type_param() != nullptr) key += info->type_param();
  }
  // FNV-1a: stable across platforms and runs (std::hash is not required to be).
  std::uint64_t h = 1469598103934665603ull ^ salt;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Few typed tests, each running several parts: gtest's typed-test registration costs compile time per
// (test, type) pair, so parts are grouped; KBLA_PART(name) runs part name<TypeParam>() and names it in the trace.
#define KBLA_PART(name) \
  do {                   \
    SCOPED_TRACE(#name); \
    name<TypeParam>();   \
  } while (0)

// KBLA_TEST_TRACE=1: every call under test prints what it is about to do to stderr (unbuffered), so a crash
// (not a failed expectation, which gtest reports with its trace) can be placed.
inline void trace_call(const std::string& what, const char* phase) {
  static const bool on = [] {
    const char* e = std::getenv("KBLA_TEST_TRACE");
    return e != nullptr && e[0] == '1';
  }();
  if (on) std::fprintf(stderr, "[kbla_test] %s: %s\n", phase, what.c_str());
}

// --------------------------------------------------------------------------------------------- matrices
// A host matrix of complex<long double>, whatever the scalar type and layout: the reference and every
// comparison work on these, so that they are compiled once per test file and not once per typed-test parameter.
struct Dense {
  int rows = 0, cols = 0;
  std::vector<cld> v;
  Dense() = default;
  Dense(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c) {}
  cld& operator()(int i, int j) { return v[std::size_t(j) * rows + i]; }
  const cld& operator()(int i, int j) const { return v[std::size_t(j) * rows + i]; }
  Dense columns(int j0, int n) const {
    Dense d(rows, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < rows; ++i) d(i, j) = (*this)(i, j0 + j);
    return d;
  }
};

template <class HostView>
Dense to_dense(const HostView& h) {
  using Scalar = typename HostView::non_const_value_type;
  Dense d(int(h.extent(0)), int(h.extent(1)));
  for (int j = 0; j < d.cols; ++j)
    for (int i = 0; i < d.rows; ++i) d(i, j) = ScalarInfo<Scalar>::to_cld(h(i, j));
  return d;
}

enum class Fill { Random, NaN };

constexpr std::size_t kGuard = 8;  // NaN elements before and after every storage block (keeps 32-byte alignment)

inline ::testing::AssertionResult storage_diff(const std::vector<cld>& before, const std::vector<cld>& after,
                                        const std::vector<unsigned char>& bytes_before,
                                        const std::vector<unsigned char>& bytes_after, std::size_t scalar_bytes,
                                        const std::vector<char>& skip, std::size_t offset, const std::string& what);

template <class Scalar, class Layout, class Device>
class TestMatrix {
 public:
  using view_type = Kokkos::View<Scalar**, Layout, Device>;
  using host_view_type = Kokkos::View<Scalar**, Layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using storage_type = Kokkos::View<Scalar*, Device>;
  using host_storage_type = Kokkos::View<Scalar*, Kokkos::HostSpace>;

  view_type view;
  std::string description;

  TestMatrix() = default;
  TestMatrix(storage_type storage, view_type v, std::string desc)
      : view(v), description(std::move(desc)), storage_(storage) {
    offset_ = view.size() == 0 ? kGuard : static_cast<std::size_t>(view.data() - storage_.data());
    snapshot_ = host_storage_type("kbla_test snapshot", storage_.extent(0));
    Kokkos::deep_copy(snapshot_, storage_);
  }

  int rows() const { return static_cast<int>(view.extent(0)); }
  int cols() const { return static_cast<int>(view.extent(1)); }
  const storage_type& storage() const { return storage_; }
  std::size_t offset() const { return offset_; }

  // The matrix as it is now (waits for the device), and as it was made (or last reset).
  Dense now() const {
    const host_storage_type h = host_storage();
    return to_dense(host_view(h));
  }
  Dense initial() const { return to_dense(host_view(snapshot_)); }
  // The whole storage block, bit for bit (two runs of a deterministic call must agree on it).
  std::vector<unsigned char> bytes() const {
    const host_storage_type h = host_storage();
    const auto* p = reinterpret_cast<const unsigned char*>(h.data());
    return std::vector<unsigned char>(p, p + h.extent(0) * sizeof(Scalar));
  }

  // Writes host values into the matrix (through the contiguous storage: strided Views in device memory cannot be
  // deep-copied directly) and makes them the new snapshot.
  void set(const std::function<Scalar(int, int)>& value) {
    host_storage_type h = host_storage();
    host_view_type hv = host_view(h);
    for (int j = 0; j < cols(); ++j)
      for (int i = 0; i < rows(); ++i) hv(i, j) = value(i, j);
    Kokkos::deep_copy(storage_, h);
    Kokkos::deep_copy(snapshot_, h);
  }
  // Back to the snapshot, bit for bit.
  void reset() const {
    Kokkos::fence();
    Kokkos::deep_copy(storage_, snapshot_);
  }

  // Whole storage bitwise equal to the snapshot (inputs, and outputs of calls that must not write).
  ::testing::AssertionResult unchanged() const { return compare_storage(false); }
  // Everything outside the matrix (NaN guards, the parent's other entries) bitwise equal to the snapshot.
  ::testing::AssertionResult outside_unchanged() const { return compare_storage(true); }

 private:
  host_storage_type host_storage() const {
    host_storage_type h("kbla_test host copy", storage_.extent(0));
    Kokkos::fence();
    Kokkos::deep_copy(h, storage_);
    return h;
  }
  host_view_type host_view(const host_storage_type& h) const { return host_view_type(h.data() + offset_, view.layout()); }

  ::testing::AssertionResult compare_storage(bool outside_only) const {
    const host_storage_type now = host_storage();
    std::vector<char> inside(now.extent(0), 0);
    if (outside_only) {
      const host_view_type hv = host_view(now);
      for (int j = 0; j < cols(); ++j)
        for (int i = 0; i < rows(); ++i) inside[&hv(i, j) - now.data()] = 1;
    }
    std::vector<cld> before(now.extent(0)), after(now.extent(0));
    for (std::size_t e = 0; e < now.extent(0); ++e) {
      before[e] = ScalarInfo<Scalar>::to_cld(snapshot_(e));
      after[e] = ScalarInfo<Scalar>::to_cld(now(e));
    }
    const auto* b = reinterpret_cast<const unsigned char*>(snapshot_.data());
    const auto* a = reinterpret_cast<const unsigned char*>(now.data());
    return storage_diff(before, after, std::vector<unsigned char>(b, b + now.extent(0) * sizeof(Scalar)),
                        std::vector<unsigned char>(a, a + now.extent(0) * sizeof(Scalar)), sizeof(Scalar), inside,
                        offset_, description);
  }

  storage_type storage_;
  std::size_t offset_ = kGuard;
  host_storage_type snapshot_;
};

inline ::testing::AssertionResult storage_diff(const std::vector<cld>& before, const std::vector<cld>& after,
                                               const std::vector<unsigned char>& bytes_before,
                                               const std::vector<unsigned char>& bytes_after, std::size_t scalar_bytes,
                                               const std::vector<char>& skip, std::size_t offset,
                                               const std::string& what) {
  for (std::size_t e = 0; e < before.size(); ++e) {
    if (skip[e]) continue;
    if (std::memcmp(&bytes_before[e * scalar_bytes], &bytes_after[e * scalar_bytes], scalar_bytes) != 0) {
      return ::testing::AssertionFailure() << what << ": storage element " << e << " (matrix starts at " << offset
                                           << ") changed from " << before[e] << " to " << after[e];
    }
  }
  return ::testing::AssertionSuccess();
}

class Maker {
 public:
  // Seeded from the running test's full name (suite, test, type parameter) and `salt`: reproducible, and
  // different for every test, type and salt.
  explicit Maker(std::uint64_t salt = 0) : rng_(seed_for_current_test(salt)) {}

  std::mt19937_64& rng() { return rng_; }

  // Uniform in [-1, 1] (each part of complex values).
  template <class Scalar>
  Scalar random_entry() {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double re = u(rng_);
    const double im = u(rng_);
    return ScalarInfo<Scalar>::make(re, im);
  }

  // A coefficient that is neither 0 nor 1, with modulus in [0.5, 2]; complex when Scalar is (nonzero both parts).
  template <class Scalar>
  Scalar coefficient() {
    std::uniform_real_distribution<long double> mag(0.5L, 1.4L);
    std::bernoulli_distribution sign(0.5);
    const long double re = (sign(rng_) ? -1 : 1) * mag(rng_);
    const long double im = (sign(rng_) ? -1 : 1) * mag(rng_);
    return ScalarInfo<Scalar>::make(re, im);
  }

  // A rows x cols matrix in Device's memory, surrounded by NaN. LayoutLeft / LayoutRight: a plain matrix inside
  // the guards. LayoutStride: a subview of a larger matrix, cycling through the variants below, whose other
  // entries are NaN too.
  template <class Scalar, class Layout, class Device>
  TestMatrix<Scalar, Layout, Device> matrix(int rows, int cols, Fill fill = Fill::Random) {
    using TM = TestMatrix<Scalar, Layout, Device>;
    using View = typename TM::view_type;
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const std::size_t r = rows, c = cols;
    std::string desc = std::string(layout_letter<Layout>() == std::string("L")   ? "LayoutLeft"
                                   : layout_letter<Layout>() == std::string("R") ? "LayoutRight"
                                                                                 : "LayoutStride") +
                       " " + std::to_string(rows) + " x " + std::to_string(cols);
    typename TM::storage_type storage;
    View v;
    // Storage: guard, parent matrix, room for the View's Kokkos span() past its parent, guard. Kokkos 3.4 gives a
    // LayoutStride View the span max_i(extent_i * stride_i), which can reach past the last element and even past
    // the parent (every other column: r + 2 elements beyond it); kbla's overlap check uses span(), so without the
    // room a neighbouring allocation could be taken for an overlap at random (see ErrorTest's
    // NoFalseOverlapBeyondLastElement, which checks that case on purpose).
    auto make_storage = [&](std::size_t parent_size, std::size_t s0 = 0, std::size_t s1 = 0) {
      const std::size_t span_room = std::max(r * s0, c * s1);
      storage = typename TM::storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla_test storage"),
                                          parent_size + span_room + 2 * kGuard);
      Kokkos::deep_copy(storage, quiet_nan<Scalar>());
      return storage.data() + kGuard;
    };
    if constexpr (!std::is_same<Layout, Kokkos::LayoutStride>::value) {
      Scalar* p = make_storage(r * c);
      v = View(Kokkos::View<Scalar**, Layout, Device, Unmanaged>(p, r, c));
    } else {
      using LeftParent = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device, Unmanaged>;
      using RightParent = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device, Unmanaged>;
      using Left3 = Kokkos::View<Scalar***, Kokkos::LayoutLeft, Device, Unmanaged>;
      using Right3 = Kokkos::View<Scalar***, Kokkos::LayoutRight, Device, Unmanaged>;
      const auto all = Kokkos::ALL;
      switch (stride_variant_++ % 6) {
        case 0: {  // a column range of a wider column-major matrix
          LeftParent P(make_storage(r * (c + 5), 1, r), r, c + 5);
          v = Kokkos::subview(P, all, std::make_pair(std::size_t(2), 2 + c));
          desc += " (columns [2, " + std::to_string(2 + c) + ") of a LayoutLeft " + std::to_string(r) + " x " +
                  std::to_string(c + 5) + ")";
          break;
        }
        case 1: {  // a row range of a taller column-major matrix: leading dimension r + 7
          LeftParent P(make_storage((r + 7) * c, 1, r + 7), r + 7, c);
          v = Kokkos::subview(P, std::make_pair(std::size_t(3), 3 + r), all);
          desc += " (rows [3, " + std::to_string(3 + r) + ") of a LayoutLeft " + std::to_string(r + 7) + " x " +
                  std::to_string(c) + ")";
          break;
        }
        case 2: {  // every other column (the odd ones, rows [1, r+1)) of a column-major (r+1) x 2c matrix
          Left3 P(make_storage((r + 1) * 2 * c, 1, 2 * (r + 1)), r + 1, 2, c);
          v = Kokkos::subview(P, std::make_pair(std::size_t(1), r + 1), 1, all);
          desc += " (odd columns, rows [1, " + std::to_string(r + 1) + ") of a LayoutLeft " + std::to_string(r + 1) +
                  " x " + std::to_string(2 * c) + ")";
          break;
        }
        case 3: {  // every other row of a row-major 2r x (c+3) matrix, columns [0, c)
          Right3 P(make_storage(r * 2 * (c + 3), 2 * (c + 3), 1), r, 2, c + 3);
          v = Kokkos::subview(P, all, 0, std::make_pair(std::size_t(0), c));
          desc += " (even rows, columns [0, " + std::to_string(c) + ") of a LayoutRight " + std::to_string(2 * r) +
                  " x " + std::to_string(c + 3) + ")";
          break;
        }
        case 4: {  // no unit stride at all: strides (2, 2r), interleaved with another matrix
          Left3 P(make_storage(2 * r * c, 2, 2 * r), 2, r, c);
          v = Kokkos::subview(P, 1, all, all);
          desc += " (strides 2 and " + std::to_string(2 * r) + ": no unit stride)";
          break;
        }
        default: {  // a column range of a wider row-major matrix
          RightParent P(make_storage(r * (c + 4), c + 4, 1), r, c + 4);
          v = Kokkos::subview(P, all, std::make_pair(std::size_t(1), 1 + c));
          desc += " (columns [1, " + std::to_string(1 + c) + ") of a LayoutRight " + std::to_string(r) + " x " +
                  std::to_string(c + 4) + ")";
          break;
        }
      }
    }
    TM m(storage, v, desc);
    if (fill == Fill::Random) {
      std::vector<Scalar> values(r * c);
      for (auto& x : values) x = random_entry<Scalar>();
      m.set([&](int i, int j) { return values[std::size_t(j) * r + i]; });
    }
    return m;
  }

 private:
  std::mt19937_64 rng_;
  int stride_variant_ = 0;
};

// An unmanaged View of `rows x cols` over `base`'s storage, starting `shift` elements after base's first element
// (contiguous; LayoutStride gets column-major strides). Builds aliasing arguments for the bad-input tests.
template <class Layout, class Scalar, class BaseLayout, class Device>
Kokkos::View<Scalar**, Layout, Device> alias_view(const TestMatrix<Scalar, BaseLayout, Device>& base, int rows, int cols,
                                                  std::ptrdiff_t shift) {
  Scalar* p = base.storage().data() + base.offset() + shift;
  using Unmanaged = Kokkos::View<Scalar**, Layout, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
    return Unmanaged(p, Kokkos::LayoutStride(rows, 1, cols, rows));
  } else {
    return Unmanaged(p, rows, cols);
  }
}

// ---------------------------------------------------------------------------------------------- reference
// op(A) * op(B) * alpha + beta * C0 in complex<long double>, and per entry the magnitude the rounding errors
// scale with: |alpha| * sum_k |op(A)_ik| |op(B)_kj| + |beta| |C0_ij| (the C0 term is absent when beta == 0: BLAS
// semantics, C0 is not read then, it may be NaN).
struct Reference {
  long long inner_dim = 0;
  Dense value;
  std::vector<long double> bound;  // column-major like value
};

// |x| without hypot's care for overflow (entries here are O(1)); hypotl dominated the reference's run time.
inline long double modulus(const cld& x) { return std::sqrt(x.real() * x.real() + x.imag() * x.imag()); }

inline Reference reference(char opA, char opB, cld alpha, const Dense& A, const Dense& B, cld beta, const Dense& C0) {
  Reference ref;
  const int rows = opA == 'N' ? A.rows : A.cols;
  const int cols = opB == 'N' ? B.cols : B.rows;
  ref.inner_dim = opA == 'N' ? A.cols : A.rows;
  const std::size_t K = ref.inner_dim;
  // op(A) row by row and op(B) column by column, contiguous in k, with their moduli
  std::vector<long double> a_re(rows * K), a_im(rows * K), a_abs(rows * K);
  std::vector<long double> b_re(cols * K), b_im(cols * K), b_abs(cols * K);
  bool complex = false;
  for (int i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < K; ++k) {
      const cld x = opA == 'N' ? A(i, int(k)) : A(int(k), i);
      a_re[i * K + k] = x.real();
      a_im[i * K + k] = opA == 'C' ? -x.imag() : x.imag();
      a_abs[i * K + k] = modulus(x);
      complex = complex || x.imag() != 0;
    }
  for (int j = 0; j < cols; ++j)
    for (std::size_t k = 0; k < K; ++k) {
      const cld y = opB == 'N' ? B(int(k), j) : B(j, int(k));
      b_re[j * K + k] = y.real();
      b_im[j * K + k] = opB == 'C' ? -y.imag() : y.imag();
      b_abs[j * K + k] = modulus(y);
      complex = complex || y.imag() != 0;
    }
  const bool beta_zero = beta == cld(0);
  ref.value = Dense(rows, cols);
  ref.bound.assign(std::size_t(rows) * cols, 0.0L);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) {
      const long double *ar = &a_re[i * K], *ai = &a_im[i * K], *aa = &a_abs[i * K];
      const long double *br = &b_re[j * K], *bi = &b_im[j * K], *ba = &b_abs[j * K];
      long double re = 0, im = 0, abs_sum = 0;
      if (complex) {
        for (std::size_t k = 0; k < K; ++k) {
          re += ar[k] * br[k] - ai[k] * bi[k];
          im += ar[k] * bi[k] + ai[k] * br[k];
          abs_sum += aa[k] * ba[k];
        }
      } else {
        for (std::size_t k = 0; k < K; ++k) {
          re += ar[k] * br[k];
          abs_sum += aa[k] * ba[k];
        }
      }
      cld value = alpha * cld(re, im);
      long double bound = modulus(alpha) * abs_sum;
      if (!beta_zero) {
        value += beta * C0(i, j);
        bound += modulus(beta) * modulus(C0(i, j));
      }
      ref.value(i, j) = value;
      ref.bound[std::size_t(j) * rows + i] = bound;
    }
  }
  return ref;
}

// Rounding error bound. Each computed entry is the sum of the K terms alpha * op(A)_ik op(B)_kj and of
// beta * C_ij, evaluated in SOME order (per-thread partial sums, lane and team reductions, atomics or a
// fixed-order second pass, blocked gemm, FMA on GPUs). Whatever the order, every term goes through at most K
// additions and 2 multiplications (the product, then alpha or beta), so with unit roundoff u = eps/2
// (Higham, Accuracy and Stability of Numerical Algorithms, Lemma 3.1, Section 3.1 and 3.6):
//     real:    |computed - exact| <= gamma_{K+2} * bound,  gamma_n = n u / (1 - n u)
//     complex: a complex product errs by at most sqrt(2) gamma_2 < 3u instead of u (Lemma 3.5), additions by
//              u in modulus, so |computed - exact| <= gamma_{K+6} * bound
// where bound = |alpha| sum_k |op(A)_ik| |op(B)_kj| + |beta| |C_ij|. The tests allow n * eps * bound = 2 n u *
// bound, i.e. c = 2 over the first-order bound: n u < 0.002 for every K used here, so the 1/(1 - n u) is covered
// with room to spare, and the long double reference (64-bit mantissa) is exact to far below that.
struct Arith {
  long double eps;
  bool is_complex;
};
template <class Scalar>
Arith arith() {
  using real = typename ScalarInfo<Scalar>::real;
  return {static_cast<long double>(std::numeric_limits<real>::epsilon()), ScalarInfo<Scalar>::is_complex};
}

inline long double tolerance_factor(const Arith& a, long long inner_dim) {
  return static_cast<long double>(inner_dim + (a.is_complex ? 6 : 2)) * a.eps;
}

inline ::testing::AssertionResult matches(const Dense& result, const Reference& ref, const Arith& arith) {
  if (result.rows != ref.value.rows || result.cols != ref.value.cols) {
    return ::testing::AssertionFailure() << "result is " << result.rows << " x " << result.cols << ", reference "
                                         << ref.value.rows << " x " << ref.value.cols;
  }
  const long double factor = tolerance_factor(arith, ref.inner_dim);
  long bad = 0;
  std::ostringstream first;
  for (int j = 0; j < result.cols; ++j) {
    for (int i = 0; i < result.rows; ++i) {
      const long double err = modulus(result(i, j) - ref.value(i, j));
      const long double bound = ref.bound[std::size_t(j) * result.rows + i];
      const long double tol = factor * bound;
      if (!(err <= tol)) {  // also catches NaN
        if (bad++ < 3) {
          first << "\n  (" << i << ", " << j << "): got " << result(i, j) << ", expected " << ref.value(i, j)
                << ", |error| " << err << " > tolerance " << tol << " (= " << factor << " * " << bound << ")";
        }
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << long(result.rows) * result.cols
                                       << " entries off the reference (K = " << ref.inner_dim << ")" << first.str();
}

// All entries exactly zero (beta = 0 with K = 0 or alpha = 0: no NaN from the old contents may survive).
inline ::testing::AssertionResult all_zero(const Dense& d) {
  for (int j = 0; j < d.cols; ++j)
    for (int i = 0; i < d.rows; ++i)
      if (!(d(i, j) == cld(0)))
        return ::testing::AssertionFailure() << "(" << i << ", " << j << ") is " << d(i, j) << ", expected 0";
  return ::testing::AssertionSuccess();
}

// Exactly the same values (inputs, and parts of a matrix a call must not write).
inline ::testing::AssertionResult same_values(const Dense& a, const Dense& b) {
  if (a.rows != b.rows || a.cols != b.cols) return ::testing::AssertionFailure() << "shapes differ";
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i)
      if (!(a(i, j) == b(i, j)))
        return ::testing::AssertionFailure() << "(" << i << ", " << j << "): " << a(i, j) << " vs " << b(i, j);
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult same_bits(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a == b) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the two results differ in their bits";
}

// `call` must throw std::invalid_argument whose what() contains every string in `parts` and none in `absent`.
inline ::testing::AssertionResult throws_invalid(const std::function<void()>& call,
                                                 const std::vector<std::string>& parts,
                                                 const std::vector<std::string>& absent = {}) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const auto& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << what << "\" lacks \"" << p << "\"";
    for (const auto& p : absent)
      if (what.find(p) != std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << what << "\" has \"" << p << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw something other than std::invalid_argument: " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw a non-std exception";
  }
  Kokkos::fence();
  return ::testing::AssertionFailure() << "did not throw";
}

inline std::string str(const cld& x) {
  std::ostringstream os;
  if (x.imag() == 0) os << x.real(); else os << x;
  return os.str();
}
template <class Scalar>
cld to_cld(const Scalar& x) {
  return ScalarInfo<Scalar>::to_cld(x);
}

// How the coefficients of a case are chosen.
enum class Coef { Zero, One, General };
inline const char* coef_name(Coef c) { return c == Coef::Zero ? "0" : c == Coef::One ? "1" : "general"; }

template <class Scalar>
Scalar coefficient(Maker& mk, Coef c) {
  return c == Coef::Zero ? ScalarInfo<Scalar>::make(0, 0) : c == Coef::One ? ScalarInfo<Scalar>::make(1, 0)
                                                                           : mk.coefficient<Scalar>();
}

}  // namespace kbla_test
