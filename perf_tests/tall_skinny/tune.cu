// Tuning sweep behind src/cuda/tall_skinny/tall_skinny_params.hpp: times candidate configurations of the TSMTTSM
// and TSMM kernels (double, both layouts, K = 2^29/w, beta = 0, median of 7 after warm-up) and prints the best per
// width as table rows. Driven by tools/tune_tall_skinny.sh.
#include <algorithm>
#include <complex>
#include <type_traits>
#include <cstdio>
#include <vector>

#include "tall_skinny/tall_skinny_dispatch.cuh"
#include "../common/kbla_cuda_check.hpp"
#include "../common/kbla_event_median.hpp"

using namespace kbla::cuda;
using namespace kbla::cuda::detail;

// The own kernels at every shape: the routes to cuBLAS off (they would send measured shapes to cuBLAS).
inline kbla::cuda::TallSkinnyOptions own_kernels() {
  kbla::cuda::TallSkinnyOptions o;
  o.allow_cublas = false;
  return o;
}


static double *gA, *gB, *gC;
// the sweep times square shapes, which never take the narrow tables
const auto no_narrow = [](const auto&, int, cudaStream_t) -> cudaError_t { return cudaErrorNotSupported; };
// median of 7 after 2 warm-ups
template <class F>
double med(F&& f) {
  return median_event_ms(f, 2, 7);
}

template <int TM, int TN, int PM, int PN>
void ts(int w, int lay) {
  const std::int64_t K = (std::int64_t(1) << 29) / w;
  const Layout l = lay == 0 ? Layout::RowMajor : Layout::ColMajor;
  const bool row = lay == 0;
  auto run = [](const TsmttsmArgs<double, false>& a, int ly, cudaStream_t st) -> cudaError_t {
    return ly == kLayRR ? launch_tsmttsm<double, false, TM, TN, PM, PN, kLayRR>(a, st)
                        : launch_tsmttsm<double, false, TM, TN, PM, PN, kLayCC>(a, st);
  };
  const double ms = med([&] {
    CK(tsmttsm_entry<double>(0, K, w, w, 1.0, gA, row ? w : K, l, gB, row ? w : K, l, 0.0, gC, w, l,
                             own_kernels(), run, no_narrow));
  });
  const double bytes = 8.0 * (2.0 * K * w + double(w) * w);
  std::printf("TUNE tsmttsm %s w=%d X(%d, %d, %d, %d, %d) %.4f ms %.0f GB/s\n", row ? "R" : "C", w, w, TM, TN, PM,
              PN, ms, bytes / ms / 1e6);
}

template <int W, int TN, int U, int RK>
void tm(int lay) {
  const int w = W;
  const std::int64_t K = (std::int64_t(1) << 29) / w;
  const Layout l = lay == 0 ? Layout::RowMajor : Layout::ColMajor;
  const bool row = lay == 0;
  auto run = [](const TsmmArgs<double, false>& a, int ly, cudaStream_t st) -> cudaError_t {
    return ly == kLayRR ? launch_tsmm<double, false, W, W, TN, U, RK, 0>(a, st)
                        : launch_tsmm<double, false, W, W, TN, U, RK, 1>(a, st);
  };
  const double ms = med([&] {
    CK(tsmm_entry<double>(0, K, w, w, 1.0, gA, row ? w : K, l, gC, w, l, 0.0, gB, row ? w : K, l, own_kernels(), 64,
                          run, no_narrow));
  });
  const double bytes = 8.0 * (2.0 * K * w + double(w) * w);
  std::printf("TUNE tsmm %s w=%d X(%d, %d, %d, %d) %.4f ms %.0f GB/s\n", row ? "R" : "C", w, w, TN, U, RK, ms,
              bytes / ms / 1e6);
}

template <bool IsComplex, int BM, int BN, int FM, int FN, int KC, int Stages>
void dm(int w, int lay) {
  using T = std::conditional_t<IsComplex, std::complex<double>, double>;
  const std::int64_t K = (std::int64_t(1) << (IsComplex ? 28 : 29)) / w;
  const Layout l = lay == 0 ? Layout::RowMajor : Layout::ColMajor;
  const bool row = lay == 0;
  auto run = [](const TsmttsmArgs<double, IsComplex>& a, int, cudaStream_t st) -> cudaError_t {
    return launch_tsmttsm_dmma<IsComplex, BM, BN, FM, FN, KC, Stages>(a, st);  // picks smem layout / copy width
  };
  const T* A = reinterpret_cast<const T*>(gA);
  const T* B = reinterpret_cast<const T*>(gB);
  T* C = reinterpret_cast<T*>(gC);
  const double ms = med([&] {
    CK(tsmttsm_entry<T>(0, K, w, w, T(1), A, row ? w : K, l, B, row ? w : K, l, T(0), C, w, l,
                        own_kernels(), run, no_narrow));
  });
  const double bytes = double(sizeof(T)) * (2.0 * K * w + double(w) * w);
  std::printf("TUNE dmma_%s %s w=%d X(%d, %d, %d, %d, %d, %d) %.4f ms %.0f GB/s\n", IsComplex ? "Z" : "D",
              row ? "R" : "C", w, BM, BN, FM, FN, KC, Stages, ms, bytes / ms / 1e6);
}

int main() {
  CK(cudaMalloc(&gA, std::size_t(1) << 32));
  CK(cudaMalloc(&gB, std::size_t(1) << 32));
  CK(cudaMalloc(&gC, 1 << 20));
  CK(cudaMemset(gA, 0x3f, std::size_t(1) << 32));  // 0x3f3f.. = 1.7e-4-ish doubles, finite and not zero
  CK(cudaMemset(gB, 0x3f, std::size_t(1) << 32));
  CK(cudaMemset(gC, 0x3f, 1 << 20));
  for (int lay = 0; lay < 2; ++lay) {
    // the SIMT candidates were swept first (docs/tall_skinny.md); this pass sweeps the DMMA tiles
    ts<8, 8, 1, 1>(8, lay); ts<8, 8, 2, 2>(16, lay);
    for (int w : {12, 16}) { dm<false, 16, 16, 1, 1, 64, 4>(w, lay); dm<false, 16, 16, 1, 1, 32, 6>(w, lay); }
    for (int w : {24, 32}) {
      dm<false, 32, 32, 2, 2, 32, 4>(w, lay);
      dm<false, 32, 32, 1, 1, 32, 4>(w, lay);
      dm<false, 32, 32, 2, 2, 64, 3>(w, lay);
    }
    for (int w : {40, 48, 64}) {
      dm<false, 64, 64, 4, 4, 32, 3>(w, lay);
      dm<false, 64, 64, 2, 2, 32, 3>(w, lay);
      dm<false, 64, 64, 4, 4, 16, 4>(w, lay);
    }
    for (int w : {6, 8}) { dm<true, 16, 16, 1, 1, 64, 4>(w, lay); }
    for (int w : {12, 16}) { dm<true, 32, 32, 2, 2, 32, 4>(w, lay); dm<true, 32, 32, 1, 1, 32, 4>(w, lay); }
    for (int w : {24, 32}) { dm<true, 64, 64, 4, 4, 32, 3>(w, lay); dm<true, 64, 64, 2, 2, 32, 3>(w, lay); }
    for (int w : {48, 64}) {
      dm<true, 128, 128, 4, 8, 16, 4>(w, lay);
      dm<true, 128, 128, 4, 4, 16, 4>(w, lay);
      dm<true, 128, 128, 4, 8, 32, 3>(w, lay);
    }
  }
  return 0;
}
