// One-thread-per-row TSMM for kbla::update (B = alpha * A * C + beta * B) on narrow row-major operands: alpha C in
// registers, each thread loads its whole row of A, multiplies and writes its output row (rows of width >= 3 staged
// per warp into 16-byte runs, see StagedStores below). The dispatch (tsmm_rows_try) takes it first for row-major double
// up to width 6 and complex double width 2, where the staged SIMT kernel (update_kernel.cuh) is held back by its
// shared-memory round trip.

// A row of A is at most 48 bytes, so a thread loads it with 16-byte loads: consecutive threads touch consecutive
// rows, so each warp's loads and stores cover whole 32-byte sectors, and nothing is staged in shared memory (the
// staged kernel's bank conflicts and cp.async round trip were its limit at these widths).
// In place (B == A, M == N) is safe: a thread reads all of its row before it writes it, and no other thread
// touches that row. Rows are walked grid-stride, RowsPerThread (U) rows per thread in flight. Up to Width (W) = 6
// alpha*C fits in registers at 2 blocks of 256 threads per SM (ptxas: 113 registers); W = 8 needs ~200 (C alone is 128
// registers), and widths 7 and 8 run on the tensor-core kernel (KBLA_TSMM_DMMA_D_RR_NARROW).
#pragma once
#include <cstdlib>
#include <type_traits>
#include "update_kernel.cuh"

namespace kbla {
namespace cuda {
namespace detail {

template <class Scalar>
struct Pair;
template <>
struct Pair<double> {
  using type = double2;
};
template <>
struct Pair<float> {
  using type = float2;
};

// elements [0, n) of a row into v[0, W) (zeros past n); PairAccess: p is 2-element aligned, read in pairs
template <class Scalar, int Width, bool PairAccess>
__device__ __forceinline__ void load_row(const Scalar* p, int n, Scalar (&v)[Width]) {
#pragma unroll
  for (int j = 0; j < Width; j += 2) {
    if (PairAccess && j + 1 < Width && j + 1 < n) {
      const typename Pair<Scalar>::type q = *reinterpret_cast<const typename Pair<Scalar>::type*>(p + j);
      v[j] = q.x;
      v[j + 1] = q.y;
    } else {
      v[j] = j < n ? p[j] : Scalar(0);
      if (j + 1 < Width) v[j + 1] = j + 1 < n ? p[j + 1] : Scalar(0);
    }
  }
}

template <class Scalar, int Width, bool PairAccess>
__device__ __forceinline__ void store_row(Scalar* p, int n, const Scalar (&v)[Width]) {
#pragma unroll
  for (int j = 0; j < Width; j += 2) {
    if (PairAccess && j + 1 < Width && j + 1 < n) {
      *reinterpret_cast<typename Pair<Scalar>::type*>(p + j) = {v[j], v[j + 1]};
    } else {
      if (j < n) p[j] = v[j];
      if (j + 1 < Width && j + 1 < n) p[j + 1] = v[j + 1];
    }
  }
}

// StagedStores (W >= 3, M <= N, B dense: ldb == N, 16-byte aligned): a thread's row of B is 8 N bytes, so each store
// instruction of the warp writes 32 partial sectors (about half the bytes per L2 write request of 16-byte runs, and
// the DRAM well short of its peak). Here the warp's 32 consecutive output rows
// (one contiguous run of 32 N doubles, 16-byte aligned: the run starts at a multiple of 32 rows) go through a
// per-warp shared buffer and out as 16-byte stores by consecutive lanes. A partial last group of 32 rows keeps the
// per-row stores. In place stays safe: every lane of the warp has read its row before the buffer is written.
// Prefetch: the next group of U rows is loaded before the current one is computed and stored (twice the rows
// in flight per thread; the ramp-up at short K). Either way the first group's loads go out before alpha * C's.
// IsComplex: the interleaved real view (rows of 2 M and 2 N reals, W counts reals) times the real 2M x 2N matrix Ĉ
// of alpha * C (update_dmma.cuh's form); beta applied per complex pair.
template <class Scalar, int Width, int RowsPerThread, bool PairAccess, bool StagedStores, bool Prefetch = false,
          int MinBlocksPerSM = 2, bool IsComplex = false>
__global__ void __launch_bounds__(256, MinBlocksPerSM) tsmm_rows_kernel(const TsmmArgs<Scalar, IsComplex> p) {
  constexpr int WARPS = 256 / 32, F = IsComplex ? 2 : 1;
  __shared__ __align__(16) Scalar stage[StagedStores ? WARPS * 32 * Width : 1];
  const int M = F * p.M, N = F * p.N;
  const Scalar* const A = reinterpret_cast<const Scalar*>(p.A);
  Scalar* const B = reinterpret_cast<Scalar*>(p.B);
  const std::int64_t ask = F * p.ask, bsk = F * p.bsk;
  const int lane = threadIdx.x % 32;
  Scalar* ws = stage + (StagedStores ? (threadIdx.x / 32) * 32 * Width : 0);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;  // a multiple of 32
  // StagedStores keeps the whole warp in the loop while its group of 32 rows has any row (for the __syncwarp below)
  auto in_loop = [&](std::int64_t r0) { return (StagedStores ? r0 - lane : r0) < p.K; };
  auto load_group = [&](std::int64_t r0, Scalar(&a)[RowsPerThread][Width]) {
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u) {
      const std::int64_t r = r0 + u * stride;
      if (r < p.K) {
        load_row<Scalar, Width, PairAccess>(A + r * ask, M, a[u]);
      } else if (StagedStores) {  // a lane past K in a group that has rows: computes on zeros, stores nothing
#pragma unroll
        for (int i = 0; i < Width; ++i) a[u][i] = Scalar(0);
      }
    }
  };
  std::int64_t r0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  Scalar a[RowsPerThread][Width];
  if (in_loop(r0)) load_group(r0, a);
  Scalar c[Width][Width];  // alpha * C (complex: Ĉ), zero outside M x N
#pragma unroll
  for (int i = 0; i < Width; ++i)
#pragma unroll
    for (int j = 0; j < Width; ++j) {
      if constexpr (IsComplex) {
        const int pi = i / 2, qj = j / 2;
        Scalar v = 0;
        if (i < M && j < N) {
          const auto e = p.crow ? p.C[pi * p.ldc + qj] : p.C[pi + qj * p.ldc];
          v = real_view_entry(p.alpha.re * e.x - p.alpha.im * e.y, p.alpha.re * e.y + p.alpha.im * e.x, i, j);
        }
        c[i][j] = v;
      } else {
        c[i][j] = (i < M && j < N) ? p.alpha.re * (p.crow ? p.C[i * p.ldc + j] : p.C[i + j * p.ldc]) : Scalar(0);
      }
    }
  for (; in_loop(r0); r0 += RowsPerThread * stride) {
    Scalar an[RowsPerThread][Width];
    if constexpr (Prefetch) {
      if (in_loop(r0 + RowsPerThread * stride)) load_group(r0 + RowsPerThread * stride, an);
    }
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u) {
      const std::int64_t r = r0 + u * stride;
      const std::int64_t rb = r - lane;  // the warp's first row: warp-uniform
      if ((StagedStores ? rb : r) >= p.K) continue;
      Scalar out[Width];
#pragma unroll
      for (int j = 0; j < Width; ++j) {
        Scalar s = 0;
#pragma unroll
        for (int i = 0; i < Width; ++i) s = fma(a[u][i], c[i][j], s);
        out[j] = s;
      }
      Scalar* row = B + r * bsk;
      if (!p.beta_zero && (!StagedStores || r < p.K)) {  // beta == 0 never reads B (NaN there must not spread)
        Scalar old[Width];
        load_row<Scalar, Width, PairAccess>(row, N, old);
        if constexpr (IsComplex) {
#pragma unroll
          for (int j = 0; j < Width; j += 2) {
            out[j] = fma(p.beta.re, old[j], fma(-p.beta.im, old[j + 1], out[j]));
            out[j + 1] = fma(p.beta.re, old[j + 1], fma(p.beta.im, old[j], out[j + 1]));
          }
        } else {
#pragma unroll
          for (int j = 0; j < Width; ++j) out[j] = fma(p.beta.re, old[j], out[j]);
        }
      }
      if (StagedStores && rb + 32 <= p.K) {
#pragma unroll
        for (int j = 0; j < Width; ++j)
          if (j < N) ws[lane * N + j] = out[j];
        __syncwarp();
        using V = typename Pair<Scalar>::type;
        const V* src = reinterpret_cast<const V*>(ws);
        V* dst = reinterpret_cast<V*>(B + rb * N);
        for (int e = lane; e < 16 * N; e += 32) dst[e] = src[e];
        __syncwarp();  // the next group reuses the buffer
      } else if (!StagedStores || r < p.K) {
        store_row<Scalar, Width, PairAccess>(row, N, out);
      }
    }
    if constexpr (Prefetch) {
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u)
#pragma unroll
        for (int i = 0; i < Width; ++i) a[u][i] = an[u][i];
    } else {
      if (in_loop(r0 + RowsPerThread * stride)) load_group(r0 + RowsPerThread * stride, a);
    }
  }
}

// Row-major A and B (unit column stride) only; W >= max(M, N) (complex: 2 max(M, N), the real view). Pairs when both
// are 2-element aligned (complex: always).
template <class Scalar, int Width, bool IsComplex = false>
cudaError_t launch_tsmm_rows(const TsmmArgs<Scalar, IsComplex>& a, cudaStream_t stream) {
  constexpr int ROWS_PER_THREAD = 2, BT = 256, RV = IsComplex ? 2 : 1;  // reals per element
  if (a.asm_ != 1 || a.bsn != 1 || RV * a.M > Width || RV * a.N > Width) return cudaErrorNotSupported;
  auto al = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % (2 * sizeof(Scalar)) == 0; };
  const bool pairs = IsComplex || (al(a.A) && al(a.B) && a.ask % 2 == 0 && a.bsk % 2 == 0);
  // Widths 1 and 2 write whole sectors per warp store already: not staged. The staged stores measured faster at
  // 3-6 when M <= N, most at few rows; M > N keeps the per-row stores (staged was slower at many rows).
  constexpr bool SW = Width >= 3;
  const bool staged = SW && a.M <= a.N && a.bsk == a.N && reinterpret_cast<std::uintptr_t>(a.B) % 16 == 0;
  // Widths <= 4: the prefetching loop at 3 blocks/SM (register cap 85; ptxas 74-80 registers, no spills): faster
  // than either alone (the prefetch at 2 blocks/SM, the plain loop at 3), most at few rows. Complex W 4 spilled at 3
  // blocks (216-288 bytes): 2 there. Wider: the plain loop at 2 blocks/SM.
  constexpr bool PF = Width <= 4;
  constexpr int MB = Width <= 4 && !IsComplex ? 3 : 2;
  auto kern = [&] {
    if constexpr (IsComplex) {
      return staged ? tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, true, SW, PF, MB, IsComplex>
                    : tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, true, false, PF, MB, IsComplex>;
    } else {
      return pairs ? (staged ? tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, true, SW, PF, MB>
                             : tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, true, false, PF, MB>)
                   : (staged ? tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, false, SW, PF, MB>
                             : tsmm_rows_kernel<Scalar, Width, ROWS_PER_THREAD, false, false, PF, MB>);
    }
  }();
  static int occ[kMaxDevices][4] = {};
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  const int v = 2 * staged + pairs;
  if (occ[dev][v] == 0) occ[dev][v] = blocks_per_sm_pinned(kern, BT, 0, true);  // L1 for the loads (see there)
  std::int64_t gx = std::int64_t(sm_count()) * occ[dev][v];
  const std::int64_t need = (a.K + BT - 1) / BT;
  if (gx > need) gx = need;
  if (gx < 1) gx = 1;
  kern<<<unsigned(gx), BT, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
