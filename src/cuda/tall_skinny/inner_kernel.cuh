// SIMT TSMTTSM kernel for kbla::inner: C = alpha * A^H * B + beta * C, A: K x M, B: K x N (K >> M, N). Each thread
// accumulates a small tile of C over a grid-stride loop of rows; the block then reduces in a fixed order and combines
// into C (atomics, or per-block partials summed by a second kernel in deterministic mode). The dispatch takes it for
// double up to width 8 (column-major up to 5) and complex double up to 4, with warp-private cp.async rings
// (inner_ring.cuh) where those pay, and for the float types, mixed layouts, the narrow SIMT rows and deterministic
// mode; wider double / complex double go to the tensor-core kernel (inner_dmma.cuh). No Kokkos in here.

// Following Ernst et al. 2020 (tall & skinny GEMM on GPUs):
//  - grid-stride loop over the rows k, launching only as many blocks as fill the GPU;
//  - each thread owns a ThreadTileM x ThreadTileN tile of the (padded) MT x NT result tile, with the transposed mapping
//    (entry (i, j) of thread (pm, pn) is m = pm + i*ThreadsAlongM, n = pn + j*ThreadsAlongN), so that neighbouring
//    threads load neighbouring columns of a row (row-major) or, with the threads ordered row-fastest, neighbouring rows
//    of a column (column-major);
//  - leap-frogging: the next row is loaded into a second set of registers while the current one is used;
//  - block-local reduction, then one global combine per block: lanes that share a tile are summed with a
//    fixed xor-shuffle tree, warps in a fixed order through shared memory (deterministic inside the block, at
//    the cost of <= 8 barriers); then either global atomics into a zero-kept workspace (copies of it, 2 KB
//    apart) with the last block writing C = alpha*W + beta*C (complex double, float types), or atomics of
//    alpha * (block sum) straight into C once one extra block per column tile has written beta*C (double: no
//    fence, counter or last block in the tail of a short call), or per-block partials reduced in a fixed order
//    by a second kernel (options.deterministic).
// Widths above the tile (M > MT or N > NT) are covered by grid.y / grid.z column tiles.
#pragma once
#include <mutex>
#include <cstdint>
#include <type_traits>
#include "tall_skinny_common.cuh"
#include "inner_ring.cuh"

namespace kbla {
namespace cuda {
namespace detail {

enum : int { kLayRR = 0, kLayCC = 1, kLayGEN = 2 };

template <class Scalar, bool Complex>
struct TsmttsmArgs {
  using Element = Elem<Scalar, Complex>;
  const Element* A;
  const Element* B;
  Element* C;
  std::int64_t ask, asm_, bsk, bsm;  // element (k, m) of A at A[k*ask + m*asm_]
  std::int64_t ldc;
  std::int64_t K;
  int M, N;
  bool crow;  // C row-major
  Coef<Scalar, Complex> alpha, beta;
  bool beta_zero;
  bool deterministic;
  bool complex_3m;      // the caller allows the three-product complex DMMA rows (dispatch only)
  Scalar* W;            // default: ncopies x M*N accumulators (kept zero); deterministic: gridDim.x * M*N partials
  unsigned* counters;   // per column tile (kept zero)
  int ncopies;          // default mode: block b adds into copy b % ncopies of the accumulators (SIMT kernel)
  std::int64_t wcopy;   // scalars from one copy to the next (M*N*NS, or more: see tsmttsm_copy_stride)
  // Direct combine (SIMT kernel, double; see tsmttsm_direct_combine): an extra block x = 0 per column tile writes
  // beta * C and raises flags[tile] to 2 epoch + 1 ("done"); the other blocks take the rows and add alpha * (their
  // sums) into C with atomics once the flag is done. No workspace sums, no last block. The scaling is claimed first
  // (atomicMax to 2 epoch): normally by the extra block, which starts before its tile's row blocks; a row block that
  // finds the flag neither claimed nor done claims and scales the tile itself, so no block ever waits for one that
  // has not started.
  bool direct;
  std::uint64_t*
      flags;  // per column tile: 2 e (claimed) or 2 e + 1 (done), e the epoch of the last call that scaled it
  std::uint64_t epoch;   // this call's (host counter, unique and increasing per process)
  bool scaler_block;     // direct: block x = 0 is the extra scaling block; false (the ring's launches): every block
                         // takes rows and the first to finish claims the scaling
};

__device__ __forceinline__ std::uint64_t ld_relaxed_gpu(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ std::uint64_t ld_acquire_gpu(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

template <class Scalar>
__device__ __forceinline__ void fma_conj(Scalar& acc, Scalar a, Scalar b) {
  acc = fma(a, b, acc);
}
template <class Scalar>
__device__ __forceinline__ void fma_conj(cpx<Scalar>& acc, cpx<Scalar> a, cpx<Scalar> b) {
  // acc += conj(a) * b
  acc.x = fma(a.x, b.x, acc.x);
  acc.x = fma(a.y, b.y, acc.x);
  acc.y = fma(a.x, b.y, acc.y);
  acc.y = fma(-a.y, b.x, acc.y);
}

template <class Scalar>
__device__ __forceinline__ void add_to(Scalar& d, Scalar v) {
  d += v;
}
template <class Scalar>
__device__ __forceinline__ void add_to(cpx<Scalar>& d, cpx<Scalar> v) {
  d.x += v.x;
  d.y += v.y;
}
template <class Scalar>
__device__ __forceinline__ Scalar shfl_xor(Scalar v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
template <class Scalar>
__device__ __forceinline__ cpx<Scalar> shfl_xor(cpx<Scalar> v, int o) {
  return {__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o)};
}

// out = alpha * w + beta * c  (beta_zero: c is not read)
template <class Scalar, bool Complex>
__device__ __forceinline__ void epilogue_store(Elem<Scalar, Complex>* c, const Scalar* w,
                                               const Coef<Scalar, Complex>& alpha, const Coef<Scalar, Complex>& beta,
                                               bool beta_zero) {
  if constexpr (Complex) {
    Scalar wr = w[0], wi = w[1];
    Scalar r = alpha.re * wr - alpha.im * wi, i = alpha.re * wi + alpha.im * wr;
    if (!beta_zero) {
      cpx<Scalar> o = *c;
      r += beta.re * o.x - beta.im * o.y;
      i += beta.re * o.y + beta.im * o.x;
    }
    *c = cpx<Scalar>{r, i};
  } else {
    Scalar r = alpha.re * w[0];
    if (!beta_zero) r += beta.re * (*c);
    *c = r;
  }
}

// entry (gm, gn) of C (row- or column-major)
template <class Element>
__device__ __forceinline__ Element* c_entry(Element* C, std::int64_t ldc, bool crow, int gm, int gn) {
  return C + (crow ? std::int64_t(gm) * ldc + gn : gm + std::int64_t(gn) * ldc);
}

// c = beta * c (beta_zero: c is not read)
template <class Scalar, bool Complex>
__device__ __forceinline__ void scale_by_beta(Elem<Scalar, Complex>* c, const Coef<Scalar, Complex>& beta,
                                              bool beta_zero) {
  const Scalar zero[2] = {Scalar(0), Scalar(0)};
  const Coef<Scalar, Complex> a0{Scalar(0), Scalar(0)};
  epilogue_store<Scalar, Complex>(c, zero, a0, beta, beta_zero);
}

// One Level of warp_reduce_scatter; the levels are a compile-time recursion so that every index into v is a constant
// (a run-time loop over the levels puts v in local memory, which slows the call down).
template <int Level, int PaddedValues, int FirstOffset, int SharingLanes, class Scalar>
__device__ __forceinline__ void reduce_scatter_level(Scalar (&v)[PaddedValues], int lane, int& first, bool& writer) {
  if constexpr ((SharingLanes >> (Level + 1)) > 0) {
    constexpr int o = FirstOffset * (SharingLanes >> (Level + 1));
    constexpr int n = PaddedValues >> Level;  // scalars held before this level
    const bool upper = (lane & o) != 0;
    if constexpr (n > 1) {
#pragma unroll
      for (int h = 0; h < n / 2; ++h) {
        const Scalar send = upper ? v[h] : v[h + n / 2];
        const Scalar keep = upper ? v[h + n / 2] : v[h];
        v[h] = keep + __shfl_xor_sync(0xffffffffu, send, o);
      }
      if (upper) first += n / 2;
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], o);
      if (upper) writer = false;
    }
    reduce_scatter_level<Level + 1, PaddedValues, FirstOffset, SharingLanes>(v, lane, first, writer);
  }
}
// Warp step of the block reduction by recursive halving (a reduce-scatter): the lanes that share a tile (xor offsets
// FirstOffset, 2 FirstOffset, ..., FirstOffset * SharingLanes / 2) sum PaddedValues scalars (a power of two; padding is
// zero). At each level a lane keeps one half of what it still holds and sends the other half to its partner, so D 4 x 4
// (16 scalars, SharingLanes 32) takes 8 + 4 + 2 + 1 + 1 = 16 shuffles instead of the xor tree's 5 x 16 (a shuffle
// issues once per clock per SM; 16 warps per SM), which pays at few rows. Afterwards v[0, NF) holds the sums of scalars
// [first, first + NF), NF = max(PaddedValues / SharingLanes, 1); where PaddedValues < SharingLanes several lanes hold
// the same sums and only the one whose remaining offset bits are zero is the writer.
template <int PaddedValues, int FirstOffset, int SharingLanes, class Scalar>
__device__ __forceinline__ void warp_reduce_scatter(Scalar (&v)[PaddedValues], int lane, int& first, bool& writer) {
  static_assert((PaddedValues & (PaddedValues - 1)) == 0 && (SharingLanes & (SharingLanes - 1)) == 0, "powers of two");
  first = 0;
  writer = true;
  reduce_scatter_level<0, PaddedValues, FirstOffset, SharingLanes>(v, lane, first, writer);
}

__host__ __device__ constexpr int pow2_ceil(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The warp step of the block reduction into this group's slot of shared memory (slot[i * ThreadTileN + j], as the xor
// tree's leaders write it for one thread per tile row, P = 1), by warp_reduce_scatter over the tile's scalars.
template <class Scalar, bool Complex, int ThreadTileM, int ThreadTileN, int SharingLanes>
__device__ __forceinline__ void warp_sums_to_slot(const Elem<Scalar, Complex> (&acc)[ThreadTileM][ThreadTileN],
                                                  Elem<Scalar, Complex>* slot, int lane) {
  constexpr int NS = Complex ? 2 : 1;
  constexpr int NV = ThreadTileM * ThreadTileN * NS, NVP = pow2_ceil(NV),
                NF = NVP / SharingLanes > 1 ? NVP / SharingLanes : 1;
  Scalar v[NVP];
#pragma unroll
  for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
    for (int j = 0; j < ThreadTileN; ++j) {
      if constexpr (Complex) {
        v[(i * ThreadTileN + j) * 2] = acc[i][j].x;
        v[(i * ThreadTileN + j) * 2 + 1] = acc[i][j].y;
      } else {
        v[i * ThreadTileN + j] = acc[i][j];
      }
    }
#pragma unroll
  for (int q = NV; q < NVP; ++q) v[q] = Scalar(0);
  int first;
  bool writer;
  warp_reduce_scatter<NVP, 1, SharingLanes>(v, lane, first, writer);  // P = 1: the lanes of a tile are adjacent
  if (!writer) return;
  Scalar* out = reinterpret_cast<Scalar*>(slot);  // the slot's scalars in v's order
#pragma unroll
  for (int t = 0; t < NF; ++t)
    if (first + t < NV) out[first + t] = v[t];
}

template <int ThreadTileM, int ThreadTileN, int ThreadsAlongM, int ThreadsAlongN>
struct TsmttsmShape {
  static constexpr int P = ThreadsAlongM * ThreadsAlongN;
  static constexpr int R = P >= 256 ? 1 : 256 / P;
  static constexpr int BT = R * P;
  static constexpr int MT = ThreadTileM * ThreadsAlongM;
  static constexpr int NT = ThreadTileN * ThreadsAlongN;
};

// Stages > 0: the rows stream through warp-private cp.async rings of Stages pipeline stages (inner_ring.cuh; dynamic
// shared memory)
template <class Scalar, bool Complex, int ThreadTileM, int ThreadTileN, int ThreadsAlongM, int ThreadsAlongN,
          int OperandLayout, int Stages = 0>
__global__ void __launch_bounds__(TsmttsmShape<ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN>::BT)
    tsmttsm_kernel(const TsmttsmArgs<Scalar, Complex> p) {
  using Element = Elem<Scalar, Complex>;
  using Sh = TsmttsmShape<ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN>;
  constexpr int P = Sh::P, R = Sh::R, BT = Sh::BT, MT = Sh::MT, NT = Sh::NT;
  constexpr int NS = Complex ? 2 : 1;  // scalars per element
  // lanes of a warp that share a tile, summed by an xor tree
  constexpr int SH = (OperandLayout == kLayRR) ? ((P < 32 && 32 % P == 0) ? 32 / P : 1)
                                               : (((R & (R - 1)) == 0) ? (R < 32 ? R : 32) : 1);
  constexpr int G = R / SH;  // groups left after the shuffle, summed through shared memory
  // ONE: every group writes its own slot, one barrier, then each entry sums the G slots in group order (the same
  // order, so the same bits, as G barriers of one slot). Only where G slots fit in 8 KB.
  constexpr int PTT = P * ThreadTileM * ThreadTileN;
  constexpr bool ONE = G > 1 && G * PTT * int(sizeof(Element)) <= 8192;
  __shared__ Element red[G > 1 ? (ONE ? G : 1) * PTT : 1];
  __shared__ bool s_last;

  const int tid = threadIdx.x;
  const int tile = blockIdx.y * gridDim.z + blockIdx.z;
  // Direct combine: block x = 0 of each column tile only claims and scales its tile of C (see TsmttsmArgs).
  const std::uint64_t claimed = 2 * p.epoch, done = claimed + 1;
  auto scale_tile = [&](int first, int step) {  // C = beta * C on this column tile
    for (int e = first; e < MT * NT; e += step) {
      const int gm = blockIdx.y * MT + e % MT, gn = blockIdx.z * NT + e / MT;
      if (gm < p.M && gn < p.N)
        scale_by_beta<Scalar, Complex>(c_entry(p.C, p.ldc, p.crow, gm, gn), p.beta, p.beta_zero);
    }
  };
  const bool extra = p.direct && p.scaler_block;
  if (extra && blockIdx.x == 0) {
    if (tid == 0) s_last = atomicMax(reinterpret_cast<unsigned long long*>(p.flags + tile), claimed) < claimed;
    __syncthreads();
    if (!s_last) return;  // a row block got there first
    scale_tile(tid, BT);
    __threadfence();
    __syncthreads();
    if (tid == 0) st_release_gpu(p.flags + tile, done);
    return;
  }
  const int xb = extra ? int(blockIdx.x) - 1 : int(blockIdx.x);  // this block's index among the row blocks
  const int nxb = extra ? int(gridDim.x) - 1 : int(gridDim.x);
  int r, pidx;
  if constexpr (OperandLayout == kLayRR) {
    pidx = tid % P;
    r = tid / P;
  } else {
    r = tid % R;
    pidx = tid / R;
  }
  const int pm = pidx % ThreadsAlongM, pn = pidx / ThreadsAlongM;
  const int m0 = blockIdx.y * MT + pm, n0 = blockIdx.z * NT + pn;
  const std::int64_t K = p.K;

  bool mv[ThreadTileM], nv[ThreadTileN];
#pragma unroll
  for (int i = 0; i < ThreadTileM; ++i) mv[i] = (m0 + i * ThreadsAlongM) < p.M;
#pragma unroll
  for (int j = 0; j < ThreadTileN; ++j) nv[j] = (n0 + j * ThreadsAlongN) < p.N;

  // strides in elements
  std::int64_t ask, asm_, bsk, bsm;
  if constexpr (OperandLayout == kLayRR) {
    ask = p.ask;
    asm_ = 1;
    bsk = p.bsk;
    bsm = 1;
  } else if constexpr (OperandLayout == kLayCC) {
    ask = 1;
    asm_ = p.asm_;
    bsk = 1;
    bsm = p.bsm;
  } else {
    ask = p.ask;
    asm_ = p.asm_;
    bsk = p.bsk;
    bsm = p.bsm;
  }

  Element acc[ThreadTileM][ThreadTileN];
#pragma unroll
  for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
    for (int j = 0; j < ThreadTileN; ++j) set_zero(acc[i][j]);

  if constexpr (Stages > 0) {  // warp-private cp.async rings (inner_ring.cuh): one thread per row, single column tile
    static_assert(P == 1 && OperandLayout != kLayGEN, "the ring covers one thread per row, row- or column-major");
    extern __shared__ __align__(128) uint4 ts_ring_raw[];
    // stages on 128-byte lines: after the static red / s_last the dynamic area starts 16 bytes off a line, and a warp's
    // 512-byte cp.async then touches 5 lines and goes out as twice the L2 sector requests; the launch adds 128 bytes
    // for the rounding
    uint4* ts_ring =
        reinterpret_cast<uint4*>((reinterpret_cast<std::uintptr_t>(ts_ring_raw) + 127) & ~std::uintptr_t(127));
    constexpr int NWB = BT / 32;
    const int lane = tid & 31, wid = tid >> 5;
    tsmttsm_ring_rows<Element, ThreadTileM, ThreadTileN, OperandLayout == kLayCC, Stages>(
        acc, ts_ring + std::size_t(wid) * Stages * TsmttsmRingStage<Element, ThreadTileM, ThreadTileN>::PIECES, p.A,
        p.B, K, OperandLayout == kLayCC ? p.asm_ : p.ask, OperandLayout == kLayCC ? p.bsm : p.bsk,
        std::int64_t(xb) * NWB + wid, std::int64_t(nxb) * NWB, lane,
        [](Element& c, const Element& a, const Element& b) { fma_conj(c, a, b); });
  } else {
    const std::int64_t gstride = std::int64_t(nxb) * R;
    std::int64_t k = std::int64_t(xb) * R + r;
    const Element* pa = p.A + k * ask + std::int64_t(m0) * asm_;
    const Element* pb = p.B + k * bsk + std::int64_t(n0) * bsm;
    const std::int64_t adv_a = gstride * ask, adv_b = gstride * bsk;

    Element a[ThreadTileM], b[ThreadTileN];
    {
      const bool kv = k < K;
#pragma unroll
      for (int i = 0; i < ThreadTileM; ++i) {
        if (kv && mv[i]) a[i] = ldg(pa + std::int64_t(i * ThreadsAlongM) * asm_);
        else set_zero(a[i]);
      }
#pragma unroll
      for (int j = 0; j < ThreadTileN; ++j) {
        if (kv && nv[j]) b[j] = ldg(pb + std::int64_t(j * ThreadsAlongN) * bsm);
        else set_zero(b[j]);
      }
    }
    for (; k < K; k += gstride) {
      // leap-frog: load the next row while this one is used
      pa += adv_a;
      pb += adv_b;
      const bool kv = (k + gstride) < K;
      Element an[ThreadTileM], bn[ThreadTileN];
#pragma unroll
      for (int i = 0; i < ThreadTileM; ++i) {
        if (kv && mv[i]) an[i] = ldg(pa + std::int64_t(i * ThreadsAlongM) * asm_);
        else set_zero(an[i]);
      }
#pragma unroll
      for (int j = 0; j < ThreadTileN; ++j) {
        if (kv && nv[j]) bn[j] = ldg(pb + std::int64_t(j * ThreadsAlongN) * bsm);
        else set_zero(bn[j]);
      }
#pragma unroll
      for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
        for (int j = 0; j < ThreadTileN; ++j) fma_conj(acc[i][j], a[i], b[j]);
#pragma unroll
      for (int i = 0; i < ThreadTileM; ++i) a[i] = an[i];
#pragma unroll
      for (int j = 0; j < ThreadTileN; ++j) b[j] = bn[j];
    }
  }

  // direct combine: thread 0 reads the tile's flag now, so that its latency overlaps the block reduction
  std::uint64_t flag = p.direct && tid == 0 ? ld_relaxed_gpu(p.flags + tile) : 0;

  // ---- block reduction (fixed order) ----
  const bool leader = (r % SH) == 0;
  const int grp = r / SH;
  // The warp step by halving (the sums land in the group slots of red) only for one thread per tile row (P 1) and at
  // most 32 scalars: wider tiles padded to a power of two cost registers (ptxas: D 6 x 6 128 -> 162, D 5 x 5 with
  // P 4 120 -> 137, i.e. a block less per SM); the others take the xor tree.
  constexpr bool HALVING = ONE && SH > 1 && P == 1 && ThreadTileM * ThreadTileN * NS <= 32;
  if constexpr (HALVING) {
    warp_sums_to_slot<Scalar, Complex, ThreadTileM, ThreadTileN, SH>(acc, red + grp * PTT, tid & 31);
    __syncthreads();
  } else {
    if constexpr (SH > 1) {  // xor tree per value: every lane that shares the tile ends with its sums
      constexpr int first = (OperandLayout == kLayRR) ? P : 1;
#pragma unroll
      for (int o = first; o < first * SH; o *= 2)
#pragma unroll
        for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
          for (int j = 0; j < ThreadTileN; ++j) add_to(acc[i][j], shfl_xor(acc[i][j], o));
    }
    if constexpr (ONE) {
      if (leader) {
#pragma unroll
        for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
          for (int j = 0; j < ThreadTileN; ++j) red[grp * PTT + (i * ThreadTileN + j) * P + pidx] = acc[i][j];
      }
      __syncthreads();
    } else if constexpr (G > 1) {
      for (int s = 0; s < G; ++s) {
        if (leader && grp == s) {
#pragma unroll
          for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
            for (int j = 0; j < ThreadTileN; ++j) {
              Element& d = red[(i * ThreadTileN + j) * P + pidx];
              if (s == 0) d = acc[i][j];
              else add_to(d, acc[i][j]);
            }
        }
        __syncthreads();
      }
    }
  }

  // ---- global combine ----
  const int M = p.M, N = p.N;
  const std::int64_t MN = std::int64_t(M) * N;
  auto entry = [&](int e, int& gm, int& gn) {  // e enumerates (i, j, pidx)
    const int pi = e % P, ij = e / P;
    const int i = ij / ThreadTileN, j = ij % ThreadTileN;
    gm = blockIdx.y * MT + (pi % ThreadsAlongM) + i * ThreadsAlongM;
    gn = blockIdx.z * NT + (pi / ThreadsAlongM) + j * ThreadsAlongN;
  };
  Scalar* dst =
      p.W + (p.deterministic ? std::int64_t(blockIdx.x) * MN * NS : std::int64_t(blockIdx.x % p.ncopies) * p.wcopy);
  if (p.direct) {  // wait for beta * C (thread 0; the barrier orders the other threads' atomics after it)
    if (tid == 0 && flag != done) {
      if (atomicMax(reinterpret_cast<unsigned long long*>(p.flags + tile), claimed) < claimed) {
        scale_tile(0, 1);  // the extra block has not started: scale the tile here
        __threadfence();
        st_release_gpu(p.flags + tile, done);
      } else {
        while (ld_acquire_gpu(p.flags + tile) != done) {
        }
      }
    }
    if (tid == 0) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    __syncthreads();
  }
  auto put = [&](int gm, int gn, const Element& v) {
    if (p.direct) {
      Element* c = c_entry(p.C, p.ldc, p.crow, gm, gn);
      if constexpr (Complex) {
        atomicAdd(&c->x, p.alpha.re * v.x - p.alpha.im * v.y);
        atomicAdd(&c->y, p.alpha.re * v.y + p.alpha.im * v.x);
      } else {
        atomicAdd(c, p.alpha.re * v);
      }
      return;
    }
    Scalar* w = dst + (std::int64_t(gm) * N + gn) * NS;
    if (p.deterministic) {
      if constexpr (Complex) {
        w[0] = v.x;
        w[1] = v.y;
      } else {
        w[0] = v;
      }
    } else {
      if constexpr (Complex) {
        atomicAdd(w, v.x);
        atomicAdd(w + 1, v.y);
      } else {
        atomicAdd(w, v);
      }
    }
  };
  if constexpr (G > 1) {
    for (int e = tid; e < PTT; e += BT) {
      int gm, gn;
      entry(e, gm, gn);
      if (gm < M && gn < N) {
        Element v = red[e];
        if constexpr (ONE) {
          for (int s = 1; s < G; ++s) add_to(v, red[s * PTT + e]);
        }
        put(gm, gn, v);
      }
    }
  } else {
    if (leader) {
#pragma unroll
      for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
        for (int j = 0; j < ThreadTileN; ++j)
          if (mv[i] && nv[j]) put(m0 + i * ThreadsAlongM, n0 + j * ThreadsAlongN, acc[i][j]);
    }
  }
  if (p.deterministic || p.direct) return;  // the second kernel finishes / C is complete

  __threadfence();
  __syncthreads();
  if (tid == 0) {
    const unsigned ticket = atomicAdd(p.counters + tile, 1u);
    s_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  for (int e = tid; e < P * ThreadTileM * ThreadTileN; e += BT) {
    int gm, gn;
    entry(e, gm, gn);
    if (gm < M && gn < N) {
      // the copies summed in copy order, then zeroed for the next call
      Scalar* w = p.W + (std::int64_t(gm) * N + gn) * NS;
      Scalar wv[NS];
#pragma unroll
      for (int s = 0; s < NS; ++s) wv[s] = Scalar(0);
      for (int cp = 0; cp < p.ncopies; ++cp, w += p.wcopy)
#pragma unroll
        for (int s = 0; s < NS; ++s) {
          wv[s] += __ldcg(w + s);
          __stcg(w + s, Scalar(0));
        }
      Element* c = c_entry(p.C, p.ldc, p.crow, gm, gn);
      epilogue_store<Scalar, Complex>(c, wv, p.alpha, p.beta, p.beta_zero);
    }
  }
  if (tid == 0) p.counters[tile] = 0u;
}

// Deterministic second pass: one warp per entry of C, blocks summed lane-strided then by a fixed xor tree.
template <class Scalar, bool Complex>
__global__ void __launch_bounds__(256) tsmttsm_reduce_kernel(const TsmttsmArgs<Scalar, Complex> p, int nparts) {
  constexpr int NS = Complex ? 2 : 1;
  const std::int64_t MN = std::int64_t(p.M) * p.N;
  const std::int64_t e = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (e >= MN) return;
  Scalar s[NS];
#pragma unroll
  for (int q = 0; q < NS; ++q) s[q] = Scalar(0);
  for (int b = lane; b < nparts; b += 32)
#pragma unroll
    for (int q = 0; q < NS; ++q) s[q] += p.W[(std::int64_t(b) * MN + e) * NS + q];
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
#pragma unroll
    for (int q = 0; q < NS; ++q) s[q] += __shfl_xor_sync(0xffffffffu, s[q], o);
  if (lane == 0) {
    const int gm = int(e / p.N), gn = int(e % p.N);
    Elem<Scalar, Complex>* c = c_entry(p.C, p.ldc, p.crow, gm, gn);
    epilogue_store<Scalar, Complex>(c, s, p.alpha, p.beta, p.beta_zero);
  }
}

// C = beta * C (K == 0)
template <class Scalar, bool Complex>
__global__ void scale_kernel(Elem<Scalar, Complex>* C, std::int64_t ldc, bool crow, int M, int N,
                             Coef<Scalar, Complex> beta, bool beta_zero) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::int64_t(M) * N) return;
  scale_by_beta<Scalar, Complex>(c_entry(C, ldc, crow, int(e / N), int(e % N)), beta, beta_zero);
}

// Copies of the accumulators for the default (atomic) combine: with g blocks adding into one M x N array, the
// atomics of a short call queue up on the same L2 addresses; block b adds into copy b % copies, and the last block
// sums the copies. Complex double takes 8 copies (padded, see tsmttsm_copy_stride; 16 were no faster). Others:
// blocks / 256.
template <class Scalar, bool Complex>
int tsmttsm_copies(std::int64_t blocks) {
  constexpr bool zd = Complex && std::is_same<Scalar, double>::value;
  std::int64_t n = zd ? 8 : blocks / 256;
  if (n > 16) n = 16;
  if (n > blocks) n = blocks;
  return n < 1 ? 1 : int(n);
}

// Scalars between two copies: M*N*NS rounded up to a multiple of 2 KB. Copies packed back to back (128 bytes apart
// for D 4x4) were slower than one array: the L2 spreads addresses over its slices in larger units, so copies only
// spread the atomics when they are 2 KB apart.
template <class Scalar>
std::int64_t tsmttsm_copy_stride(std::int64_t scalars) {
  constexpr std::int64_t unit = 2048 / std::int64_t(sizeof(Scalar));
  return (scalars + unit - 1) / unit * unit;
}

// Direct combine (see TsmttsmArgs::direct) for double, where it beat the copies at few rows; complex double keeps the
// accumulator copies and the last block: its 32 atomics per block from ~2-4x more blocks queue on the same addresses
// of C, and the direct combine lost there. The float types were not measured with it.
template <class Scalar, bool Complex>
constexpr bool tsmttsm_direct_combine() {
  return std::is_same<Scalar, double>::value && !Complex;
}
// Epochs of the direct combine: unique and increasing per call in this process, so a tile's flag never needs
// resetting. Taken and launched under one lock, so that launches on one stream from several host threads still run
// in epoch order (a call whose flag an older epoch had raised past its own would wait for ever).
inline std::mutex& tsmttsm_epoch_mutex() {
  static std::mutex m;
  return m;
}
inline std::uint64_t tsmttsm_next_epoch() {
  static std::uint64_t next = 0;
  return ++next;
}
// A stream being captured into a CUDA graph: the epoch would be frozen into the graph and replays would find their
// flags already done, so captured calls take the copies and the last block, which leave the workspace as they found it.
inline bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &st) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;  // unknown: the replay-safe path
  }
  return st != cudaStreamCaptureStatusNone;
}

// Host launcher for one configuration.
template <class Scalar, bool Complex, int ThreadTileM, int ThreadTileN, int ThreadsAlongM, int ThreadsAlongN,
          int OperandLayout, int Stages = 0>
cudaError_t launch_tsmttsm(TsmttsmArgs<Scalar, Complex> a, cudaStream_t stream, int max_blocks_override = 0) {
  using Sh = TsmttsmShape<ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN>;
  constexpr int NS = Complex ? 2 : 1;
  auto kern =
      tsmttsm_kernel<Scalar, Complex, ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN, OperandLayout, Stages>;
  constexpr std::size_t ring_smem =
      Stages > 0 ? std::size_t(Sh::BT / 32) * Stages *
                           TsmttsmRingStage<Elem<Scalar, Complex>, ThreadTileM, ThreadTileN>::BYTES +
                       128
                 : 0;
  static int occ[kMaxDevices] = {0};
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  if (occ[dev] == 0) {
    if (ring_smem > 0) {
      const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ring_smem));
      if (e != cudaSuccess) return e;
    }
    occ[dev] = blocks_per_sm_pinned(kern, Sh::BT, ring_smem, true);  // L1 for the loads (see there)
    if (occ[dev] < 1) return cudaErrorInvalidConfiguration;
  }
  const int ty = (a.M + Sh::MT - 1) / Sh::MT, tz = (a.N + Sh::NT - 1) / Sh::NT;
  std::int64_t fill = std::int64_t(sm_count()) * occ[dev];
  if (max_blocks_override > 0) fill = max_blocks_override;
  const bool direct = !a.deterministic && tsmttsm_direct_combine<Scalar, Complex>() && !stream_capturing(stream);
  // direct (leap-frog): one scaling block per column tile comes on top of the row blocks, which give up one block to it
  // The ring runs one block per SM, where the extra block leaves an SM idle, so its launches have none and the first
  // row block to finish claims the scaling (faster than the extra block there). Row block 0 claiming at its start was
  // tried and lost: its fence waited for its own in-flight copies.
  const bool scaler_block = direct && Stages == 0;
  std::int64_t gx = fill / (std::int64_t(ty) * tz) - (scaler_block ? 1 : 0);
  if (gx < 1) gx = 1;
  // At least 4 rows per thread: at small K one row per thread spends more on the block reduction and the combine than
  // on the loads (8 rows were about as fast, 16 and more slower). Where the GPU is filled anyway the grid is unchanged:
  // from K = 2^20 for D 1 x 1 (~1000 blocks of 256 threads), from 2^18 for D 4 x 4 (263 blocks).
  constexpr int min_rows = 4;
  const std::int64_t need = (a.K + std::int64_t(Sh::R) * min_rows - 1) / (std::int64_t(Sh::R) * min_rows);
  if (gx > need) gx = need;
  if (gx < 1) gx = 1;
  const std::int64_t MN = std::int64_t(a.M) * a.N;
  cudaError_t err;
  void* ws = nullptr;
  a.ncopies = 1;
  a.wcopy = MN * NS;
  a.direct = direct;
  a.flags = nullptr;
  a.epoch = 0;
  if (direct) {  // flags: per column tile, never reset (epochs only grow); zero when the workspace is created
    err = workspace(stream, 2, std::size_t(ty) * tz * sizeof(std::uint64_t), &ws);
    if (err != cudaSuccess) return err;
    a.flags = static_cast<std::uint64_t*>(ws);
    a.scaler_block = scaler_block;
    a.W = nullptr;
    a.counters = nullptr;
    std::lock_guard<std::mutex> lock(tsmttsm_epoch_mutex());
    a.epoch = tsmttsm_next_epoch();
    kern<<<dim3(unsigned(gx + (scaler_block ? 1 : 0)), unsigned(ty), unsigned(tz)), Sh::BT, ring_smem, stream>>>(a);
    return cudaGetLastError();
  } else if (a.deterministic) {  // scratch: gx partial results
    err = workspace(stream, 1, std::size_t(gx) * MN * NS * sizeof(Scalar), &ws);
    if (err != cudaSuccess) return err;
    a.counters = nullptr;
    a.W = static_cast<Scalar*>(ws);
  } else {  // zero-kept: [counters: ty*tz, rounded to 256 B][W: ncopies x M*N accumulators]
    a.ncopies = tsmttsm_copies<Scalar, Complex>(gx);
    if (a.ncopies > 1) a.wcopy = tsmttsm_copy_stride<Scalar>(MN * NS);
    const std::size_t cnt_bytes = ((std::size_t(ty) * tz * sizeof(unsigned) + 255) / 256) * 256;
    err = workspace(stream, 0, cnt_bytes + std::size_t(a.ncopies) * a.wcopy * sizeof(Scalar), &ws);
    if (err != cudaSuccess) return err;
    a.counters = static_cast<unsigned*>(ws);
    a.W = reinterpret_cast<Scalar*>(static_cast<char*>(ws) + cnt_bytes);
  }
  kern<<<dim3(unsigned(gx), unsigned(ty), unsigned(tz)), Sh::BT, ring_smem, stream>>>(a);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if (a.deterministic) {
    const std::int64_t threads = MN * 32;
    tsmttsm_reduce_kernel<Scalar, Complex><<<unsigned((threads + 255) / 256), 256, 0, stream>>>(a, int(gx));
    err = cudaGetLastError();
  }
  return err;
}

// Warp-private cp.async rings (inner_ring.cuh) for the one-thread-per-row classes: Stages pipeline stages of ~14 KB in
// flight per warp (D 4 x 4: 8 stages of 2 KB, the best of the stage counts tried), at most 16 stages and ~200 KB per
// block of 8 warps.
template <class Element, int ThreadTileM, int ThreadTileN>
constexpr int tsmttsm_ring_stages() {
  constexpr int b = TsmttsmRingStage<Element, ThreadTileM, ThreadTileN>::BYTES;
  constexpr int want = 1 + (14336 + b - 1) / b, cap = 204800 / (8 * b);
  constexpr int st = want < cap ? want : cap;
  return st > 16 ? 16 : st < 2 ? 2 : st;
}
// Where the ring pays (docs/tall_skinny.md): double row-major widths 4-8, column-major 3, 5 and 8, operands larger
// than the L2. It lost at D 1 x 1 and 2 x 2 (a warp's chunk is 512 B / 1 KB, too little per copy), at complex widths
// 1-3 (not compiled), and where the operands fit in the L2 (the leap-frog's shorter latency wins when the data come
// from the L2); column-major D 4 x 4 and 6 x 6 gained nothing at many rows and lost a little at 2^21-2^24 rows.
template <int ThreadTileM, int OperandLayout>
constexpr bool tsmttsm_ring_class() {
  return OperandLayout == kLayRR ? ThreadTileM >= 4 : (ThreadTileM == 3 || ThreadTileM == 5 || ThreadTileM == 8);
}
// What the ring needs: the class's own widths (M == ThreadTileM, N == ThreadTileN: compile-time piece counts), operands
// larger than the L2, 16-byte aligned operands, row-major rows dense (ld == width: a chunk is one run) or column-major
// columns starting at 16-byte multiples.
template <class Scalar, bool Complex, int ThreadTileM, int ThreadTileN, int OperandLayout>
bool tsmttsm_ring_fits(const TsmttsmArgs<Scalar, Complex>& a) {
  constexpr std::int64_t EB = sizeof(Elem<Scalar, Complex>);
  if (a.M != ThreadTileM || a.N != ThreadTileN || a.K < 1) return false;
  if (a.K * (a.M + a.N) * EB <= l2_bytes()) return false;
  if ((reinterpret_cast<std::uintptr_t>(a.A) | reinterpret_cast<std::uintptr_t>(a.B)) % 16 != 0) return false;
  if (OperandLayout == kLayRR) return a.ask == a.M && a.bsk == a.N;
  return (a.asm_ * EB) % 16 == 0 && (a.bsm * EB) % 16 == 0;
}
// The square tables' launch: the ring where it fits and pays (real double, one thread per row, the ring classes),
// else the leap-frog.
template <class Scalar, bool Complex, int ThreadTileM, int ThreadTileN, int ThreadsAlongM, int ThreadsAlongN,
          int OperandLayout>
cudaError_t launch_tsmttsm_square(const TsmttsmArgs<Scalar, Complex>& a, cudaStream_t stream) {
  if constexpr (ThreadsAlongM * ThreadsAlongN == 1 && OperandLayout != kLayGEN && std::is_same<Scalar, double>::value &&
                !Complex && tsmttsm_ring_class<ThreadTileM, OperandLayout>()) {
    if (tsmttsm_ring_fits<Scalar, Complex, ThreadTileM, ThreadTileN, OperandLayout>(a))
      return launch_tsmttsm<Scalar, Complex, ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN, OperandLayout,
                            tsmttsm_ring_stages<Elem<Scalar, Complex>, ThreadTileM, ThreadTileN>()>(a, stream);
  }
  return launch_tsmttsm<Scalar, Complex, ThreadTileM, ThreadTileN, ThreadsAlongM, ThreadsAlongN, OperandLayout>(a,
                                                                                                                stream);
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
