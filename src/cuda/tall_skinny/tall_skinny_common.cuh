// Shared pieces of the tall & skinny CUDA kernels: element types (real or complex as a 2-vector), the
// per-device caches (SM count, workspace), and small device helpers. No Kokkos in here.
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <type_traits>

#include "kbla_cuda_tall_skinny.hpp"

namespace kbla {
namespace cuda {
namespace detail {

// cp.async (sm_80+): Bytes (4, 8 or 16) from global to shared memory, zero-filled when !pred (nothing read).
template <int Bytes>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, bool pred) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int src_size = pred ? Bytes : 0;  // 0: zero-fill, nothing read
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem), "n"(Bytes), "r"(src_size)
               : "memory");
}
// 16 bytes through L2 only; `bytes` < 16 zero-fills the rest, but may still read all 16 (see cp_async_pair)
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes) : "memory");
}
// 16 bytes when both 8-byte halves exist; otherwise 8-byte copies (bytes 8: the first half; 0: nothing read, both
// zero), so that nothing past the last element is touched (a 16-byte cp.async with src-size 8 can still fault past
// the end of an allocation). `src` must be a valid address even when bytes is 0.
__device__ __forceinline__ void cp_async_pair(void* dst, const void* src, int bytes) {
  if (bytes == 16) {
    cp_async16(dst, src, 16);
  } else {
    cp_async<8>(dst, src, bytes == 8);
    cp_async<8>(static_cast<char*>(dst) + 8, src, false);
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PendingGroups>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PendingGroups) : "memory");
}

// Device complex: same layout as std::complex<Real> / Kokkos::complex<Real>, aligned like the 2-vector loads need.
template <class Real>
struct alignas(2 * sizeof(Real)) cpx {
  Real x, y;
};

// Scalar traits: Real is the real type, cplx whether elements are complex (2 consecutive Reals).
template <class Scalar>
struct ScalarOf {
  using Real = Scalar;
  static constexpr bool cplx = false;
};
template <class Component>
struct ScalarOf<std::complex<Component>> {
  using Real = Component;
  static constexpr bool cplx = true;
};

// Element type for loads/stores.
template <class Real, bool Complex>
using Elem = std::conditional_t<Complex, cpx<Real>, Real>;

template <class Real, bool Complex>
struct Coef {  // alpha or beta as passed to a kernel
  Real re, im;
};

// Number of SMs / L2 bytes of the current device, queried once per device and cached.
int sm_count();
std::int64_t l2_bytes();
int current_device();

// Per (device, stream, slot) workspace, cached and grown on demand (the old buffer is freed after
// synchronising the stream). Slot 0 is zero-kept: it is zero when created or grown, and every kernel that
// uses it leaves it zero again. Slot 1 is scratch (deterministic partials, in-place temporaries). Slot 2 holds the
// SIMT TSMTTSM direct combine's per-tile flags (zero when created, then only ever raised to a newer call's epoch).
cudaError_t workspace(cudaStream_t stream, int slot, std::size_t bytes, void** ptr);

// Occupancy of a kernel, cached by the caller in a function-local static keyed by device.
template <class KernelFunction>
int blocks_per_sm(KernelFunction kernel, int threads, std::size_t dyn_smem) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, dyn_smem) != cudaSuccess || n < 1) n = 1;
  return n;
}

constexpr int kMaxDevices = 64;

// Whether a bulk-copy kernel (update_bulk.cuh, update_bulk_cplx.cuh: sm_90, ~200 KB of dynamic shared memory per
// block) can run on the current device: its shared-memory attribute is set once per device and the answer kept in the
// caller's per-kernel `ready` (1: yes, -1: no). cudaErrorNotSupported (the error cleared) sends the caller to the other
// kernels.
template <class KernelFunction>
cudaError_t bulk_kernel_ready(KernelFunction kernel, std::size_t dyn_smem, int (&ready)[kMaxDevices]) {
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  if (ready[dev] == 0) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return cudaErrorUnknown;
    const bool ok = major >= 9 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                       int(dyn_smem)) == cudaSuccess;
    if (!ok) (void)cudaGetLastError();
    ready[dev] = ok ? 1 : -1;
  }
  return ready[dev] > 0 ? cudaSuccess : cudaErrorNotSupported;
}

// Blocks per SM of a SIMT kernel with its shared-memory carveout pinned, so that it runs the same inside and outside
// Kokkos: Kokkos::initialize sets the device-wide cache preference to PreferShared (cudaDeviceSetCacheConfig), and a
// per-function carveout overrides that. Two policies, each chosen by measurement inside and outside Kokkos
// (ts_cases --prefer-shared sets Kokkos' preference):
// - min_l1 = false: all of the shared memory (carveout 100, as under Kokkos); for the staged SIMT TSMM kernels this
//   was as fast as or faster than the driver's choice.
// - min_l1 = true: the least carveout that keeps the occupancy (static + dynamic shared memory + the per-block
//   reserve), leaving the rest to L1, as the driver picks with no preference. The column-major double rows of
//   KBLA_TSMM_D_COL read A by cp.async.ca and re-read from L1 the sectors that an odd ld splits between chunks, and
//   the SIMT TSMTTSM kernel and the TSMM row kernel load through L1: under PreferShared they lost up to ~14 %
//   (docs/tall_skinny.md).
template <class KernelFunction>
int blocks_per_sm_pinned(KernelFunction kernel, int threads, std::size_t dyn_smem, bool min_l1) {
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100) != cudaSuccess) {
    (void)cudaGetLastError();  // a hint only: run with the context's preference
    return blocks_per_sm(kernel, threads, dyn_smem);
  }
  const int occ = blocks_per_sm(kernel, threads, dyn_smem);
  if (!min_l1) return occ;
  cudaFuncAttributes fa{};
  int dev = 0, smem_sm = 0, reserve = 0;
  if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserve, cudaDevAttrReservedSharedMemoryPerBlock, dev) != cudaSuccess || smem_sm <= 0) {
    (void)cudaGetLastError();
    return occ;
  }
  const std::size_t need = std::size_t(occ) * (fa.sharedSizeBytes + dyn_smem + std::size_t(reserve));
  const int pct = int(std::min<std::size_t>(100, (need * 100 + smem_sm - 1) / std::size_t(smem_sm)));
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, pct) != cudaSuccess) {
    (void)cudaGetLastError();
    return occ;
  }
  if (blocks_per_sm(kernel, threads, dyn_smem) >= occ) return occ;
  (void)cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100);  // keep the occupancy
  (void)cudaGetLastError();
  return occ;
}

// ---------------------------------------------------------------------------------------------------------
// Device helpers

// Entry (m, n) of the real view of a complex matrix: element z = re + i im of the complex matrix sits at (m / 2, n / 2)
// as the 2 x 2 block [[re, im], [-im, re]], so that a row (a_re, a_im) of the interleaved real view times it gives
// (re of a z, im of a z). Used for alpha * C in the complex TSMM kernels (update_dmma.cuh, update_rows.cuh).
template <class Real>
__host__ __device__ __forceinline__ Real real_view_entry(Real re, Real im, int m, int n) {
  return (m & 1) == (n & 1) ? re : ((m & 1) ? -im : im);
}
template <class Real>
__device__ __forceinline__ Real zero_of() {
  return Real(0);
}

template <class Real>
__device__ __forceinline__ void set_zero(Real& v) {
  v = Real(0);
}
template <class Real>
__device__ __forceinline__ void set_zero(cpx<Real>& v) {
  v.x = Real(0);
  v.y = Real(0);
}

// read-only load through the non-coherent path
template <class Real>
__device__ __forceinline__ Real ldg(const Real* p) {
  return __ldg(p);
}
__device__ __forceinline__ cpx<double> ldg(const cpx<double>* p) {
  double2 v = __ldg(reinterpret_cast<const double2*>(p));
  return {v.x, v.y};
}
__device__ __forceinline__ cpx<float> ldg(const cpx<float>* p) {
  float2 v = __ldg(reinterpret_cast<const float2*>(p));
  return {v.x, v.y};
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
