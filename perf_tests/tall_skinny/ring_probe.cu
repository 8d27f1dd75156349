// Ring probe: D 4 x 4 Aᴴ·B at K = 2^20, 2^21, 2^22 and 2^24 rows, the library's kernel (leap-frog Stages 0 and the
// warp-private cp.async ring, inner_ring.cuh, at Stages pipeline stages) against minimal stand-alone forms of both
// (k_regs: one thread per row, U rows in flight; k_ring: the ring with no combine logic) that set what the access
// pattern allows. Times: `cold` the median of 31 single event-timed calls on inputs rotated through 4 GiB (as the
// benchmark: L2 and TLB cold), `event` the same on one input (partly L2-resident at 2^20), `b2b` 50 calls back to back
// / 50 (latency hidden; at 2^20 the 67 MB partly stay in the 50 MB L2 between calls).
//   make -C perf_tests/tall_skinny ringprobe BUILD=/tmp/bts; $BUILD/ring_probe [--one LAY IDX L]  (--one: 5 calls of
//   one variant, for ncu). `relerr` against the first variant of the layout.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cstdint>
#include "kbla_cuda_tall_skinny.hpp"
#include "tall_skinny/tall_skinny_dispatch.cuh"
#include "../common/kbla_cuda_check.hpp"
#include "../common/kbla_hash_fill.cuh"
using namespace kbla::cuda::detail;

// The own kernels at every shape: the routes to cuBLAS off (they would send measured shapes to cuBLAS).
inline kbla::cuda::TallSkinnyOptions own_kernels() {
  kbla::cuda::TallSkinnyOptions o;
  o.allow_cublas = false;
  return o;
}



__device__ __forceinline__ void block_sum_atomic(double (&acc)[16], double* C, double* red) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
#pragma unroll
    for (int v = 0; v < 16; ++v) acc[v] += __shfl_xor_sync(0xffffffffu, acc[v], o);
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0)
#pragma unroll
    for (int v = 0; v < 16; ++v) red[wid * 16 + v] = acc[v];
  __syncthreads();
  if (threadIdx.x < 16) {
    double s = 0;
    for (int w = 0; w < nw; ++w) s += red[w * 16 + threadIdx.x];
    atomicAdd(C + threadIdx.x, s);
  }
}

// register leap-frog, U rows per thread step, 16-byte loads
template <int U, int BT, int MINB>
__global__ void __launch_bounds__(BT, MINB)
    k_regs(const double* __restrict__ A, const double* __restrict__ B, double* C, std::int64_t K) {
  __shared__ double red[(BT / 32) * 16];
  const double2* a2 = reinterpret_cast<const double2*>(A);
  const double2* b2 = reinterpret_cast<const double2*>(B);
  double acc[16];
#pragma unroll
  for (int v = 0; v < 16; ++v) acc[v] = 0;
  const std::int64_t stride = std::int64_t(gridDim.x) * BT * U;
  std::int64_t k = std::int64_t(blockIdx.x) * BT * U + threadIdx.x;
  double2 ca[U][2], cb[U][2];
  auto load = [&](std::int64_t kk, double2 (&xa)[U][2], double2 (&xb)[U][2]) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t r = kk + u * BT;
      if (r < K) {
        xa[u][0] = __ldg(a2 + 2 * r); xa[u][1] = __ldg(a2 + 2 * r + 1);
        xb[u][0] = __ldg(b2 + 2 * r); xb[u][1] = __ldg(b2 + 2 * r + 1);
      } else {
        xa[u][0] = xa[u][1] = xb[u][0] = xb[u][1] = make_double2(0, 0);
      }
    }
  };
  load(k, ca, cb);
  for (; k < K; k += stride) {
    double2 na[U][2], nb[U][2];
    load(k + stride, na, nb);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const double a[4] = {ca[u][0].x, ca[u][0].y, ca[u][1].x, ca[u][1].y};
      const double b[4] = {cb[u][0].x, cb[u][0].y, cb[u][1].x, cb[u][1].y};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i * 4 + j] = fma(a[i], b[j], acc[i * 4 + j]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) { ca[u][0] = na[u][0]; ca[u][1] = na[u][1]; cb[u][0] = nb[u][0]; cb[u][1] = nb[u][1]; }
  }
  block_sum_atomic(acc, C, red);
}

// warp-private ring: each warp streams 32-row chunks (A 1 KB + B 1 KB) through Stages pipeline stages of its own; no
// block barrier in the loop. Lane l copies 16-byte pieces l and l + 32 of each operand's chunk, then reads row l.
template <int Stages, int BT, int MINB, bool COL>
__global__ void __launch_bounds__(BT, MINB)
    k_ring(const double* __restrict__ A, const double* __restrict__ B, double* C, std::int64_t K) {
  extern __shared__ double2 ring[];  // [warp][stage][A 64 | B 64] double2
  __shared__ double red[(BT / 32) * 16];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  double2* my = ring + std::size_t(wid) * Stages * 128;
  const double2* a2 = reinterpret_cast<const double2*>(A);
  const double2* b2 = reinterpret_cast<const double2*>(B);
  const std::int64_t nchunks = (K + 31) / 32;
  const std::int64_t gw = std::int64_t(blockIdx.x) * (BT / 32) + wid, nwarps = std::int64_t(gridDim.x) * (BT / 32);
  const std::int64_t n2 = 2 * K;  // double2 per operand
  auto issue = [&](std::int64_t c, int s) {
    double2* d = my + s * 128;
    if constexpr (!COL) {
      const std::int64_t base = c * 64;  // double2 index of the chunk
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t i = base + lane + 32 * h;
        const bool v = c < nchunks && i < n2;
        cp_async16(d + lane + 32 * h, v ? a2 + i : a2, v ? 16 : 0);
        cp_async16(d + 64 + lane + 32 * h, v ? b2 + i : b2, v ? 16 : 0);
      }
    } else {  // column col = (lane + 32 h) / 16, piece j = lane % 16: rows 32 c + 2 j, + 1 of that column (lda = K)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int q = lane + 32 * h, col = q >> 4, j = q & 15;
        const std::int64_t r = c * 32 + 2 * j;
        const int n = r < K ? (r + 1 < K ? 16 : 8) : 0;
        const std::int64_t off = col * K + r;
        cp_async_pair(d + q, n ? A + off : A, n);
        cp_async_pair(d + 64 + q, n ? B + off : B, n);
      }
    }
  };
  double acc[16];
#pragma unroll
  for (int v = 0; v < 16; ++v) acc[v] = 0;
  std::int64_t c = gw;
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    issue(c + s * nwarps, s);
    cp_async_commit();
  }
  int s = 0;
  for (; c < nchunks; c += nwarps) {
    issue(c + (Stages - 1) * nwarps, (s + Stages - 1) % Stages);
    cp_async_commit();
    cp_async_wait<Stages - 1>();
    __syncwarp();
    const double2* d = my + s * 128;
    double a[4], b[4];
    if constexpr (!COL) {
      const double2 a0 = d[2 * lane], a1 = d[2 * lane + 1], b0 = d[64 + 2 * lane], b1 = d[64 + 2 * lane + 1];
      a[0] = a0.x; a[1] = a0.y; a[2] = a1.x; a[3] = a1.y;
      b[0] = b0.x; b[1] = b0.y; b[2] = b1.x; b[3] = b1.y;
    } else {
      const double* dd = reinterpret_cast<const double*>(d);
#pragma unroll
      for (int i = 0; i < 4; ++i) { a[i] = dd[32 * i + lane]; b[i] = dd[128 + 32 * i + lane]; }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i * 4 + j] = fma(a[i], b[j], acc[i * 4 + j]);
    __syncwarp();  // this stage is rewritten Stages - 1 iterations on
    s = (s + 1 == Stages) ? 0 : s + 1;
  }
  cp_async_wait<0>();
  block_sum_atomic(acc, C, red);
}

struct Variant {
  const char* name;
  void (*launch)(const double*, const double*, double*, std::int64_t, int, cudaStream_t, bool);
};

template <class KF>
int occupancy(KF kern, int bt, std::size_t smem) {
  int occ = 0;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, bt, smem));
  return occ;
}

template <int U, int BT, int MINB>
void launch_regs(const double* A, const double* B, double* C, std::int64_t K, int sms, cudaStream_t st, bool zero) {
  static int occ = occupancy(k_regs<U, BT, MINB>, BT, 0);
  if (zero) CK(cudaMemsetAsync(C, 0, 128, st));
  std::int64_t g = std::int64_t(sms) * occ, need = (K + BT * U * 4 - 1) / (BT * U * 4);
  g = std::max<std::int64_t>(1, std::min(g, need));
  k_regs<U, BT, MINB><<<unsigned(g), BT, 0, st>>>(A, B, C, K);
}
template <int Stages, int BT, int MINB, bool COL = false>
void launch_ring(const double* A, const double* B, double* C, std::int64_t K, int sms, cudaStream_t st, bool zero) {
  const std::size_t smem = std::size_t(BT / 32) * Stages * 128 * 16;
  static int occ = occupancy(k_ring<Stages, BT, MINB, COL>, BT, smem);
  if (zero) CK(cudaMemsetAsync(C, 0, 128, st));
  std::int64_t g = std::int64_t(sms) * occ, need = (K + BT * 4 - 1) / (BT * 4);
  g = std::max<std::int64_t>(1, std::min(g, need));
  k_ring<Stages, BT, MINB, COL><<<unsigned(g), BT, smem, st>>>(A, B, C, K);
}
template <int Stages, int LAY>
void launch_direct(const double* A, const double* B, double* C, std::int64_t K, int, cudaStream_t st, bool) {
  auto run = [](const TsmttsmArgs<double, false>& a, int, cudaStream_t s) -> cudaError_t {
    return launch_tsmttsm<double, false, 4, 4, 1, 1, LAY, Stages>(a, s);
  };
  const auto no_narrow = [](const auto&, int, cudaStream_t) -> cudaError_t { return cudaErrorNotSupported; };
  const auto L = LAY == kLayRR ? kbla::cuda::Layout::RowMajor : kbla::cuda::Layout::ColMajor;
  const std::int64_t ld = LAY == kLayRR ? 4 : K;
  CK(tsmttsm_entry<double>(st, K, 4, 4, 1.0, A, ld, L, B, ld, L, 0.0, C, 4, L, own_kernels(), run,
                           no_narrow));
}

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const std::size_t kBig = std::size_t(1) << 32;  // cold calls: inputs rotate through 4 GiB, as in the benchmark
  double *A, *B, *C, *Cref;
  CK(cudaMalloc(&A, kBig));
  CK(cudaMalloc(&B, kBig));
  CK(cudaMalloc(&C, 4096));
  CK(cudaMalloc(&Cref, 4096));
  kbla_fill_hash_uniform<<<8192, 256>>>(A, kBig / 8, 1u);
  kbla_fill_hash_uniform<<<8192, 256>>>(B, kBig / 8, 7u);
  CK(cudaDeviceSynchronize());
  std::vector<Variant> vsr = {
      {"direct ST0", launch_direct<0, kLayRR>},
      {"direct ST8", launch_direct<8, kLayRR>},
      {"direct ST4", launch_direct<4, kLayRR>},
      {"ring ST8 256x1", launch_ring<8, 256, 1>},
      {"regs U2 256x2", launch_regs<2, 256, 2>},
  };
  std::vector<Variant> vsc = {
      {"directC ST0", launch_direct<0, kLayCC>},
      {"directC ST8", launch_direct<8, kLayCC>},
  };


  {
    auto k8 = tsmttsm_kernel<double, false, 4, 4, 1, 1, kLayRR, 8>;
    const std::size_t sm8 = 8 * 8 * 2048 + 128;
    CK(cudaFuncSetAttribute(k8, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm8)));
    int o1 = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o1, k8, 256, sm8));
    const int o2 = blocks_per_sm_pinned(k8, 256, sm8, true);
    int o3 = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o3, k8, 256, sm8));
    std::printf("# ring ST8 occupancy: plain %d, pinned %d, after pinning %d\n", o1, o2, o3);
  }
  if (argc > 3 && !std::strcmp(argv[1], "--one")) {  // --one LAY IDX L: one variant, 5 calls (for ncu)
    const auto& vs = std::atoi(argv[2]) ? vsc : vsr;
    const auto& v = vs[std::atoi(argv[3])];
    const std::int64_t K = std::int64_t(1) << std::atoi(argv[4]);
    for (int i = 0; i < 5; ++i) v.launch(A, B, C, K, sms, 0, false);
    CK(cudaDeviceSynchronize());
    std::printf("# ran %s\n", v.name);
    return 0;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const cudaStream_t st = 0;
  std::printf("# %s, %d SMs; event: median of 31 single calls; b2b: 50 calls back to back / 50\n", prop.name, sms);
  for (int L : {20, 21, 22, 24}) {
    const std::int64_t K = std::int64_t(1) << L;
    const double bytes = 2.0 * K * 4 * 8;
   for (int lay = 0; lay < 2; ++lay) {
    const auto& vs = lay ? vsc : vsr;
    vs[0].launch(A, B, Cref, K, sms, st, true);
    double ref[16];
    CK(cudaMemcpy(ref, Cref, 128, cudaMemcpyDeviceToHost));
    for (int round = 0; round < 2; ++round)
      for (const auto& v : vs) {
        for (int i = 0; i < 3; ++i) v.launch(A, B, C, K, sms, st, true);
        double got[16];
        CK(cudaMemcpy(got, C, 128, cudaMemcpyDeviceToHost));
        double err = 0, mx = 0;
        for (int i = 0; i < 16; ++i) {
          err = std::max(err, std::abs(got[i] - ref[i]));
          mx = std::max(mx, std::abs(ref[i]));
        }
        std::vector<float> t(31);
        for (auto& x : t) {
          CK(cudaEventRecord(e0, st));
          v.launch(A, B, C, K, sms, st, false);
          CK(cudaEventRecord(e1, st));
          CK(cudaEventSynchronize(e1));
          CK(cudaEventElapsedTime(&x, e0, e1));
        }
        std::sort(t.begin(), t.end());
        // cold: each call's inputs >= 128 MiB past the previous call's (L2 and TLB cold, as in the benchmark)
        const std::size_t need = std::size_t(K) * 4 * 8, span = kBig - need;
        const std::size_t step = (std::max<std::size_t>(need, std::size_t(128) << 20) + 4095) / 4096 * 4096;
        std::vector<float> tc(31);
        for (int i = 0; i < 31; ++i) {
          const std::size_t off = (std::size_t(i + 1) * step) % (span + 1) / 4096 * 4096 / 8;
          CK(cudaEventRecord(e0, st));
          v.launch(A + off, B + off, C, K, sms, st, false);
          CK(cudaEventRecord(e1, st));
          CK(cudaEventSynchronize(e1));
          CK(cudaEventElapsedTime(&tc[i], e0, e1));
        }
        std::sort(tc.begin(), tc.end());
        CK(cudaEventRecord(e0, st));
        for (int i = 0; i < 50; ++i) v.launch(A, B, C, K, sms, st, false);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float b2b = 0;
        CK(cudaEventElapsedTime(&b2b, e0, e1));
        b2b /= 50;
        std::printf("K 2^%d r%d %-16s cold %.2f us %7.1f GB/s  event %.2f us %7.1f GB/s  b2b %.2f us %7.1f GB/s  "
                    "relerr %.1e\n", L, round, v.name, 1000 * tc[15], bytes / tc[15] / 1e6, 1000 * t[15],
                    bytes / t[15] / 1e6, 1000 * b2b, bytes / b2b / 1e6, err / mx);
        std::fflush(stdout);
      }
   }
  }
  return 0;
}
