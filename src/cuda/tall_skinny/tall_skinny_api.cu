// The templates of the contract (kbla_cuda_tall_skinny.hpp), instantiated for the four types, plus the
// per-device caches (SM count, workspaces) the kernels share.
#include <map>
#include <mutex>
#include <utility>

#include "tall_skinny_dispatch.cuh"

namespace kbla {
namespace cuda {

template <class Scalar>
cudaError_t tsmttsm(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                    Layout layoutA, const Scalar* B, std::int64_t ldb, Layout layoutB, Scalar beta, Scalar* C,
                    std::int64_t ldc, Layout layoutC, const TallSkinnyOptions& options) {
  return detail::tsmttsm_impl(stream, K, M, N, alpha, A, lda, layoutA, B, ldb, layoutB, beta, C, ldc, layoutC,
                              options);
}

template <class Scalar>
cudaError_t tsmm(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                 Layout layoutA, const Scalar* C, std::int64_t ldc, Layout layoutC, Scalar beta, Scalar* B,
                 std::int64_t ldb, Layout layoutB, const TallSkinnyOptions& options) {
  return detail::tsmm_impl(stream, K, M, N, alpha, A, lda, layoutA, C, ldc, layoutC, beta, B, ldb, layoutB, options);
}

#define KBLA_TS_INST(Scalar)                                                                                           \
  template cudaError_t tsmttsm<Scalar>(cudaStream_t, std::int64_t, int, int, Scalar, const Scalar*, std::int64_t,      \
                                       Layout, const Scalar*, std::int64_t, Layout, Scalar, Scalar*, std::int64_t,     \
                                       Layout, const TallSkinnyOptions&);                                              \
  template cudaError_t tsmm<Scalar>(cudaStream_t, std::int64_t, int, int, Scalar, const Scalar*, std::int64_t, Layout, \
                                    const Scalar*, std::int64_t, Layout, Scalar, Scalar*, std::int64_t, Layout,        \
                                    const TallSkinnyOptions&);
KBLA_TS_INST(float)
KBLA_TS_INST(double)
KBLA_TS_INST(std::complex<float>)
KBLA_TS_INST(std::complex<double>)

namespace detail {

int current_device() {
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess) return -1;
  return d;
}

// One device attribute of the current device, queried once per device (fallback when the query fails).
static int cached_attribute(cudaDeviceAttr attr, int (&cache)[kMaxDevices], int fallback) {
  const int d = current_device();
  if (d < 0 || d >= kMaxDevices) return fallback;
  if (cache[d] == 0) {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, attr, d) != cudaSuccess || n < 1) n = fallback;
    cache[d] = n;
  }
  return cache[d];
}

int sm_count() {
  static int cache[kMaxDevices] = {0};
  return cached_attribute(cudaDevAttrMultiProcessorCount, cache, 1);
}

std::int64_t l2_bytes() {
  static int cache[kMaxDevices] = {0};
  return cached_attribute(cudaDevAttrL2CacheSize, cache, 1);
}

namespace {
struct Buf {
  void* p = nullptr;
  std::size_t bytes = 0;
};
std::mutex& ws_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::pair<std::pair<int, int>, cudaStream_t>, Buf>& ws_map() {
  static auto* m = new std::map<std::pair<std::pair<int, int>, cudaStream_t>, Buf>();  // never destroyed
  return *m;
}
}  // namespace

cudaError_t workspace(cudaStream_t stream, int slot, std::size_t bytes, void** ptr) {
  const int d = current_device();
  if (d < 0) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(ws_mutex());
  Buf& b = ws_map()[{{d, slot}, stream}];
  if (b.bytes < bytes) {
    std::size_t nb = std::max<std::size_t>(bytes, 2 * b.bytes);
    nb = std::max<std::size_t>(nb, 1 << 16);
    if (b.p) {
      cudaError_t e = cudaStreamSynchronize(stream);  // in-flight kernels may still use the old buffer
      if (e != cudaSuccess) return e;
      cudaFree(b.p);
      b.p = nullptr;
      b.bytes = 0;
    }
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, nb);
    if (e != cudaSuccess) return e;
    e = cudaMemsetAsync(p, 0, nb, stream);
    if (e != cudaSuccess) {
      cudaFree(p);
      return e;
    }
    b.p = p;
    b.bytes = nb;
  }
  *ptr = b.p;
  return cudaSuccess;
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
