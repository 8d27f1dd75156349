// TSMTTSM on the FP64 tensor cores for kbla::inner (C = alpha * A^H * B + beta * C), double and complex double,
// where the SIMT FP64 units cannot keep up with the bandwidth: mma.sync m16n8k8 f64 (DMMA) on sm_90 fed by
// multi-stage cp.async pipelines. The dispatch tries its rows (KBLA_TSMTTSM_DMMA_* in tall_skinny_params.hpp) before
// the SIMT table in non-deterministic mode: double from width 9 (column-major from 6), complex double from 5, and
// the narrow double / complex double rows.

// How it works:
// Complex is handled as the real product P = A'^T B' of the interleaved real views (A' is K x 2M), then
// C = alpha * (P_rr + P_ii + i (P_ri - P_ir)) + beta * C in the last block's epilogue.
// Chunks of ChunkRows rows of A' and B' stream through shared memory with cp.async (S stages in flight); each warp
// owns an (8 WarpRowFragments) x (8 WarpColumnFragments) tile of P in DMMA accumulators; the block covers the whole
// BlockRows x BlockColumns tile, so each P entry has exactly one owner per block and goes to the zero-kept workspace by
// one atomic add; the last block of a tile writes C (as the SIMT kernel does). Non-deterministic mode only.
#pragma once
#include "update_kernel.cuh"
#include "inner_kernel.cuh"

namespace kbla {
namespace cuda {
namespace detail {

struct DmmaArgs {
  const double* A;
  const double* B;
  void* C;  // double or cpx<double>
  std::int64_t ldc;
  bool crow;
  std::int64_t K;
  int M, N;    // logical (complex) sizes
  int Mr, Nr;  // real-view widths
  std::int64_t ars, ac1, ac2, brs, bc1, bc2;  // real-view offsets: k*rs + (j&1)*c1 + (j>>1)*c2
  bool ajfast, bjfast;                        // consecutive j are (nearly) contiguous
  double al_re, al_im, be_re, be_im;
  bool beta_zero;
  double* W;  // Mr x Nr accumulators (kept zero)
  unsigned* counters;
};

__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
}

// Two stacked 8x8 tiles (rows g and g + 8) over k = 0..7: a0/a1 rows g/g+8 at k = t, a2/a3 at k = t + 4;
// b0/b1 at k = t / t + 4. sm_90 runs m16n8k8 at the full FP64 tensor rate and m8n8k4 at half of it. Before sm_90
// (no m16 f64 shapes): four m8n8k4, the same sums.
__device__ __forceinline__ void dmma16(double (&c01)[2], double (&c23)[2], double a0, double a1, double a2,
                                       double a3, double b0, double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+d"(c01[0]), "+d"(c01[1]), "+d"(c23[0]), "+d"(c23[1])
               : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
  dmma(c01[0], c01[1], a0, b0);
  dmma(c01[0], c01[1], a2, b1);
  dmma(c23[0], c23[1], a1, b0);
  dmma(c23[0], c23[1], a3, b1);
#endif
}

// How an operand's chunk is copied into shared memory (the CopyMode parameter below). launch_tsmttsm_dmma picks it
// from the layouts, leading dimensions, alignment and widths; each form is explained at its loader.
enum class InnerCopy {
  copy8,               // 8-byte copies: misaligned pointers, or one odd and one even leading dimension
  pairs16,             // 16-byte copies of column pairs ([k][j] staging) or, k-major, of row pairs
  shifted_pairs16,     // odd leading dimension of a real operand: 16-byte copies of parity-shifted pairs
  flat_odd,            // dense row-major real, odd width, one tile wide: flat copies of whole chunks
  flat_2mod4,          // the same for dense even widths J = 2 (mod 4)
  flat_4mod8,          // the same for dense even widths J = 4 (mod 8)
  complex_columns,     // complex column-major: one shared row per complex column, (re, im) interleaved
  dense_complex_rows,  // dense row-major complex, one tile wide: pairs16's staging with DenseRowLoader copies
};

// ThreeProducts: complex only, three real products (below); WarpRowFragments / WarpColumnFragments then count 8-row
// fragments of complex rows / columns
template <int BlockRows, int BlockColumns, int WarpRowFragments, int WarpColumnFragments, int ChunkRows, int Stages,
          bool KMajor, InnerCopy CopyMode = InnerCopy::pairs16, bool ThreeProducts = false>
struct DmmaShape {
  static constexpr int kBlockRows = BlockRows, kBlockColumns = BlockColumns, kChunkRows = ChunkRows, kStages = Stages;
  static constexpr InnerCopy kCopyMode = CopyMode;
  static constexpr int WM = BlockRows / (8 * WarpRowFragments * (ThreeProducts ? 2 : 1)),
                       WN = BlockColumns / (8 * WarpColumnFragments * (ThreeProducts ? 2 : 1));
  static constexpr int NW = WM * WN, BT = 32 * NW;
  static constexpr int pad4(int x) { return x + ((4 - x % 16) + 16) % 16; }  // stride = 4 (mod 16) doubles
  static constexpr int pad8(int x) { return x + ((8 - x % 16) + 16) % 16; }  // stride = 8 (mod 16) doubles
  // smem rows: [k][j] (row stride LDA/LDB over j) or, KMajor, [j][k] (row stride LDK over k), or (complex_columns,
  // complex column-major) one row per complex column holding its ChunkRows elements interleaved (re, im), stride
  // 8 mod 16
  static constexpr bool CCOL = CopyMode == InnerCopy::complex_columns;
  static constexpr int LDA = CCOL ? pad8(2 * ChunkRows) : KMajor ? pad4(ChunkRows) : pad4(BlockRows);
  static constexpr int LDB = CCOL ? pad8(2 * ChunkRows) : KMajor ? pad4(ChunkRows) : pad4(BlockColumns);
  static constexpr int SA = CCOL     ? BlockRows / 2 * LDA
                            : KMajor ? BlockRows * LDA
                                     : ChunkRows * LDA;  // doubles per stage
  static constexpr int SB = CCOL ? BlockColumns / 2 * LDB : KMajor ? BlockColumns * LDB : ChunkRows * LDB;
  static constexpr std::size_t smem = std::size_t(Stages) * (SA + SB) * sizeof(double);
};

// One operand's chunk (ChunkRows rows x TileColumns real columns starting at j0) into shared memory.
// Real view: element (k, j) at base[k*rs + (j&1)*c1 + (j>>1)*c2]. pairs16: 16-byte copies of pairs (pairs of
// columns j, j+1 when !KMajor, which needs c1 == 1; pairs of rows k, k+1 when KMajor, which needs rs == 1).
template <int TileColumns, int ChunkRows, int BlockThreads, int SharedStride, bool KMajor, InnerCopy CopyMode>
__device__ __forceinline__ void dmma_load(double* s, const double* base, std::int64_t k0, int j0, std::int64_t K,
                                          int Jr, std::int64_t rs, std::int64_t c1, std::int64_t c2, bool jfast,
                                          int tid) {
  if constexpr (!KMajor && CopyMode == InnerCopy::pairs16) {
    constexpr int NP = ChunkRows * TileColumns / 2;
#pragma unroll 4
    for (int idx = tid; idx < NP; idx += BlockThreads) {
      const int kk = jfast ? idx / (TileColumns / 2) : idx % ChunkRows,
                jp = jfast ? idx % (TileColumns / 2) : idx / ChunkRows;
      const std::int64_t k = k0 + kk;
      const int gj = j0 + 2 * jp;
      const int bytes = (k < K) ? (gj + 1 < Jr ? 16 : (gj < Jr ? 8 : 0)) : 0;
      const double* src = bytes ? base + k * rs + std::int64_t(gj >> 1) * c2 : base;
      cp_async_pair(s + kk * SharedStride + 2 * jp, src, bytes);
    }
  } else if constexpr (KMajor && CopyMode == InnerCopy::pairs16) {
    constexpr int NP = ChunkRows / 2 * TileColumns;
#pragma unroll 4
    for (int idx = tid; idx < NP; idx += BlockThreads) {
      const int kp = idx % (ChunkRows / 2), j = idx / (ChunkRows / 2);
      const std::int64_t k = k0 + 2 * kp;
      const int gj = j0 + j;
      const int bytes = (gj < Jr) ? (k + 1 < K ? 16 : (k < K ? 8 : 0)) : 0;
      const double* src = bytes ? base + k + (gj & 1) * c1 + std::int64_t(gj >> 1) * c2 : base;
      cp_async_pair(s + j * SharedStride + 2 * kp, src, bytes);
    }
  } else if constexpr (CopyMode == InnerCopy::complex_columns) {
    // Complex column-major (real view rs = 2, c1 = 1, c2 = 2 ld): complex column jc's ChunkRows elements are one
    // contiguous run of 16 ChunkRows bytes, copied as such into shared row jc (interleaved re, im). Consecutive lanes
    // take consecutive 16 bytes in global AND shared memory. pairs16's [k][j] staging put each lane's 16 bytes at
    // shared stride LDA, and the L2 then served its cp.async reads at one sector per request, more than twice the
    // requests of the same global pattern with contiguous shared rows: the L2 became the limiter.
    constexpr int NC = TileColumns / 2;  // complex columns of the tile (Jr even: a column is all in or all out)
    if constexpr (BlockThreads % ChunkRows == 0) {
      // each thread keeps its row kk and steps over the columns jc0, jc0 + DJ, ...: per copy a 64-bit add,
      // a compare and the copy
      constexpr int DJ = BlockThreads / ChunkRows, NI = (NC + DJ - 1) / DJ;
      const int kk = tid % ChunkRows, jc0 = tid / ChunkRows;
      const int nc = min(NC, (Jr - j0) / 2);
      const bool kin = k0 + kk < K;
      const double* src = base + (k0 + kk) * rs + std::int64_t(j0 / 2 + jc0) * c2;
      const std::int64_t step = std::int64_t(DJ) * c2;
#pragma unroll
      for (int i = 0; i < NI; ++i) {
        const int jc = jc0 + i * DJ;
        if (NC % DJ == 0 || jc < NC) {
          const int bytes = kin && jc < nc ? 16 : 0;
          cp_async16(s + jc * SharedStride + 2 * kk, bytes ? src : base, bytes);
        }
        src += step;
      }
    } else {
      constexpr int NP = ChunkRows * NC;
#pragma unroll 4
      for (int idx = tid; idx < NP; idx += BlockThreads) {
        const int kk = idx % ChunkRows, jc = idx / ChunkRows;
        const std::int64_t k = k0 + kk;
        const int gj = j0 + 2 * jc;
        const int bytes = (k < K && gj < Jr) ? 16 : 0;
        const double* src = bytes ? base + k * rs + std::int64_t(gj >> 1) * c2 : base;
        cp_async16(s + jc * SharedStride + 2 * kk, src, bytes);
      }
    }
  } else if constexpr (CopyMode == InnerCopy::shifted_pairs16) {
    // Rows of odd length in global memory (a real matrix with an odd leading dimension): row r's 16-byte
    // aligned pairs start at element r & 1, so row r is stored shifted by r & 1 in shared memory, which keeps
    // the pairs aligned there too; the odd rows' element 0 goes alone. Twice the copy width of copy8, whose
    // 8-byte copies made odd widths run at about half the speed of even ones.
    constexpr int NR = KMajor ? TileColumns : ChunkRows, RL = KMajor ? ChunkRows : TileColumns, NU = RL / 2 + 1;
#pragma unroll 4
    for (int idx = tid; idx < NR * NU; idx += BlockThreads) {
      const int r = idx / NU, u = idx % NU, par = r & 1;
      if (par == 0 && u == NU - 1) continue;  // would start at element RL, past the row
      const int x = par && u == 0 ? 0 : 2 * u - par;  // first element of this copy
      const int n = par && u == 0 ? 1 : 2;           // elements in it
      // element e of the row -> global (k, gj)
      auto valid = [&](int e) {
        if (e >= RL) return false;
        const std::int64_t k = KMajor ? k0 + e : k0 + r;
        const int gj = KMajor ? j0 + r : j0 + e;
        return k < K && gj < Jr;
      };
      const std::int64_t k = KMajor ? k0 + x : k0 + r;
      const int gj = KMajor ? j0 + r : j0 + x;
      const bool v0 = valid(x), v1 = n == 2 && valid(x + 1);
      const double* src = v0 ? base + k * rs + (gj & 1) * c1 + std::int64_t(gj >> 1) * c2 : base;
      double* dst = s + r * SharedStride + par + x;
      if (n == 1) cp_async<8>(dst, src, v0);
      else cp_async_pair(dst, src, v1 ? 16 : (v0 ? 8 : 0));
    }
  } else {
    constexpr int NE = ChunkRows * TileColumns;
#pragma unroll 4
    for (int idx = tid; idx < NE; idx += BlockThreads) {
      const bool jf = !KMajor && jfast;
      const int kk = jf ? idx / TileColumns : idx % ChunkRows, j = jf ? idx % TileColumns : idx / ChunkRows;
      const std::int64_t k = k0 + kk;
      const int gj = j0 + j;
      const bool v = k < K && gj < Jr;
      const double* src = v ? base + k * rs + (gj & 1) * c1 + std::int64_t(gj >> 1) * c2 : base;
      cp_async<8>(s + (KMajor ? j * SharedStride + kk : kk * SharedStride + j), src, v);
    }
  }
}

// ColPairLoader: the KMajor copy fast paths of column-major real operands, ParityShift = true for an odd leading
// dimension (shifted_pairs16), false for an even one (pairs16).
//
// ParityShift (shifted_pairs16; column-major real operand, odd leading dimension ld, 16-byte aligned base): the
// generic shifted_pairs16 loop above spends ~30 instructions per 16-byte copy on index math (division by NU, two
// 64-bit validity checks, the lone first element of odd columns) and made the odd-K column-major widths
// issue-bound. Here every thread owns one fixed pair slot u (0..ChunkRows/2-1) of the rows r0, r0 + R, r0 + 2R, ...
// (R = BlockThreads / (ChunkRows/2), even, so the row parity par = r0 & 1 is fixed per thread); the shared layout is
// the shifted_pairs16 one (row r shifted by r & 1: element e at r*SharedStride + par + e), and the copy u of row r is
// the 16 bytes at shared r*SharedStride + 2u, i.e. elements 2u - par and 2u - par + 1 -- for an odd row u = 0 takes
// element -1 too (global (k0 - 1, gj): gj odd, so the address lies between the starts of columns gj - 1 and gj, inside
// the matrix; it lands in the unread shared slot r*SharedStride + 0). An odd row's last element ChunkRows - 1 is one
// extra 8-byte copy (thread tid: row 2 tid + 1). Per thread, the global pointer of the first copy is fixed once per
// kernel; a chunk adds k0, each further row adds the constant R*ld: per 16-byte copy a 64-bit add, a predicate and
// the copy. The last, partial chunk (k0 + ChunkRows > K) runs the same copies with the byte counts checked (zero fill
// of the rows k >= K). Rows r >= Jr - j0 (columns past the matrix) are never copied: the kernel zeroes them
// once. Row-major shifted_pairs16 (and any shape where R would be odd) keeps the generic loop above.
//
// !ParityShift (pairs16; column-major real operand, even leading dimension ld, 16-byte aligned base): the generic
// KMajor loop above spends ~15-20 instructions per 16-byte copy (index division by ChunkRows / 2, two 64-bit bound
// checks, the 8-byte fallback), several times the issue work of the DMMA it feeds. The same copies without the parity
// shift and the tail copy: each thread owns pair slot u (elements 2u, 2u + 1 of the chunk) of rows r0, r0 + R, ...;
// rows past the matrix are zeroed once by the kernel. With it the kernel is latency-bound (long scoreboard and wait
// stalls at 8 warps per SM) rather than issue-bound.
template <int TileColumns, int ChunkRows, int BlockThreads, int SharedStride, bool ParityShift>
struct ColPairLoader {
  static constexpr int H = ChunkRows / 2, R = BlockThreads / H, NI = (TileColumns + R - 1) / R;
  static constexpr bool ok = ParityShift ? ChunkRows % 2 == 0 && BlockThreads % H == 0 && R % 2 == 0 &&
                                               TileColumns / 2 <= BlockThreads && SharedStride >= ChunkRows + 2
                                         : ChunkRows % 2 == 0 && BlockThreads % H == 0 && SharedStride >= ChunkRows;
  const double* src;   // base + (j0 + r0) ld + 2u - par
  std::int64_t step;   // R ld
  int nit;             // copies of this thread (rows r0 + i R < nr)
  int soff;            // r0 SharedStride + 2u
  // ParityShift, odd-row tail: base + (j0 + re) ld + ChunkRows - 1 (re = 2 tid + 1), nullptr when none
  const double* tsrc;
  int toff;            // re SharedStride + ChunkRows
  __device__ __forceinline__ void init(const double* base, int j0, int Jr, std::int64_t ld, int tid) {
    const int nr = min(TileColumns, Jr - j0);
    const int u = tid % H, r0 = tid / H, par = ParityShift ? r0 & 1 : 0;
    nit = r0 < nr ? (nr - r0 + R - 1) / R : 0;
    src = base + std::int64_t(j0 + r0) * ld + 2 * u - par;
    step = std::int64_t(R) * ld;
    soff = r0 * SharedStride + 2 * u;
    if constexpr (ParityShift) {
      const int re = 2 * tid + 1;
      tsrc = re < nr ? base + std::int64_t(j0 + re) * ld + (ChunkRows - 1) : nullptr;
      toff = re * SharedStride + ChunkRows;
    }
  }
  // rows k0 .. k0 + ChunkRows - 1; the last chunk of the matrix (k0 + ChunkRows > K) zero-fills the rows k >= K
  // (checked copies, once per matrix); base: any valid address (not read) for the zero-byte copies
  __device__ __forceinline__ void load(double* s, std::int64_t k0, std::int64_t K, const double* base) const {
    const double* q = src + k0;
    double* d = s + soff;
    if (k0 + ChunkRows <= K) {
#pragma unroll
      for (int i = 0; i < NI; ++i) {
        if (i < nit) cp_async16(d + i * R * SharedStride, q, 16);
        q += step;
      }
      if constexpr (ParityShift)
        if (tsrc) cp_async<8>(s + toff, tsrc + k0, true);
    } else {
      const int rem = int(K - k0);  // valid rows of this chunk, < ChunkRows
      // first element of this thread's copies: 2u - par
      const int kk = ParityShift ? 2 * (soff % SharedStride / 2) - (soff / SharedStride & 1) : soff % SharedStride;
      const int bytes = kk + 1 < rem ? 16 : (kk < rem ? 8 : 0);
#pragma unroll
      for (int i = 0; i < NI; ++i) {
        if (i < nit) cp_async_pair(d + i * R * SharedStride, bytes ? q : base, bytes);
        q += step;
      }
      if constexpr (ParityShift)
        if (tsrc) cp_async<8>(s + toff, ChunkRows - 1 < rem ? tsrc + k0 : base, ChunkRows - 1 < rem);
    }
  }
};

// dense_complex_rows: a dense row-major complex operand (row stride == real width J, J even) one tile wide (j0 == 0). A
// chunk of ChunkRows rows is one contiguous run of ChunkRows*J doubles; it is copied with 16-byte cp.async into the
// padded [k][j] rows of pairs16 (row stride SharedStride), so the fragment reads stay pairs16's. pairs16 spent ~20
// instructions and three predicated cp.async per 16-byte copy (division by the row length, 64-bit index math, the
// 8-byte fallback); here each thread walks its copies with a running (row, column) pair: per copy a 64-bit add, a few
// integer adds and one cp.async. Columns J..SharedStride-1 are never copied: the kernel zeroes them once. It pays most
// at the wide tiles, with 9 warps per SM, so the copy instructions sat on the critical path between the barriers.
template <int ChunkRows, int BlockThreads, int SharedStride>
struct DenseRowLoader {
  int J;       // real width (row length in doubles, even)
  int r0, c0;  // row / column of this thread's first copy (element 2 tid of the chunk)
  int dr, dc;  // 2 BlockThreads = dr J + dc
  __device__ __forceinline__ void init(int Jr, int tid) {
    J = Jr;
    r0 = 2 * tid / J;
    c0 = 2 * tid % J;
    dr = 2 * BlockThreads / J;
    dc = 2 * BlockThreads % J;
  }
  // rows k0 .. k0 + ChunkRows - 1; rows k >= K are zero-filled; base: any valid address for the zero-byte copies
  __device__ __forceinline__ void load(double* s, const double* base, std::int64_t k0, std::int64_t K,
                                       int tid) const {
    const int ntot = ChunkRows * J, nv = k0 + ChunkRows <= K ? ntot : int(K - k0) * J;
    const double* src = base + k0 * J + 2 * tid;
    int r = r0, c = c0;
#pragma unroll 4
    for (int e = 2 * tid; e < ntot; e += 2 * BlockThreads) {
      const int bytes = e < nv ? 16 : 0;
      cp_async16(s + r * SharedStride + c, bytes ? src : base, bytes);
      src += 2 * BlockThreads;
      r += dr;
      c += dc;
      if (c >= J) {
        c -= J;
        ++r;
      }
    }
  }
};

// flat_odd ("flat"): a dense row-major real operand (row stride == width J, J odd) whose whole width is one
// tile (j0 == 0). A chunk of ChunkRows rows is then ONE contiguous run of ChunkRows*J doubles in global memory; it is
// copied as such with 16-byte cp.async into shared memory with row stride J (no padding). Per 16 bytes this costs an
// address increment, a compare and the copy, against shifted_pairs16's parity shift, two validity checks with 64-bit
// index math and a lone 8-byte copy per odd row, which left the odd D widths issue-bound, far below the even ones.
// - Alignment: the chunk starts at element k0*J with k0 a multiple of ChunkRows (even), so at an even element: 16-byte
//   aligned when the base pointer is. ChunkRows*J is even, so a chunk is whole 16-byte copies; only the end of the
//   matrix (K*J odd, i.e. K odd) ends in a half pair, copied as 8 bytes + an 8-byte zero fill.
// - Zero fill: every element of the chunk past K*J (rows k >= K, all their columns) is zero-filled, so the
//   K-tail rows are exact zeros in the columns < J that feed valid outputs (0 * 0 = 0, no NaN).
// - Reads past a row: a fragment reading column j >= J of row r gets element j - J of row r + 1 (or the
//   zeroed tail of the stage, see the kernel) -- real data of another k, but it only feeds P rows / columns
//   >= J, which are never stored (the epilogue's r < Mr, c < Nr masks), and an mma output element depends only
//   on its own row of A and column of B, so nothing leaks into valid outputs.
template <int ChunkRows, int BlockThreads>
__device__ __forceinline__ void dmma_load_flat(double* s, const double* base, std::int64_t k0, std::int64_t K, int J,
                                               int tid) {
  const int n = ChunkRows * J;           // doubles in a full chunk (even)
  const double* src = base + k0 * J;     // 16-byte aligned (k0 even)
  if (k0 + ChunkRows <= K) {
#pragma unroll 4
    for (int e = 2 * tid; e < n; e += 2 * BlockThreads) cp_async16(s + e, src + e, 16);
  } else {  // the last chunk of the matrix: nv valid doubles, the rest zero-filled
    const int nv = int((K - k0) * J);
    for (int e = 2 * tid; e < n; e += 2 * BlockThreads) {
      const int bytes = e + 1 < nv ? 16 : (e < nv ? 8 : 0);
      cp_async_pair(s + e, bytes ? src + e : base, bytes);
    }
  }
}

// Shared memory that the staging of a chunk never writes but the fragments read, zeroed once before the first barrier
// (plain stores, visible after it) so that no stale value (NaN, Inf) ever meets a multiply (it could only reach
// discarded outputs, but this keeps every accumulator finite and the result independent of what ran before). The
// arguments come by value, as for dmma_add_to_workspace:
//  - dense_complex_rows: columns J .. LD - 1 of every staged row;
//  - the column-pair loaders (ColumnPairs): the rows of a tile past the matrix;
//  - flat staging: [0, ChunkRows J) of a stage is filled; the fragments of the last row read up to
//    (ChunkRows - 1) J + TileColumns - 1 (columns >= J: outputs that are never stored). (ChunkRows J + TileColumns - J
//    <= ChunkRows LD: in bounds.)
template <class Shape, bool ColumnPairs>
__device__ __forceinline__ void dmma_zero_uncopied_shared(const DmmaArgs p, double* As, double* Bs, int pm0, int pn0,
                                                          int tid) {
  constexpr int BT = Shape::BT, LDA = Shape::LDA, LDB = Shape::LDB, Stages = Shape::kStages,
                ChunkRows = Shape::kChunkRows, BlockRows = Shape::kBlockRows, BlockColumns = Shape::kBlockColumns;
  constexpr InnerCopy CopyMode = Shape::kCopyMode;
  constexpr bool FLAT =
      (CopyMode == InnerCopy::flat_odd || CopyMode == InnerCopy::flat_2mod4 || CopyMode == InnerCopy::flat_4mod8);
  if constexpr (CopyMode == InnerCopy::dense_complex_rows) {
    for (int e = tid; e < Stages * ChunkRows * LDA; e += BT)
      if (e % LDA >= p.Mr) As[e] = 0.0;
    for (int e = tid; e < Stages * ChunkRows * LDB; e += BT)
      if (e % LDB >= p.Nr) Bs[e] = 0.0;
  }
  if constexpr (ColumnPairs) {
    for (int st = 0; st < Stages; ++st) {
      for (int e = max(0, p.Mr - pm0) * LDA + tid; e < BlockRows * LDA; e += BT) As[st * Shape::SA + e] = 0.0;
      for (int e = max(0, p.Nr - pn0) * LDB + tid; e < BlockColumns * LDB; e += BT) Bs[st * Shape::SB + e] = 0.0;
    }
  }
  if constexpr (FLAT) {
    for (int st = 0; st < Stages; ++st) {
      for (int e = p.Mr * ChunkRows + tid; e < p.Mr * (ChunkRows - 1) + BlockRows; e += BT)
        As[st * Shape::SA + e] = 0.0;
      for (int e = p.Nr * ChunkRows + tid; e < p.Nr * (ChunkRows - 1) + BlockColumns; e += BT)
        Bs[st * Shape::SB + e] = 0.0;
    }
  }
}

// The kernel's epilogue, step 1: each P entry has exactly one owner per block, which adds it to the zero-kept workspace
// W with one atomic. Complex three-product accumulators (acc[0..2] = sum a_r b_r, sum a_i b_i,
// sum (a_r + a_i)(b_r - b_i)) go in already combined: real part to P_rr's slot, imaginary part to P_ri's; P_ii and
// P_ir stay zero, so step 2's combine (P_rr + P_ii, P_ri - P_ir) reads them unchanged. The arguments come by value:
// taken by reference (or field by field), ptxas scheduled some complex kernels differently.
template <bool IsComplex, int WarpRowFragments, int WarpColumnFragments, bool ThreeProducts>
__device__ __forceinline__ void dmma_add_to_workspace(
    const DmmaArgs p, double (&acc)[ThreeProducts ? 3 : 1][WarpRowFragments][WarpColumnFragments][2], int pm0, int pn0,
    int wm, int wn, int g, int t) {
  const int Mr = p.Mr, Nr = p.Nr;
  if constexpr (ThreeProducts) {
#pragma unroll
    for (int ii = 0; ii < WarpRowFragments; ++ii)
#pragma unroll
      for (int jj = 0; jj < WarpColumnFragments; ++jj) {
        const int m = pm0 / 2 + wm * 8 * WarpRowFragments + 8 * ii + g;
        const int n = pn0 / 2 + wn * 8 * WarpColumnFragments + 8 * jj + 2 * t;
#pragma unroll
        for (int q = 0; q < 2; ++q)
          if (m < p.M && n + q < p.N) {
            const double rr = acc[0][ii][jj][q], ii2 = acc[1][ii][jj][q];
            double* w = p.W + std::int64_t(2 * m) * Nr + 2 * (n + q);
            atomicAdd(w, rr + ii2);
            atomicAdd(w + 1, rr - ii2 - acc[2][ii][jj][q]);
          }
      }
  } else {
#pragma unroll
    for (int ii = 0; ii < WarpRowFragments; ++ii)
#pragma unroll
      for (int jj = 0; jj < WarpColumnFragments; ++jj) {
        const int r = pm0 + wm * 8 * WarpRowFragments + 8 * ii + g;
        const int c = pn0 + wn * 8 * WarpColumnFragments + 8 * jj + 2 * t;
        if (r < Mr) {
          if (c < Nr) atomicAdd(p.W + std::int64_t(r) * Nr + c, acc[0][ii][jj][0]);
          if (c + 1 < Nr) atomicAdd(p.W + std::int64_t(r) * Nr + c + 1, acc[0][ii][jj][1]);
        }
      }
  }
}

// Step 2, in the last block of a tile to finish (the kernel counts arrivals per tile): read the summed workspace,
// write C = alpha P + beta C (complex: alpha (P_rr + P_ii + i (P_ri - P_ir)) + beta C) and leave the workspace zero
// for the next call.
template <bool IsComplex, int BlockRows, int BlockColumns, int BlockThreads>
__device__ __forceinline__ void dmma_write_c_from_workspace(const DmmaArgs& p, int pm0, int pn0, int tid) {
  const int Nr = p.Nr;
  constexpr int CM = IsComplex ? BlockRows / 2 : BlockRows, CN = IsComplex ? BlockColumns / 2 : BlockColumns;
  for (int e = tid; e < CM * CN; e += BlockThreads) {
    const int m = (IsComplex ? pm0 / 2 : pm0) + e / CN, n = (IsComplex ? pn0 / 2 : pn0) + e % CN;
    if (m >= p.M || n >= p.N) continue;
    const std::int64_t off = p.crow ? std::int64_t(m) * p.ldc + n : m + std::int64_t(n) * p.ldc;
    if constexpr (IsComplex) {
      double* w0 = p.W + std::int64_t(2 * m) * Nr + 2 * n;
      double* w1 = w0 + Nr;
      const double rr = __ldcg(w0), ri = __ldcg(w0 + 1), ir = __ldcg(w1), ii = __ldcg(w1 + 1);
      const double sr = rr + ii, si = ri - ir;
      double outr = p.al_re * sr - p.al_im * si, outi = p.al_re * si + p.al_im * sr;
      cpx<double>* cp = static_cast<cpx<double>*>(p.C) + off;
      if (!p.beta_zero) {
        const cpx<double> o = *cp;
        outr += p.be_re * o.x - p.be_im * o.y;
        outi += p.be_re * o.y + p.be_im * o.x;
      }
      *cp = cpx<double>{outr, outi};
      __stcg(w0, 0.0);
      __stcg(w0 + 1, 0.0);
      __stcg(w1, 0.0);
      __stcg(w1 + 1, 0.0);
    } else {
      double* w = p.W + std::int64_t(m) * Nr + n;
      double out = p.al_re * __ldcg(w);
      double* cp = static_cast<double*>(p.C) + off;
      if (!p.beta_zero) out += p.be_re * (*cp);
      *cp = out;
      __stcg(w, 0.0);
    }
  }
}

template <bool IsComplex, int BlockRows, int BlockColumns, int WarpRowFragments, int WarpColumnFragments, int ChunkRows,
          int Stages, bool KMajor, InnerCopy CopyMode, bool ThreeProducts>
__global__ void __launch_bounds__(DmmaShape<BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                            Stages, KMajor, CopyMode, ThreeProducts>::BT,
                                  1) tsmttsm_dmma_kernel(const DmmaArgs p) {
  using Sh = DmmaShape<BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows, Stages, KMajor,
                       CopyMode, ThreeProducts>;
  constexpr int BT = Sh::BT, LDA = Sh::LDA, LDB = Sh::LDB;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* As = reinterpret_cast<double*>(smem_raw);  // [Stages][SA]
  double* Bs = As + Stages * Sh::SA;                      // [Stages][SB]
  __shared__ bool s_last;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp % Sh::WM, wn = warp / Sh::WM;
  const int pm0 = blockIdx.y * BlockRows, pn0 = blockIdx.z * BlockColumns;
  const std::int64_t K = p.K;
  const std::int64_t nchunks = (K + ChunkRows - 1) / ChunkRows;
  // Complex 128 tiles (widths 57-64, and the last column tile of wider ones): a warp's 8-column fragments that lie
  // wholly past the real width Nr are zero padding (57-60: 114-120 of 128 columns); they are neither read nor
  // multiplied (jj < nfn, warp-uniform). Rows are not skipped: their m16 pairs are never all padding from 57 on.
  // The time gain is small (the power cap, not the DMMA pipe, sets the pace there, and zero operands cost little
  // power), but without these predicates 5 of the 6 WarpRowFragments 4 WarpColumnFragments 4 kernels spill 44-68 bytes
  // at the 128-register cap of 512 threads (ptxas); with them none do.
  constexpr bool SKIPN = IsComplex && !ThreeProducts && BlockColumns >= 128;
  const int nfn = SKIPN ? min(WarpColumnFragments, max(0, (p.Nr - pn0 - wn * 8 * WarpColumnFragments + 7) / 8))
                        : WarpColumnFragments;

  // flat staging (flat_odd, flat_2mod4, flat_4mod8: odd J, J = 2 mod 4, J = 4 mod 8): TS rows between the k rows of
  // lanes t and t + 1
  constexpr bool FLAT =
      (CopyMode == InnerCopy::flat_odd || CopyMode == InnerCopy::flat_2mod4 || CopyMode == InnerCopy::flat_4mod8);
  constexpr int TS = CopyMode == InnerCopy::flat_odd ? 4 : CopyMode == InnerCopy::flat_2mod4 ? 2 : 1;
  static_assert(!FLAT || (!KMajor && ChunkRows % (4 * TS) == 0), "flat staging: [k][j], k groups of 4 TS");
  static_assert(
      CopyMode != InnerCopy::complex_columns || (IsComplex && !KMajor && BlockRows % 2 == 0 && BlockColumns % 2 == 0),
      "complex column rows: complex only");
  static_assert(CopyMode != InnerCopy::dense_complex_rows || !KMajor, "dense row loader: [k][j] staging");
  static_assert(!ThreeProducts || (IsComplex && !KMajor &&
                                   (CopyMode == InnerCopy::pairs16 || CopyMode == InnerCopy::complex_columns ||
                                    CopyMode == InnerCopy::dense_complex_rows) &&
                                   WarpRowFragments % 2 == 0),
                "three-product complex: (re, im) pairs adjacent in shared memory, m16 fragment pairs");
  // column-major real: odd leading dimension (shifted_pairs16, KMajor; real view: rs = 1, c1 = ld, c2 = 2 ld) with the
  // parity shift, even one (pairs16, KMajor, real operands; c1 = ld) without
  using CLA = ColPairLoader<BlockRows, ChunkRows, BT, LDA, CopyMode == InnerCopy::shifted_pairs16>;
  using CLB = ColPairLoader<BlockColumns, ChunkRows, BT, LDB, CopyMode == InnerCopy::shifted_pairs16>;
  constexpr bool COLPAIR = KMajor &&
                           (CopyMode == InnerCopy::shifted_pairs16 || (CopyMode == InnerCopy::pairs16 && !IsComplex)) &&
                           CLA::ok && CLB::ok;
  CLA cla;
  CLB clb;
  // dense one-tile row-major complex (dense_complex_rows)
  DenseRowLoader<ChunkRows, BT, LDA> dra;
  DenseRowLoader<ChunkRows, BT, LDB> drb;
  if constexpr (CopyMode == InnerCopy::dense_complex_rows) {
    dra.init(p.Mr, tid);
    drb.init(p.Nr, tid);
  }
  if constexpr (COLPAIR) {
    cla.init(p.A, pm0, p.Mr, p.ac1, tid);
    clb.init(p.B, pn0, p.Nr, p.bc1, tid);
  }
  dmma_zero_uncopied_shared<Sh, COLPAIR>(p, As, Bs, pm0, pn0, tid);
  // part: 0 = A only, 1 = B only, 2 = both
  auto load_stage = [&](std::int64_t chunk, int st, int part = 2) {
    const bool pa = part != 1, pb = part != 0;
    const std::int64_t k0 = chunk * ChunkRows;
    if constexpr (FLAT) {
      if (pa) dmma_load_flat<ChunkRows, BT>(As + st * Sh::SA, p.A, k0, K, p.Mr, tid);
      if (pb) dmma_load_flat<ChunkRows, BT>(Bs + st * Sh::SB, p.B, k0, K, p.Nr, tid);
    } else if constexpr (CopyMode == InnerCopy::dense_complex_rows) {
      if (pa) dra.load(As + st * Sh::SA, p.A, k0, K, tid);
      if (pb) drb.load(Bs + st * Sh::SB, p.B, k0, K, tid);
    } else if constexpr (COLPAIR) {
      if (pa) cla.load(As + st * Sh::SA, k0, K, p.A);
      if (pb) clb.load(Bs + st * Sh::SB, k0, K, p.B);
    } else {
      if (pa)
        dmma_load<BlockRows, ChunkRows, BT, LDA, KMajor, CopyMode>(As + st * Sh::SA, p.A, k0, pm0, K, p.Mr, p.ars,
                                                                   p.ac1, p.ac2, p.ajfast, tid);
      if (pb)
        dmma_load<BlockColumns, ChunkRows, BT, LDB, KMajor, CopyMode>(Bs + st * Sh::SB, p.B, k0, pn0, K, p.Nr, p.brs,
                                                                      p.bc1, p.bc2, p.bjfast, tid);
    }
  };
  // ThreeProducts: acc[0] = sum a_r b_r, acc[1] = sum a_i b_i, acc[2] = sum (a_r + a_i)(b_r - b_i); else acc[0] = P
  double acc[ThreeProducts ? 3 : 1][WarpRowFragments][WarpColumnFragments][2];
#pragma unroll
  for (int q = 0; q < (ThreeProducts ? 3 : 1); ++q)
#pragma unroll
    for (int i = 0; i < WarpRowFragments; ++i)
#pragma unroll
      for (int j = 0; j < WarpColumnFragments; ++j) acc[q][i][j][0] = acc[q][i][j][1] = 0.0;

  // pipeline over this block's chunks: chunk_i = blockIdx.x + i * gridDim.x
  const std::int64_t my = nchunks > blockIdx.x ? (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < my) load_stage(blockIdx.x + std::int64_t(s) * gridDim.x, s);
    cp_async_commit();
  }
  // Complex wide tiles (BlockRows >= 80, 1 block of 8-18 warps per SM): the next stage's copies are issued between the
  // k-steps (A after the first, B after the second) instead of all at the top of the chunk, where every warp spent
  // its copy instructions before its first DMMA and then stalled on long-scoreboard waits. Measured faster at the
  // 96 and 128 tiles (equal at width 48); the 80 tile (widths 33-40, 10 warps) was tuned with them.
  constexpr bool SPREAD = IsComplex && BlockRows >= 80 && ChunkRows >= 16;
  for (std::int64_t i = 0; i < my; ++i) {
    cp_async_wait<Stages - 2>();
    __syncthreads();
    const std::int64_t nx = i + Stages - 1;
    if constexpr (!SPREAD) {
      if (nx < my) load_stage(blockIdx.x + nx * gridDim.x, int(nx % Stages));
      cp_async_commit();
    }
    auto spread_copies = [&](int ks) {
      if constexpr (SPREAD) {
        if (nx < my && ks < 2) load_stage(blockIdx.x + nx * gridDim.x, int(nx % Stages), ks);
      }
    };
    const int st = int(i % Stages);
    // shifted_pairs16 stores shared row r shifted by r & 1: the row index is k = 8 ks + 4 h + t (parity of t) or,
    // KMajor, the column 8 (wm WarpRowFragments + ii) + g (parity of g)
    const int shift = CopyMode == InnerCopy::shifted_pairs16 ? (KMajor ? (g & 1) : (t & 1)) : 0;
    // KMajor shifted_pairs16 (column-major, odd ld): with k = 8 ks + 4 h + t a half-warp (g 0..3, t 0..3) reads the
    // double slots g LD + (g & 1) + t (mod 16), LD = 4 (mod 16): g = 1 and g = 2 (g = 3 and g = 0) share one slot, a
    // 2-way bank conflict. The k order inside a chunk is free (summed; A and B read the same one), so lane t takes k =
    // 8 ks + 2 t + h: slots g LD + (g & 1) + 2 t + h, even rows on {0, 2, .., 14} + h, odd rows on the odd slots: 16
    // distinct per half-warp (conflict-free). This halves the shared wavefronts but barely changes the time: the shared
    // pipe was not the limiter (8 warps per SM).
    constexpr bool PAIRK = KMajor && CopyMode == InnerCopy::shifted_pairs16;
    const int tk = PAIRK ? 2 * t : t;
    const double* as = As + st * Sh::SA +
                       (KMajor ? (wm * 8 * WarpRowFragments + g) * LDA + tk : t * LDA + wm * 8 * WarpRowFragments + g) +
                       shift;
    const double* bs =
        Bs + st * Sh::SB +
        (KMajor ? (wn * 8 * WarpColumnFragments + g) * LDB + tk : t * LDB + wn * 8 * WarpColumnFragments + g) + shift;
    // complex_columns: real column j = 8 (w WarpRowFragments + ii) + g is part g & 1 of complex row
    // (j >> 1) = 4 (w WarpRowFragments + ii) + (g >> 1), element k at 2 k. A half-warp (g < 4 or g >= 4, t 0..3) hits
    // slots (g >> 1) LD + (g & 1) + 2 t: with LD = 8 (mod 16) the 16 lanes take 16 distinct 8-byte slots
    // (conflict-free).
    const double* ac = As + st * Sh::SA + (wm * 4 * WarpRowFragments + (g >> 1)) * LDA + (g & 1) + 2 * t;
    const double* bc = Bs + st * Sh::SB + (wn * 4 * WarpColumnFragments + (g >> 1)) * LDB + (g & 1) + 2 * t;
    // flat_odd (flat, runtime row stride J = Mr / Nr, odd): with the fixed order (k = 8 ks + 4 h + t) the
    // half-warp of an 8-byte load (g in 4 values, t in 0..3) hits double slots t*J + g (mod 16), up to 4 lanes
    // on one slot for odd J (4-way bank conflicts). The k order inside a chunk is free (summed; A and B use the
    // same one), so lane t of k-group q = 2 ks + h reads row 4 t + (q & 3) + 16 (q >> 2): rows 4 t apart give
    // slots 4 (t J mod 4) + g, which are 16 distinct for odd J (conflict-free). Each of the ChunkRows rows is read
    // exactly once per chunk (q & 3 and q >> 2 over the ChunkRows / 4 groups, t over 0..3).
    // Even J (flat_2mod4, flat_4mod8; measured against pairs16's padded per-row pairs): J = 2 mod 4 takes rows 2 t
    // apart (slots 4 (t J / 2 mod 4) + g, J / 2 odd), J = 4 mod 8 rows t apart (slots 4 (t J / 4 mod 4) + g, J / 4
    // odd): in general lane t of group q reads row TS t + (q mod TS) + 4 TS (q / TS) (TS = 4, 2, 1), each row once per
    // chunk.
    const double* af = As + st * Sh::SA + TS * t * p.Mr + wm * 8 * WarpRowFragments + g;
    const double* bf = Bs + st * Sh::SB + TS * t * p.Nr + wn * 8 * WarpColumnFragments + g;
    if constexpr (ThreeProducts) {
      // Three real products (Gauss): conj(a) b = (a_r b_r + a_i b_i) + i (a_r b_i - a_i b_r), and
      // (a_r + a_i)(b_r - b_i) = a_r b_r - a_i b_i - (a_r b_i - a_i b_r), so 3 real M x N products give it instead
      // of the 4 of the 2M x 2N real view: 3/4 of the DMMA work. A lane's (re, im) pair is one 16-byte shared load
      // (adjacent in both layouts). Complex row mc = wm 8 WarpRowFragments + 8 ii + g of the block: [k][j] staging
      // (pairs16, dense_complex_rows) at k LDA + 2 mc, complex_columns at mc LDA + 2 k. 8 lanes of a 16-byte load (g in
      // 2 values, t 0..3) hit 8 distinct 16-byte slots: 4 t + 2 g (mod 16, LDA = 4 mod 16) or 8 g + 2 t
      // (LDA = 8 mod 16). Rounding: the imaginary part is a difference of sums bounded by 2 sum |a| |b| (not by
      // |result|), inside the raw test's normwise tolerance 4 (K + 8) eps sum |a| |b| (the measured error stays far
      // inside it, as for the 4-product kernel).
      const double* a3 = As + st * Sh::SA +
                         (CopyMode == InnerCopy::complex_columns ? (wm * 8 * WarpRowFragments + g) * LDA + 2 * t
                                                                 : t * LDA + 2 * (wm * 8 * WarpRowFragments + g));
      const double* b3 = Bs + st * Sh::SB +
                         (CopyMode == InnerCopy::complex_columns ? (wn * 8 * WarpColumnFragments + g) * LDB + 2 * t
                                                                 : t * LDB + 2 * (wn * 8 * WarpColumnFragments + g));
#pragma unroll
      for (int ks = 0; ks < ChunkRows / 8; ++ks) {
        double ar[WarpRowFragments][2], ai[WarpRowFragments][2], as3[WarpRowFragments][2], br[WarpColumnFragments][2],
            bi[WarpColumnFragments][2], bd[WarpColumnFragments][2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int k = 8 * ks + 4 * h;
#pragma unroll
          for (int ii = 0; ii < WarpRowFragments; ++ii) {
            const double2 v = *reinterpret_cast<const double2*>(
                a3 + (CopyMode == InnerCopy::complex_columns ? 8 * ii * LDA + 2 * k : k * LDA + 16 * ii));
            ar[ii][h] = v.x;
            ai[ii][h] = v.y;
            as3[ii][h] = v.x + v.y;
          }
#pragma unroll
          for (int jj = 0; jj < WarpColumnFragments; ++jj) {
            const double2 v = *reinterpret_cast<const double2*>(
                b3 + (CopyMode == InnerCopy::complex_columns ? 8 * jj * LDB + 2 * k : k * LDB + 16 * jj));
            br[jj][h] = v.x;
            bi[jj][h] = v.y;
            bd[jj][h] = v.x - v.y;
          }
        }
#pragma unroll
        for (int ii = 0; ii < WarpRowFragments; ii += 2)
#pragma unroll
          for (int jj = 0; jj < WarpColumnFragments; ++jj) {
            dmma16(acc[0][ii][jj], acc[0][ii + 1][jj], ar[ii][0], ar[ii + 1][0], ar[ii][1], ar[ii + 1][1], br[jj][0],
                   br[jj][1]);
            dmma16(acc[1][ii][jj], acc[1][ii + 1][jj], ai[ii][0], ai[ii + 1][0], ai[ii][1], ai[ii + 1][1], bi[jj][0],
                   bi[jj][1]);
            dmma16(acc[2][ii][jj], acc[2][ii + 1][jj], as3[ii][0], as3[ii + 1][0], as3[ii][1], as3[ii + 1][1],
                   bd[jj][0], bd[jj][1]);
          }
        spread_copies(ks);
      }
    } else {
      // k in steps of 8: fragment pairs (ii, ii + 1) are the upper and lower halves of one m16n8k8 (full rate on
      // sm_90); an odd last fragment row falls back to two m8n8k4 (half rate).
#pragma unroll
      for (int ks = 0; ks < ChunkRows / 8; ++ks) {
        double a[WarpRowFragments][2], b[WarpColumnFragments][2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if constexpr (FLAT) {
            const int q = 2 * ks + h, r = q % TS + 4 * TS * (q / TS);
            const double* ar = af + r * p.Mr;
            const double* br = bf + r * p.Nr;
#pragma unroll
            for (int ii = 0; ii < WarpRowFragments; ++ii) a[ii][h] = ar[8 * ii];
#pragma unroll
            for (int jj = 0; jj < WarpColumnFragments; ++jj) b[jj][h] = br[8 * jj];
          } else if constexpr (CopyMode == InnerCopy::complex_columns) {
            const int k = 8 * ks + 4 * h;
#pragma unroll
            for (int ii = 0; ii < WarpRowFragments; ++ii) a[ii][h] = ac[4 * ii * LDA + 2 * k];
#pragma unroll
            for (int jj = 0; jj < WarpColumnFragments; ++jj)
              if (!SKIPN || jj < nfn) b[jj][h] = bc[4 * jj * LDB + 2 * k];
          } else {
            const int k = PAIRK ? 8 * ks + h : 8 * ks + 4 * h;
#pragma unroll
            for (int ii = 0; ii < WarpRowFragments; ++ii)
              a[ii][h] = KMajor ? as[8 * ii * LDA + k] : as[k * LDA + 8 * ii];
#pragma unroll
            for (int jj = 0; jj < WarpColumnFragments; ++jj)
              if (!SKIPN || jj < nfn) b[jj][h] = KMajor ? bs[8 * jj * LDB + k] : bs[k * LDB + 8 * jj];
          }
        }
#pragma unroll
        for (int ii = 0; ii + 1 < WarpRowFragments; ii += 2)
#pragma unroll
          for (int jj = 0; jj < WarpColumnFragments; ++jj)
            if (!SKIPN || jj < nfn)
              dmma16(acc[0][ii][jj], acc[0][ii + 1][jj], a[ii][0], a[ii + 1][0], a[ii][1], a[ii + 1][1], b[jj][0],
                     b[jj][1]);
        if constexpr (WarpRowFragments % 2 == 1) {
#pragma unroll
          for (int jj = 0; jj < WarpColumnFragments; ++jj) {
            dmma(acc[0][WarpRowFragments - 1][jj][0], acc[0][WarpRowFragments - 1][jj][1], a[WarpRowFragments - 1][0],
                 b[jj][0]);
            dmma(acc[0][WarpRowFragments - 1][jj][0], acc[0][WarpRowFragments - 1][jj][1], a[WarpRowFragments - 1][1],
                 b[jj][1]);
          }
        }
        spread_copies(ks);
      }
    }
    if constexpr (SPREAD) cp_async_commit();  // one group per chunk, as above
  }
  cp_async_wait<0>();

  dmma_add_to_workspace<IsComplex, WarpRowFragments, WarpColumnFragments, ThreeProducts>(p, acc, pm0, pn0, wm, wn, g,
                                                                                           t);
  __threadfence();
  __syncthreads();
  const int tile = blockIdx.y * gridDim.z + blockIdx.z;
  if (tid == 0) s_last = (atomicAdd(p.counters + tile, 1u) == gridDim.x - 1);
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  dmma_write_c_from_workspace<IsComplex, BlockRows, BlockColumns, BT>(p, pm0, pn0, tid);
  if (tid == 0) p.counters[tile] = 0u;
}

// Launch on a TsmttsmArgs (real or complex double), non-deterministic mode.
template <bool IsComplex, int BlockRows, int BlockColumns, int WarpRowFragments, int WarpColumnFragments, int ChunkRows,
          int Stages, bool KMajor, InnerCopy CopyMode, bool ThreeProducts = false>
cudaError_t launch_tsmttsm_dmma_v(const TsmttsmArgs<double, IsComplex>& a, cudaStream_t stream) {
  using Sh = DmmaShape<BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows, Stages, KMajor,
                       CopyMode, ThreeProducts>;
  constexpr int U = ThreeProducts ? 16 : 8;  // rows / columns of the real view per fragment
  static_assert(
      BlockRows % (U * WarpRowFragments) == 0 && BlockColumns % (U * WarpColumnFragments) == 0 && ChunkRows % 8 == 0,
      "bad DMMA shape");
  auto kern = tsmttsm_dmma_kernel<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                  Stages, KMajor, CopyMode, ThreeProducts>;
  static int occ[kMaxDevices] = {0};
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  if (occ[dev] == 0) {
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Sh::smem));
    if (e != cudaSuccess) return e;
    occ[dev] = blocks_per_sm(kern, Sh::BT, Sh::smem);
  }
  DmmaArgs d{};
  const int f = IsComplex ? 2 : 1;
  d.A = reinterpret_cast<const double*>(a.A);
  d.B = reinterpret_cast<const double*>(a.B);
  d.C = a.C;
  d.ldc = a.ldc;
  d.crow = a.crow;
  d.K = a.K;
  d.M = a.M;
  d.N = a.N;
  d.Mr = f * a.M;
  d.Nr = f * a.N;
  // real view of element (k, m) part q: doubles at f*(k*ask + m*asm) + q; j = f*m + q
  auto view = [&](std::int64_t sk, std::int64_t sm, std::int64_t& rs, std::int64_t& c1, std::int64_t& c2, bool& jf) {
    rs = f * sk;
    if (IsComplex) {
      c1 = 1;
      c2 = 2 * sm;
    } else {
      c1 = sm;
      c2 = 2 * sm;
    }
    jf = (sm == 1) || (sk != 1 && sm < sk);
  };
  view(a.ask, a.asm_, d.ars, d.ac1, d.ac2, d.ajfast);
  view(a.bsk, a.bsm, d.brs, d.bc1, d.bc2, d.bjfast);
  d.al_re = a.alpha.re;
  d.al_im = a.alpha.im;
  d.be_re = a.beta.re;
  d.be_im = a.beta.im;
  d.beta_zero = a.beta_zero;
  const int ty = (d.Mr + BlockRows - 1) / BlockRows, tz = (d.Nr + BlockColumns - 1) / BlockColumns;
  std::int64_t gx = std::int64_t(sm_count()) * occ[dev] / (std::int64_t(ty) * tz);
  const std::int64_t nchunks = (a.K + ChunkRows - 1) / ChunkRows;
  if (gx > nchunks) gx = nchunks;
  if (gx < 1) gx = 1;
  const std::size_t cnt_bytes = ((std::size_t(ty) * tz * sizeof(unsigned) + 255) / 256) * 256;
  void* ws = nullptr;
  cudaError_t err = workspace(stream, 0, cnt_bytes + std::size_t(d.Mr) * d.Nr * sizeof(double), &ws);
  if (err != cudaSuccess) return err;
  d.counters = static_cast<unsigned*>(ws);
  d.W = reinterpret_cast<double*>(static_cast<char*>(ws) + cnt_bytes);
  kern<<<dim3(unsigned(gx), unsigned(ty), unsigned(tz)), Sh::BT, Sh::smem, stream>>>(d);
  return cudaGetLastError();
}

// Picks the shared-memory layout and copy width: complex column-major stages one row per complex column
// (complex_columns); complex row-major dense one tile wide (lda == M, ldb == N) runs pairs16's [k][j] staging with the
// cheap DenseRowLoader copies (dense_complex_rows); other complex row-major and real row-major stage [k][j] with
// 16-byte copies of column pairs (pairs16); column-major real stages [j][k] with 16-byte copies of row pairs; row-major
// real operands that are both dense (leading dimension == width), of odd width and one tile wide: flat 16-byte copies
// of whole chunks (flat_odd, dmma_load_flat); other odd leading dimensions of a real matrix (both operands) 16-byte
// copies of parity-shifted pairs (shifted_pairs16; column-major: ColPairLoader); dense even widths one tile wide, both
// J = 2 mod 4 (flat_2mod4) or both J = 4 mod 8 (flat_4mod8): flat copies too; 8-byte copies otherwise (misaligned
// pointers, one odd and one even leading dimension). Mixed layouts are not taken here (cudaErrorNotSupported: the
// caller uses the SIMT kernel).
template <bool IsComplex, int BlockRows, int BlockColumns, int WarpRowFragments, int WarpColumnFragments, int ChunkRows,
          int Stages, bool ThreeProducts = false>
cudaError_t launch_tsmttsm_dmma(const TsmttsmArgs<double, IsComplex>& a, cudaStream_t stream) {
  const bool arow = a.asm_ == 1 && a.ask != 1, brow = a.bsm == 1 && a.bsk != 1;
  const bool acol = a.ask == 1, bcol = a.bsk == 1;
  static_assert(!ThreeProducts || IsComplex, "three products: complex only");
  auto al16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if constexpr (IsComplex) {
    if (arow && brow) {
      if (a.ask == a.M && a.bsk == a.N && 2 * a.M <= BlockRows && 2 * a.N <= BlockColumns)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, false, InnerCopy::dense_complex_rows, ThreeProducts>(a, stream);
      return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                   Stages, false, InnerCopy::pairs16, ThreeProducts>(a, stream);
    }
    if (acol && bcol)
      return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                   Stages, false, InnerCopy::complex_columns, ThreeProducts>(a, stream);
    return cudaErrorNotSupported;
  } else {
    const bool al = al16(a.A) && al16(a.B);
    if (arow && brow) {
      // dense even widths one tile wide, both in the same bank class: flat copies with a matching k order
      // (measured faster than pairs16 at widths 10-52)
      if (al && a.ask == a.M && a.bsk == a.N && a.M <= BlockRows && a.N <= BlockColumns) {
        if (a.M % 4 == 2 && a.N % 4 == 2 && ChunkRows % 8 == 0)
          return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                       ChunkRows, Stages, false, InnerCopy::flat_2mod4>(a, stream);
        if (a.M % 8 == 4 && a.N % 8 == 4 && ChunkRows % 4 == 0)
          return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                       ChunkRows, Stages, false, InnerCopy::flat_4mod8>(a, stream);
      }
      if (al && a.ask % 2 == 0 && a.bsk % 2 == 0)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, false, InnerCopy::pairs16>(a, stream);
      // dense (leading dimension == width), odd, one tile wide (grid y = z = 1): flat chunk copies (flat_odd)
      if (al && a.ask == a.M && a.bsk == a.N && a.M % 2 == 1 && a.N % 2 == 1 && a.M <= BlockRows && a.N <= BlockColumns)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, false, InnerCopy::flat_odd>(a, stream);
      if (al && a.ask % 2 == 1 && a.bsk % 2 == 1)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, false, InnerCopy::shifted_pairs16>(a, stream);
      return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                   Stages, false, InnerCopy::copy8>(a, stream);
    }
    if (acol && bcol) {
      if (al && a.asm_ % 2 == 0 && a.bsm % 2 == 0)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, true, InnerCopy::pairs16>(a, stream);
      if (al && a.asm_ % 2 == 1 && a.bsm % 2 == 1)
        return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments,
                                     ChunkRows, Stages, true, InnerCopy::shifted_pairs16>(a, stream);
      return launch_tsmttsm_dmma_v<IsComplex, BlockRows, BlockColumns, WarpRowFragments, WarpColumnFragments, ChunkRows,
                                   Stages, true, InnerCopy::copy8>(a, stream);
    }
    return cudaErrorNotSupported;
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
