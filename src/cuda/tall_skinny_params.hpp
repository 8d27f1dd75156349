// Parameter tables of the tall & skinny kernels (sm_90). Data only: each X(...) row is one compiled
// configuration; a call uses the first row whose class width W covers its width (max(M, N), complex widths
// for complex types), or the last row tiled over columns for wider matrices.
//
// Provenance: initial rows chosen by the register / shared-memory model of NOTES.md (perf_tests/tall_skinny);
// rows marked in NOTES.md as tuned were picked by scripts/tune_tall_skinny.sh (perf_tests/tall_skinny/tune.cu)
// on the H100 device runs recorded in perf_tests/tall_skinny/NOTES.md (run 1: SIMT TSMTTSM D widths 8, 16, 48;
// TSMM candidates all within 2 % of the initial rows, which were kept).
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
// covers take KBLA_TSMM_D, which ran this layout at 8-16 warps/SM (ptxas: W 24 128 registers, W 32 191, W 40 128
// at 256 threads) and padded 33 to 40 columns. tsmm4, H100, ts_cases --rows-log2 29 (odd K), routes off, GB/s
// KBLA_TSMM_D -> this row, two rounds each: 21 2355 -> 2457, 22 2328 -> 2434, 23 2340 -> 2408, 24 2348 -> 2406
// (TN 3: 80 registers, 24 warps); 30 2346 -> 2445 (TN 4, MINB 2: 128 registers, 16 warps); 33 2375 -> 2447 (W 36:
// 168 registers, 12 warps, 36 instead of 40 columns); 38 2416 -> 2460 (TN 4: 96 registers, 20 warps).
// Measured and not taken (same call): U 2 rows (half the reuse of each C value, more shared-memory reads per FMA) at
// every class, 80-128 registers: 17-20 -0.2-1.4 %, 21-24 -9-12 %, 26-30 -10-12 %, 44/47 -2 %, 49-58 +0.1 to -3.6 %;
// W 20 U 2 RK 32 MINB 6 -11-12 %; W 28 TN 7 for 26-28 +1.5 / 0 / -0.2 %; W 36 TN 6 U 2 MINB 4 (80 registers,
// 24 warps) for 33 -10 %; W 48 TN 6 RK 16 (160 registers, 12 warps) for 44/47 -11/-13 %.
#define KBLA_TSMM_D_COL(X) \
  X(21, 24, 24, 3, 4, 32, 0) X(29, 32, 32, 4, 4, 32, 2) X(33, 36, 36, 6, 4, 32, 2) X(37, 40, 40, 4, 4, 32, 0)
#define KBLA_TSMM_GEN_REAL(X) X(8, 4, 2, 128) X(16, 4, 4, 32) X(32, 8, 4, 32) X(64, 8, 4, 16)
#define KBLA_TSMM_GEN_CPLX(X) X(8, 4, 2, 64) X(16, 4, 4, 32) X(32, 4, 4, 16) X(64, 4, 2, 16)

// ---- TSMTTSM on FP64 tensor cores (double, complex double; non-deterministic mode):
//      X(Wmin, Wmax, BM, BN, FM, FN, KC, ST)  block tile BM x BN of the real product P (complex: 2W x 2W),
//      warp tile 8FM x 8FN, KC rows per cp.async stage, ST stages ----
// Rows from the DMMA sweep of run 2 (NOTES.md): a tile close to the width matters, since the per-row copy and
// DMMA work is set by the padded tile, not by the width (D 48 in a 64 tile ran at 70 %).
// Column-major at K != 0 (mod 4) is latency-bound in the 4-warp 64 tile (ncu D C 55, K odd: 190 registers, 2 blocks =
// 8 warps per SM, 12 % issue slots busy, DRAM 77 %). tsmttsm3 measured (H100, ts_cases --rows-log2 29, routes off):
// 49-64 as 64 x 64 FM 2 FN 2 (16 warps): C +6-9 % (55: 2372 -> 2573 GB/s), R -1-17 %; 33-48 as 48 x 48 FM 2 FN 1
// (18 warps): C +3-8 % (38: 2523 -> 2729), R -2-23 %: so these two rows (KBLA_TSMTTSM_DMMA_D_CC) are tried first
// when A and B are column-major with ld != 0 mod 4. Session 8 benchmark (H100, K = 2^29/w, % of roofline, old rows ->
// these): unaligned 33-48 +1..+7 (38 84 -> 91, 44 81 -> 86), 49-61 +4..+6 (55 78 -> 84); aligned 34-37 lost 2-5
// with them (34 91 -> 86), aligned 49-64 within +-2: so aligned ld keeps the general rows.
// 17-24 at ld != 0 mod 4 (tsx6, session 10): the 32 tile of 25-32 (4 warps, KC 64) instead of the 24 tile
// (9 warps of one 8 x 8 m8n8k4 fragment, KC 32). Run s9 (H100, K = 2^29/w, all odd): 17-24 79-82 % of the roofline
// in the 24 tile against 87-89 % for 9-15 (16 tile, KC 64) and 25-30 (this row) at odd K. KC 64 halves the chunk
// boundaries per column: at odd ld a 32-row chunk of a column touches 8.75 sectors on average for 8 sectors of
// data (+9 %), a 64-row chunk 16.75 for 16 (+5 %), and half the barriers. The DMMA work is no larger: the 24
// tile's 9 warps x 8 m8n8k4 per 32 rows (half rate on sm_90) cost as much pipe time as the 32 tile's 4 warps x 16
// m16n8k8 per 64 rows. Measured (H100, ts_cases --random-data, routes off, GB/s old -> new, two rounds):
// odd ld (K = 2^29/w) 17-24 2380-2521 -> 2662-2745 (+8-13 %), ld = 2 mod 4 18-24 2512-2549 -> 2692-2755; aligned
// ld keeps the general rows (this row is not taken there; aligned 20 runs 2500-2516, not tried in the 32 tile).
#define KBLA_TSMTTSM_DMMA_D(X)                                                                              \
  X(9, 16, 16, 16, 1, 1, 64, 4) X(17, 24, 24, 24, 1, 1, 32, 4) X(25, 32, 32, 32, 2, 2, 64, 3)              \
  X(33, 48, 48, 48, 2, 3, 32, 3) X(49, 64, 64, 64, 4, 4, 32, 3) X(65, 1 << 30, 128, 128, 4, 8, 32, 3)
// Session 10's column-major rows (odd ld only); KBLA_TS_OLD_DROWS=1 takes them instead of the three tables below
#define KBLA_TSMTTSM_DMMA_D_CC_S10(X) \
  X(17, 24, 32, 32, 2, 2, 64, 3) X(33, 48, 48, 48, 2, 1, 32, 3) X(49, 64, 64, 64, 2, 2, 32, 3)
// Rows tried first by layout (tsx7, session 11, re-written in session 12 after the branch was lost; tried in this
// order: _RR for row-major A and B; _CC_ODD, then _CC for column-major A and B (_CC_ODD only at ld != 0 mod 4)).
// Column-major at any ld: 64-row chunks and 2 stages halve the barriers and the chunk boundaries per column (each
// splits a 32-byte sector at odd ld); 6-7 leave the SIMT kernel for the 16 tile of 9-16; 33-48 in 6 warps of
// 16 x 24 instead of 18 of 16 x 8 (fewer shared loads per DMMA). Session 11 (H100, ts_cases K = 2^29/w, routes off,
// GB/s old -> these rows): C 6 2590 -> 2711, 7 2584 -> 2721, 33 2547 -> 2718, 40 2547 -> 2687, 41 2491 -> 2665,
// 47 2571 -> 2672, 49 2566 -> 2812, 54 2584 -> 2771, 56 2568 -> 2702, 57 2555 -> 2724, 59 2554 -> 2741;
// row-major 24 in the 32 tile with KC 64: 2556 -> 2782. Re-measured in session 12: perf_tests/tall_skinny/NOTES.md.
#define KBLA_TSMTTSM_DMMA_D_RR(X) X(24, 24, 32, 32, 2, 2, 64, 3)
#define KBLA_TSMTTSM_DMMA_D_CC_ODD(X) X(17, 24, 32, 32, 2, 2, 64, 3)
#define KBLA_TSMTTSM_DMMA_D_CC(X) \
  X(6, 7, 16, 16, 1, 1, 64, 4) X(33, 48, 48, 48, 2, 3, 64, 2) X(49, 64, 64, 64, 2, 2, 64, 2)
// Z rows 9-12, 25-32, 33-48 from the zts sweep (H100, K = 2^25/w, GB/s row-major / column-major, old -> new row,
// both with the VEC 7 / VEC 8 copies, same run): 12: 2535 / 2597 -> 2584 / 2672 (KC 64); 32: 2717 / 2654 ->
// 2805 / 2732 (FM = FN = 2: 16 warps); 48: 2491 / 2346 -> 2729 / 2586, 40: 2212 / 2155 -> 2560 / 2430 (FM 2,
// KC 64, ST 2: 18 warps, half the barriers per row; ncu at 48 on the old row: 9 warps per SM, stalls per issue
// wait 2.6, barrier 2.1 cycles, DMMA pipe 46 % active). Not taken: 48 x 48 FN 1 (18 warps): 24 +3-5 %, but
// 17-21 10-25 % slower (more shared loads per mma; the narrow widths of a class do the full tile per row, K = 2^25/w
// rows); 128 tiles: no candidate better by more than ~2 % (8 x 4 warp tiles, KC 16, ST 2).
// 33-40: an 80 tile (10 warps, spread copies) instead of the 96 one, whose per-row DMMA work is that of width 48
// (tsmttsm3, H100, ts_cases --rows-log2 28, routes off, GB/s R / C, 96 -> 80, mean of 2 rounds): 33: 2690 / 2096 ->
// 2923 / 2781; 34: 2657 / 2248 -> 2862 / 2778; 36: 2718 / 2539 -> 2785 / 2775; 38: 2853 / 2589 -> 2822 / 2694;
// 40: 2845 / 2641 -> 2867 / 2709 (KC 32 ST 3 within 1-5 %, lower at C 34). Measured, not taken (same call): a 112
// tile (FM 2, FN 7, 14 warps) for 49-56: KC 32 ST 3: R +10-18 %, C +1-11 % (49: 2308 / 2379 -> 2690 / 2652; 52:
// 2413 / 2624 -> 2845 / 2733; 56: 2580 / 2604 -> 2832 / 2630), KC 48 ST 2: R +9-23 % but C -3-13 %. Only the
// KC 48 build ran the Z raw test; the KC 32 ST 3 row is in the table since session 8 (the lead's round trip ran
// the full Z raw test on it).
// 57-64 (zts4): the 128 tile as 16 warps of 32 x 32 (FM 4, FN 4; 121-128 registers) instead of 8 warps of 32 x 64
// (212 registers), and for row-major A and B (KBLA_TSMTTSM_DMMA_Z_RR, tried first) KC 48 ST 2 (fewer barriers;
// column-major keeps KC 32: its VEC 7 copies take the fast path only for BT % KC == 0). H100, ts_cases
// --random-data --rows-log2 28, routes off, mean of 3 rounds, GB/s old row -> these rows: R 57 2404 -> 2902,
// 58 2432 -> 2715, 59 2508 -> 2884, 60 2486 -> 2755, 61 2524 -> 2879, 62 2440 -> 2749, 63 2552 -> 2885, 64 2459 ->
// 2738; C 57 2348 -> 2625, 58 2383 -> 2641, 59 2423 -> 2589, 60 2426 -> 2640, 61 2469 -> 2606, 62 2470 -> 2641,
// 63 2466 -> 2641, 64 2497 -> 2679. R with KC 32 ST 3 instead (same call): 57 2765, 59 2775, 60 2712, 61 2831,
// but 58 2734, 62 2783, 63 2903, 64 2769 (KC 48 loses 0.6-1.2 % there). Not taken (earlier call, 57/60/61/64, where
// FM 4 FN 4 KC 32 gave R 2740-2864 / C 2691-2826): FM 2 FN 8 (16 warps) R 2508-2643 / C 2560-2780; FM 4 FN 8 KC 48
// ST 2 (8 warps) R 2557-2710 / C 2186-2447. ncu (Z R 64, K = 2^18, clocks pinned at 1.55 GHz): 321 -> 270 us,
// DMMA pipe 50 -> 61 %, DRAM 51 -> 60 %. Sustained (1000 calls) these widths run the H100 at its 700 W power cap
// with the SM clock at ~1680-1790 MHz instead of 1980 (zts4 report).
#define KBLA_TSMTTSM_DMMA_Z_RR(X) X(57, 64, 128, 128, 4, 4, 48, 2)
#define KBLA_TSMTTSM_DMMA_Z(X)                                                                              \
  X(5, 8, 16, 16, 1, 1, 64, 4) X(9, 12, 24, 24, 1, 1, 64, 3) X(13, 16, 32, 32, 2, 2, 32, 4)                 \
  X(17, 24, 48, 48, 2, 3, 32, 3) X(25, 32, 64, 64, 2, 2, 32, 3) X(33, 40, 80, 80, 2, 5, 64, 2)             \
  X(41, 48, 96, 96, 2, 4, 64, 2) X(49, 56, 112, 112, 2, 7, 32, 3) X(57, 1 << 30, 128, 128, 4, 4, 32, 3)
// Complex rows taken before KBLA_TSMTTSM_DMMA_Z when the caller opts in (TallSkinnyOptions::complex_3m; its error is
// only normwise, as cuBLAS's Zgemm3m): three real products (Gauss) instead of the four of the real view,
// FM / FN counted in complex rows / columns (tsmttsm_dmma.cuh, G3). zts2, H100, ts_cases K = 2^25/w, GB/s R / C,
// old row -> this one, same call: 49: 2123 / 1984 -> 2203 / 2081; 52: 2172 / 2138 -> 2207 / 2236; 56: 2246 / 2097
// -> 2320 / 2195; 60: 2351 / 2262 -> 2350 / 2303; 64: 2350 / 2333 -> 2479 / 2438. Not taken: 33-48 (96 tile, FM 2,
// FN 1-3: 5-15 % slower than the 18-warp real-view row); 128 with FM = FN = 2 (16 warps, spills at 128 registers:
// 64 R 2369) or FM 2 FN 4 (within 1-3 %).
// With the spread copies (tsmttsm_dmma.cuh, SPREAD) the real-view 128 tile beats G3 at 50 and 56 (2266 / 2385 and
// 2423 / 2520 against 2263 / 2275 and 2266 / 2311), G3 stays ahead at 64 (2636 / 2553 against 2491 / 2522).
#define KBLA_TSMTTSM_DMMA_Z3(X) X(57, 64, 128, 128, 4, 2, 32, 3)

// ---- Narrow shapes: one operand much narrower than the other (N <= 16, M >= 2N), the block Gram-Schmidt case
//      (a block of s vectors against a basis of p >> s columns). The square tables above pad N up to the class
//      width of max(M, N), which wastes (MT/N)-fold work and threads (64 x 8 ran as 64 x 64); these rows size
//      the tile to each operand. The first row with N <= NMAX and M <= MMAX is taken; the last rows of each
//      N class tile wider M over grid.y (the narrow operand is then read once per tile: 1 + N/MT extra).
//      Rows chosen by the register / shared-memory model of NOTES.md, not yet tuned by measurement.
// TSMTTSM SIMT: X(NMAX, MMAX, TM, TN, PM, PN) (all types; also the deterministic mode of D and Z)
#define KBLA_TSMTTSM_NARROW(X)                                                                               \
  X(2, 32, 4, 2, 8, 1) X(2, 1 << 30, 4, 2, 16, 1) X(4, 32, 4, 4, 8, 1) X(4, 1 << 30, 4, 4, 16, 1)         \
  X(8, 32, 4, 8, 8, 1) X(8, 1 << 30, 4, 8, 16, 1)
// TSMTTSM DMMA: X(NMAX, MMAX, BM, BN, FM, FN, KC, ST), BM/BN in real-view columns (complex: 2 per element)
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

// ---- TSMM on FP64 tensor cores (mma.sync m16n8k8 f64; double, complex double; tsmm_dmma.cuh):
//      X(Wmin, Wmax, W, NT, WR, TU, R, ST, MINB) for Wmin <= max(M, N) <= Wmax (complex widths for Z).
//      W: class width in the real view (complex: 2x), NT: 8-column mma tiles per warp (W / (8 NT) warps across
//      the columns, alpha*C held as 2 W/8 NT doubles per lane), WR warp rows, TU 16-row tiles per pass (TU x NT
//      independent accumulator chains), R rows per cp.async stage, ST stages, MINB blocks/SM for
//      __launch_bounds__. Narrower data in a class skips the k-steps / n-tiles it does not need.
// Chosen by the register / shared-memory model (not yet measured): at least 2 stages in flight per block,
// i.e. >= 96 KB/SM of A reads outstanding (Little's law at ~3 TB/s x ~1 us asks ~25 KB/SM); <= 512 B of A
// fragment loads per mma (half the shared-memory bandwidth at the DMMA peak); MINB from the register budget.
//   D 24-32:  8 warps, R 64, 3 x 18 KB stages (55 KB), 2 blocks/SM          (needs ~20 % of the DMMA peak)
//   D 33-48:  6 warps, R 32, 4 x 13 KB stages (53 KB), 2-3 blocks/SM        (~30 %)
//   D 49-64:  8 warps, R 64, 3 x 35 KB stages (104 KB), 2 blocks/SM, <= 128 regs (~40 %)
//   Z 12-16, 17-24, 25-32: as D 32, 48, 64 in the real view (2x the widths)
//   Z 33-48:  6 warps, R 32, 3 x 26 KB stages (77 KB), 2 blocks/SM          (~55 %)
//   Z 49-64:  8 warps, R 32, 4 x 34 KB stages (135 KB), 1 block/SM, TU 2    (~75 %: DMMA-bound at best)
// MINB: a tighter register cap (3 blocks of 8 warps: 80 regs) spilled in ptxas; 2 blocks leave room.
// Not taken: MINB 3 for D column-major in the class W 48 (ptxas 90-94 registers, 3 blocks = 18 warps/SM; tsmm4, H100,
// ts_cases --rows-log2 29, routes off): lda = 2 mod 4 (VEC 6) 43 / 46 / 48 -0.3 / -0.5 / -2.3 %, aligned K (VEC 2)
// 34-42, 45 0 to -2.6 %: the third block does not pay there.
// D 9-16, 17-23 (W 16, 24): row-major with B dense only (staged stores: flat for odd widths and 2 mod 4, VEC 5 for 12;
//   else SIMT),
//   8 / 6 warps, R 64 / 32 (one 16-row tile per warp row), 4 x 10 KB / 4 x 9 KB stages, 4 blocks/SM.
#define KBLA_TSMM_DMMA_D(X)                                                                             \
  X(9, 16, 16, 1, 4, 1, 64, 4, 4) X(17, 23, 24, 1, 2, 1, 32, 4, 4) X(24, 32, 32, 2, 4, 1, 64, 3, 2)  \
  X(33, 48, 48, 2, 2, 1, 32, 4, 2) X(49, 64, 64, 2, 2, 1, 64, 3, 2)
// D column-major at an odd lda or ldb (odd K) and, in the class W 16, at lda = 2 (mod 4): the tensor-core kernel
// (VEC 1: 8-byte copies, staged column stores; tsmm_dmma.cuh) for WMIN <= max(M, N) <= WMAX, X(WMIN, WMAX); other
// widths stay on the SIMT kernel (KBLA_TSMM_D_COL / KBLA_TSMM_D rows). H100, ts_cases --rows-log2 29 / 28, routes
// off: VEC 1 won at 12-15 (+1.5-7 %), 24, 26, 28 (+1.1-2.7 %), 49-61 (+6-26 %); lost or tied at 9 (-1 %), 17-23
// (-2..-5 %), 27 (+0.2..+1.4 %), 30, 33, 38, 44, 47 (-1..-14 %) against the SIMT rows.
// tsmm7d (session 11): 27 and 44-47 join (H100, ts_cases --random-data --rows-log2 29, routes off, odd K, two
// rounds, GB/s SIMT -> VEC 1 with the batched 8-byte staged stores): 27 2363-2367 -> 2463-2473, 44 2160-2167 ->
// 2325-2337, 47 2233-2237 -> 2352-2370, 45 / 46 (K = 11930465 / 11671107) 2178-2233 -> 2332-2385 (33 and 38 still
// lose: 2449 -> 2301, 2466 -> 2298 in call 1).
#define KBLA_TSMM_DMMA_D_ODD(X) X(12, 16) X(24, 28) X(44, 47) X(49, 64)
// D column-major with lda = 0 (mod 4) (the VEC 2 copies' case): VEC 1 (8-byte copies into the VEC 6 layout, staged
// column stores, two 16-row tiles per warp row) for WMIN <= max(M, N) <= WMAX, X(WMIN, WMAX). Session 11 (tsmm7d-exp,
// H100, ts_cases K = 2^29/w, routes off) measured width 40 VEC 2 2390-2405 -> VEC 1 2505-2523 GB/s; session 13's
// A/B is in perf_tests/tall_skinny/NOTES.md. KBLA_TS_DAV1=0: VEC 2 everywhere; =2: VEC 1 at every width >= 25.
#define KBLA_TSMM_DMMA_D_ALIGNED_V1(X) X(33, 48)
// D column-major at an odd lda or ldb: VEC 1 rows with longer chunks, tried before the rows above,
// X(WMIN, WMAX, W, NT, WR, R, ST, MINB) (R = 16 WR x tiles per warp row). 17-24: one warp across the 24 columns
// (NT 3: 2 A fragment loads per 3 mma instead of 2 per mma), 8 warp rows, 256-row chunks (an eighth of the chunk
// boundaries that split a sector of an odd column in two, an eighth of the barriers), 2 stages, 2 blocks/SM (99
// KB, 128 registers, 4 bytes spilled). 49-64: 4 warp rows of 128-row chunks, 16 warps, 2 stages (133 KB), 1
// block/SM. H100, ts_cases --random-data --rows-log2 29, routes off, odd K, two rounds, GB/s main -> this row: 17-24
// 2353-2463 -> 2651-2703 (+8-14 %; in the W 32 VEC 1 row 2461-2501); 49 2122-2129 -> 2280-2282, 53-58 2141-2176 ->
// 2267-2317 (+5-7.5 %); against the VEC 1 row of 64-row chunks with the same stores (KBLA_TS_NO_DODDLONG=1, odd K
// 2^29/w rounded to odd): 51 +3.2-3.8 %, 52 +0.7-1.7 %, 56 +4.4-4.6 %, 60 +2.3-2.8 %, 62 +4.3-4.7 %, 63 +5.3-5.5 %,
// 64 -0.4..+1.1 %. Not taken: K = 2 mod 4 (59 / 61 with the 128-row chunks within +-1 %); 17-24 as W 24 NT 3 WR 4
// (R 128, ST 3, 3 blocks: 2437-2460); W 64 with NT 1 (16 warps of 8 columns, 2 blocks: 64 registers, spills,
// 1650-1990), ST 2 MINB 3 (spills, 1300-1670); 33-48 in W 48 rows WR 4 R 128 ST 2 or ST 3 MINB 3 (spills, 1800-2120).
#define KBLA_TSMM_DMMA_D_ODDLONG(X) X(17, 24, 24, 3, 8, 256, 2, 2) X(49, 64, 64, 2, 4, 128, 2, 1)

// D column-major A * C on the bulk-copy kernel (tsmm_bulk.cuh; beta = 0, whole chunks of R rows; the rest of the rows
// take the rows above): X(WMIN, WMAX, W, R, ST, NCW, NO, LK, A32) for WMIN <= max(M, N) <= WMAX and K >= 2^LK rows,
// class width W, R rows per chunk, ST stages of A, NCW compute warps (+ a loader and a storer warp), NO output buffers,
// one block per SM (~200 KB of shared memory); A32 = 1: not when lda and ldb are multiples of 32 (256-byte aligned
// columns, where the W 48 rows of KBLA_TSMM_DMMA_D run at 92-94 % of the roofline). Session 17 (H100, ts_cases
// --random-data, routes off, two rounds, GB/s; perf_tests/tall_skinny/NOTES.md):
// - K = 2^29/w, 64-row chunks ST 6 NCW 6 NO 2 / ST 4 NCW 8 NO 2 -> these 128-row rows: 33 2569-2571 -> 2660-2673, 44
//   2523-2524 -> 2641, 49 2519-2521 -> 2618-2630, 53 2474-2509 -> 2607-2613, 64 2798-2801 -> 2821-2830 (all of 33-64
//   gained 0.5-5 %).
// - K = 2^12 .. 2^22 (old kernels -> these rows): the bulk kernel's one block per SM and its pipeline fill lose at
//   few rows (2^12 0.79-0.91x, 2^16 0.90-0.98x); it wins from 2^18 at 25 / 32 (1.03-1.05x), from 2^17 at 57 / 64
//   (1.03-1.09x); at 40 / 48 with K a power of two (lda = 0 mod 32) it stays 1-2 % behind up to 2^22.
#define KBLA_TSMM_BULK_D(X) \
  X(25, 32, 32, 128, 4, 8, 2, 18, 0) X(33, 48, 48, 128, 3, 6, 1, 19, 1) X(49, 64, 64, 128, 2, 8, 1, 17, 0)
// Complex double column-major (complex widths WMIN-WMAX, W of the real view; 16-byte elements: no shifted columns).
// Session 17 (H100, ts_cases --random-data, routes off, two rounds, GB/s old kernels -> these rows): K = 2^28/w 12
// 2572 -> 2800, 19 2346 -> 2745, 22 2334 -> 2739, 33 2335 -> 2630, 40 2530 -> 2682 (+1 to +17 % at 36 of the 37 widths
// 12-48; 17: -0.2 %); K = 2^14 .. 2^22: 0.98-1.25x (40 / 48 at 2^19-2^20 0.98-1.0x), 2^12 0.96-1.19x: from 2^13 rows.
// Benchmark s17k (routes off): 12-48 at 85.5-95.0 % (s17h 76.7-92.0 %). Not taken: 49-64 as W 128, R 32, ST 4, NCW 8
// (ptxas: 220 bytes spilled): +1-13 % in 10-call ts_cases bursts, but 59-66 % of the roofline in the benchmark's
// sustained calls against 75-89 % for tsmm_dmma.cuh's rows (the 700 W power cap; cuBLAS ~64 % there).
#define KBLA_TSMM_BULK_Z(X)                                                                              \
  X(12, 16, 32, 128, 4, 8, 2, 13, 0) X(17, 24, 48, 128, 3, 6, 1, 13, 0) X(25, 32, 64, 128, 2, 8, 1, 13, 0) \
  X(33, 48, 96, 64, 3, 6, 1, 13, 0)

// Complex double A * C with alpha C in shared memory (tsmm_bulk_cplx.cuh), beta = 0, tried before KBLA_TSMM_BULK_Z:
// X(WMIN, WMAX, COLS, R, ST, NP, TU, RS, SQ, LK, RO) for WMIN <= max(M, N) <= WMAX, K >= 2^LK rows, row-major or
// column-major A and B (RO 1: row-major only). COLS complex class width, R rows per chunk, ST stages, NP pairs of
// n-tiles (8 complex columns) and TU 16-row tiles per compute warp, RS compute warps along a chunk's rows (8 / 6
// compute warps here), SQ chunks per block visit. Session 18 (H100, benchmark --types Z --widths 48-64, routes off,
// GPU heated, median of 3 rounds, % of the roofline R / C, mean over 49-64): tsmm_dmma.cuh's W 128 row 80.4-82.0 /
// 77.8-78.9; candidates (R, ST, NP, TU, RS; compute warps): 32 3 2 2 1 (4) 75.9 / 74.1, 48 2 2 3 1 (4) 76.0 / 74.9,
// 32 3 2 1 2 (8) 83.1 / 80.8, 48 2 2 1 3 (12) 86.5 / 84.4, 32 3 1 1 2 (16) 84.2 / 83.3, 48 2 1 1 3 (24, spills) 76.3 /
// 72.3, 32 3 1 2 1 (8) 85.9-87.5 / 83.9-85.7, this row 48 2 1 3 1 (8) 87.4 / 85.6 (49-56 R
// 88.8-92.3, 57-64 81.0-89.3). Row-major 34-48 (COLS 48, 6 compute warps): 88.5-90.2 -> 90.2-96.5 (33: 89.7 -> 88.1,
// left to the old kernels); column-major 33-48 keeps KBLA_TSMM_BULK_Z. One block per SM with a 36-64 KB alpha C
// prologue: 0.54-0.69x the old kernels at 2^10-2^13 rows, even at 2^17-2^18 and 1.01-1.15x from 2^19 (so from 2^18, width
// 64 from 2^19).
#define KBLA_TSMM_BULK_ZC(X) \
  X(34, 48, 48, 48, 3, 1, 3, 1, 1, 18, 1) X(49, 63, 64, 48, 2, 1, 3, 1, 1, 18, 0) X(64, 64, 64, 48, 2, 1, 3, 1, 1, 19, 0)

// Narrow row-major rows, tried before the tables above for row-major A and B only (KBLA_TS_RR_NARROW=0: off, the
// SIMT kernel as before). D 7-8 in the class W 16 (7: flat copies, 8: VEC 5 staged stores); Z odd widths 3-11 in the
// real-view classes W 8, 16, 24, flat staging only (launch_tsmm_dmma_flat; even widths return to the SIMT kernel).
// H100, ts_cases --random-data --rows-log2 29 (D) / 28 (Z), routes off, two rounds in each of two calls, GB/s SIMT ->
// these rows: D 7 2378-2387 -> 2690-2774, 8 2486-2490 -> 2753-2760; Z: see launch_tsmm_dmma_flat.
#define KBLA_TSMM_DMMA_D_RR_NARROW(X) X(7, 8, 16, 1, 4, 1, 64, 4, 4)
#define KBLA_TSMM_DMMA_Z_RR_NARROW(X) \
  X(3, 3, 8, 1, 8, 1, 128, 4, 4) X(5, 7, 16, 1, 4, 1, 64, 4, 4) X(9, 11, 24, 1, 2, 1, 32, 4, 4)

#define KBLA_TSMM_DMMA_Z(X)                                                                            \
  X(12, 16, 32, 2, 4, 1, 64, 3, 2) X(17, 24, 48, 2, 2, 1, 32, 4, 2) X(25, 32, 64, 2, 2, 1, 64, 3, 2) \
  X(33, 48, 96, 2, 1, 1, 32, 3, 2) X(49, 64, 128, 2, 1, 2, 32, 4, 1)

