// SIMT TSMM kernel for kbla::update: B = alpha * A * C + beta * B, A: K x M, C: M x N, B: K x N (K >> M, N); B may
// be A. alpha C sits in shared memory and chunks of A arrive by double-buffered cp.async, so in-place calls are safe.
// The dispatch takes it last, for what the bulk-copy, one-thread-per-row and tensor-core kernels decline: the float
// types, mixed layouts, the narrow rows, most complex widths below 12, and column-major double at odd K where no
// tensor-core row applies (the KBLA_TSMM_D_COL rows first). No Kokkos.

// Following Ernst et al. 2020: alpha*C is staged once per block in shared memory; the rows are walked by a
// grid-stride loop over chunks of KB = RowThreads*U rows (U: RowsPerThread) (only enough blocks to fill the GPU); the
// chunk of A is staged in shared memory by cp.async (double buffered: the next chunk is in flight while this one is
// used), which also makes in-place X <- X*C safe (a row is fully read before any of it is written); PN threads share an
// output row and each computes U rows x ColumnsPerThread columns with the transposed mapping (n = pn + j*PN), so that
// neighbouring threads write neighbouring elements (full 32-byte sectors); each C value read from shared memory is used
// for U rows (the K loop unrolled U times). Widths above the tile: N by grid.y column tiles, M by a loop over M chunks
// inside the block.
#pragma once
#include "tall_skinny_common.cuh"

namespace kbla {
namespace cuda {
namespace detail {

template <class Scalar, bool Complex>
struct TsmmArgs {
  using Element = Elem<Scalar, Complex>;
  const Element* A;
  std::int64_t ask, asm_;
  const Element* C;
  std::int64_t ldc;
  bool crow;
  Element* B;
  std::int64_t bsk, bsn;
  std::int64_t K;
  int M, N;
  Coef<Scalar, Complex> alpha, beta;
  bool beta_zero;
};

template <int InnerTile, int ColumnTile, int ColumnsPerThread, int RowsPerThread, int RowThreads>
struct TsmmShape {
  static constexpr int PN = ColumnTile / ColumnsPerThread;
  static constexpr int BT = RowThreads * PN;
  static constexpr int KB = RowThreads * RowsPerThread;
  static constexpr int AS = InnerTile + ((InnerTile % 2 == 0) ? 1 : 0);  // odd row stride: conflict-free column reads
  template <class Element>
  static constexpr std::size_t smem_bytes() {
    return (std::size_t(InnerTile) * ColumnTile + 2 * std::size_t(KB) * AS) * sizeof(Element);
  }
};

template <class Scalar>
__device__ __forceinline__ void fma_plain(Scalar& acc, Scalar a, Scalar c) {
  acc = fma(a, c, acc);
}
template <class Scalar>
__device__ __forceinline__ void fma_plain(cpx<Scalar>& acc, cpx<Scalar> a, cpx<Scalar> c) {
  acc.x = fma(a.x, c.x, acc.x);
  acc.x = fma(-a.y, c.y, acc.x);
  acc.y = fma(a.x, c.y, acc.y);
  acc.y = fma(a.y, c.x, acc.y);
}
template <class Scalar, bool Complex>
__device__ __forceinline__ Elem<Scalar, Complex> scale(const Coef<Scalar, Complex>& s, const Elem<Scalar, Complex>& v) {
  if constexpr (Complex) return {s.re * v.x - s.im * v.y, s.re * v.y + s.im * v.x};
  else return s.re * v;
}

// MinBlocksPerSM: blocks per SM for __launch_bounds__, a register cap (0: none; ptxas then picks its own count, e.g.
// 191 for W 32 column-major and 172 for W 48, 8 warps per SM; MinBlocksPerSM 1 is not the same as 0: it let W 24 grow
// to 206).
template <class Scalar, bool Complex, int InnerTile, int ColumnTile, int ColumnsPerThread, int RowsPerThread,
          int RowThreads, int OperandLayout, int MinBlocksPerSM = 0>
__global__ void __launch_bounds__(TsmmShape<InnerTile, ColumnTile, ColumnsPerThread, RowsPerThread, RowThreads>::BT,
                                  MinBlocksPerSM) tsmm_kernel(const TsmmArgs<Scalar, Complex> p) {
  using Element = Elem<Scalar, Complex>;
  using Sh = TsmmShape<InnerTile, ColumnTile, ColumnsPerThread, RowsPerThread, RowThreads>;
  constexpr int PN = Sh::PN, BT = Sh::BT, KB = Sh::KB, AS = Sh::AS;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Element* Cs = reinterpret_cast<Element*>(smem_raw);  // [InnerTile][ColumnTile]
  Element* As = Cs + InnerTile * ColumnTile;           // [2][KB][AS]

  const int tid = threadIdx.x;
  const bool arow = (OperandLayout == 0) || (OperandLayout == 2 && p.asm_ == 1 && p.ask != 1);
  bool brow;
  if constexpr (OperandLayout == 0) brow = true;
  else if constexpr (OperandLayout == 1) brow = false;
  else brow = (p.bsn == 1 && p.bsk != 1);
  int rk, pn;
  if (brow) {
    rk = tid / PN;
    pn = tid % PN;
  } else {
    rk = tid % RowThreads;
    pn = tid / RowThreads;
  }
  std::int64_t ask = p.ask, asm_ = p.asm_, bsk = p.bsk, bsn = p.bsn;
  if constexpr (OperandLayout == 0) {
    asm_ = 1;
    bsn = 1;
  } else if constexpr (OperandLayout == 1) {
    ask = 1;
    bsk = 1;
  }
  const int n0 = blockIdx.y * ColumnTile;
  const std::int64_t K = p.K;
  const int M = p.M, N = p.N;
  const std::int64_t nchunks = (K + KB - 1) / KB;
  const int mch = (M + InnerTile - 1) / InnerTile;

  auto load_c = [&](int mc) {
    for (int idx = tid; idx < InnerTile * ColumnTile; idx += BT) {
      const int m = idx / ColumnTile, n = idx % ColumnTile;
      const int gm = mc * InnerTile + m, gn = n0 + n;
      Element v;
      set_zero(v);
      if (gm < M && gn < N) {
        const Element* src = p.C + (p.crow ? std::int64_t(gm) * p.ldc + gn : gm + std::int64_t(gn) * p.ldc);
        v = scale<Scalar, Complex>(p.alpha, *src);
      }
      Cs[idx] = v;
    }
  };
  auto load_a = [&](std::int64_t chunk, int mc, int buf) {
    Element* dst = As + buf * (KB * AS);
    const std::int64_t k0 = chunk * KB;
    constexpr int NL = (KB * InnerTile + BT - 1) / BT;
#pragma unroll
    for (int l = 0; l < NL; ++l) {
      const int idx = tid + l * BT;
      if ((KB * InnerTile) % BT == 0 || idx < KB * InnerTile) {
        int row, col;
        if (arow) {
          row = idx / InnerTile;
          col = idx % InnerTile;
        } else {
          row = idx % KB;
          col = idx / KB;
        }
        const std::int64_t k = k0 + row;
        const int m = mc * InnerTile + col;
        const bool v = (k < K) && (m < M);
        const Element* src = v ? p.A + k * ask + std::int64_t(m) * asm_ : p.A;
        cp_async<sizeof(Element)>(dst + row * AS + col, src, v);
      }
    }
  };

  Element acc[RowsPerThread][ColumnsPerThread];
  auto compute = [&](int buf) {
    const Element* a_s = As + buf * (KB * AS);
#pragma unroll
    for (int m = 0; m < InnerTile; ++m) {
      Element cv[ColumnsPerThread];
#pragma unroll
      for (int j = 0; j < ColumnsPerThread; ++j) cv[j] = Cs[m * ColumnTile + pn + j * PN];
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u) {
        const Element av = a_s[(rk + u * RowThreads) * AS + m];
#pragma unroll
        for (int j = 0; j < ColumnsPerThread; ++j) fma_plain(acc[u][j], av, cv[j]);
      }
    }
  };
  auto store = [&](std::int64_t chunk) {
    const std::int64_t k0 = chunk * KB;
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u) {
      const std::int64_t k = k0 + rk + u * RowThreads;
      if (k < K) {
        Element* row = p.B + k * bsk;
#pragma unroll
        for (int j = 0; j < ColumnsPerThread; ++j) {
          const int n = n0 + pn + j * PN;
          if (n < N) {
            Element* d = row + std::int64_t(n) * bsn;
            Element o = acc[u][j];
            if (!p.beta_zero) {
              const Element old = *d;
              const Element bo = scale<Scalar, Complex>(p.beta, old);
              if constexpr (Complex) {
                o.x += bo.x;
                o.y += bo.y;
              } else {
                o += bo;
              }
            }
            *d = o;
          }
        }
      }
    }
  };
  auto zero_acc = [&]() {
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u)
#pragma unroll
      for (int j = 0; j < ColumnsPerThread; ++j) set_zero(acc[u][j]);
  };

  std::int64_t chunk = blockIdx.x;
  if (mch == 1) {
    int buf = 0;
    if (chunk < nchunks) load_a(chunk, 0, 0);  // the first copies go out before alpha * C's loads (ramp-up)
    cp_async_commit();
    load_c(0);
    for (; chunk < nchunks; chunk += gridDim.x) {
      const std::int64_t next = chunk + gridDim.x;
      if (next < nchunks) load_a(next, 0, buf ^ 1);
      cp_async_commit();
      cp_async_wait<1>();
      __syncthreads();
      zero_acc();
      compute(buf);
      store(chunk);
      __syncthreads();
      buf ^= 1;
    }
    cp_async_wait<0>();
  } else {
    for (; chunk < nchunks; chunk += gridDim.x) {
      zero_acc();
      for (int mc = 0; mc < mch; ++mc) {
        __syncthreads();
        load_c(mc);
        load_a(chunk, mc, 0);
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
        compute(0);
      }
      store(chunk);
    }
  }
}

// min_l1: the kernel's carveout policy (blocks_per_sm_pinned; a kernel instance must always get the same one: the
// KBLA_TSMM_D_COL rows, the only ones with min_l1, are instances no other row uses)
template <class Scalar, bool Complex, int InnerTile, int ColumnTile, int ColumnsPerThread, int RowsPerThread,
          int RowThreads, int OperandLayout, int MinBlocksPerSM = 0>
cudaError_t launch_tsmm(const TsmmArgs<Scalar, Complex>& a, cudaStream_t stream, int max_blocks_override = 0,
                        bool min_l1 = false) {
  using Sh = TsmmShape<InnerTile, ColumnTile, ColumnsPerThread, RowsPerThread, RowThreads>;
  using Element = Elem<Scalar, Complex>;
  auto kern = tsmm_kernel<Scalar, Complex, InnerTile, ColumnTile, ColumnsPerThread, RowsPerThread, RowThreads,
                          OperandLayout, MinBlocksPerSM>;
  constexpr std::size_t smem = Sh::template smem_bytes<Element>();
  static int occ[kMaxDevices] = {0};
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  if (occ[dev] == 0) {
    if (smem > 48 * 1024) {
      cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
      if (e != cudaSuccess) return e;
    }
    occ[dev] = blocks_per_sm_pinned(kern, Sh::BT, smem, min_l1);
  }
  const int gy = (a.N + ColumnTile - 1) / ColumnTile;
  std::int64_t fill = std::int64_t(sm_count()) * occ[dev];
  if (max_blocks_override > 0) fill = max_blocks_override;
  std::int64_t gx = fill / gy;
  const std::int64_t nchunks = (a.K + Sh::KB - 1) / Sh::KB;
  if (gx > nchunks) gx = nchunks;
  if (gx < 1) gx = 1;
  kern<<<dim3(unsigned(gx), unsigned(gy), 1), Sh::BT, smem, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
