// Bulk-copy TSMM for kbla::update, B = alpha A C (beta = 0), column-major double and complex double on Hopper's
// bulk-copy engine (cp.async.bulk, sm_90), at any leading dimension of A and B, odd included. A: K x M, B: K x N,
// C: M x N (either layout). Loader, compute and storer warps meet at mbarriers, one block per SM. The dispatch
// (tsmm_bulk_try) tries it first for column-major D 25-64 and Z 12-48 with beta == 0 from the row counts of
// KBLA_TSMM_BULK_D / _Z; the last K mod R rows go to the other kernels. No Kokkos.

// Why: at an odd ld every other column of a double A and B starts at 8 (mod 16) bytes. The tensor-core kernel of
// update_dmma.cuh then copies A by 8-byte cp.async and writes B through staged 8-byte stores, and all of its warps
// move together from one block barrier to the next (copies landed, mma, staging, stores), which leaves few warps
// eligible to issue and the DRAM well short of its peak. Here the three jobs run in different warps and meet only
// at mbarriers:
// - warp 0 (loader) copies each column's chunk of R rows with one cp.async.bulk. Shared column stride LD = R + 2
//   doubles (2 mod 16); row r of column c sits at c LD + s_c + r, s_c the column's misalignment in elements (0 or 1).
//   A misaligned column is copied one element wider on each side (rows r0 - 1 .. r0 + R, both ends 16-byte aligned;
//   its first and last element come by 8-byte cp.async on the same mbarrier only at the matrix ends).
// - warps 2 .. ComputeWarps + 1 (compute) wait for a stage, run m16n8k8 DMMAs on their 16-row tiles (alpha*C as B
//   fragments in registers, 16 output columns per warp), release the stage, write their tiles to one of OutputBuffers
//   output buffers in the same column layout (B's misalignment) and signal it.
// - warp 1 (storer) writes each output column with one cp.async.bulk (shared -> global): a misaligned column as the
//   aligned run of rows r0 - 1 .. r0 + R - 2, row r0 - 1 carried in a register from the block's previous chunk (runs of
//   ChunksPerRun consecutive chunks); the first chunk of a run stores its first row alone, the last its last. The
//   buffer is released once its bulk group has been read.
// - k-step 2q + h takes the columns 16 q + h + 2k (k = 0..7): one parity, so one misalignment per k-step, and with
//   LD = 2 (mod 16) the fragment loads of a half-warp hit 16 distinct 8-byte slots (the same for the output writes).
// - Complex (IsComplex): 16-byte elements, so no misaligned column; the real view of update_dmma.cuh (alpha*C as Ĉ),
//   k-step ks takes element 4 ks + t as (re, im) = (k = t, k = t + 4) by one 16-byte load, column stride 2 R + 4
//   doubles.
// - Only whole chunks (K / R of them, grid-stride over one block per SM in runs of ChunksPerRun); the launcher hands
//   the last K mod R rows back to the other kernels. A chunk's rows are read completely before they are written and
//   belong to one block, so B == A (in place, lda == ldb) is safe.
#pragma once
#include <cstdint>

#include "common/bulk_copy.cuh"    // mbarriers, cp.async.bulk
#include "tall_skinny_common.cuh"  // cp_async, env switches, sm_count
#include "update_kernel.cuh"       // TsmmArgs
#include "inner_dmma.cuh"          // dmma16

namespace kbla {
namespace cuda {
namespace detail {

struct TsmmBulkArgs {
  const double* A;       // complex (IsComplex): interleaved re, im; lda, ldb, ldc in elements
  double* B;
  const double* C;
  std::int64_t lda, ldb, ldc;
  bool crow;             // C row-major
  std::int64_t chunks;   // whole chunks of R rows
  std::int64_t K;        // rows of A and B (chunks * R <= K)
  int M, N;              // elements (complex: complex columns)
  double alpha, alpha_im;
};

// Width (W) class width (multiple of 16; complex: of the real view, 2 per element), ChunkRows (R) rows per chunk
// (multiple of 16), Stages stages of A, ComputeWarps compute warps, OutputBuffers output buffers (1 or 2; with one,
// the compute warps still run the next chunk's mma while it drains). Complex (IsComplex): COLS = W / 2 columns of R
// 16-byte elements each, column stride 2 R + 4 doubles (4 mod 16: the 16-byte fragment loads and stores of a
// quarter-warp hit 8 distinct 16-byte slots).
template <int Width, int ChunkRows, int Stages, int ComputeWarps, int OutputBuffers, bool IsComplex = false>
struct TsmmBulkShape {
  static constexpr int COLS = IsComplex ? Width / 2 : Width;
  static constexpr int LD = IsComplex ? 2 * ChunkRows + 4 : ChunkRows + 2;  // column stride in doubles: 4 / 2 (mod 16)
  static constexpr int CG = Width / 16;                // column groups (16 real-view output columns each)
  static constexpr int RT = ChunkRows / 16;            // 16-row tiles per chunk
  static constexpr int RS = ComputeWarps / CG;         // compute warps per column group
  static constexpr int TPW = RT / RS;         // tiles per compute warp and chunk
  static constexpr int BT = 32 * (ComputeWarps + 2);   // + loader + storer
  static constexpr std::size_t buf = std::size_t(COLS) * LD * sizeof(double);
  static constexpr std::size_t bars =
      128;  // mbarriers: full[Stages], empty[Stages], out_full[OutputBuffers], out_free[OutputBuffers]
  static constexpr std::size_t smem = bars + (Stages + OutputBuffers) * buf;
  static_assert(Width % 16 == 0 && ChunkRows % 16 == 0 && ComputeWarps % CG == 0 && RT % RS == 0,
                "bad bulk TSMM shape");
  static_assert(8 * (2 * Stages + 2 * OutputBuffers) <= int(bars) && (OutputBuffers == 1 || OutputBuffers == 2),
                "mbarrier area / output buffers");
};

// ChunksPerRun: a block takes ChunksPerRun consecutive chunks at a time (grid stride over runs of ChunksPerRun chunks),
// so that the 32-byte sector which an odd column splits at a chunk boundary is read and written by one block close
// together in time.
template <int Width, int ChunkRows, int Stages, int ComputeWarps, int OutputBuffers, int ChunksPerRun,
          bool IsComplex = false>
__global__ void __launch_bounds__(TsmmBulkShape<Width, ChunkRows, Stages, ComputeWarps, OutputBuffers, IsComplex>::BT,
                                  1) tsmm_bulk_kernel(const TsmmBulkArgs p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Sh = TsmmBulkShape<Width, ChunkRows, Stages, ComputeWarps, OutputBuffers, IsComplex>;
  constexpr int LD = Sh::LD, COLS = Sh::COLS;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const unsigned bar0 = smem_addr(smem_raw);
  double* const stages = reinterpret_cast<double*>(smem_raw + Sh::bars);  // [Stages][COLS][LD]
  double* const outs = stages + Stages * COLS * LD;                           // [OutputBuffers][COLS][LD]
  auto full = [&](int s) { return bar0 + 8u * unsigned(s); };
  auto empty = [&](int s) { return bar0 + 8u * unsigned(Stages + s); };
  auto out_full = [&](int b) { return bar0 + 8u * unsigned(2 * Stages + b); };
  auto out_free = [&](int b) { return bar0 + 8u * unsigned(2 * Stages + OutputBuffers + b); };
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  if (tid == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbar_init(full(s), 33);  // the loader lanes' cp.async arrivals (32) + lane 0's expect_tx
      mbar_init(empty(s), 32 * ComputeWarps);  // every thread arrives for its own accesses (no warp-level hand-off)
    }
    for (int b = 0; b < OutputBuffers; ++b) {
      mbar_init(out_full(b), 32 * ComputeWarps);
      mbar_init(out_free(b), 32);
    }
    fence_mbarrier_init();
  }
  // columns from M up to the k-steps' blocks (real: 16 columns, complex: 4) stay zero in every stage (0 * garbage
  // could be NaN)
  constexpr int KCOLS = IsComplex ? 4 : 16;
  const int Mp = (p.M + KCOLS - 1) / KCOLS * KCOLS;
  for (int s = 0; s < Stages; ++s)
    for (int e = tid; e < (Mp - p.M) * LD; e += blockDim.x) stages[(s * COLS + p.M) * LD + e] = 0.0;
  __syncthreads();

  const BulkRuns<ChunkRows, ChunksPerRun> chunks(p.chunks);  // this block's chunks
  const std::int64_t my = chunks.count();
  auto row0 = [&](std::int64_t i) { return chunks.row0(i); };
  // misalignment in elements of a column's chunk start (R is even): base parity + column parity x ld parity
  const unsigned apar = unsigned(reinterpret_cast<std::uintptr_t>(p.A) >> 3) & 1u;
  const unsigned bpar = unsigned(reinterpret_cast<std::uintptr_t>(p.B) >> 3) & 1u;
  const unsigned ald = unsigned(p.lda & 1), bld = unsigned(p.ldb & 1);
  // (complex elements are 16-byte aligned: never shifted)
  auto a_shift = [&](int c) { return IsComplex ? 0 : int((apar + unsigned(c) * ald) & 1u); };
  auto b_shift = [&](int n) { return IsComplex ? 0 : int((bpar + unsigned(n) * bld) & 1u); };
  constexpr int ES = IsComplex ? 2 : 1;  // doubles per element

  if (warp == 0) {  // ---- loader ----
    // A column at 8 (mod 16) bytes is copied one element wider on each side (R + 2 elements from row r0 - 1, both
    // ends 16-byte aligned; rows -1 and R land in slots nobody reads), except where that would reach outside the
    // matrix (row -1 of column 0, row K of column M - 1): there its first and last element come by 8-byte cp.async.
    unsigned tx = 0;  // bulk bytes of a chunk away from the matrix ends
    for (int c = 0; c < p.M; ++c) tx += a_shift(c) ? (ChunkRows + 2) * 8 : ChunkRows * 8 * ES;
    for (std::int64_t i = 0; i < my; ++i) {
      const int s = int(i % Stages);
      if (i >= Stages) mbar_wait(empty(s), unsigned((i / Stages - 1) & 1));
      const std::int64_t r0 = row0(i);
      const bool at_top = r0 == 0, at_end = r0 + ChunkRows >= p.K;
      double* const st = stages + s * COLS * LD;
      if (lane == 0) {  // the narrower copies of the columns at the matrix ends
        unsigned ex = at_top && a_shift(0) ? 32u : 0u;
        if (at_end && a_shift(p.M - 1) && !(p.M == 1 && at_top)) ex += 32u;
        mbar_arrive_expect_tx(full(s), tx - ex);
      }
      __syncwarp();
      for (int c = lane; c < p.M; c += 32) {
        const double* g = p.A + (std::int64_t(c) * p.lda + r0) * ES;
        double* d = st + c * LD;
        if (a_shift(c) == 0) {
          bulk_to_shared(smem_addr(d), g, ChunkRows * 8 * ES, full(s));
        } else if (!(c == 0 && at_top) && !(c == p.M - 1 && at_end)) {
          bulk_to_shared(smem_addr(d), g - 1, (ChunkRows + 2) * 8, full(s));
        } else {
          bulk_to_shared(smem_addr(d + 2), g + 1, (ChunkRows - 2) * 8, full(s));
          cp_async<8>(d + 1, g, true);
          cp_async<8>(d + ChunkRows, g + ChunkRows - 1, true);
        }
      }
      cp_async_arrive_noinc(full(s));
    }
  } else if (warp == 1) {  // ---- storer ----
    // A column at 8 (mod 16) bytes: its rows r0 - 1 .. r0 + R - 2 leave as one aligned run of R elements, row r0 - 1
    // carried in a register from the previous chunk of the run (this block's) and put in the unused slot of row -1;
    // the first chunk of a run stores its row r0 alone, the last its row r0 + R - 1.
    constexpr int NJ = (COLS + 31) / 32;  // columns per lane
    double carry[NJ];
#pragma unroll
    for (int j = 0; j < NJ; ++j) carry[j] = 0.0;
    for (std::int64_t i = 0; i < my; ++i) {
      const int b = int(i % OutputBuffers);
      mbar_wait(out_full(b), unsigned((i / OutputBuffers) & 1));
      const std::int64_t r0 = row0(i);
      const bool first = i % ChunksPerRun == 0, last = i + 1 == my || (i + 1) % ChunksPerRun == 0;
      double* const o = outs + b * COLS * LD;
#pragma unroll
      for (int j = 0; j < NJ; ++j) {
        const int n = lane + 32 * j;
        if (n >= p.N) continue;
        double* g = p.B + (std::int64_t(n) * p.ldb + r0) * ES;
        double* src = o + n * LD;
        if (b_shift(n) == 0) {
          bulk_to_global(g, smem_addr(src), ChunkRows * 8 * ES);
          continue;
        }
        if (first) {
          g[0] = src[1];
          bulk_to_global(g + 1, smem_addr(src + 2), (ChunkRows - 2) * 8);
        } else {
          src[0] = carry[j];
          fence_proxy_async_shared();
          bulk_to_global(g - 1, smem_addr(src), ChunkRows * 8);
        }
        if (last) g[ChunkRows - 1] = src[ChunkRows];
        else carry[j] = src[ChunkRows];
      }
      bulk_commit();
      if (i >=
          OutputBuffers -
              1) {  // chunk i - (OutputBuffers - 1)'s buffer has been read by this lane's bulk copies: give it back
        bulk_wait_read<OutputBuffers - 1>();
        mbar_arrive(out_free(int((i - (OutputBuffers - 1)) % OutputBuffers)));
      }
    }
    bulk_wait<0>();
  } else {  // ---- compute ----
    const int cw = warp - 2, cg = cw % Sh::CG, rs = cw / Sh::CG;
    const int g = lane >> 2, t = lane & 3, n0 = 16 * cg;
    const int Nr = ES * p.N;          // real-view output columns
    const bool active = n0 < Nr;
    const bool nt1 = n0 + 8 < Nr;     // the second 8-column tile holds output columns
    const int kmax = IsComplex ? (p.M + 3) / 4 : 2 * ((p.M + 15) / 16);  // k-steps holding columns of A
    constexpr int KS = Width / 8;
    // alpha * C as B fragments (k-step ks, n-tile nt, j = 0 / 1 for k = t / t + 4), column n0 + 8 nt + g:
    // real: row 16 (ks / 2) + ks % 2 + 2 (t + 4 j); complex: real-view row 2 (4 ks + t) + j (re / im of element
    // 4 ks + t)
    double bf[KS][2][2];
#pragma unroll
    for (int ks = 0; ks < KS; ++ks)
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int n = n0 + 8 * nt + g;
          double v = 0.0;
          if constexpr (IsComplex) {
            const int k = 4 * ks + t, q = n >> 1;
            if (k < p.M && q < p.N) {
              const std::int64_t e = p.crow ? std::int64_t(k) * p.ldc + q : k + std::int64_t(q) * p.ldc;
              const double cr = p.C[2 * e], ci = p.C[2 * e + 1];
              v = real_view_entry(p.alpha * cr - p.alpha_im * ci, p.alpha * ci + p.alpha_im * cr, 2 * k + j, n);
            }
          } else {
            const int k = 16 * (ks >> 1) + (ks & 1) + 2 * (t + 4 * j);
            if (k < p.M && n < p.N)
              v = p.alpha * (p.crow ? p.C[std::int64_t(k) * p.ldc + n] : p.C[k + std::int64_t(n) * p.ldc]);
          }
          bf[ks][nt][j] = v;
        }
    const int ash[2] = {a_shift(0), a_shift(1)};  // by column parity
    const int bsh[2] = {b_shift(0), b_shift(1)};
    for (std::int64_t i = 0; i < my; ++i) {
      const int s = int(i % Stages), b = int(i % OutputBuffers);
      mbar_wait(full(s), unsigned((i / Stages) & 1));
      const double* const st = stages + s * COLS * LD;
      double acc[Sh::TPW][2][2][2];
#pragma unroll
      for (int u = 0; u < Sh::TPW; ++u)
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) acc[u][nt][0][0] = acc[u][nt][0][1] = acc[u][nt][1][0] = acc[u][nt][1][1] = 0.0;
      if (active) {
#pragma unroll
        for (int ks = 0; ks < KS; ++ks) {
          if (ks >= kmax) break;
#pragma unroll
          for (int u = 0; u < Sh::TPW; ++u) {
            const int r = 16 * (rs + u * Sh::RS) + g;
            double a0, a1, a2, a3;
            if constexpr (IsComplex) {  // element 4 ks + t, rows r / r + 8: (re, im) = (k = t, k = t + 4)
              const double* e = st + (4 * ks + t) * LD + 2 * r;
              const double2 x = *reinterpret_cast<const double2*>(e), y = *reinterpret_cast<const double2*>(e + 16);
              a0 = x.x, a2 = x.y, a1 = y.x, a3 = y.y;
            } else {
              const int h = ks & 1;
              const double* lo = st + (16 * (ks >> 1) + h + 2 * t) * LD + ash[h];  // k = t
              const double* hi = lo + 8 * LD;                                        // k = t + 4
              a0 = lo[r], a1 = lo[r + 8], a2 = hi[r], a3 = hi[r + 8];
            }
            dmma16(acc[u][0][0], acc[u][0][1], a0, a1, a2, a3, bf[ks][0][0], bf[ks][0][1]);
            if (nt1) dmma16(acc[u][1][0], acc[u][1][1], a0, a1, a2, a3, bf[ks][1][0], bf[ks][1][1]);
          }
        }
      }
      mbar_arrive(empty(s));
      if (i >= OutputBuffers) mbar_wait(out_free(b), unsigned((i / OutputBuffers - 1) & 1));
      double* const o = outs + b * COLS * LD;
      if (active) {
#pragma unroll
        for (int u = 0; u < Sh::TPW; ++u) {
          const int r = 16 * (rs + u * Sh::RS) + g;
#pragma unroll
          for (int nt = 0; nt < 2; ++nt) {
            const int n = n0 + 8 * nt + 2 * t;  // even real-view column
            if constexpr (IsComplex) {  // (n, n + 1) = (re, im) of element n / 2
              double* e = o + (n >> 1) * LD + 2 * r;
              *reinterpret_cast<double2*>(e) = make_double2(acc[u][nt][0][0], acc[u][nt][0][1]);
              *reinterpret_cast<double2*>(e + 16) = make_double2(acc[u][nt][1][0], acc[u][nt][1][1]);
            } else {  // columns n (shift bsh[0]) and n + 1 (bsh[1])
              double* c0 = o + n * LD + bsh[0] + r;
              double* c1 = o + (n + 1) * LD + bsh[1] + r;
              c0[0] = acc[u][nt][0][0];
              c1[0] = acc[u][nt][0][1];
              c0[8] = acc[u][nt][1][0];
              c1[8] = acc[u][nt][1][1];
            }
          }
        }
      }
      fence_proxy_async_shared();
      mbar_arrive(out_full(b));
    }
  }
#endif
}

// Column-major double or complex double, beta == 0, M and N <= the class (W, complex W / 2): runs the whole chunks of R
// rows of `a` and leaves `a` holding the last K mod R rows (K = 0 when none are left) for the caller's other kernels;
// cudaErrorNotSupported (nothing run, `a` unchanged) when the device is older than sm_90 or there is no whole chunk.
template <int Width, int ChunkRows, int Stages, int ComputeWarps, int OutputBuffers, int ChunksPerRun, bool IsComplex>
cudaError_t launch_tsmm_bulk(TsmmArgs<double, IsComplex>& a, cudaStream_t stream) {
  using Sh = TsmmBulkShape<Width, ChunkRows, Stages, ComputeWarps, OutputBuffers, IsComplex>;
  const std::int64_t chunks = a.K / ChunkRows;
  if (chunks < 1 || a.M > Sh::COLS || a.N > Sh::COLS) return cudaErrorNotSupported;
  static int ready[kMaxDevices] = {0};
  const cudaError_t ok = bulk_kernel_ready(
      tsmm_bulk_kernel<Width, ChunkRows, Stages, ComputeWarps, OutputBuffers, ChunksPerRun, IsComplex>, Sh::smem,
      ready);
  if (ok != cudaSuccess) return ok;
  TsmmBulkArgs p{};
  p.A = reinterpret_cast<const double*>(a.A);
  p.B = reinterpret_cast<double*>(a.B);
  p.C = reinterpret_cast<const double*>(a.C);
  p.lda = a.asm_;
  p.ldb = a.bsn;
  p.ldc = a.ldc;
  p.crow = a.crow;
  p.chunks = chunks;
  p.K = a.K;
  p.M = a.M;
  p.N = a.N;
  p.alpha = a.alpha.re;
  p.alpha_im = IsComplex ? a.alpha.im : 0.0;
  const std::int64_t gx = std::min<std::int64_t>((chunks + ChunksPerRun - 1) / ChunksPerRun, sm_count());
  tsmm_bulk_kernel<Width, ChunkRows, Stages, ComputeWarps, OutputBuffers, ChunksPerRun, IsComplex>
      <<<unsigned(gx), Sh::BT, Sh::smem, stream>>>(p);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const std::int64_t done = chunks * ChunkRows;
  a.A += done;
  a.B += done;
  a.K -= done;
  return cudaSuccess;
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
