// TSMM on the FP64 tensor cores for kbla::update: B = alpha * A * C + beta * B, A: K x M, C: M x N, B: K x N; B may be
// A (in place, M == N). Double and complex double at the widths where the SIMT FP64 pipe, not the memory, limits the
// SIMT kernel: mma.sync m16n8k8 f64 (sm_90) with alpha C held in registers and A streamed through cp.async stages.
// tsmm_dmma_try takes its rows (KBLA_TSMM_DMMA_* in tall_skinny_params.hpp) after the bulk-copy and one-thread-per-row
// kernels and before the SIMT table: double 7-64 (column-major from 12 or 24, by ld), complex double 12-64 and
// row-major odd 3-11. No Kokkos.

// Design
// - mma roles: the mma's 16 rows are 16 rows of A/B, its k (8) is the inner dimension M, its n (8) a slice of
//   the N columns. Complex runs as the real product of the interleaved view A' (K x 2M) with the 2M x 2N matrix
//   Ĉ[2p][2q] = Re C', Ĉ[2p+1][2q] = -Im C', Ĉ[2p][2q+1] = Im C', Ĉ[2p+1][2q+1] = Re C', C' = alpha C
//   (out re = a_re c_re - a_im c_im, out im = a_re c_im + a_im c_re), so B' = A' Ĉ is B's interleaved view.
//   Width (W in these notes) is the class width in that real view (complex: 2x the complex width).
// - alpha*C (Ĉ) lives in registers as B fragments for the whole run: warp (wn, wr) owns the 8*WarpColumnTiles columns
//   [8 WarpColumnTiles wn, 8 WarpColumnTiles (wn+1)) for all of the inner dimension (W/8 k-steps x WarpColumnTiles x 2
//   doubles per lane); WN warps cover the W columns, WarpRows warp rows split the rows of a chunk, so every output
//   element has one owner.
// - Chunks of ChunkRows (R in these notes) rows of A stream through Stages shared-memory stages by cp.async
//   (grid-stride over chunks, one block set that fills the GPU). A chunk's reads have all completed (wait_group +
//   __syncthreads) before any of its rows is written, and chunks belong to one block each, so B == A (in place) is
//   safe.
// - Fragment permutations (free, since the inner index is summed and rows are independent) make every A
//   fragment two 16-byte shared loads: mma row g -> physical row 2g, row g+8 -> 2g+1; inner t / t+4 ->
//   2t / 2t+1 for the [k][j] staging (row-major, real and complex), identity for the [m][k] staging (real
//   column-major, 16-byte copies of row pairs). Complex column-major stages [m][k][re,im] (each column's chunk
//   is one contiguous run in global and shared memory) with rows not permuted and inner t / t+4 -> re / im of
//   complex column 4 ks + t. Row strides are 4 (mod 16) doubles: the quarter-warp phases of these loads and of
//   the cp.async writes hit 8 distinct 16-byte bank groups.
// - Epilogue from registers: c0,c1 are (row 2g, cols 2t,2t+1), c2,c3 row 2g+1: row-major D writes 16 bytes per
//   lane (a warp covers 64 contiguous bytes of 8 rows: full sectors), column-major D writes (c0,c2) / (c1,c3)
//   row pairs, complex writes one 16-byte element per lane; no shared-memory staging needed. beta == 0 never
//   reads B.
// - Widths below the class: k-steps past roundup8(M') and n-tiles past N' are skipped (warp-uniform), so the
//   mma work follows the data width, not the class; the inner padding up to roundup8(M') is zero-filled by the
//   copies (0 * NaN would spread), rows past K are zero-filled and never stored.
// - pairs16: 16-byte copies / stores (pointers 16-byte aligned, leading dimensions even for D); copy8_columns: real
//   column-major at any lda: 8-byte copies into the offset_matched16 layout, staged column stores (see the launch;
//   row-major 8-byte copies measured slower than the SIMT kernel and were removed); flat_direct_stores and
//   flat_staged_stores (flat): row-major D with A dense (lda == M) of odd width, or of width 2 (mod 4) with B dense,
//   and complex of odd width (real view 2 mod 4) with B dense: a chunk of R rows is one contiguous run, copied flat
//   with 16-byte cp.async into rows of stride Mr (dmma_load_flat, inner_dmma.cuh), fragments by 8-byte loads with a row
//   permutation that keeps them conflict-free (tsmm_flat_row). flat_direct_stores stores B from the registers with
//   8-byte stores (any ldb); flat_staged_stores (B dense, ldb == N, 16-byte aligned) stages the chunk's B rows in the
//   consumed A stage (flat, row stride N) and writes them back as one contiguous run of 16-byte stores: the direct
//   8-byte stores of odd-width rows (rows at 8-byte offsets, two stores per column pair, each half-filling its sectors)
//   were the limiter. pairs16_staged_stores: row-major D of even width with B dense (ldb == N) and N not a multiple of
//   8: the A staging of pairs16, the staged B stores of flat_staged_stores (rows of N doubles at 16-byte offsets split
//   the direct stores' 64-byte runs over partial sectors). The classes W 16, 24 (D 9-23) run only flat_staged_stores /
//   pairs16_staged_stores (pairs16_staged_stores: widths 10, 12). shifted_rows16: complex row-major with odd lda and A
//   32-byte aligned: the odd rows of A start at 16 (mod 32) bytes and are copied shifted by one element (see the
//   kernel). offset_matched16: column-major with the odd columns of A at 16 (mod 32) bytes (real: lda = 2 mod 4,
//   complex: lda odd; A 32-byte aligned): the pairs16 copies into columns of stride 2 (mod 16) doubles, so that every
//   16-byte cp.async has the same offset (mod 32) in shared memory as in global memory; the inner k of the fragments is
//   permuted (real: 2 t + h; complex: even columns in even k-steps) to keep the fragment loads conflict-free. Staged
//   stores (StagedStores) also serve real column-major copy8_columns, complex row-major shifted_rows16 with odd N and B
//   dense (classes up to W 96), and complex column-major offset_matched16 with odd ldb (classes up to W 96, see the
//   launch).
// Mixed layouts (A row-major, B column-major or the reverse) return cudaErrorNotSupported: the SIMT kernel runs.
#pragma once
#include <cstdlib>

#include "tall_skinny_params.hpp"  // KBLA_TSMM_DMMA_D_ODD
#include "inner_dmma.cuh"  // dmma_load, DmmaArgs (the cp_async helpers: tall_skinny_common.cuh)

namespace kbla {
namespace cuda {
namespace detail {

struct TsmmDmmaArgs {
  const double* A;  // D: A(k, m) at A[k*ars + m*acs]; Z: re/im of A(k, m) at A[k*ars + m*acs] + 0/1
  double* B;        // same with brs, bcs
  const void* C;    // double or cpx<double>, M x N
  std::int64_t ldc;
  bool crow;
  std::int64_t K;
  int M, N;    // logical sizes
  int Mr, Nr;  // real-view widths
  std::int64_t ars, acs, brs, bcs;
  double al_re, al_im, be_re, be_im;
  bool beta_zero;
};

// Which operands the kernel takes (OperandLayout): A and B both row-major or both column-major.
enum class UpdateLayout { row_major, column_major };

// How a chunk of A is copied into shared memory and B written back (CopyMode); the launch picks it from the layouts,
// leading dimensions, alignment and widths (see the design notes at the top of this file).
enum class UpdateCopy {
  copy8_columns,          // real column-major at any lda: 8-byte copies, staged column stores
  pairs16,                // 16-byte copies and stores (16-byte aligned pointers, even leading dimensions for D)
  flat_direct_stores,     // row-major D, A dense: flat chunk copies, B by 8-byte stores from the registers
  flat_staged_stores,     // the flat copies, B dense: B staged in the consumed A stage, one run of 16-byte stores
  pairs16_staged_stores,  // row-major D of even width, B dense: pairs16's copies with flat_staged_stores' stores
  offset_matched16,       // column-major, odd columns of A at 16 (mod 32) bytes: shared offsets match global ones
  shifted_rows16,         // complex row-major, odd lda: the odd rows copied shifted by one element
};

// Shared-memory layout of a stage (Staging of TsmmDmmaShape, chosen by TsmmStaging below).
enum class UpdateStaging {
  rows_kj,               // [k][j] (row-major)
  columns_mk,            // [m][k] (real column-major)
  complex_columns,       // [m][k][re,im] (complex column-major: W/2 complex columns, each R 16-byte elements)
  columns_mk_pad2,       // columns_mk with a row stride of 2 (mod 16) doubles (real offset_matched16, copy8_columns)
  complex_columns_pad2,  // complex_columns with a row stride of 2 (mod 16) doubles (complex offset_matched16)
};

// Width real-view class width (multiple of 8 WarpColumnTiles), WarpColumnTiles 8-column mma tiles per warp, WarpRows
// warp rows, ChunkRows rows per chunk (multiple of 16 WarpRows), Stages pipeline stages, Staging the staging.
template <int Width, int WarpColumnTiles, int WarpRows, int ChunkRows, int Stages, UpdateStaging Staging>
struct TsmmDmmaShape {
  static constexpr int KT = Width / 8;                      // k-steps
  static constexpr int WN = Width / (8 * WarpColumnTiles);  // warps across the columns
  static constexpr int NW = WN * WarpRows, BT = 32 * NW;
  static constexpr int RT = ChunkRows / (16 * WarpRows);                     // 16-row tiles per warp and chunk
  static constexpr int pad4(int x) { return x + ((4 - x % 16) + 16) % 16; }  // 4 (mod 16) doubles
  static constexpr int pad2(int x) { return x + ((2 - x % 16) + 16) % 16; }  // 2 (mod 16) doubles
  static constexpr int LD = Staging == UpdateStaging::columns_mk             ? pad4(ChunkRows)
                            : Staging == UpdateStaging::complex_columns      ? pad4(2 * ChunkRows)
                            : Staging == UpdateStaging::columns_mk_pad2      ? pad2(ChunkRows)
                            : Staging == UpdateStaging::complex_columns_pad2 ? pad2(2 * ChunkRows)
                                                                             : pad4(Width);
  static constexpr int SS =  // per stage
      Staging == UpdateStaging::columns_mk || Staging == UpdateStaging::columns_mk_pad2             ? Width * LD
      : Staging == UpdateStaging::complex_columns || Staging == UpdateStaging::complex_columns_pad2 ? Width / 2 * LD
                                                                                                    : ChunkRows * LD;
  static constexpr std::size_t smem = std::size_t(Stages) * SS * sizeof(double);
};

__device__ __forceinline__ void mma_m16n8k8(double (&c)[4], const double (&a)[4], double b0, double b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b0), "d"(b1));
}

// Ĉ[m][n] (real view, alpha folded in), 0 outside M' x N'
template <bool IsComplex>
__device__ __forceinline__ double tsmm_chat(const TsmmDmmaArgs& p, int m, int n) {
  if constexpr (IsComplex) {
    const int pm = m >> 1, qn = n >> 1;
    if (pm >= p.M || qn >= p.N) return 0.0;
    const cpx<double> c = static_cast<const cpx<double>*>(
        p.C)[p.crow ? std::int64_t(pm) * p.ldc + qn : pm + std::int64_t(qn) * p.ldc];
    return real_view_entry(p.al_re * c.x - p.al_im * c.y, p.al_re * c.y + p.al_im * c.x, m, n);
  } else {
    if (m >= p.M || n >= p.N) return 0.0;
    return p.al_re *
           static_cast<const double*>(p.C)[p.crow ? std::int64_t(m) * p.ldc + n : m + std::int64_t(n) * p.ldc];
  }
}

__device__ __forceinline__ double2 lds2(const double* s) { return *reinterpret_cast<const double2*>(s); }

// TransposedProduct: shared row of mma column n (0..7) of half h of a 16-row tile. Row-major: 2 n + h (the rows of the
// [k][j] fragments); column-major: 8 h + zt_cperm(n), even n -> n / 2 and odd n -> 4 + ((n >> 1) ^ 1), so that a warp
// store (lanes t = 0..3 on mma columns 2 t or 2 t + 1) covers 4 consecutive rows of 8 columns (64-byte runs) and
// the two g of a quarter-warp load rows of opposite parity (conflict-free in the staging strides 2, 4 and 6 (mod 16)
// doubles, see the kernel).
__device__ __forceinline__ int zt_cperm(int n) { return (n & 1) ? 4 + ((n >> 1) ^ 1) : n >> 1; }

// TransposedProduct: one chunk (RowTiles 16-row tiles = 2 RowTiles 8-row mma column tiles) of the warp whose real-view
// columns start at nw0; bf holds the Ĉᵀ fragments. Next k-step's A fragments are loaded before this k-step's mma
// (prefetch). Not kept: staged column stores for odd ldb (the chunk's tile through the stage as ZCSTG, one 512-byte run
// per column): slower than these direct stores at every width tried.
template <int KSteps, int RowTiles, int SharedStride, bool ColumnMajor, bool PermutedK, int RowShift>
__device__ __forceinline__ void tsmm_zt_chunk(const TsmmDmmaArgs& p, const double* s, std::int64_t k0, int nw0, int g,
                                              int t, const double (&bf)[KSteps][2][2]) {
  constexpr int HT = 2 * RowTiles;
  const int Mr = p.Mr;
  auto frag = [&](int ks, int hh) {
    const int rb = 16 * (hh >> 1), h = hh & 1;
    if constexpr (ColumnMajor) {
      const int cm = PermutedK ? 8 * (ks >> 1) + 2 * t + (ks & 1) : 4 * ks + t;  // complex column
      return lds2(s + cm * SharedStride + 2 * (rb + 8 * h + zt_cperm(g)));
    } else {
      return lds2(s + (rb + 2 * g + h) * SharedStride + 8 * ks + 2 * t + 2 * RowShift * h);
    }
  };
  double acc[HT][4];
#pragma unroll
  for (int hh = 0; hh < HT; ++hh) acc[hh][0] = acc[hh][1] = acc[hh][2] = acc[hh][3] = 0.0;
  double2 cur[HT];
#pragma unroll
  for (int hh = 0; hh < HT; ++hh) cur[hh] = frag(0, hh);
#pragma unroll
  for (int ks = 0; ks < KSteps; ++ks) {
    double2 nxt[HT];
    if (ks + 1 < KSteps) {
#pragma unroll
      for (int hh = 0; hh < HT; ++hh) nxt[hh] = frag(ks + 1, hh);
    }
    if ((PermutedK ? 16 * (ks >> 1) + 2 * (ks & 1) : 8 * ks) < Mr) {  // first real-view column of the k-step
      const double a[4] = {bf[ks][0][0], bf[ks][0][1], bf[ks][1][0], bf[ks][1][1]};
#pragma unroll
      for (int hh = 0; hh < HT; ++hh) mma_m16n8k8(acc[hh], a, cur[hh].x, cur[hh].y);
    }
    if (ks + 1 < KSteps) {
#pragma unroll
      for (int hh = 0; hh < HT; ++hh) cur[hh] = nxt[hh];
    }
  }
  // c0 / c1: re of complex column q at mma columns 2 t / 2 t + 1, c2 / c3 the im parts: (c0, c2) and (c1, c3) are
  // one complex element each
  const int q = (nw0 >> 1) + g;
  const bool bz = p.beta_zero;
  if (q >= p.N) return;
#pragma unroll
  for (int hh = 0; hh < HT; ++hh) {
    const int rb = 16 * (hh >> 1), h = hh & 1;
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int n = 2 * t + e;
      const std::int64_t k = k0 + rb + (ColumnMajor ? 8 * h + zt_cperm(n) : 2 * n + h);
      if (k < p.K) {
        double* d = p.B + k * p.brs + std::int64_t(q) * p.bcs;
        double2 v = make_double2(acc[hh][e], acc[hh][2 + e]);
        if (!bz) {
          const double2 o = *reinterpret_cast<const double2*>(d);
          v.x += p.be_re * o.x - p.be_im * o.y;
          v.y += p.be_re * o.y + p.be_im * o.x;
        }
        *reinterpret_cast<double2*>(d) = v;
      }
    }
  }
}

// Flat staging (flat_direct_stores / flat_staged_stores): the 16 rows of a tile sit at stride Mr in shared memory, and
// a half-warp's 8-byte fragment loads (g = 0..3 or 4..7, t = 0..3) read rows rho(g) at column t: conflict-free when the
// four rows of a half-warp start in four different 4-double slot groups (mod 16). Odd Mr: mma row g -> rho = 4 (g & 3)
// + (g >> 2), row g + 8 -> rho + 2 (slots 4 (g Mr mod 4) + t). Mr = 2 (mod 4), where that order puts two rows in one
// group (4 Mr = 8 mod 16): rho = 2 (g & 3) + 8 (g >> 2), row g + 8 -> rho + 1 (rows 2 j: 2 Mr = 4 mod 8). Other even
// widths are not launched flat (4 mod 8 has such an order too, rho = (g & 3) + 8 (g >> 2), row g + 8 -> rho + 4, but
// measured no faster). Returns rho; dr is the offset of row g + 8.
__device__ __forceinline__ int tsmm_flat_row(int g, int Mr, int& dr) {
  if (Mr % 2 == 1) {
    dr = 2;
    return 4 * (g & 3) + (g >> 2);
  }
  dr = 1;
  return 2 * (g & 3) + 8 * (g >> 2);
}
// Real-view widths launched flat: odd and 2 (mod 4)
__host__ __device__ inline bool tsmm_flat_width(int Mr) { return Mr % 2 == 1 || Mr % 4 == 2; }

// the Staging argument of TsmmDmmaShape for a kernel variant
template <bool IsComplex, UpdateLayout OperandLayout, UpdateCopy CopyMode>
struct TsmmStaging {
  static constexpr UpdateStaging value =
      OperandLayout == UpdateLayout::column_major
          ? (IsComplex ? (CopyMode == UpdateCopy::offset_matched16 ? UpdateStaging::complex_columns_pad2
                                                                   : UpdateStaging::complex_columns)
                       : (CopyMode == UpdateCopy::offset_matched16 || CopyMode == UpdateCopy::copy8_columns
                              ? UpdateStaging::columns_mk_pad2
                              : UpdateStaging::columns_mk))
          : UpdateStaging::rows_kj;
};

// Steps of tsmm_dmma_kernel (below) for one variant (its template parameters but MinBlocksPerSM), and the compile-time
// choices of the variant: alpha C into registers (load_alpha_c), the staging of a chunk of A into shared memory
// (load_stage), and the epilogue that writes B with alpha / beta by direct stores from the registers (direct_stores,
// store_tile, store_pair). Forced inline. The kernel's variables go in by const reference: as by-value parameters they
// change the generated code (a step is simplified on its own before it is inlined, its parameters sort differently).
template <bool IsComplex, int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages,
          UpdateLayout OperandLayout, UpdateCopy CopyMode, bool StagedStores, bool TransposedProduct>
struct TsmmDmmaSteps {
  static constexpr bool KMAJ = !IsComplex && OperandLayout == UpdateLayout::column_major,
                        ZCOL = IsComplex && OperandLayout == UpdateLayout::column_major;
  using Sh = TsmmDmmaShape<Width, WarpColumnTiles, WarpRows, ChunkRows, Stages,
                           TsmmStaging<IsComplex, OperandLayout, CopyMode>::value>;
  static constexpr int KT = Sh::KT, WN = Sh::WN, BT = Sh::BT, RT = Sh::RT, LD = Sh::LD, SS = Sh::SS;
  static_assert(Width % (8 * WarpColumnTiles) == 0 && ChunkRows % (16 * WarpRows) == 0 && RT % TilesPerPass == 0 &&
                    Stages >= 2,
                "bad TSMM DMMA shape");
  // flat A staging (dense odd-width row-major D)
  static constexpr bool FLAT = CopyMode == UpdateCopy::flat_direct_stores || CopyMode == UpdateCopy::flat_staged_stores;
  static constexpr bool CSTG = StagedStores && KMAJ;  // staged column-major B stores (real, copy8_columns)
  // staged column-major B stores (complex, offset_matched16, odd ldb)
  static constexpr bool ZCSTG = StagedStores && ZCOL;
  // staged B stores (pairs16_staged_stores: padded 16-byte A staging as pairs16)
  static constexpr bool STG =
      CopyMode == UpdateCopy::flat_staged_stores || CopyMode == UpdateCopy::pairs16_staged_stores || StagedStores;
  // flat_staged_stores / pairs16_staged_stores keep the accumulators of the whole chunk (all RT tiles) in registers:
  // the B tile is written to the stage after every warp has read the stage's A fragments
  static constexpr int TUE = STG ? RT : TilesPerPass;
  static_assert(!IsComplex || CopyMode == UpdateCopy::pairs16 || CopyMode == UpdateCopy::flat_staged_stores ||
                    CopyMode == UpdateCopy::offset_matched16 || CopyMode == UpdateCopy::shifted_rows16,
                "complex elements are 16-byte aligned");
  static_assert(CopyMode != UpdateCopy::shifted_rows16 || (IsComplex && OperandLayout == UpdateLayout::row_major),
                "shifted_rows16: complex row-major");
  static_assert(CopyMode != UpdateCopy::copy8_columns || (!IsComplex && OperandLayout == UpdateLayout::column_major),
                "copy8_columns: real column-major");
  static_assert(CopyMode != UpdateCopy::offset_matched16 || OperandLayout == UpdateLayout::column_major,
                "offset_matched16: column-major");
  // offset_matched16 (real column-major, lda = 2 mod 4, A 32-byte aligned): column m of A starts at 16 m (mod 32)
  // bytes, and so does its shared column (stride LD = 2 mod 16 doubles): each 16-byte cp.async then lands at the offset
  // (mod 32) it has in global memory. With the stride 4 (mod 16) of pairs16 (or the shifted shifted_rows16, stride 6)
  // the odd columns' copies straddle sectors and read 2x their data from the L2; matching offsets read 1x. The same
  // rule explains Z R odd widths (shifted_rows16 matches the offsets: 1x) and Z C odd K (shifted_rows16 with stride 6
  // does not: ~1.5x). Fragments take inner k t -> column 2 t, t + 4 -> 2 t + 1 (16-byte slots m + g (mod 8) at LD = 2
  // (mod 16): conflict-free); Ĉ follows the same order. Complex (ZCOL, lda odd): k-step ks takes the complex columns 8
  // (ks / 2) + 2 t + (ks & 1) (even columns in even k-steps: slots 2 t + (ks & 1) + g, conflict-free); the copies
  // zero-fill up to a multiple of 8 complex columns (the k-step pair that holds column M - 1), the k-step skip tests
  // its first column. copy8_columns (real column-major, any lda: 8-byte copies): the same stride 2 (mod 16) and k order
  // as offset_matched16. A warp's copies are 32 consecutive rows of one column, contiguous in global and in shared
  // memory (conflict-free whatever the column's offset), so the shared layout no longer depends on lda.
  static constexpr bool KPERM =
      KMAJ && (CopyMode == UpdateCopy::offset_matched16 || CopyMode == UpdateCopy::copy8_columns);
  static constexpr bool KPZ = ZCOL && CopyMode == UpdateCopy::offset_matched16;
  // shifted_rows16 (complex row-major, odd lda, A 32-byte aligned): every other row of A starts at 16 (mod 32) bytes.
  // Those rows are copied one element early (from a sector boundary; the copy that would fall before the run takes its
  // last element instead) and stored one element (SH = 1) later in shared memory; the fragment loads add the shift.
  // This brings the L2 read sectors down to the data. (Column-major at odd lda, complex, or lda = 2 mod 4, real, takes
  // offset_matched16, which matches the global offsets; the shifted column form was neutral for complex and only a
  // little faster than pairs16 for real, and was removed.)
  static constexpr int SHV = CopyMode == UpdateCopy::shifted_rows16 ? 1 : 0;
  static_assert(!FLAT || OperandLayout == UpdateLayout::row_major, "flat staging: row-major");
  static_assert(CopyMode != UpdateCopy::pairs16_staged_stores ||
                    (!IsComplex && OperandLayout == UpdateLayout::row_major),
                "pairs16_staged_stores: real row-major");
  static_assert(!IsComplex || CopyMode != UpdateCopy::flat_direct_stores,
                "complex flat staging: staged stores (flat_staged_stores) only");
  static_assert(
      !StagedStores ||
          (IsComplex ? (OperandLayout == UpdateLayout::row_major && CopyMode == UpdateCopy::shifted_rows16) ||
                           (OperandLayout == UpdateLayout::column_major && CopyMode == UpdateCopy::offset_matched16)
                     : OperandLayout == UpdateLayout::column_major && CopyMode == UpdateCopy::copy8_columns),
      "SO: complex row-major shifted_rows16 / column-major offset_matched16, real column-major copy8_columns");

  // Ĉ (alpha C in the real view) as the mma's B fragments of the warp whose real-view columns start at nw0: held in
  // registers (bf) for the whole run
  static __device__ __forceinline__ void load_alpha_c(const TsmmDmmaArgs& p, const int& nw0, const int& g, const int& t,
                                                      double (&bf)[KT][WarpColumnTiles][2]) {
#pragma unroll
    for (int ks = 0; ks < KT; ++ks)
#pragma unroll
      for (int nt = 0; nt < WarpColumnTiles; ++nt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          // TransposedProduct: bf[ks][nt][h] is a_{2 nt + h} of the Ĉᵀ fragment: inner t + 4 nt, real-view column
          // 2 (q0 + g) + h
          const int hi = TransposedProduct ? nt : h;  // inner t / t + 4
          const int m = ((KMAJ && !KPERM) || FLAT) ? 8 * ks + t + 4 * hi
                        : KPZ ? 2 * (8 * (ks >> 1) + 2 * t + (ks & 1)) + hi : 8 * ks + 2 * t + hi;
          bf[ks][nt][h] = tsmm_chat<IsComplex>(p, m, TransposedProduct ? nw0 + 2 * g + h : nw0 + 8 * nt + g);
        }
  }

  // The staging of chunk `chunk` of A into stage st of As (cp.async; the caller commits the group).
  // Copies: each thread keeps one column (pair) and walks rows in passes of a fixed stride (the shapes divide
  // evenly), so a copy costs a pointer increment, a compare and the cp.async (few live registers).
  static __device__ __forceinline__ void load_stage(const TsmmDmmaArgs& p, double* const& As, std::int64_t chunk,
                                                    int st, const std::int64_t& K, const int& Mr, const int& Mr8,
                                                    const int& MrZ, const int& tid) {
    double* s = As + st * SS;
    const std::int64_t k0 = chunk * ChunkRows;
    if constexpr (FLAT) {  // dense odd-width row-major D: the chunk is one run of R * Mr doubles
      dmma_load_flat<ChunkRows, BT>(s, p.A, k0, K, Mr, tid);
    } else if constexpr (KMAJ && (CopyMode == UpdateCopy::pairs16 || CopyMode == UpdateCopy::offset_matched16)) {
      // [m][k], 16-byte copies of row pairs
      constexpr int PK = ChunkRows / 2, TPC = BT / PK;
      static_assert(BT % PK == 0 && Width % TPC == 0, "copy mapping");
      const int mc = tid / PK, kp = tid % PK;
      const std::int64_t k = k0 + 2 * kp;
      const int rbytes = k + 1 < K ? 16 : (k < K ? 8 : 0);
      const double* src = p.A + k + std::int64_t(mc) * p.acs;
      const std::int64_t step = std::int64_t(TPC) * p.acs;
#pragma unroll
      for (int l = 0; l < Width / TPC; ++l) {
        const int m = mc + l * TPC;
        if (m < Mr8) {
          const int bytes = m < Mr ? rbytes : 0;
          cp_async_pair(s + m * LD + 2 * kp, bytes ? src : p.A, bytes);
        }
        src += step;
      }
    } else if constexpr (KMAJ) {  // [m][k], 8-byte copies
      constexpr int TPC = BT / ChunkRows;
      static_assert(BT % ChunkRows == 0 && Width % TPC == 0, "copy mapping");
      const int kk = tid % ChunkRows, mc = tid / ChunkRows;
      const std::int64_t k = k0 + kk;
      const double* src = p.A + k + std::int64_t(mc) * p.acs;
      const std::int64_t step = std::int64_t(TPC) * p.acs;
#pragma unroll
      for (int l = 0; l < Width / TPC; ++l) {
        const int m = mc + l * TPC;
        if (m < Mr8) {
          const bool v = k < K && m < Mr;
          cp_async<8>(s + m * LD + kk, v ? src : p.A, v);
        }
        src += step;
      }
    } else if constexpr (ZCOL) {
      // complex column-major, [m][k][re,im]: a column's R rows are one run of 16-byte elements in global and in
      // shared memory, so a warp copies 512 contiguous bytes (4 full lines) into 512 contiguous shared bytes.
      // (The [k][j] staging of this case took 4-row patches of 8 columns per warp, 64-byte runs: 2 sectors per
      // L2 request.)
      constexpr int TPC = BT / ChunkRows;  // columns per pass
      static_assert(BT % ChunkRows == 0 && (Width / 2) % TPC == 0, "copy mapping");
      const int mc = tid / ChunkRows, kk = tid % ChunkRows;  // kk: row of the chunk
      const bool kv = k0 + kk < K;
      const double* src = p.A + (k0 + kk) * p.ars + std::int64_t(mc) * p.acs;
      const std::int64_t step = std::int64_t(TPC) * p.acs;
#pragma unroll
      for (int l = 0; l < Width / 2 / TPC; ++l) {
        const int m = mc + l * TPC;
        if (2 * m < MrZ) {
          const int bytes = (kv && 2 * m < Mr) ? 16 : 0;
          cp_async_pair(s + m * LD + 2 * kk, bytes ? src : p.A, bytes);
        }
        src += step;
      }
    } else {  // row-major (D or complex; pairs16, pairs16_staged_stores, shifted_rows16): pairs of columns, j fastest
      constexpr int PR = Width / 2, RPP = BT / PR;
      static_assert(BT % PR == 0 && ChunkRows % RPP == 0 && (SHV == 0 || RPP % 2 == 0), "copy mapping");
      const int jp = tid % PR, kr = tid / PR, sh = SHV & kr;  // shifted_rows16: odd rows (RPP even: fixed parity)
      const int gj = 2 * (sh ? (jp == 0 ? Mr8 / 2 - 1 : jp - 1) : jp);  // jp < Mr8 / 2: each pair copied once
      if (2 * jp < Mr8) {
        const int cbytes = gj + 1 < Mr ? 16 : (gj < Mr ? 8 : 0);
        const double* src = p.A + (k0 + kr) * p.ars + gj;  // row-major: real column j at +j
        const std::int64_t step = RPP * p.ars;
#pragma unroll
        for (int l = 0; l < ChunkRows / RPP; ++l) {
          const int kk = kr + l * RPP;
          const int bytes = k0 + kk < K ? cbytes : 0;
          cp_async_pair(s + kk * LD + gj + 2 * sh, bytes ? src : p.A, bytes);
          src += step;
        }
      }
    }
  }

  // two adjacent real outputs d[0], d[1] (d[1] only when `two`) = v + beta * old; beta == 0 never reads
  static __device__ __forceinline__ void store_pair(const TsmmDmmaArgs& p, double* d, double v0, double v1, bool two) {
    const bool bz = p.beta_zero;
    const double br = p.be_re;
    if ((CopyMode == UpdateCopy::pairs16 || CopyMode == UpdateCopy::offset_matched16) && two) {
      // offset_matched16 (real column-major, ldb even): as pairs16
      if (!bz) {
        const double2 o = *reinterpret_cast<const double2*>(d);
        v0 += br * o.x;
        v1 += br * o.y;
      }
      *reinterpret_cast<double2*>(d) = make_double2(v0, v1);
    } else {
      if (!bz) v0 += br * d[0];
      d[0] = v0;
      if (two) {
        if (!bz) v1 += br * d[1];
        d[1] = v1;
      }
    }
  }

  // out (rows kA = k0 + rb + 2g and kA + 1, real-view columns n = nw0 + 8 nt + 2t and n + 1) = c + beta * B
  static __device__ __forceinline__ void store_tile(const TsmmDmmaArgs& p, std::int64_t kA, int n, const double (&c)[4],
                                                    const std::int64_t& K, const int& fdr) {
    const bool bz = p.beta_zero;
    const double br = p.be_re;
    if constexpr (IsComplex) {
      const int q = n >> 1;
      if (q >= p.N) return;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t k = kA + h * (ZCOL ? 8 : 1);  // ZCOL: mma rows g, g + 8 are rows g, g + 8
        if (k < K) {
          double* d = p.B + k * p.brs + std::int64_t(q) * p.bcs;
          double2 v = make_double2(c[2 * h], c[2 * h + 1]);
          if (!bz) {
            const double2 o = *reinterpret_cast<const double2*>(d);
            v.x += br * o.x - p.be_im * o.y;
            v.y += br * o.y + p.be_im * o.x;
          }
          *reinterpret_cast<double2*>(d) = v;
        }
      }
    } else if constexpr (OperandLayout == UpdateLayout::row_major) {
      // row-major: (c0, c1) in row kA, (c2, c3) in row kA + 1 (flat: kA + 2)
      if (n >= p.N) return;
      const bool two = n + 1 < p.N;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t k = kA + h * (FLAT ? fdr : 1);
        if (k < K) {
          store_pair(p, p.B + k * p.brs + n, c[2 * h], c[2 * h + 1], two);
        }
      }
    } else {  // column-major: (c0, c2) in column n, (c1, c3) in column n + 1
      if (kA >= K) return;
      const bool two = kA + 1 < K;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = n + e;
        if (col < p.N) {
          store_pair(p, p.B + kA + std::int64_t(col) * p.bcs, c[e], c[2 + e], two);
        }
      }
    }
  }

  // The epilogue of the direct stores: the accumulators of the warp's TUE tiles from r0 on to B, with beta
  static __device__ __forceinline__ void direct_stores(const TsmmDmmaArgs& p, const std::int64_t& k0, const int& r0,
                                                       const int& wr, const int& g, const int& t, const int& nw0,
                                                       const int& Nr, const std::int64_t& K, const int& frho,
                                                       const int& fdr, const double (&acc)[TUE][WarpColumnTiles][4]) {
#pragma unroll
    for (int u = 0; u < TUE; ++u) {
      const std::int64_t kA = k0 + 16 * (wr * RT + r0 + u) + (FLAT ? frho : ZCOL ? g : 2 * g);
#pragma unroll
      for (int nt = 0; nt < WarpColumnTiles; ++nt)
        if (nw0 + 8 * nt < Nr) store_tile(p, kA, nw0 + 8 * nt + 2 * t, acc[u][nt], K, fdr);
    }
  }
};

// StagedStores: staged B stores for complex row-major with odd N and B dense (shifted_rows16), complex column-major
// with odd ldb (offset_matched16) and real column-major copy8_columns: see the staged store below and the launch.
// TransposedProduct (complex, class W 128, direct stores): the transposed product Bᵀ = Ĉᵀ A'ᵀ, A' in the mma's B
// operand (see the kernel).
template <bool IsComplex, int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages,
          int MinBlocksPerSM, UpdateLayout OperandLayout, UpdateCopy CopyMode, bool StagedStores = false,
          bool TransposedProduct = false>
__global__ void __launch_bounds__(TsmmDmmaShape<Width, WarpColumnTiles, WarpRows, ChunkRows, Stages,
                                                TsmmStaging<IsComplex, OperandLayout, CopyMode>::value>::BT,
                                  MinBlocksPerSM) tsmm_dmma_kernel(const TsmmDmmaArgs p) {
  using Steps = TsmmDmmaSteps<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                              OperandLayout, CopyMode, StagedStores, TransposedProduct>;
  constexpr bool KMAJ = Steps::KMAJ, ZCOL = Steps::ZCOL, FLAT = Steps::FLAT, CSTG = Steps::CSTG, ZCSTG = Steps::ZCSTG,
                 STG = Steps::STG, KPERM = Steps::KPERM, KPZ = Steps::KPZ;
  constexpr int KT = Steps::KT, WN = Steps::WN, BT = Steps::BT, RT = Steps::RT, LD = Steps::LD, SS = Steps::SS,
                TUE = Steps::TUE, SHV = Steps::SHV;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* As = reinterpret_cast<double*>(smem_raw);  // [Stages][SS]

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wn = warp % WN, wr = warp / WN;
  const int nw0 = wn * 8 * WarpColumnTiles;  // first real-view column of this warp
  const std::int64_t K = p.K;
  const int Mr = p.Mr, Nr = p.Nr, Mr8 = (Mr + 7) & ~7, MrZ = KPZ ? (Mr + 15) & ~15 : Mr8;  // MrZ: ZCOL fill
  const bool active = nw0 < Nr;  // warp-uniform: a warp wholly past N' only copies
  int fdr = 2;                                         // flat staging: the row offset of mma row g + 8
  const int frho = tsmm_flat_row(g, Mr, fdr);  // flat staging: the row of mma row g (see tsmm_flat_row)
  // TransposedProduct: the mma computes Bᵀ = Ĉᵀ A'ᵀ on the 16 real-view columns of the warp (its mma rows: re of
  // complex column q0 + g at g, im at g + 8) times 8 rows of A (its mma columns). The A fragment (b0, b1) of a lane is
  // then one 16-byte shared load, (re, im) of one complex element, in the register pair the mma takes: the [k][j] form
  // built (a0, a1, a2, a3) from two such loads with 8-16 register moves per k-step (SASS of Z W 128) and could not
  // start the next k-step's loads before the warp-uniform k-step skip. Ĉᵀ lives in the registers of bf (same count).
  static_assert(!TransposedProduct || (IsComplex && WarpColumnTiles == 2 && WarpRows == 1 && !StagedStores),
                "ZT: complex, 16 real-view columns per warp");

  double bf[KT][WarpColumnTiles][2];  // b0 = Ĉ[inner(t)][n], b1 = Ĉ[inner(t+4)][n], n = nw0 + 8 nt + g
  Steps::load_alpha_c(p, nw0, g, t, bf);

  // chunks of this block: blockIdx.x + i * gridDim.x
  const std::int64_t nchunks = (K + ChunkRows - 1) / ChunkRows;
  const std::int64_t my = nchunks > blockIdx.x ? (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < my) Steps::load_stage(p, As, blockIdx.x + std::int64_t(s) * gridDim.x, s, K, Mr, Mr8, MrZ, tid);
    cp_async_commit();
  }
  for (std::int64_t i = 0; i < my; ++i) {
    cp_async_wait<Stages - 2>();
    __syncthreads();  // chunk i is in shared memory for all threads; stage (i-1) % Stages is free
    {
      const std::int64_t nx = i + Stages - 1;
      if (nx < my) Steps::load_stage(p, As, blockIdx.x + nx * gridDim.x, int(nx % Stages), K, Mr, Mr8, MrZ, tid);
      cp_async_commit();
    }
    // flat_staged_stores / pairs16_staged_stores: every warp takes part in the staged store (barriers)
    if (!STG && !active) continue;
    double* s = As + int(i % Stages) * SS;
    const std::int64_t k0 = (blockIdx.x + i * gridDim.x) * ChunkRows;
    if constexpr (TransposedProduct) {
      tsmm_zt_chunk<KT, RT, LD, OperandLayout == UpdateLayout::column_major, KPZ, SHV>(p, s, k0, nw0, g, t, bf);
    }
#pragma unroll 1
    for (int r0 = 0; r0 < (TransposedProduct ? 0 : RT); r0 += TUE) {
      double acc[TUE][WarpColumnTiles][4];
#pragma unroll
      for (int u = 0; u < TUE; ++u)
#pragma unroll
        for (int nt = 0; nt < WarpColumnTiles; ++nt)
          acc[u][nt][0] = acc[u][nt][1] = acc[u][nt][2] = acc[u][nt][3] = 0.0;
      if (active) {
#pragma unroll
        for (int ks = 0; ks < KT; ++ks) {
          // loads stay in bounds of the stage for every ks (so they can be hoisted); the mma is skipped past M'
          double a[TUE][4];
#pragma unroll
          for (int u = 0; u < TUE; ++u) {
            const int rb = 16 * (wr * RT + r0 + u);
            if constexpr (FLAT) {
              // flat rows of stride Mr: 8-byte loads (odd Mr: rows alternate 16-byte alignment); mma row g -> row
              // frho, row g + 8 -> frho + fdr (a permutation of the 16 rows, see tsmm_flat_row), inner t / t + 4 ->
              // columns t / t + 4: a half-warp (4 g x 4 t) hits 16 distinct slots (mod 16). Columns >= Mr hold the
              // next row's data (or the stage tail), which meets Ĉ rows that are 0 -- but 0 * Inf/NaN would leak
              // row r + 1's Inf/NaN into row r, so the elements past Mr of the one partial k-step are replaced by 0
              // (k-steps wholly past Mr skip the mma).
              const double* q = s + (rb + frho) * Mr + 8 * ks + t;
              a[u][0] = q[0];
              a[u][2] = q[4];
              a[u][1] = q[fdr * Mr];
              a[u][3] = q[fdr * Mr + 4];
              if (8 * ks + 8 > Mr) {
                if (8 * ks + t >= Mr) a[u][0] = a[u][1] = 0.0;
                if (8 * ks + t + 4 >= Mr) a[u][2] = a[u][3] = 0.0;
              }
            } else if constexpr (ZCOL) {
              // rows not permuted (mma row g -> row g): the epilogue's 16-byte stores of c0,c1 (row g) then cover
              // rows rb .. rb + 7 of 4 columns per warp store, 128 contiguous bytes each (the [k][j] order, rows
              // 2g / 2g + 1, wrote every other 16 bytes per store: half sectors). Inner t / t + 4 -> re / im of
              // complex column 4 ks + t. Quarter-warp (g in 2 values, t in 0..3): 16-byte slots 2 t + g (mod 8)
              // with LD = 4 (mod 16) doubles, conflict-free.
              const int cm = KPZ ? 8 * (ks >> 1) + 2 * t + (ks & 1) : 4 * ks + t;  // complex column
              const double* q = s + cm * LD + 2 * (rb + g);
              const double2 x = lds2(q);       // (a0, a2)
              const double2 y = lds2(q + 16);  // (a1, a3): row g + 8
              a[u][0] = x.x;
              a[u][2] = x.y;
              a[u][1] = y.x;
              a[u][3] = y.y;
            } else if constexpr (KPERM) {  // columns 8 ks + 2 t (a0, a1) and 8 ks + 2 t + 1 (a2, a3)
              const double2 x = lds2(s + (8 * ks + 2 * t) * LD + rb + 2 * g);
              const double2 y = lds2(s + (8 * ks + 2 * t + 1) * LD + rb + 2 * g);
              a[u][0] = x.x;
              a[u][1] = x.y;
              a[u][2] = y.x;
              a[u][3] = y.y;
            } else if constexpr (KMAJ) {  // pairs16: columns 8 ks + t (a0, a1) and 8 ks + t + 4 (a2, a3)
              const double2 x = lds2(s + (8 * ks + t) * LD + rb + 2 * g);      // (a0, a1)
              const double2 y = lds2(s + (8 * ks + t + 4) * LD + rb + 2 * g);  // (a2, a3)
              a[u][0] = x.x;
              a[u][1] = x.y;
              a[u][2] = y.x;
              a[u][3] = y.y;
            } else {  // shifted_rows16: the odd row 2g + 1 shifted by one element (all lanes of the load: no conflicts)
              const double2 x = lds2(s + (rb + 2 * g) * LD + 8 * ks + 2 * t);                  // (a0, a2)
              const double2 y = lds2(s + (rb + 2 * g + 1) * LD + 8 * ks + 2 * t + 2 * SHV);  // (a1, a3)
              a[u][0] = x.x;
              a[u][2] = x.y;
              a[u][1] = y.x;
              a[u][3] = y.y;
            }
          }
          if ((KPZ ? 16 * (ks >> 1) + 2 * (ks & 1) : 8 * ks) < Mr) {  // first real-view column of the k-step
#pragma unroll
            for (int nt = 0; nt < WarpColumnTiles; ++nt)
              if (nw0 + 8 * nt < Nr)
#pragma unroll
                for (int u = 0; u < TUE; ++u) mma_m16n8k8(acc[u][nt], a[u], bf[ks][nt][0], bf[ks][nt][1]);
          }
        }
      }
      if constexpr (STG) {
        // Staged store (one pass: TUE == RT). The B rows of the chunk, k0 .. k0 + R - 1, are one contiguous run
        // of R * Nr doubles (ldb == Nr, 16-byte aligned: R is even). (1) barrier: every warp has read its A
        // fragments of this stage; (2) the accumulators go to the stage, flat with row stride Nr (R * Nr <= SS;
        // no cp.async is in flight into this stage: those target the other stages); (3) barrier; (4) 16-byte
        // copies of the run to B (beta: old B read by the same thread first). The next iteration's barrier comes
        // before the stage is refilled. In place: the chunk's A rows were all read (wait_group + barrier) before
        // this, and no other block writes or reads them. pairs16_staged_stores (even Nr, padded A staging): mma rows 2g
        // / 2g + 1, (c0, c1) / (c2, c3) as 16-byte shared stores (n even, Nr even: n < Nr implies n + 1 < Nr); the
        // columns past Mr8 of the padded A rows, which this overwrites, are never copied and only meet skipped k-steps.
        // StagedStores, complex row-major (odd N, B dense): as pairs16_staged_stores in the real view; every other B
        // row starts at 16 (mod 32) bytes, so the direct stores (4 complex per row and store) split into 3 partial
        // sectors there. CSTG (real column-major, ldb = 2 mod 4): the tile goes to the stage as [n][k] (column stride
        // LD = 2 mod 16 doubles: the (c0, c2) / (c1, c3) row-pair stores of a quarter-warp hit slots 2 t + g, distinct)
        // and leaves as one run of R rows per column (16-byte stores): the direct stores wrote 128-byte runs at 16 (mod
        // 32) bytes in every odd column, each split over partial sectors. ZCSTG (complex column-major, odd ldb): the
        // tile goes to the stage as [q][k][re,im] (the A layout of offset_matched16) and leaves as one run of R 16-byte
        // elements per column, 512 contiguous bytes per warp store; the direct stores wrote 4 columns x 128 bytes per
        // warp store, in every odd column at 16 (mod 32) bytes.
        __syncthreads();
        if constexpr (ZCSTG) {
          if (active) {
#pragma unroll
            for (int u = 0; u < TUE; ++u) {
              const int r = 16 * (wr * RT + u) + g;  // rows not permuted (mma rows g, g + 8)
#pragma unroll
              for (int nt = 0; nt < WarpColumnTiles; ++nt) {
                const int q = (nw0 + 8 * nt + 2 * t) >> 1;
                if (nw0 + 8 * nt < Nr && q < p.N) {
                  double* o = s + q * LD + 2 * r;
                  *reinterpret_cast<double2*>(o) = make_double2(acc[u][nt][0], acc[u][nt][1]);
                  *reinterpret_cast<double2*>(o + 16) = make_double2(acc[u][nt][2], acc[u][nt][3]);
                }
              }
            }
          }
        } else if constexpr (CSTG) {
          if (active) {
#pragma unroll
            for (int u = 0; u < TUE; ++u) {
              const int r = 16 * (wr * RT + u) + 2 * g;
#pragma unroll
              for (int nt = 0; nt < WarpColumnTiles; ++nt) {
                const int n = nw0 + 8 * nt + 2 * t;
                if (nw0 + 8 * nt < Nr) {
                  if (n < Nr)
                    *reinterpret_cast<double2*>(s + n * LD + r) = make_double2(acc[u][nt][0], acc[u][nt][2]);
                  if (n + 1 < Nr)
                    *reinterpret_cast<double2*>(s + (n + 1) * LD + r) = make_double2(acc[u][nt][1], acc[u][nt][3]);
                }
              }
            }
          }
        } else if (active && !FLAT) {
#pragma unroll
          for (int u = 0; u < TUE; ++u) {
            const int r = 16 * (wr * RT + u) + 2 * g;
#pragma unroll
            for (int nt = 0; nt < WarpColumnTiles; ++nt) {
              const int n = nw0 + 8 * nt + 2 * t;
              if (nw0 + 8 * nt < Nr && n < Nr) {
#pragma unroll
                for (int h = 0; h < 2; ++h)
                  *reinterpret_cast<double2*>(s + (r + h) * Nr + n) =
                      make_double2(acc[u][nt][2 * h], acc[u][nt][2 * h + 1]);
              }
            }
          }
        } else if (active) {
#pragma unroll
          for (int u = 0; u < TUE; ++u) {
            const int r = 16 * (wr * RT + u) + frho;
#pragma unroll
            for (int nt = 0; nt < WarpColumnTiles; ++nt) {
              const int n = nw0 + 8 * nt + 2 * t;
              if (nw0 + 8 * nt < Nr) {
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                  double* o = s + (r + fdr * h) * Nr + n;
                  if (n < Nr) o[0] = acc[u][nt][2 * h];
                  if (n + 1 < Nr) o[1] = acc[u][nt][2 * h + 1];
                }
              }
            }
          }
        }
        __syncthreads();
        const bool bz = p.beta_zero;
        const double br = p.be_re;
        // copy8_columns with an odd ldb (or B not 16-byte aligned): column n's R rows as 8-byte stores, a warp's 32
        // lanes on 32 consecutive rows (256 contiguous bytes; the direct stores wrote every other 8 bytes per store)
        const bool pairs8 = CopyMode == UpdateCopy::copy8_columns &&
                            (p.bcs % 2 != 0 || reinterpret_cast<std::uintptr_t>(p.B) % 16 != 0);
        if constexpr (ZCSTG) {  // column q: rows k0 .. k0 + R - 1, one complex element per lane
          const int rows = K - k0 < ChunkRows ? int(K - k0) : ChunkRows;
#pragma unroll 1
          for (int e = tid; e < p.N * ChunkRows; e += BT) {
            const int q = e / ChunkRows, k = e % ChunkRows;
            if (k < rows) {
              double* d = p.B + (k0 + k) * p.brs + std::int64_t(q) * p.bcs;
              double2 v = lds2(s + q * LD + 2 * k);
              if (!bz) {
                const double2 o = *reinterpret_cast<const double2*>(d);
                v.x += br * o.x - p.be_im * o.y;
                v.y += br * o.y + p.be_im * o.x;
              }
              *reinterpret_cast<double2*>(d) = v;
            }
          }
        } else if (CSTG && pairs8) {
          // a thread keeps row k of the chunk and walks the columns CPP apart; CSB shared loads are issued before
          // their stores (B is a generic pointer, so the compiler keeps each load behind the previous store), which
          // measured faster at odd K. The same batching of the 16-byte loop below (K = 2 mod 4) did not pay.
          constexpr int CPP = BT / ChunkRows, CSB = 4;
          static_assert(BT % ChunkRows == 0, "staged column stores: whole columns per pass");
          const int rows = K - k0 < ChunkRows ? int(K - k0) : ChunkRows, k = tid % ChunkRows;
          if (k < rows) {
            const std::int64_t step = std::int64_t(CPP) * p.bcs;
            double* d = p.B + k0 + k + std::int64_t(tid / ChunkRows) * p.bcs;
#pragma unroll 1
            for (int n = tid / ChunkRows; n < Nr; n += CSB * CPP) {
              double v[CSB];
#pragma unroll
              for (int j = 0; j < CSB; ++j) v[j] = n + j * CPP < Nr ? s[(n + j * CPP) * LD + k] : 0.0;
#pragma unroll
              for (int j = 0; j < CSB; ++j)
                if (n + j * CPP < Nr) d[j * step] = bz ? v[j] : v[j] + br * d[j * step];
              d += CSB * step;
            }
          }
        } else if constexpr (CSTG) {  // column n: rows k0 .. k0 + R - 1, R / 2 16-byte pairs (ldb even, B 16-aligned)
          constexpr int PR = ChunkRows / 2;
          const int rows = K - k0 < ChunkRows ? int(K - k0) : ChunkRows;
#pragma unroll 1
          for (int e = tid; e < Nr * PR; e += BT) {
            const int n = e / PR, kp = 2 * (e % PR);
            double* d = p.B + k0 + kp + std::int64_t(n) * p.bcs;
            const double2 v = lds2(s + n * LD + kp);
            if (kp + 1 < rows) {
              double2 o = v;
              if (!bz) {
                const double2 b = *reinterpret_cast<const double2*>(d);
                o.x += br * b.x;
                o.y += br * b.y;
              }
              *reinterpret_cast<double2*>(d) = o;
            } else if (kp < rows) {
              d[0] = bz ? v.x : v.x + br * d[0];
            }
          }
        } else {
          const std::int64_t left = (K - k0) * Nr;
          const int nv = left < std::int64_t(ChunkRows) * Nr ? int(left) : ChunkRows * Nr;
          double* dst = p.B + k0 * Nr;
#pragma unroll 1
          for (int e = 2 * tid; e < nv; e += 2 * BT) {
            if (e + 1 < nv) {
              double2 v = lds2(s + e);
              if (!bz) {
                const double2 o = *reinterpret_cast<const double2*>(dst + e);
                if constexpr (IsComplex) {  // one complex element
                  v.x += br * o.x - p.be_im * o.y;
                  v.y += br * o.y + p.be_im * o.x;
                } else {
                  v.x += br * o.x;
                  v.y += br * o.y;
                }
              }
              *reinterpret_cast<double2*>(dst + e) = v;
            } else {
              double v = s[e];
              if (!bz) v += br * dst[e];
              dst[e] = v;
            }
          }
        }
      } else {
        Steps::direct_stores(p, k0, r0, wr, g, t, nw0, Nr, K, frho, fdr, acc);
      }
    }
  }
  cp_async_wait<0>();
}

template <bool IsComplex, int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages,
          int MinBlocksPerSM, UpdateLayout OperandLayout, UpdateCopy CopyMode, bool StagedStores = false,
          bool TransposedProduct = false>
cudaError_t launch_tsmm_dmma_v(const TsmmDmmaArgs& d, cudaStream_t stream) {
  using Sh = TsmmDmmaShape<Width, WarpColumnTiles, WarpRows, ChunkRows, Stages,
                           TsmmStaging<IsComplex, OperandLayout, CopyMode>::value>;
  auto kern = tsmm_dmma_kernel<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                               MinBlocksPerSM, OperandLayout, CopyMode, StagedStores, TransposedProduct>;
  static int occ[kMaxDevices] = {0};
  const int dev = current_device();
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  if (occ[dev] == 0) {
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Sh::smem));
    if (e != cudaSuccess) return e;
    // the stages are the working set (cp.async.cg bypasses L1): ask for the largest shared-memory carveout
    // (a hint: a failure is cleared, so that the launch's cudaGetLastError does not report it)
    if (cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, 100) != cudaSuccess)
      (void)cudaGetLastError();
    occ[dev] = blocks_per_sm(kern, Sh::BT, Sh::smem);
  }
  const std::int64_t nchunks = (d.K + ChunkRows - 1) / ChunkRows;
  std::int64_t gx = std::int64_t(sm_count()) * occ[dev];
  if (gx > nchunks) gx = nchunks;
  if (gx < 1) gx = 1;
  kern<<<unsigned(gx), Sh::BT, Sh::smem, stream>>>(d);
  return cudaGetLastError();
}

// The kernel arguments of a call: pointers, sizes and strides in the real view (complex: two doubles per element),
// alpha and beta. row: A and B row-major (else both column-major).
template <bool IsComplex>
TsmmDmmaArgs tsmm_dmma_args(const TsmmArgs<double, IsComplex>& a, bool row) {
  const int f = IsComplex ? 2 : 1;
  const std::int64_t lda = row ? a.ask : a.asm_, ldb = row ? a.bsk : a.bsn;
  TsmmDmmaArgs d{};
  d.A = reinterpret_cast<const double*>(a.A);
  d.B = reinterpret_cast<double*>(a.B);
  d.C = a.C;
  d.ldc = a.ldc;
  d.crow = a.crow;
  d.K = a.K;
  d.M = a.M;
  d.N = a.N;
  d.Mr = f * a.M;
  d.Nr = f * a.N;
  d.ars = f * (row ? lda : 1);
  d.acs = f * (row ? 1 : lda);
  d.brs = f * (row ? ldb : 1);
  d.bcs = f * (row ? 1 : ldb);
  d.al_re = a.alpha.re;
  d.al_im = IsComplex ? a.alpha.im : 0.0;
  d.be_re = a.beta.re;
  d.be_im = IsComplex ? a.beta.im : 0.0;
  d.beta_zero = a.beta_zero;
  return d;
}

// Column-major double at an odd lda or ldb through a KBLA_TSMM_DMMA_D_ODDLONG row: copy8_columns (8-byte copies, staged
// column stores) with the row's chunk of R rows; cudaErrorNotSupported otherwise (other widths / layouts, 16-byte
// aligned even leading dimensions: the rows of launch_tsmm_dmma).
template <int Width, int WarpColumnTiles, int WarpRows, int ChunkRows, int Stages, int MinBlocksPerSM>
cudaError_t launch_tsmm_dmma_oddlong(const TsmmArgs<double, false>& a, cudaStream_t stream) {
  auto al16 = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  if (a.M > Width || a.N > Width) return cudaErrorNotSupported;
  if (al16(a.A) && al16(a.B) && a.asm_ % 2 == 0 && a.bsn % 2 == 0) return cudaErrorNotSupported;
  return launch_tsmm_dmma_v<false, Width, WarpColumnTiles, WarpRows, 1, ChunkRows, Stages, MinBlocksPerSM,
                            UpdateLayout::column_major, UpdateCopy::copy8_columns, true>(
      tsmm_dmma_args<false>(a, false), stream);
}

// widths of KBLA_TSMM_DMMA_D_ODD (column-major D on the tensor cores at an odd leading dimension)
inline bool tsmm_dmma_odd_width(int w) {
#define KBLA_TM_X_ODD(WMIN, WMAX) \
  if (w >= WMIN && w <= WMAX) return true;
  KBLA_TSMM_DMMA_D_ODD(KBLA_TM_X_ODD)
#undef KBLA_TM_X_ODD
  return false;
}

// widths of KBLA_TSMM_DMMA_D_ALIGNED_V1 (column-major D, lda = 0 mod 4, on copy8_columns)
inline bool tsmm_dmma_aligned_v1(int w) {
#define KBLA_TM_X_AV1(WMIN, WMAX) \
  if (w >= WMIN && w <= WMAX) return true;
  KBLA_TSMM_DMMA_D_ALIGNED_V1(KBLA_TM_X_AV1)
#undef KBLA_TM_X_AV1
  return false;
}

// Flat staging only (flat_staged_stores: A and B row-major and dense, 16-byte aligned, the real-view width Mr odd or 2
// (mod 4)), one 16-row tile per warp row; anything else returns cudaErrorNotSupported. The narrow complex rows
// (KBLA_TSMM_DMMA_Z_RR_NARROW: odd widths, Mr = 2 mod 4) take it: faster there than both the SIMT kernel and
// shifted_rows16 with staged stores. Even widths stay on the SIMT kernel, which is as fast there.
template <bool IsComplex, int Width, int WarpColumnTiles, int WarpRows, int ChunkRows, int Stages, int MinBlocksPerSM>
cudaError_t launch_tsmm_dmma_flat(const TsmmArgs<double, IsComplex>& a, int lay, cudaStream_t stream) {
  static_assert(ChunkRows == 16 * WarpRows, "flat staging: one 16-row tile per warp row");
  const int f = IsComplex ? 2 : 1, Mr = f * a.M;
  auto al16 = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  if (lay != kLayRR || a.M > Width / f || a.N > Width / f || a.ask != a.M || a.bsk != a.N || !al16(a.A) || !al16(a.B) ||
      !tsmm_flat_width(Mr))
    return cudaErrorNotSupported;
  return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, 1, ChunkRows, Stages, MinBlocksPerSM,
                            UpdateLayout::row_major, UpdateCopy::flat_staged_stores>(tsmm_dmma_args<IsComplex>(a, true),
                                                                                     stream);
}

// Complex double (launch_tsmm_dmma): picks the copies and stores of one row's configuration.
template <int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages, int MinBlocksPerSM>
cudaError_t launch_tsmm_dmma_cplx(const TsmmArgs<double, true>& a, const TsmmDmmaArgs& d, bool row, std::int64_t lda,
                                  std::int64_t ldb, cudaStream_t stream) {
  constexpr bool IsComplex = true;
  // odd lda with A 32-byte aligned (e.g. cudaMalloc, column-major odd K, row-major odd width): the odd rows
  // (row-major) / odd columns (column-major) of A start at 16 (mod 32) bytes. Column-major takes offset_matched16
  // (shared column offsets matching the global ones), row-major shifted_rows16 (shifted copies of the rows).
  const bool odd32 = lda % 2 == 1 && reinterpret_cast<std::uintptr_t>(a.A) % 32 == 0;
  // class W 128: the transposed product (TransposedProduct, see the kernel) for row-major 57-64 and column-major 58-64,
  // same copies as below, direct stores. TransposedProduct issues far fewer instructions (no register moves to build
  // the A fragments) and measured faster there, in bursts and at the power cap. Below those widths it lost
  // (TransposedProduct spends whole 16-column tiles: 49-52 do 14 where the [k][j] form does 13).
  if constexpr (Width == 128 && WarpColumnTiles == 2 && WarpRows == 1) {
    if (std::max(a.M, a.N) >= (row ? 57 : 58)) {
      if (!row && odd32)
        return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                  MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::offset_matched16, false,
                                  true>(d, stream);
      if (row && odd32)
        return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                  MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::shifted_rows16, false, true>(
            d, stream);
      return row ? launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                      MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::pairs16, false, true>(d,
                                                                                                                 stream)
                 : launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                      MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::pairs16, false, true>(
                       d, stream);
    }
  }
  if (!row && odd32) {
    // odd ldb: staged column stores (ZCSTG, see the kernel) for the classes up to W 96. Rows whose chunk is two tiles
    // per warp row (W 64, 96) run the chunk in one block of RT x the warp rows, one block per SM with MinBlocksPerSM x
    // the stages (W 96: 12 warps, 152 KB; W 64: 16 warps, 200 KB): the same warps per SM and the chunk length kept
    // (shorter chunks split more sectors of the odd columns, see offset_matched16, and were slower; the whole chunk in
    // registers spilled). W 128 (49-64) keeps the direct stores, which were faster there.
    if constexpr (Width <= 96) {
      if (ldb % 2 == 1) {
        constexpr int RT = ChunkRows / (16 * WarpRows);
        if constexpr (TilesPerPass == RT)
          return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                    MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::offset_matched16, true>(
              d, stream);
        else
          return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows * RT, 1, ChunkRows,
                                    Stages * MinBlocksPerSM, 1, UpdateLayout::column_major,
                                    UpdateCopy::offset_matched16, true>(d, stream);
      }
    }
    return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                              MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::offset_matched16>(d, stream);
  }
  if (row && odd32) {
    // N odd and B dense: staged B stores (StagedStores): every other B row starts at 16 (mod 32) bytes, and the direct
    // stores of 4 complex per row split there into 3 partial sectors; staging cuts the L2 write requests about
    // threefold. Classes up to W 96 only (W 128, 49-63, lost). The staged store holds a chunk's accumulators at once:
    // the rows with two 16-row tiles per warp row (W 64, 96) take one tile per warp row and twice the stages (the whole
    // chunk in registers spilled).
    if constexpr (Width <= 96) {
      if (a.N % 2 == 1 && ldb == a.N) {
        constexpr bool keep = TilesPerPass == ChunkRows / (16 * WarpRows);
        constexpr int RZ = keep ? ChunkRows : 16 * WarpRows,
                      STZ = keep ? Stages : (Stages * (ChunkRows / RZ) < 8 ? Stages * (ChunkRows / RZ) : 8);
        return launch_tsmm_dmma_v < IsComplex, Width, WarpColumnTiles, WarpRows, keep ? TilesPerPass : 1, RZ, STZ,
               MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::shifted_rows16, true > (d, stream);
      }
    }
    return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                              MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::shifted_rows16>(d, stream);
  }
  return row ? launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                  MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::pairs16>(d, stream)
             : launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                  MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::pairs16>(d, stream);
}

// Real double (launch_tsmm_dmma): picks the copies and stores of one row's configuration.
template <int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages, int MinBlocksPerSM>
cudaError_t launch_tsmm_dmma_real(const TsmmArgs<double, false>& a, const TsmmDmmaArgs& d, bool row, std::int64_t lda,
                                  std::int64_t ldb, cudaStream_t stream) {
  constexpr bool IsComplex = false;
  auto al16 = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  const bool v2 = al16(a.A) && al16(a.B) && lda % 2 == 0 && ldb % 2 == 0;
  const int w = std::max(a.M, a.N);
  // 8-byte copies (odd leading dimension) measured slower than the SIMT kernel at every such width (row-major odd
  // widths and column-major odd K alike): those shapes go to the SIMT kernel, except for the flat and copy8_columns
  // cases below. Row-major A dense (lda == M) of odd width: flat chunk copies (flat_staged_stores: one run of R * M
  // doubles per chunk, 16-byte cp.async), B stored with 8-byte stores (any ldb); the 8-byte copies were the slow part.
  // B dense (ldb == N) and 16-byte aligned: staged B stores (flat_staged_stores, one contiguous run of 16-byte stores
  // per chunk); otherwise 8-byte stores from the registers (flat_direct_stores). Even widths (16-byte copies, padded A
  // staging as pairs16) with B dense: staged B stores too (pairs16_staged_stores) when N is not a multiple of 8 -- rows
  // of N doubles then start at 16-byte, not 64-byte, offsets and the direct 16-byte stores of a warp (8 rows x 64
  // bytes) split into partial sectors (several times the L2 write requests). Multiples of 8 keep the direct stores
  // (already near the roofline; staged, they were no faster). The classes W 16, 24 (D 9-23) exist only for the staged
  // paths (row-major, B dense): anything else there returns cudaErrorNotSupported, i.e. the SIMT kernel.
  constexpr bool small = Width <= 24;  // the classes W 16, 24 (D 9-23)
  // flat_staged_stores / pairs16_staged_stores hold a whole chunk's accumulators, so their chunk is one 16-row tile per
  // warp row (R4 = 16 WR4), with the stages multiplied so that about the same shared memory stays in flight. Rows with
  // 2+ tiles per warp row (W 64: R 64, WarpRows 2) spilled that way at 128 registers: they take one warp row (4 warps,
  // 16-row chunks) and 3 blocks/SM (170 registers).
  constexpr bool one = ChunkRows / (16 * WarpRows) > 1;
  constexpr int WR4 = one ? 1 : WarpRows, R4 = 16 * WR4,
                ST4 = Stages * (ChunkRows / R4) < 8 ? Stages * (ChunkRows / R4) : 8;
  constexpr int MINB4 = one ? 3 : MinBlocksPerSM;
  const bool bdense = row && al16(a.B) && ldb == a.N;
  // Even widths with A and B dense: the flat copies and staged stores too (fragment rows as in tsmm_flat_row),
  // widths 2 (mod 4) in the classes up to W 48: faster than pairs16_staged_stores and the SIMT kernel there, at many
  // rows and at few. The class W 64 lost (its flat chunk is one 16-row tile of 4 warps, see WR4 above). Widths 4 (mod
  // 8) gained nothing: not taken.
  const bool flat_even = bdense && Width <= 48 && tsmm_flat_width(a.M);
  if (row && al16(a.A) && lda == a.M && (a.M % 2 == 1 || flat_even)) {
    if (bdense)
      return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WR4, 1, R4, ST4, MINB4, UpdateLayout::row_major,
                                UpdateCopy::flat_staged_stores>(d, stream);
    if constexpr (small) return cudaErrorNotSupported;
    else
      return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::flat_direct_stores>(d, stream);
  }
  // Not kept for column-major with odd lda (odd K): a further copy form of this kernel (odd columns copied one row
  // early with 16-byte cp.async, fragments of the odd column by 8-byte loads, staged 8-byte column stores) lost to the
  // SIMT kernel at nearly every width (shared bank conflicts, 2.4x the L2 read requests of the SIMT kernel).
  // Column-major at an odd lda or ldb (odd K), and in the class W 16 at lda = 2 (mod 4) (no offset_matched16 there),
  // for the widths of KBLA_TSMM_DMMA_D_ODD: copy8_columns, 8-byte copies into the offset_matched16 layout and staged
  // column stores (8-byte stores when ldb is odd), chunks of two 16-row tiles per warp row (R = 32 WarpRows: half the
  // chunk boundaries and barriers per row of one tile; R = 16 WarpRows was slower). copy8_columns reads barely more
  // DRAM than the data and runs about twice the warps per SM of the SIMT kernel; other widths keep the SIMT kernel,
  // which won or tied there.
  constexpr int RL = 32 * WarpRows;  // two 16-row tiles per warp row
  if (!row && tsmm_dmma_odd_width(w) && (!v2 || (small && lda % 4 != 0)))
    return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, 1, RL, Stages, MinBlocksPerSM,
                              UpdateLayout::column_major, UpdateCopy::copy8_columns, true>(d, stream);
  if (!v2) return cudaErrorNotSupported;
  if constexpr (Width > 24) {
    if (!row && lda % 4 == 0 && tsmm_dmma_aligned_v1(w))
      return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, 1, RL, Stages, MinBlocksPerSM,
                                UpdateLayout::column_major, UpdateCopy::copy8_columns, true>(d, stream);
    // Column-major with lda = 2 (mod 4) and A 32-byte aligned: offset_matched16 (shared column offsets matching the
    // global ones, see the kernel).
    if (!row && lda % 4 == 2 && reinterpret_cast<std::uintptr_t>(a.A) % 32 == 0) {
      // B with ldb = 2 (mod 4) as well: copy8_columns (8-byte copies, the odd-K path above, whose DRAM reads are barely
      // above the data) with staged column stores (StagedStores: fewer L2 write requests) and chunks of two 16-row
      // tiles per warp row (each chunk boundary of an odd column splits a sector that both chunks fetch, so longer
      // chunks read less DRAM): faster than offset_matched16 with staged or direct stores.
      if (ldb % 4 == 2 && reinterpret_cast<std::uintptr_t>(a.B) % 32 == 0)
        return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, 1, RL, Stages, MinBlocksPerSM,
                                  UpdateLayout::column_major, UpdateCopy::copy8_columns, true>(d, stream);
      return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::offset_matched16>(d, stream);
    }
  }
  // (Widths 2 mod 4 take the flat staging above.)
  // pairs16_staged_stores beat the SIMT kernel only at even widths up to 12 in the classes W 16, 24 (the rest take the
  // SIMT kernel).
  if constexpr (Width != 24) {
    const bool st5 = small ? w <= 12 : a.N % 8 != 0;
    if (row && bdense && st5)
      return launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WR4, 1, R4, ST4, MINB4, UpdateLayout::row_major,
                                UpdateCopy::pairs16_staged_stores>(d, stream);
  }
  if constexpr (small) return cudaErrorNotSupported;
  else
    return row ? launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                    MinBlocksPerSM, UpdateLayout::row_major, UpdateCopy::pairs16>(d, stream)
               : launch_tsmm_dmma_v<IsComplex, Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages,
                                    MinBlocksPerSM, UpdateLayout::column_major, UpdateCopy::pairs16>(d, stream);
}

// Launch on a TsmmArgs (double or complex double); lay: kLayRR / kLayCC (others: cudaErrorNotSupported).
// Real matrices take 16-byte copies and stores when the pointers are 16-byte aligned and the leading
// dimensions even, 8-byte ones otherwise; complex elements are always 16-byte aligned (checked by the entry).
// Complex column-major takes this kernel from width 12 (the first Z row): with the [m][k][re,im] staging it beats
// the SIMT kernel there.
template <bool IsComplex, int Width, int WarpColumnTiles, int WarpRows, int TilesPerPass, int ChunkRows, int Stages,
          int MinBlocksPerSM>
cudaError_t launch_tsmm_dmma(const TsmmArgs<double, IsComplex>& a, int lay, cudaStream_t stream) {
  if (lay != kLayRR && lay != kLayCC) return cudaErrorNotSupported;
  const bool row = lay == kLayRR;
  const int f = IsComplex ? 2 : 1;
  if (a.M > Width / f || a.N > Width / f) return cudaErrorNotSupported;
  const std::int64_t lda = row ? a.ask : a.asm_, ldb = row ? a.bsk : a.bsn;
  const TsmmDmmaArgs d = tsmm_dmma_args<IsComplex>(a, row);
  if constexpr (IsComplex)
    return launch_tsmm_dmma_cplx<Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages, MinBlocksPerSM>(
        a, d, row, lda, ldb, stream);
  else
    return launch_tsmm_dmma_real<Width, WarpColumnTiles, WarpRows, TilesPerPass, ChunkRows, Stages, MinBlocksPerSM>(
        a, d, row, lda, ldb, stream);
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
