// Analytic performance model of the classical SIMT GEMM and the fused 1-level Strassen kernel (Huang et al. 2018,
// section 5), host-only (no CUDA headers): the benchmark prints its prediction next to the measured time.
//
// API (namespace kbla::cuda):
//   StrassenModelDevice h100_sxm_model_device(int elem_bytes);      // tau_flop, tau_gmop, tau_smop, #SM of an H100
//   StrassenModelBlocking library_blocking(int elem_bytes, bool fused); // the tiles gemm_tile.cuh really uses
//   StrassenModelPrediction predict_strassen(const StrassenModelInput& in);
//   StrassenModelPrediction predict_strassen(int64 m, int64 n, int64 k, int elem_bytes);  // H100, library tiles
// Fill StrassenModelInput{m, n, k, elem_bytes, beta_zero, beta_one, device, classical, fused}; a blocking with
// tile_m == 0 means "choose": the candidate (library tiles, CUTLASS Huge / Tall / Wide, 64x64, 32x32) with the
// smallest predicted time is taken and reported in the prediction (tile_m, tile_n, tile_k, ...).
//
// The model (per thread block of mS x nS tile, kS slab, mR x nR thread tile, tx*ty threads, kp = ceil(k/kS) kS,
// operand counts W_A, W_B, W_C = number of quadrants read / written: 1 for gemm, 1 or 2 per Strassen product):
//   N_flop = 2 mS nS kp + (W_A - 1) mS kp + (W_B - 1) nS kp + (W_C - 1) mS nS                  (eq. 10)
//   N_gmop = W_A mS kp + W_B nS kp + W_C mS nS  (+ mS nS reads of C for classical beta != 0)  (eq. 11)
//   N_smop = tx ty (mR + nR) kp + (mS + nS) kp                                                 (eq. 13)
//   #blocks = #SM x blocks_per_SM, waves = ceil(tiles / #blocks)
//   T_flop = waves #blocks N_flop / tau_flop,  T_smop = waves #blocks bytes N_smop / tau_smop   (eq. 19, 20)
//   T_gmop = sum over tiles of bytes N_gmop / tau_gmop                                          (eq. 21)
//   T = max(T_flop, T_smop, T_gmop) + launches x launch_s
// The fused path runs its 7 products as one grid of 7 tiles(m1) tiles(n1) blocks (m1 = ceil(m/2), ...), so its
// waves count all 7 together (N_flop averaged over the products, N_gmop summed), plus the C = beta C pass
// (bandwidth bound: m n elements written, and read unless beta == 0; skipped for beta == 1).
// Not modelled (as in the paper): L1/L2 reuse beyond the +20% read-only cache factor in tau_gmop, atomics being
// L2 read-modify-writes, tail effects inside a wave, clock throttling. Eq. 19 charges a partial wave as a full
// one (each block gets tau / #blocks), so grids of less than one wave (FP32 below ~2048^2) are predicted too
// slow, which flatters the fused path there (7x the blocks); the paper's shared-memory count also ignores
// broadcasts, so the prediction is smem-bound for both kernels at 128x128 / 8x8.
#pragma once

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace cuda {

struct StrassenModelDevice {
  double peak_flops = 0;        // tau_flop: FMA lanes x 2 x clock for this element type (flop/s)
  double gmem_bytes_per_s = 0;  // tau_gmop: DRAM bandwidth x 1.2 (the paper's read-only cache factor), bytes/s
  double smem_bytes_per_s = 0;  // tau_smop: #SM x 32 banks x 4 bytes x clock, bytes/s
  double dram_bytes_per_s = 0;  // plain DRAM bandwidth (the beta pass streams C once)
  int sms = 0;
  double launch_s = 3e-6;  // per kernel launch / ramp-up
};

// H100 SXM5: 132 SMs, 1.98 GHz boost, 128 FP32 / 64 FP64 FMA lanes per SM, 3.35 TB/s HBM3.
inline StrassenModelDevice h100_sxm_model_device(int elem_bytes) {
  StrassenModelDevice d;
  const double clock = 1.98e9;
  d.sms = 132;
  d.peak_flops = d.sms * (elem_bytes == 8 ? 64.0 : 128.0) * 2.0 * clock;  // 33.5 / 66.9 TFLOP/s
  d.dram_bytes_per_s = 3.35e12;
  d.gmem_bytes_per_s = 1.2 * d.dram_bytes_per_s;
  d.smem_bytes_per_s = d.sms * 32.0 * 4.0 * clock;  // 33.4 TB/s
  return d;
}

struct StrassenModelBlocking {
  int tile_m = 0, tile_n = 0, tile_k = 0;  // mS, nS, kS (tile_m == 0: let the model choose)
  int thread_m = 0, thread_n = 0;          // mR, nR
  int blocks_per_sm = 0;                   // 0: estimated from registers (eq. 15) and shared memory
};

// The configurations of gemm_tile.cuh (TileConfig) and their ptxas-bound occupancy. simt_tile (FP32 only):
// 1 = Shape::classic, 2 = Shape::wide (256x128x8, 8x16 per thread, 1 block / SM), 3 = Shape::wide_async (the wide
// tiles fed by a 3-stage cp.async ring; the model does not see the pipelining, it uses the wide blocking); callers
// that know which shape a call runs pass kbla::cuda::simt_tile_resolved<Scalar>(...).
inline StrassenModelBlocking library_blocking(int elem_bytes, bool fused, int simt_tile = 1) {
  StrassenModelBlocking b;
  if (elem_bytes == 8) {
    b = {128, 64, 8, 8, 4, 1};
  } else if (simt_tile == 2 || simt_tile == 3) {  // 3 = wide_async: same tiles, cp.async ring
    b = {256, 128, 8, 8, 16, 1};
    (void)fused;
  } else {
    b = {128, 128, 8, 8, 8, 2};
    (void)fused;  // FP32 fused kernel: 2 blocks / SM, as the SIMT GEMM
  }
  return b;
}

struct StrassenModelInput {
  std::int64_t m = 0, n = 0, k = 0;
  int elem_bytes = 4;  // 4 float, 8 double
  bool beta_zero = true;
  bool beta_one = false;
  StrassenModelDevice device = h100_sxm_model_device(4);
  StrassenModelBlocking classical;  // tile_m == 0: choose
  StrassenModelBlocking fused;      // tile_m == 0: choose
};

struct StrassenModelTerms {
  double flop_s = 0, smem_s = 0, gmem_s = 0, extra_s = 0;  // extra: launches and the beta pass
  double total_s = 0;
  std::int64_t blocks = 0;  // thread blocks launched by the product kernel
  std::int64_t waves = 0;
  StrassenModelBlocking blocking;
  const char* bound = "";  // "flop", "smem" or "gmem"
};

struct StrassenModelPrediction {
  double classical_s = 0, fused1_s = 0;
  double speedup = 0;           // classical_s / fused1_s
  double classical_gflops = 0;  // 2 m n k / time, for both (the Strassen "effective" rate)
  double fused1_gflops = 0;
  int tile_m = 0, tile_n = 0, tile_k = 0;  // blocking chosen for the fused kernel
  StrassenModelTerms classical, fused;
};

namespace model_detail {

inline std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks per SM from registers (eq. 15, doubled for 8-byte elements, plus ~24 for addresses and indices),
// shared memory (double-buffered tiles) and the 2048-thread limit of sm_90.
inline int occupancy(const StrassenModelBlocking& b, int elem_bytes, int wa, int wb) {
  if (b.blocks_per_sm > 0) return b.blocks_per_sm;
  const int threads = (b.tile_m / b.thread_m) * (b.tile_n / b.thread_n);
  const int words = elem_bytes / 4;
  int regs = words * (b.thread_m * b.thread_n + 2 * (b.thread_m + b.thread_n) +
                      (wa * b.tile_m + wb * b.tile_n) * b.tile_k / threads) + 24;
  regs = std::min(255, (regs + 7) / 8 * 8);
  const int by_regs = 65536 / (regs * threads);
  const int by_smem = (227 * 1024) / (2 * elem_bytes * b.tile_k * (b.tile_m + b.tile_n + 8));
  const int by_threads = 2048 / threads;
  return std::max(1, std::min(std::min(by_regs, by_smem), std::min(by_threads, 32)));
}

struct Job {  // one product (or batch of identical-shape products) in one grid
  std::int64_t m, n, k;
  int wa, wb, wc;
};

inline StrassenModelTerms time_grid(const Job* jobs, int njobs, const StrassenModelBlocking& b,
                                    const StrassenModelInput& in, bool read_c) {
  const StrassenModelDevice& d = in.device;
  const double e = in.elem_bytes;
  StrassenModelTerms t;
  t.blocking = b;
  int wa = 1, wb = 1;
  for (int j = 0; j < njobs; ++j) wa = std::max(wa, jobs[j].wa), wb = std::max(wb, jobs[j].wb);
  t.blocking.blocks_per_sm = occupancy(b, in.elem_bytes, wa, wb);
  const double threads = double(b.tile_m / b.thread_m) * (b.tile_n / b.thread_n);
  const double ms = b.tile_m, ns = b.tile_n;
  double flop_sum = 0, gmop_bytes = 0, smop_sum = 0;
  std::int64_t tiles = 0;
  for (int j = 0; j < njobs; ++j) {
    const Job& q = jobs[j];
    const std::int64_t tj = cdiv(q.m, b.tile_m) * cdiv(q.n, b.tile_n);
    const double kp = double(cdiv(q.k, b.tile_k) * b.tile_k);
    const double nflop = 2 * ms * ns * kp + (q.wa - 1) * ms * kp + (q.wb - 1) * ns * kp + (q.wc - 1) * ms * ns;
    const double ngmop = q.wa * ms * kp + q.wb * ns * kp + q.wc * ms * ns + (read_c ? ms * ns : 0);
    const double nsmop = threads * (b.thread_m + b.thread_n) * kp + (ms + ns) * kp;
    tiles += tj;
    flop_sum += double(tj) * nflop;
    smop_sum += double(tj) * nsmop;
    gmop_bytes += double(tj) * e * ngmop;
  }
  t.blocks = tiles;
  if (tiles == 0) return t;
  const double nb = double(d.sms) * t.blocking.blocks_per_sm;
  t.waves = cdiv(tiles, std::int64_t(nb));
  // eq. 19 / 20 with the per-block work averaged over the batch
  t.flop_s = double(t.waves) * nb * (flop_sum / double(tiles)) / d.peak_flops;
  t.smem_s = double(t.waves) * nb * e * (smop_sum / double(tiles)) / d.smem_bytes_per_s;
  t.gmem_s = gmop_bytes / d.gmem_bytes_per_s;  // eq. 21
  t.bound = t.flop_s >= t.smem_s && t.flop_s >= t.gmem_s ? "flop" : t.smem_s >= t.gmem_s ? "smem" : "gmem";
  return t;
}

inline void finish(StrassenModelTerms& t, int launches, double extra_bytes, const StrassenModelInput& in) {
  t.extra_s = launches * in.device.launch_s + extra_bytes / in.device.dram_bytes_per_s;
  t.total_s = std::max(t.flop_s, std::max(t.smem_s, t.gmem_s)) + t.extra_s;
}

inline StrassenModelTerms classical_terms(const StrassenModelInput& in, const StrassenModelBlocking& b) {
  const Job j{in.m, in.n, in.k, 1, 1, 1};
  StrassenModelTerms t = time_grid(&j, 1, b, in, !in.beta_zero);
  finish(t, 1, 0, in);
  return t;
}

inline StrassenModelTerms fused_terms(const StrassenModelInput& in, const StrassenModelBlocking& b) {
  const std::int64_t m1 = (in.m + 1) / 2, n1 = (in.n + 1) / 2, k1 = (in.k + 1) / 2;
  // M1 (W 2,2,2); M6, M7 (2,2,1); M2, M5 (2,1,2); M3, M4 (1,2,2)
  const Job jobs[4] = {{m1, n1, k1, 2, 2, 2}, {m1, n1, k1, 2, 2, 1}, {m1, n1, k1, 2, 1, 2}, {m1, n1, k1, 1, 2, 2}};
  const int count[4] = {1, 2, 2, 2};
  Job all[7];
  int q = 0;
  for (int v = 0; v < 4; ++v)
    for (int c = 0; c < count[v]; ++c) all[q++] = jobs[v];
  StrassenModelTerms t = time_grid(all, 7, b, in, false);
  const double c_bytes = in.beta_one ? 0.0 : double(in.m) * in.n * in.elem_bytes * (in.beta_zero ? 1 : 2);
  finish(t, in.beta_one ? 1 : 2, c_bytes, in);
  return t;
}

template <class Evaluate>
inline StrassenModelTerms best(const StrassenModelInput& in, const StrassenModelBlocking& given, bool fused,
                               Evaluate f) {
  if (given.tile_m > 0) return f(in, given);
  const StrassenModelBlocking cands[] = {
      library_blocking(in.elem_bytes, fused),
      {128, 128, 8, 8, 8, 0},  // CUTLASS "Huge"
      {128, 32, 8, 8, 4, 0},   // "Tall"
      {32, 128, 8, 4, 8, 0},   // "Wide"
      {64, 64, 8, 8, 8, 0},
      {32, 32, 8, 4, 4, 0},
  };
  StrassenModelTerms bt;
  bool first = true;
  for (const auto& c : cands) {
    const StrassenModelTerms t = f(in, c);
    if (first || t.total_s < bt.total_s) bt = t, first = false;
  }
  return bt;
}

}  // namespace model_detail

inline StrassenModelPrediction predict_strassen(const StrassenModelInput& in) {
  using namespace model_detail;
  StrassenModelPrediction p;
  if (in.m <= 0 || in.n <= 0) return p;
  p.classical = best(in, in.classical, false, classical_terms);
  p.fused = best(in, in.fused, true, fused_terms);
  p.classical_s = p.classical.total_s;
  p.fused1_s = p.fused.total_s;
  p.speedup = p.fused1_s > 0 ? p.classical_s / p.fused1_s : 0;
  const double flops = 2.0 * double(in.m) * double(in.n) * double(in.k);
  p.classical_gflops = p.classical_s > 0 ? flops / p.classical_s * 1e-9 : 0;
  p.fused1_gflops = p.fused1_s > 0 ? flops / p.fused1_s * 1e-9 : 0;
  p.tile_m = p.fused.blocking.tile_m;
  p.tile_n = p.fused.blocking.tile_n;
  p.tile_k = p.fused.blocking.tile_k;
  return p;
}

// H100 SXM numbers and the library's own tiles (what simt_gemm / strassen_fused actually run), beta == 0.
inline StrassenModelPrediction predict_strassen(std::int64_t m, std::int64_t n, std::int64_t k, int elem_bytes) {
  StrassenModelInput in;
  in.m = m;
  in.n = n;
  in.k = k;
  in.elem_bytes = elem_bytes;
  in.device = h100_sxm_model_device(elem_bytes);
  in.classical = library_blocking(elem_bytes, false);
  in.fused = library_blocking(elem_bytes, true);
  return predict_strassen(in);
}

}  // namespace cuda
}  // namespace kbla
