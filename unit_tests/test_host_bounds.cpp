// The host kernels read nothing past their operands: A, B (and update's B) are placed so that they end exactly at
// a page with no access rights, and inner / update run on them for every scalar type, both layouts, widths 1-16 and
// row counts from 1 to past the kernels' blocks. A read past the end is a segmentation fault (the compilers'
// vectorised loops once loaded whole 8-byte pairs and wider pieces where a row needed less; see inner_rows_block).
// Linux (mmap, mprotect) only.
#include "kbla_test_helpers.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <type_traits>

namespace {

// `count` values of T ending exactly at a page without access rights, all set to `value`; unmapped on destruction.
template <class T>
class GuardedArray {
 public:
  GuardedArray(std::size_t count, T value) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = count * sizeof(T);
    span_ = (bytes + page - 1) / page * page + page;
    base_ = static_cast<char*>(mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + span_ - page, page, PROT_NONE) != 0) {
      base_ = nullptr;
      return;
    }
    data_ = reinterpret_cast<T*>(base_ + span_ - page - bytes);
    for (std::size_t i = 0; i < count; ++i) data_[i] = value;
  }
  ~GuardedArray() {
    if (base_) munmap(base_, span_);
  }
  GuardedArray(const GuardedArray&) = delete;
  GuardedArray& operator=(const GuardedArray&) = delete;
  T* data() const { return data_; }

 private:
  char* base_ = nullptr;
  std::size_t span_ = 0;
  T* data_ = nullptr;
};

using Host = Kokkos::DefaultHostExecutionSpace;

// inner and update on guarded operands; every entry of A and B is 1, so C = K and B = K * M + B0 check the sums.
template <class T, class Layout>
void run_guarded(int K, int M, int N) {
  using Unmanaged = Kokkos::View<T**, Layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Ats = kbla::Impl::ArithTraits<T>;
  using Mag = typename Ats::mag_type;
  SCOPED_TRACE("K " + std::to_string(K) + " M " + std::to_string(M) + " N " + std::to_string(N) + " " +
               std::to_string(sizeof(T)) + "-byte scalar, " +
               (std::is_same<Layout, Kokkos::LayoutLeft>::value ? "column-major" : "row-major"));
  GuardedArray<T> a(std::size_t(K) * M, Ats::one()), b(std::size_t(K) * N, Ats::one());
  ASSERT_NE(a.data(), nullptr);
  ASSERT_NE(b.data(), nullptr);
  const Unmanaged A(a.data(), K, M), B(b.data(), K, N);
  Kokkos::View<T**, Layout, Kokkos::HostSpace> C("C", M, N);
  kbla::inner(Host(), Ats::one(), A, B, Ats::zero(), C);
  Host().fence();
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) ASSERT_EQ(C(i, j), T(Mag(K))) << "inner C(" << i << ", " << j << ")";
  // update: B = A * S + B with S all ones (M x N), into a guarded B as well.
  GuardedArray<T> out(std::size_t(K) * N, T(Mag(2)));
  ASSERT_NE(out.data(), nullptr);
  const Unmanaged Bout(out.data(), K, N);
  Kokkos::View<T**, Layout, Kokkos::HostSpace> S("S", M, N);
  Kokkos::deep_copy(S, Ats::one());
  kbla::update(Host(), Ats::one(), A, S, Ats::one(), Bout);
  Host().fence();
  for (int j = 0; j < N; ++j)
    for (int k = 0; k < K; ++k) ASSERT_EQ(Bout(k, j), T(Mag(M + 2))) << "update B(" << k << ", " << j << ")";
}

template <class T>
void run_all_widths() {
  for (const int K : {1, 7, 64, 65, 1001})
    for (const int w : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16}) {
      run_guarded<T, Kokkos::LayoutRight>(K, w, w);
      run_guarded<T, Kokkos::LayoutLeft>(K, w, w);
    }
  run_guarded<T, Kokkos::LayoutRight>(1001, 3, 8);
  run_guarded<T, Kokkos::LayoutRight>(1001, 8, 1);
}

}  // namespace

TEST(HostBounds, NoReadPastTheOperandsFloat) { run_all_widths<float>(); }
TEST(HostBounds, NoReadPastTheOperandsDouble) { run_all_widths<double>(); }
TEST(HostBounds, NoReadPastTheOperandsComplexFloat) { run_all_widths<Kokkos::complex<float>>(); }
TEST(HostBounds, NoReadPastTheOperandsComplexDouble) { run_all_widths<Kokkos::complex<double>>(); }

#endif
