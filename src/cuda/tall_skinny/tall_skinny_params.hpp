// Parameter tables of the tall & skinny kernels (sm_90). Data only: each X(...) row is one compiled
// configuration; a call uses the first row whose class width W covers its width (max(M, N), complex widths
// for complex types), or the last row tiled over columns for wider matrices.
//
// Provenance: initial rows from a register / shared-memory model; the SIMT rows were then tuned with
// tools/tune_tall_skinny.sh (perf_tests/tall_skinny/tune.cu), the others picked by comparing candidate rows in
// perf_tests/tall_skinny/ts_cases.cu with the cuBLAS routes off (docs/tall_skinny.md). The comments say why a row is
// shaped as it is; the measurements are in the results and docs, not here.
#pragma once

// ---- TSMTTSM: X(W, TM, TN, PM, PN)  thread tile TM x TN, PM x PN threads per row, MT = TM*PM >= W ----
#define KBLA_TSMTTSM_D(X)                                                                                    \
  X(1, 1, 1, 1, 1) X(2, 2, 2, 1, 1) X(3, 3, 3, 1, 1) X(4, 4, 4, 1, 1) X(5, 5, 5, 1, 1) X(6, 6, 6, 1, 1)   \
  X(8, 8, 8, 1, 1) X(10, 5, 5, 2, 2) X(12, 6, 6, 2, 2) X(16, 8, 8, 2, 2) X(20, 5, 5, 4, 4)                \
  X(24, 6, 6, 4, 4) X(32, 8, 8, 4, 4) X(40, 5, 5, 8, 8) X(48, 8, 8, 6, 6) X(56, 7, 7, 8, 8)               \
  X(64, 8, 8, 8, 8)
#define KBLA_TSMTTSM_Z(X)                                                                                    \
  X(1, 1, 1, 1, 1) X(2, 2, 2, 1, 1) X(3, 3, 3, 1, 1) X(4, 2, 2, 2, 2) X(6, 3, 3, 2, 2) X(8, 4, 4, 2, 2)   \
  X(12, 3, 3, 4, 4) X(16, 4, 4, 4, 4) X(24, 3, 3, 8, 8) X(32, 4, 4, 8, 8) X(48, 3, 3, 16, 16)             \
  X(64, 4, 4, 16, 16)
#define KBLA_TSMTTSM_S(X)                                                                                    \
  X(1, 1, 1, 1, 1) X(2, 2, 2, 1, 1) X(4, 4, 4, 1, 1) X(8, 4, 4, 2, 2) X(16, 4, 4, 4, 4) X(32, 8, 8, 4, 4) \
  X(64, 8, 8, 8, 8)
#define KBLA_TSMTTSM_C(X)                                                                                    \
  X(1, 1, 1, 1, 1) X(2, 2, 2, 1, 1) X(4, 2, 2, 2, 2) X(8, 4, 4, 2, 2) X(16, 4, 4, 4, 4) X(32, 4, 4, 8, 8) \
  X(64, 4, 4, 16, 16)
// mixed layouts (A row-major and B column-major or the reverse): runtime strides, fewer classes
#define KBLA_TSMTTSM_GEN_REAL(X) X(8, 4, 4, 2, 2) X(16, 4, 4, 4, 4) X(32, 8, 8, 4, 4) X(64, 8, 8, 8, 8)
#define KBLA_TSMTTSM_GEN_CPLX(X) X(8, 4, 4, 2, 2) X(16, 4, 4, 4, 4) X(32, 4, 4, 8, 8) X(64, 4, 4, 16, 16)

// ---- TSMM: X(W, TN, U, RK)  MT = NT = W, PN = W/TN threads per row, U rows per thread, RK*PN threads ----
#define KBLA_TSMM_D(X)                                                                                       \
  X(1, 1, 4, 256) X(2, 2, 2, 256) X(3, 3, 2, 256) X(4, 4, 2, 256) X(5, 5, 2, 128) X(6, 6, 2, 128)          \
  X(8, 4, 2, 128) X(10, 5, 2, 128) X(12, 6, 2, 128) X(16, 4, 4, 32) X(20, 5, 4, 32) X(24, 6, 4, 32)       \
  X(32, 8, 4, 32) X(40, 5, 4, 32) X(48, 6, 4, 32) X(56, 7, 4, 16) X(64, 8, 4, 16)
#define KBLA_TSMM_Z(X)                                                                                       \
  X(1, 1, 4, 256) X(2, 2, 2, 256) X(3, 3, 2, 128) X(4, 2, 2, 128) X(6, 3, 2, 128) X(8, 4, 2, 64)          \
  X(12, 3, 4, 32) X(16, 4, 4, 32) X(24, 3, 4, 32) X(32, 4, 4, 16) X(48, 6, 2, 32) X(64, 4, 2, 16)
#define KBLA_TSMM_S(X)                                                                                       \
  X(1, 1, 4, 256) X(2, 2, 2, 256) X(4, 4, 2, 256) X(8, 4, 2, 128) X(16, 4, 4, 32) X(32, 8, 4, 32)         \
  X(64, 8, 4, 16)
#define KBLA_TSMM_C(X)                                                                                       \
  X(1, 1, 4, 256) X(2, 2, 2, 256) X(4, 2, 2, 128) X(8, 4, 2, 64) X(16, 4, 4, 32) X(32, 4, 4, 16)          \
  X(64, 4, 2, 16)
// Column-major double on the SIMT kernel (odd K: the tensor-core TSMM takes only even ld): X(WMIN, WMAX, W, TN, U, RK,
// MINB) for WMIN <= max(M, N) <= WMAX, class width W, MINB blocks/SM for __launch_bounds__ (0: none); widths no row
// covers take KBLA_TSMM_D, which runs this layout at only 8-16 warps/SM (128-191 registers at 256 threads) and pads
// 33 to 40 columns. These rows trade thread-tile size for occupancy or padding: TN 3 at 21-24 (80 registers, 24
// warps), TN 4 with MINB 2 at 29-32 (128 registers, 16 warps), a W 36 class for 33-36 (36 instead of 40 columns),
// TN 4 at 37-40 (96 registers, 20 warps); each measured faster than KBLA_TSMM_D there. Not taken: U 2 (half the reuse
// of each C value, more shared-memory reads per FMA), W 28 for 26-28, W 48 for 44-47: slower or no gain.
#define KBLA_TSMM_D_COL(X) \
  X(21, 24, 24, 3, 4, 32, 0) X(29, 32, 32, 4, 4, 32, 2) X(33, 36, 36, 6, 4, 32, 2) X(37, 40, 40, 4, 4, 32, 0)
#define KBLA_TSMM_GEN_REAL(X) X(8, 4, 2, 128) X(16, 4, 4, 32) X(32, 8, 4, 32) X(64, 8, 4, 16)
#define KBLA_TSMM_GEN_CPLX(X) X(8, 4, 2, 64) X(16, 4, 4, 32) X(32, 4, 4, 16) X(64, 4, 2, 16)

// ---- TSMTTSM on FP64 tensor cores (double, complex double; non-deterministic mode):
//      X(Wmin, Wmax, BM, BN, FM, FN, KC, Stages)  block tile BM x BN of the real product P (complex: 2W x 2W),
//      warp tile 8FM x 8FN, KC rows per cp.async stage, Stages pipeline stages ----
// A tile close to the width matters, since the per-row copy and DMMA work is set by the padded tile, not by the
// width (D 48 in a 64 tile ran at about 70 % of the roofline).
// Column-major at ld != 0 (mod 4) is latency-bound in the 4-warp 64 tile (190 registers: 2 blocks = 8 warps per SM),
// so the 16- and 18-warp tiles of KBLA_TSMTTSM_DMMA_D_CC are tried first for column-major A and B; at aligned ld and
// row-major they do not gain, so those keep the general rows below.
// 17-24 at ld != 0 (mod 4) take the 32 tile of 25-32 (4 warps, KC 64; KBLA_TSMTTSM_DMMA_D_CC_ODD) instead of the 24
// tile (9 warps of one 8 x 8 m8n8k4 fragment, KC 32): KC 64 halves the chunk boundaries per column (at odd ld a
// 32-row chunk of a column touches 8.75 sectors on average for 8 sectors of data, +9 %; a 64-row chunk 16.75 for 16,
// +5 %) and halves the barriers. The DMMA work is no larger: the 24 tile's 9 warps x 8 m8n8k4 per 32 rows (half rate
// on sm_90) cost as much pipe time as the 32 tile's 4 warps x 16 m16n8k8 per 64 rows.
#define KBLA_TSMTTSM_DMMA_D(X)                                                                              \
  X(9, 16, 16, 16, 1, 1, 64, 4) X(17, 24, 24, 24, 1, 1, 32, 4) X(25, 32, 32, 32, 2, 2, 64, 3)              \
  X(33, 48, 48, 48, 2, 3, 32, 3) X(49, 64, 64, 64, 4, 4, 32, 3) X(65, 1 << 30, 128, 128, 4, 8, 32, 3)
// Rows tried first by layout, in this order: _RR for row-major A and B; _CC_ODD, then _CC for column-major A and B
// (_CC_ODD only at ld != 0 mod 4).
// Column-major at any ld: 64-row chunks and 2 stages halve the barriers and the chunk boundaries per column (each
// splits a 32-byte sector at odd ld); 6-7 leave the SIMT kernel for the 16 tile of 9-16; 33-48 in 6 warps of
// 16 x 24 instead of 18 of 16 x 8 (fewer shared loads per DMMA). Row-major 24 in the 32 tile with KC 64. Each
// measured faster than the general rows for its layout.
#define KBLA_TSMTTSM_DMMA_D_RR(X) X(24, 24, 32, 32, 2, 2, 64, 3)
#define KBLA_TSMTTSM_DMMA_D_CC_ODD(X) X(17, 24, 32, 32, 2, 2, 64, 3)
#define KBLA_TSMTTSM_DMMA_D_CC(X) \
  X(6, 7, 16, 16, 1, 1, 64, 4) X(33, 48, 48, 48, 2, 3, 64, 2) X(49, 64, 64, 64, 2, 2, 64, 2)
// Z tiles are sized in the real view (2W). 9-12 take KC 64; 25-32 FM = FN = 2 (16 warps); 41-48 FM 2, KC 64, Stages 2
// (18 warps, half the barriers per row): the 9-warp 48 tile it replaces stalled on barriers and memory waits with
// the DMMA pipe half idle.
// 33-40: an 80 tile (10 warps) instead of the 96 one, whose per-row DMMA work is that of width 48; 49-56 likewise a
// 112 tile (FM 2, FN 7, 14 warps). Not taken: a 48 x 48 FN 1 tile for 17-24 (more shared loads per mma, and the
// narrow widths of a class do the full tile per row); other 128 tiles (no clear gain); KC 48 Stages 2 for the 112 tile
// (faster row-major, slower column-major).
// 57-64: the 128 tile as 16 warps of 32 x 32 (FM 4, FN 4; 121-128 registers) instead of 8 warps of 32 x 64
// (212 registers), and for row-major A and B (KBLA_TSMTTSM_DMMA_Z_RR, tried first) KC 48 Stages 2 (fewer barriers;
// column-major keeps KC 32: its VEC 7 copies take the fast path only for BT % KC == 0). Not taken: FM 2 FN 8 and
// FM 4 FN 8 KC 48 Stages 2 (slower). Sustained, these widths run the H100 at its 700 W power cap with the SM clock well
// below its peak (docs/tall_skinny.md, section 3).
#define KBLA_TSMTTSM_DMMA_Z_RR(X) X(57, 64, 128, 128, 4, 4, 48, 2)
#define KBLA_TSMTTSM_DMMA_Z(X)                                                                              \
  X(5, 8, 16, 16, 1, 1, 64, 4) X(9, 12, 24, 24, 1, 1, 64, 3) X(13, 16, 32, 32, 2, 2, 32, 4)                 \
  X(17, 24, 48, 48, 2, 3, 32, 3) X(25, 32, 64, 64, 2, 2, 32, 3) X(33, 40, 80, 80, 2, 5, 64, 2)             \
  X(41, 48, 96, 96, 2, 4, 64, 2) X(49, 56, 112, 112, 2, 7, 32, 3) X(57, 1 << 30, 128, 128, 4, 4, 32, 3)
// Complex rows taken before KBLA_TSMTTSM_DMMA_Z when the caller opts in (TallSkinnyOptions::complex_3m; its error is
// only normwise, as cuBLAS's Zgemm3m): three real products (Gauss) instead of the four of the real view,
// FM / FN counted in complex rows / columns (inner_dmma.cuh, G3). Only 57-64: with the spread copies
// (inner_dmma.cuh, SPREAD) the real-view tiles are as fast or faster below that, and G3 in the 96 tile at 33-48
// was slower than the real-view row. Not taken: FM = FN = 2 (16 warps: spills at 128 registers).
#define KBLA_TSMTTSM_DMMA_Z3(X) X(57, 64, 128, 128, 4, 2, 32, 3)

// ---- Narrow shapes: one operand much narrower than the other (N <= 16, M >= 2N), the block Gram-Schmidt case
//      (a block of s vectors against a basis of p >> s columns). The square tables above pad N up to the class
//      width of max(M, N), which wastes (MT/N)-fold work and threads (64 x 8 ran as 64 x 64); these rows size
//      the tile to each operand. The first row with N <= NMAX and M <= MMAX is taken; the last rows of each
//      N class tile wider M over grid.y (the narrow operand is then read once per tile: 1 + N/MT extra).
//      Rows chosen by the register / shared-memory model, not tuned by measurement.
// TSMTTSM SIMT: X(NMAX, MMAX, TM, TN, PM, PN) (all types; also the deterministic mode of D and Z)
#define KBLA_TSMTTSM_NARROW(X)                                                                               \
  X(2, 32, 4, 2, 8, 1) X(2, 1 << 30, 4, 2, 16, 1) X(4, 32, 4, 4, 8, 1) X(4, 1 << 30, 4, 4, 16, 1)         \
  X(8, 32, 4, 8, 8, 1) X(8, 1 << 30, 4, 8, 16, 1)
// TSMTTSM DMMA: X(NMAX, MMAX, BM, BN, FM, FN, KC, Stages), BM/BN in real-view columns (complex: 2 per element)
#define KBLA_TSMTTSM_DMMA_NARROW_D(X) \
  X(8, 32, 32, 8, 1, 1, 32, 4) X(8, 1 << 30, 64, 8, 1, 1, 32, 4) X(16, 1 << 30, 64, 16, 1, 1, 32, 4)
#define KBLA_TSMTTSM_DMMA_NARROW_Z(X) X(4, 1 << 30, 64, 8, 1, 1, 32, 4) X(8, 1 << 30, 64, 16, 1, 1, 32, 4)
// TSMM: X(NMAX, MT, NT, TN, U, RK): M <= MT (no M loop), PN = NT/TN threads per row; the staged A chunk
// (2 x RK*U rows x (MT+1)) stays near 64 KB so that three blocks fit an SM
#define KBLA_TSMM_NARROW_8B(X)                                                                               \
  X(2, 32, 2, 2, 2, 64) X(2, 64, 2, 2, 2, 32) X(4, 32, 4, 4, 2, 64) X(4, 64, 4, 4, 2, 32)                 \
  X(8, 32, 8, 4, 2, 64) X(8, 64, 8, 4, 2, 32)
#define KBLA_TSMM_NARROW_16B(X)                                                                              \
  X(2, 32, 2, 2, 2, 32) X(2, 64, 2, 2, 2, 16) X(4, 32, 4, 4, 2, 32) X(4, 64, 4, 4, 2, 16)                 \
  X(8, 32, 8, 4, 2, 32) X(8, 64, 8, 4, 2, 16)

// ---- TSMM on FP64 tensor cores (mma.sync m16n8k8 f64; double, complex double; update_dmma.cuh):
//      X(Wmin, Wmax, W, NT, WR, TU, R, Stages, MINB) for Wmin <= max(M, N) <= Wmax (complex widths for Z).
//      W: class width in the real view (complex: 2x), NT: 8-column mma tiles per warp (W / (8 NT) warps across
//      the columns, alpha*C held as 2 W/8 NT doubles per lane), WR warp rows, TU 16-row tiles per pass (TU x NT
//      independent accumulator chains), R rows per cp.async stage, Stages pipeline stages, MINB blocks/SM for
//      __launch_bounds__. Narrower data in a class skips the k-steps / n-tiles it does not need. In
//      tsmm_dmma_kernel's template: W = Width, NT = WarpColumnTiles, WR = WarpRows, TU = TilesPerPass, R =
//      ChunkRows, MINB = MinBlocksPerSM.
// Chosen by the register / shared-memory model: at least 2 stages in flight per block, i.e. >= 96 KB/SM of A reads
// outstanding (Little's law: ~1 us of DRAM latency at full HBM bandwidth asks ~25 KB/SM); <= 512 B of A fragment
// loads per mma (half the shared-memory bandwidth at the DMMA peak); MINB from the register budget.
//   D 24-32:  8 warps, R 64, 3 x 18 KB stages (55 KB), 2 blocks/SM          (needs ~20 % of the DMMA peak)
//   D 33-48:  6 warps, R 32, 4 x 13 KB stages (53 KB), 2-3 blocks/SM        (~30 %)
//   D 49-64:  8 warps, R 64, 3 x 35 KB stages (104 KB), 2 blocks/SM, <= 128 regs (~40 %)
//   Z 12-16, 17-24, 25-32: as D 32, 48, 64 in the real view (2x the widths)
//   Z 33-48:  6 warps, R 32, 3 x 26 KB stages (77 KB), 2 blocks/SM          (~55 %)
//   Z 49-64:  8 warps, R 32, 4 x 34 KB stages (135 KB), 1 block/SM, TU 2    (~75 %: DMMA-bound at best)
// MINB: a tighter register cap (3 blocks of 8 warps: 80 regs) spilled in ptxas; 2 blocks leave room.
// Not taken: MINB 3 for D column-major in the class W 48 (90-94 registers, 3 blocks = 18 warps/SM): no gain at any
// alignment, the third block does not pay there.
// D 9-16, 17-23 (W 16, 24): row-major with B dense only (staged stores: flat for odd widths and 2 mod 4, VEC 5 for 12;
//   else SIMT),
//   8 / 6 warps, R 64 / 32 (one 16-row tile per warp row), 4 x 10 KB / 4 x 9 KB stages, 4 blocks/SM.
#define KBLA_TSMM_DMMA_D(X)                                                                             \
  X(9, 16, 16, 1, 4, 1, 64, 4, 4) X(17, 23, 24, 1, 2, 1, 32, 4, 4) X(24, 32, 32, 2, 4, 1, 64, 3, 2)  \
  X(33, 48, 48, 2, 2, 1, 32, 4, 2) X(49, 64, 64, 2, 2, 1, 64, 3, 2)
// D column-major at an odd lda or ldb (odd K) and, in the class W 16, at lda = 2 (mod 4): the tensor-core kernel
// (VEC 1: 8-byte copies, staged column stores; update_dmma.cuh) for WMIN <= max(M, N) <= WMAX, X(WMIN, WMAX): the
// widths where it measured faster than the SIMT rows. Other widths stay on the SIMT kernel (KBLA_TSMM_D_COL /
// KBLA_TSMM_D rows), which tied or won there (33 and 38 among them).
#define KBLA_TSMM_DMMA_D_ODD(X) X(12, 16) X(24, 28) X(44, 47) X(49, 64)
// D column-major with lda = 0 (mod 4) (the VEC 2 copies' case): VEC 1 (8-byte copies into the VEC 6 layout, staged
// column stores, two 16-row tiles per warp row) for WMIN <= max(M, N) <= WMAX, X(WMIN, WMAX), where it measured
// faster than VEC 2.
#define KBLA_TSMM_DMMA_D_ALIGNED_V1(X) X(33, 48)
// D column-major at an odd lda or ldb: VEC 1 rows with longer chunks, tried before the rows above,
// X(WMIN, WMAX, W, NT, WR, R, Stages, MINB) (R = 16 WR x tiles per warp row). 17-24: one warp across the 24 columns
// (NT 3: 2 A fragment loads per 3 mma instead of 2 per mma), 8 warp rows, 256-row chunks (an eighth of the chunk
// boundaries that split a sector of an odd column in two, an eighth of the barriers), 2 stages, 2 blocks/SM (99
// KB, 128 registers, 4 bytes spilled). 49-64: 4 warp rows of 128-row chunks, 16 warps, 2 stages (133 KB), 1
// block/SM. Both measured faster than the VEC 1 rows of 64-row chunks with the same stores. Not taken: K = 2 mod 4
// (no gain); 17-24 as W 24 NT 3 WR 4 (R 128, Stages 3, 3 blocks: slower); W 64 with NT 1 or with Stages 2 MINB 3, and
// 33-48 in W 48 rows of 128-row chunks (all spill).
#define KBLA_TSMM_DMMA_D_ODDLONG(X) X(17, 24, 24, 3, 8, 256, 2, 2) X(49, 64, 64, 2, 4, 128, 2, 1)

// D column-major A * C on the bulk-copy kernel (update_bulk.cuh; beta = 0, whole chunks of R rows; the rest of the rows
// take the rows above): X(WMIN, WMAX, W, R, Stages, ComputeWarps, OutputBuffers, LK, A32) for WMIN <= max(M, N) <= WMAX
// and K >= 2^LK rows, class width W, R rows per chunk, Stages pipeline stages of A, ComputeWarps compute warps (+ a
// loader and a storer warp), OutputBuffers output buffers, one block per SM (~200 KB of shared memory); A32 = 1: not
// when lda and ldb are multiples of 32 (256-byte aligned columns, where the W 48 rows of KBLA_TSMM_DMMA_D already run
// near the roofline). 128-row chunks beat 64-row ones at every width 33-64. LK: one block per SM and its pipeline fill
// lose at few rows, so each class starts at the row count from which it measured faster than the other kernels (at 40 /
// 48 with lda = 0 mod 32 it stayed behind: A32).
#define KBLA_TSMM_BULK_D(X) \
  X(25, 32, 32, 128, 4, 8, 2, 18, 0) X(33, 48, 48, 128, 3, 6, 1, 19, 1) X(49, 64, 64, 128, 2, 8, 1, 17, 0)
// Complex double column-major (complex widths WMIN-WMAX, W of the real view; 16-byte elements: no shifted columns).
// From 2^13 rows: below, the one block per SM and its pipeline fill lose. Not taken: 49-64 as W 128, R 32, Stages 4,
// ComputeWarps 8 (spills): faster in short bursts, but slower than update_dmma.cuh's rows in sustained calls (the 700 W
// power cap).
#define KBLA_TSMM_BULK_Z(X)                                                                              \
  X(12, 16, 32, 128, 4, 8, 2, 13, 0) X(17, 24, 48, 128, 3, 6, 1, 13, 0) X(25, 32, 64, 128, 2, 8, 1, 13, 0) \
  X(33, 48, 96, 64, 3, 6, 1, 13, 0)

// Complex double A * C with alpha C in shared memory (update_bulk_cplx.cuh), beta = 0, tried before KBLA_TSMM_BULK_Z:
// X(WMIN, WMAX, COLS, R, Stages, NP, TU, RS, SQ, LK, RO) for WMIN <= max(M, N) <= WMAX, K >= 2^LK rows, row-major or
// column-major A and B (RO 1: row-major only). COLS complex class width, R rows per chunk, Stages pipeline stages, NP
// pairs of n-tiles (8 complex columns) and TU 16-row tiles per compute warp, RS compute warps along a chunk's rows (8 /
// 6 compute warps here), SQ chunks per block visit. 8 compute warps with 3 16-row tiles each did best (4 starve the
// DMMA pipe, 16 are slightly slower, 24 spill). Row-major 34-48 gain over the older kernels; row-major 33 stays on
// them and column-major 33-48 on KBLA_TSMM_BULK_Z. One block per SM with a 36-64 KB alpha C prologue loses at few
// rows: from 2^18 rows, width 64 from 2^19.
#define KBLA_TSMM_BULK_ZC(X)              \
  X(34, 48, 48, 48, 3, 1, 3, 1, 1, 18, 1) \
  X(49, 63, 64, 48, 2, 1, 3, 1, 1, 18, 0) X(64, 64, 64, 48, 2, 1, 3, 1, 1, 19, 0)

// Narrow row-major rows, tried before the tables above for row-major A and B only (the SIMT kernel otherwise).
// D 7-8 in the class W 16 (7: flat copies, 8: VEC 5 staged stores); Z odd widths 3-11 in the
// real-view classes W 8, 16, 24, flat staging only (launch_tsmm_dmma_flat; even widths return to the SIMT kernel).
// Both measured faster than the SIMT kernel (Z: see launch_tsmm_dmma_flat).
#define KBLA_TSMM_DMMA_D_RR_NARROW(X) X(7, 8, 16, 1, 4, 1, 64, 4, 4)
#define KBLA_TSMM_DMMA_Z_RR_NARROW(X) \
  X(3, 3, 8, 1, 8, 1, 128, 4, 4) X(5, 7, 16, 1, 4, 1, 64, 4, 4) X(9, 11, 24, 1, 2, 1, 32, 4, 4)

#define KBLA_TSMM_DMMA_Z(X)                                                                            \
  X(12, 16, 32, 2, 4, 1, 64, 3, 2) X(17, 24, 48, 2, 2, 1, 32, 4, 2) X(25, 32, 64, 2, 2, 1, 64, 3, 2) \
  X(33, 48, 96, 2, 1, 1, 32, 3, 2) X(49, 64, 128, 2, 1, 2, 32, 4, 1)

