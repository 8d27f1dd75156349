// Benchmark of the Strassen paths (Kokkos-free): cuBLAS classical, simt_gemm (base), fused 1-level, hybrid
// 2-level, conventional 1, 2 and 3 levels over cuBLAS, Winograd (default tau, and tau 4096 = 3 levels at 16384);
// each workspace path with its innermost products on StrassenConfig::leaf_streams helper streams (the library
// default, 4) and serially (rows "..._serial", leaf_streams = 1); FP32 and FP64; shapes square / rank-k / panel.
//   kbla_bench_strassen [--quick] [--sizes a,b,c] [--shapes square,rankk,panel] [--prec s,d] [--reps N]
//                       [--warmup N] [--max-seconds S] [--sample N] [--rankk-k K] [--panel-mn N] [--json PATH]
//                       [--algos name,name,...]   (a subset of the rows below; cublas always runs first)
// SIMT tile shapes (FP32): rows simt_gemm / fused_1L / hybrid_2L run the library default (StrassenConfig::simt_tile
// 0: the built-in default); the rows ..._classic (128x128x8, 8x8 per thread) and
// ..._wide (256x128x8, 8x16 per thread) and ..._async (wide's tiles, 3-stage cp.async shared-memory ring) pin the
// shape, so all are timed in one run. FP64 has one shape (the _classic / _wide / _async rows run it too). JSON
// field "simt_tile": the shape a row ran (1 classic, 2 wide, 3 wide_async, 0 none).
// Effective TFLOP/s = 2mnk / t (t: median of the timed runs, CUDA events around each call). Accuracy on a sample
// of entries against a double-double GPU reference, normalized by (|A||B|)_ij; random [-1,1] data and (square
// shapes) Li et al.'s pair A = I + u v^T, B = I - u v^T / (1 + v^T u). A result that disagrees with the
// reference beyond a generous threshold is flagged WRONG (no speed is reported for it as valid).
// The JSON fields are described in docs/strassen.md ("Running").
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "kbla_cuda_strassen.hpp"

#if __has_include("strassen/strassen_model.hpp")
#include "strassen/strassen_model.hpp"
#include "../common/kbla_cuda_check.hpp"
#define KBLA_HAVE_STRASSEN_MODEL 1
#endif

using kbla::cuda::StrassenAlgorithm;
using kbla::cuda::StrassenConfig;
using i64 = std::int64_t;


// ---------------------------------------------------------------------------------------------------------
// Device info and peaks
struct DevInfo {
  std::string name;
  int sms = 0, sm_clock_khz = 0, mem_clock_khz = 0, bus_bits = 0, cc_major = 0, cc_minor = 0;
  double mem_gib = 0, peak_bw_gbs = 0, fp32_simt_peak = 0, fp64_tc_peak_clk = 0;
  const double fp64_tc_peak_nominal = 67.0;  // H100/H200 SXM datasheet, TFLOP/s
};

static DevInfo device_info() {
  DevInfo d;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  d.name = p.name;
  d.cc_major = p.major, d.cc_minor = p.minor;
  d.mem_gib = double(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  CK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
  CK(cudaDeviceGetAttribute(&d.bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  d.peak_bw_gbs = 2.0 * d.mem_clock_khz * 1e3 * (d.bus_bits / 8.0) / 1e9;
  // Hopper SM: 128 FP32 lanes (FMA = 2 flops); FP64 DMMA: 256 flops / clock / SM (132 SMs x 1.98 GHz = 67 TF).
  d.fp32_simt_peak = d.sms * (d.sm_clock_khz * 1e3) * 128.0 * 2.0 / 1e12;
  d.fp64_tc_peak_clk = d.sms * (d.sm_clock_khz * 1e3) * 256.0 / 1e12;
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Kernels: data generation, sample gather, double-double reference on the sample
__device__ inline double hash_uniform(std::uint64_t x) {  // splitmix64 -> [-1, 1)
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <class T>
__global__ void fill_random(T* p, i64 n, std::uint64_t seed) {
  for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < n; i += i64(gridDim.x) * blockDim.x)
    p[i] = T(hash_uniform(seed * 0x100000001B3ull + std::uint64_t(i)));
}

// Li et al.'s test pair (1-based i in the paper): u_i = 1 / (N + 1 - i), v_i = sqrt(i).
// which = 0: A = I + u v^T; which = 1: B = I - u v^T / (1 + v^T u). Column-major N x N.
template <class T>
__global__ void fill_li(T* p, i64 N, int which, double inv1pvu) {
  for (i64 idx = blockIdx.x * i64(blockDim.x) + threadIdx.x; idx < N * N; idx += i64(gridDim.x) * blockDim.x) {
    const i64 i = idx % N, j = idx / N;
    const double u = 1.0 / double(N - i), v = sqrt(double(j + 1));
    const double d = (i == j) ? 1.0 : 0.0;
    p[idx] = T(which == 0 ? d + u * v : d - u * v * inv1pvu);
  }
}

template <class T>
__global__ void gather(int ns, const i64* si, const i64* sj, const T* C, i64 ldc, double* out) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < ns) out[s] = double(C[si[s] + sj[s] * ldc]);
}

__device__ inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double z = s - a;
  e = (a - (s - z)) + (b - z);
}

// One block per sample entry: (hi, lo) = sum_l a_il b_lj in double-double, absab = sum |a_il b_lj|.
template <class T>
__global__ void dd_reference(int ns, const i64* si, const i64* sj, const T* A, i64 lda, const T* B, i64 ldb, i64 k,
                             double* hi, double* lo, double* absab) {
  __shared__ double sh[256], sl[256], sa[256];
  const int s = blockIdx.x;
  const i64 i = si[s], j = sj[s];
  double h = 0, l = 0, ab = 0;
  for (i64 q = threadIdx.x; q < k; q += blockDim.x) {
    const double a = double(A[i + q * lda]), b = double(B[q + j * ldb]);
    const double p = a * b, pe = fma(a, b, -p);
    double t, e;
    two_sum(h, p, t, e);
    h = t;
    l += e + pe;
    ab += fabs(p);
  }
  sh[threadIdx.x] = h, sl[threadIdx.x] = l, sa[threadIdx.x] = ab;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      double t, e;
      two_sum(sh[threadIdx.x], sh[threadIdx.x + w], t, e);
      sh[threadIdx.x] = t;
      sl[threadIdx.x] += sl[threadIdx.x + w] + e;
      sa[threadIdx.x] += sa[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double t, e;
    two_sum(sh[0], sl[0], t, e);
    hi[s] = t, lo[s] = e, absab[s] = sa[0];
  }
}

// ---------------------------------------------------------------------------------------------------------
// cuBLAS (own handle, default math mode: no TF32 for SGEMM)
static cublasHandle_t g_blas = nullptr;
static cudaError_t blas_gemm(cudaStream_t s, i64 m, i64 n, i64 k, const float* A, const float* B, float* C) {
  const float one = 1, zero = 0;
  cublasSetStream(g_blas, s);
  return cublasSgemm_64(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, B, k, &zero, C, m) ==
                 CUBLAS_STATUS_SUCCESS
             ? cudaSuccess
             : cudaErrorUnknown;
}
static cudaError_t blas_gemm(cudaStream_t s, i64 m, i64 n, i64 k, const double* A, const double* B, double* C) {
  const double one = 1, zero = 0;
  cublasSetStream(g_blas, s);
  return cublasDgemm_64(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, B, k, &zero, C, m) ==
                 CUBLAS_STATUS_SUCCESS
             ? cudaSuccess
             : cudaErrorUnknown;
}

// ---------------------------------------------------------------------------------------------------------
struct Opts {
  std::vector<i64> sizes;
  std::vector<std::string> shapes{"square", "rankk", "panel"};
  std::vector<char> precs{'s', 'd'};
  int reps = 10, warmup = 2, sample = 2048;
  double max_seconds = 240;
  i64 rankk_k = 4096, panel_mn = 8192;
  std::string json = "bench_strassen.json";
  std::vector<std::string> algos;  // empty = all rows
  bool quick = false;
};

enum class Kind { cublas, simt, strassen };
struct AlgoDef {
  std::string name;
  Kind kind;
  StrassenConfig cfg;
};

// Rows. leaf_streams: -1 = the library default (StrassenConfig{}.leaf_streams, 4), 1 = serial (the schedule of
// runs 1-2). Before leaf_streams existed (results up to strassen-h100-2026-11-22-run7.json) every row was serial:
// compare old "conventional_1L" with new "conventional_1L_serial".
static std::vector<AlgoDef> algorithms() {
  auto mk = [](StrassenAlgorithm a, int lv, int leaf_streams = -1, bool low_memory = false, i64 tau = 0,
               int simt_tile = 0) {
    StrassenConfig c;
    c.algorithm = a, c.levels = lv, c.low_memory = low_memory, c.tau = tau, c.simt_tile = simt_tile;
    if (leaf_streams >= 0) c.leaf_streams = leaf_streams;
    return c;
  };
  auto tile = [](int simt_tile) {
    StrassenConfig c;
    c.simt_tile = simt_tile;
    return c;
  };
  using SA = StrassenAlgorithm;
  return {{"cublas", Kind::cublas, StrassenConfig{}},
          {"simt_gemm", Kind::simt, StrassenConfig{}},
          {"fused_1L", Kind::strassen, mk(SA::fused, 1)},
          {"hybrid_2L", Kind::strassen, mk(SA::hybrid, 2)},
          {"hybrid_2L_serial", Kind::strassen, mk(SA::hybrid, 2, 1)},
          // the SIMT tile shapes pinned (1 classic 128x128x8, 2 wide 256x128x8, 3 wide_async: wide + cp.async ring)
          {"simt_gemm_classic", Kind::simt, tile(1)},
          {"simt_gemm_wide", Kind::simt, tile(2)},
          {"fused_1L_classic", Kind::strassen, mk(SA::fused, 1, -1, false, 0, 1)},
          {"fused_1L_wide", Kind::strassen, mk(SA::fused, 1, -1, false, 0, 2)},
          {"hybrid_2L_classic", Kind::strassen, mk(SA::hybrid, 2, -1, false, 0, 1)},
          {"hybrid_2L_wide", Kind::strassen, mk(SA::hybrid, 2, -1, false, 0, 2)},
          {"simt_gemm_async", Kind::simt, tile(3)},
          {"fused_1L_async", Kind::strassen, mk(SA::fused, 1, -1, false, 0, 3)},
          {"hybrid_2L_async", Kind::strassen, mk(SA::hybrid, 2, -1, false, 0, 3)},
          {"conventional_1L", Kind::strassen, mk(SA::conventional, 1)},
          {"conventional_1L_serial", Kind::strassen, mk(SA::conventional, 1, 1)},
          {"conventional_1L_streams2", Kind::strassen, mk(SA::conventional, 1, 2)},
          {"conventional_1L_streams7", Kind::strassen, mk(SA::conventional, 1, 7)},
          // run-1 product-by-product schedule (less workspace, more traffic), over the run-2 kernels; always serial
          {"conventional_1L_lowmem", Kind::strassen, mk(SA::conventional, 1, -1, true)},
          {"conventional_2L", Kind::strassen, mk(SA::conventional, 2)},
          {"conventional_2L_serial", Kind::strassen, mk(SA::conventional, 2, 1)},
          // 3 levels: at 16384 the leaves are 2048^3 (ideal (8/7)^3 = 1.49x; workspace ~10.5 GiB FP64 at 16384)
          {"conventional_3L", Kind::strassen, mk(SA::conventional, 3)},
          {"conventional_3L_serial", Kind::strassen, mk(SA::conventional, 3, 1)},
          {"winograd", Kind::strassen, mk(SA::winograd, 4)},
          {"winograd_serial", Kind::strassen, mk(SA::winograd, 4, 1)},
          // tau 4096: 3 levels at >= 16384 (16384 -> 8192 -> 4096 -> leaves 2048), 2 at 8192, 1 at 4096
          {"winograd_3L_tau4096", Kind::strassen, mk(SA::winograd, 3, -1, false, 4096)},
          {"winograd_3L_tau4096_serial", Kind::strassen, mk(SA::winograd, 3, 1, false, 4096)}};
}

// Helper streams a row actually uses (0 = serial): what the library does with the config (for the JSON).
static int leaf_streams_of(const AlgoDef& a) {
  if (a.kind != Kind::strassen || a.cfg.algorithm == StrassenAlgorithm::fused || a.cfg.low_memory) return 0;
  return a.cfg.leaf_streams > 1 ? std::min(a.cfg.leaf_streams, 7) : 0;
}

// SIMT tile shape a row runs (1 classic, 2 wide, 3 wide_async; 0: the row runs no SIMT kernel of the library).
template <class T>
static int simt_tile_of(const AlgoDef& a) {
  const bool simt = a.kind == Kind::simt ||
                    (a.kind == Kind::strassen && (a.cfg.algorithm == StrassenAlgorithm::fused ||
                                                  a.cfg.algorithm == StrassenAlgorithm::hybrid || !a.cfg.cublas_leaves));
  return simt ? kbla::cuda::simt_tile_resolved<T>(a.cfg.simt_tile) : 0;
}

// Levels actually applied (what the library does; for the JSON and the error-growth threshold).
static int levels_of(const AlgoDef& a, i64 m, i64 n, i64 k, bool fp32) {
  if (a.kind != Kind::strassen) return 0;
  if (a.cfg.algorithm == StrassenAlgorithm::fused) return 1;
  if (a.cfg.algorithm == StrassenAlgorithm::hybrid) return std::min(std::min(m, n), k) >= 2 ? 2 : 1;
  const i64 tau = a.cfg.tau > 0 ? a.cfg.tau
                                : (fp32 ? kbla::cuda::strassen_default_tau<float>() : kbla::cuda::strassen_default_tau<double>());
  int L = 0;
  while (L < a.cfg.levels && std::min(std::min(m, n), k) >= 2 &&
         (a.cfg.algorithm != StrassenAlgorithm::winograd || std::min(std::min(m, n), k) >= tau)) {
    m /= 2, n /= 2, k /= 2, ++L;
  }
  return L;
}

struct Acc {
  bool have = false;
  double max = 0, mean = 0, max_vs_cublas = 0, max_abs_vs_I = -1;
};

struct Result {
  std::string prec, shape, algo, status = "ok", reason;
  i64 m = 0, n = 0, k = 0;
  int levels = 0, leaf_streams = 0, simt_tile = 0;
  double t_med_ms = 0, t_min_ms = 0, tflops = 0, pct_peak = 0, ratio_cublas = 0, model_ms = -1;
  std::size_t ws_bytes = 0;
  Acc rnd, li;
};

static std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
static std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// Analytic model (strassen_model.hpp, Huang et al. sec. 5) with this device's SM count, clock and DRAM bandwidth
// and the library's own tiles. Returns predicted seconds (fused 1-level or classical simt_gemm), < 0 if absent.
static double model_seconds(bool fused, bool fp32, i64 m, i64 n, i64 k, const DevInfo& d, int simt_tile) {
#ifdef KBLA_HAVE_STRASSEN_MODEL
  const int eb = fp32 ? 4 : 8;
  kbla::cuda::StrassenModelInput in;
  in.m = m, in.n = n, in.k = k, in.elem_bytes = eb;
  in.beta_zero = true, in.beta_one = false;
  in.device = kbla::cuda::h100_sxm_model_device(eb);
  if (d.sms > 0 && d.sm_clock_khz > 0) {
    const double clock = d.sm_clock_khz * 1e3;
    in.device.sms = d.sms;
    in.device.peak_flops = d.sms * (eb == 8 ? 64.0 : 128.0) * 2.0 * clock;
    in.device.smem_bytes_per_s = d.sms * 32.0 * 4.0 * clock;
  }
  if (d.peak_bw_gbs > 0) {
    in.device.dram_bytes_per_s = d.peak_bw_gbs * 1e9;
    in.device.gmem_bytes_per_s = 1.2 * in.device.dram_bytes_per_s;
  }
  in.classical = kbla::cuda::library_blocking(eb, false, simt_tile);
  in.fused = kbla::cuda::library_blocking(eb, true, simt_tile);
  const kbla::cuda::StrassenModelPrediction p = kbla::cuda::predict_strassen(in);
  return fused ? p.fused1_s : p.classical_s;
#else
  (void)fused, (void)fp32, (void)m, (void)n, (void)k, (void)d, (void)simt_tile;
  return -1;  // HOOK: strassen_model.hpp not available at build time
#endif
}

struct Sample {
  std::vector<i64> i, j;
  i64 *di = nullptr, *dj = nullptr;
  double *hi = nullptr, *lo = nullptr, *ab = nullptr, *got = nullptr;
  int n = 0;
};

static Sample make_sample(i64 m, i64 n, int count, std::uint64_t seed) {
  Sample s;
  // structured points: quadrant boundaries and the peeled last row / column, then uniform random ones
  const i64 ri[] = {0, m / 4, m / 2 - 1, m / 2, (3 * m) / 4, m - 1};
  const i64 rj[] = {0, n / 4, n / 2 - 1, n / 2, (3 * n) / 4, n - 1};
  for (i64 a : ri)
    for (i64 b : rj)
      if (a >= 0 && a < m && b >= 0 && b < n) s.i.push_back(a), s.j.push_back(b);
  std::uint64_t x = seed * 6364136223846793005ull + 1442695040888963407ull;
  while (int(s.i.size()) < count) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s.i.push_back(i64((x >> 33) % std::uint64_t(m)));
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s.j.push_back(i64((x >> 33) % std::uint64_t(n)));
  }
  s.n = int(s.i.size());
  CK(cudaMalloc(&s.di, s.n * sizeof(i64)));
  CK(cudaMalloc(&s.dj, s.n * sizeof(i64)));
  CK(cudaMalloc(&s.hi, 4 * s.n * sizeof(double)));
  s.lo = s.hi + s.n, s.ab = s.lo + s.n, s.got = s.ab + s.n;
  CK(cudaMemcpy(s.di, s.i.data(), s.n * sizeof(i64), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(s.dj, s.j.data(), s.n * sizeof(i64), cudaMemcpyHostToDevice));
  return s;
}
static void free_sample(Sample& s) {
  cudaFree(s.di), cudaFree(s.dj), cudaFree(s.hi);
}

struct RefVals {
  std::vector<double> hi, lo, ab;
};
template <class T>
static RefVals reference(Sample& s, const T* A, const T* B, i64 m, i64 k, i64 n) {
  (void)n;
  dd_reference<T><<<s.n, 256>>>(s.n, s.di, s.dj, A, m, B, k, k, s.hi, s.lo, s.ab);
  CK(cudaGetLastError());
  RefVals r;
  r.hi.resize(s.n), r.lo.resize(s.n), r.ab.resize(s.n);
  CK(cudaMemcpy(r.hi.data(), s.hi, s.n * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.lo.data(), s.lo, s.n * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.ab.data(), s.ab, s.n * sizeof(double), cudaMemcpyDeviceToHost));
  return r;
}
template <class T>
static std::vector<double> sample_of(Sample& s, const T* C, i64 ldc) {
  gather<T><<<(s.n + 255) / 256, 256>>>(s.n, s.di, s.dj, C, ldc, s.got);
  CK(cudaGetLastError());
  std::vector<double> v(s.n);
  CK(cudaMemcpy(v.data(), s.got, s.n * sizeof(double), cudaMemcpyDeviceToHost));
  return v;
}
static Acc accuracy(const Sample& s, const RefVals& r, const std::vector<double>& c, const std::vector<double>* blas,
                    bool li) {
  Acc a;
  a.have = true;
  double sum = 0;
  for (int q = 0; q < s.n; ++q) {
    const double denom = r.ab[q] > 0 ? r.ab[q] : 1.0;
    const double e = std::isfinite(c[q]) ? std::fabs((c[q] - r.hi[q]) - r.lo[q]) / denom : INFINITY;
    a.max = std::max(a.max, e);
    sum += e;
    if (blas) a.max_vs_cublas = std::max(a.max_vs_cublas, std::fabs(c[q] - (*blas)[q]) / denom);
    if (li) {
      const double I = (s.i[q] == s.j[q]) ? 1.0 : 0.0;
      a.max_abs_vs_I = std::max(a.max_abs_vs_I, std::fabs(c[q] - I));
    }
  }
  a.mean = sum / s.n;
  return a;
}

// ---------------------------------------------------------------------------------------------------------
static double now_s() {
  using namespace std::chrono;
  static const auto t0 = steady_clock::now();
  return duration<double>(steady_clock::now() - t0).count();
}

template <class T>
static void run_shape(const Opts& o, const DevInfo& dev, const std::string& shape, i64 m, i64 n, i64 k,
                      std::vector<Result>& out) {
  const bool fp32 = sizeof(T) == 4;
  const char* prec = fp32 ? "fp32" : "fp64";
  const double peak = fp32 ? dev.fp32_simt_peak : dev.fp64_tc_peak_clk;
  std::vector<AlgoDef> algos;
  for (const AlgoDef& a : algorithms())
    if (o.algos.empty() || a.kind == Kind::cublas || std::find(o.algos.begin(), o.algos.end(), a.name) != o.algos.end())
      algos.push_back(a);
  const double flops = 2.0 * double(m) * double(n) * double(k);
  auto base = [&](const AlgoDef& a) {
    Result r;
    r.prec = prec, r.shape = shape, r.algo = a.name, r.m = m, r.n = n, r.k = k;
    r.levels = levels_of(a, m, n, k, fp32);
    r.leaf_streams = r.levels > 0 ? leaf_streams_of(a) : 0;
    r.simt_tile = simt_tile_of<T>(a);
    if (a.kind == Kind::strassen) r.ws_bytes = kbla::cuda::strassen_workspace_bytes<T>(a.cfg, m, n, k);
    return r;
  };
  auto skip_all = [&](const std::string& why) {
    for (const AlgoDef& a : algos) {
      Result r = base(a);
      r.status = "skipped", r.reason = why;
      std::printf("%-5s %-6s %6lld %6lld %6lld %-26s SKIPPED (%s)\n", prec, shape.c_str(), (long long)m,
                  (long long)n, (long long)k, a.name.c_str(), why.c_str());
      out.push_back(r);
    }
    std::fflush(stdout);
  };
  if (now_s() > o.max_seconds) return skip_all("time budget (--max-seconds) exhausted");
  const std::size_t sz = sizeof(T);
  const std::size_t base_bytes = std::size_t(m * k + k * n + m * n) * sz;
  std::size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  if (base_bytes + (64u << 20) > free_b) return skip_all("A, B, C do not fit in device memory");
  T *A, *B, *C;
  CK(cudaMalloc(&A, std::size_t(m * k) * sz));
  CK(cudaMalloc(&B, std::size_t(k * n) * sz));
  CK(cudaMalloc(&C, std::size_t(m * n) * sz));
  fill_random<T><<<2048, 256>>>(A, m * k, 11 + m);
  fill_random<T><<<2048, 256>>>(B, k * n, 23 + n);
  CK(cudaGetLastError());
  Sample smp = make_sample(m, n, o.sample, std::uint64_t(m * 31 + n * 7 + k));
  const RefVals ref = reference<T>(smp, A, B, m, k, n);
  CK(blas_gemm(0, m, n, k, A, B, C));
  const std::vector<double> blas_sample = sample_of<T>(smp, C, m);
  // Li's pair (square only): reference and cuBLAS sample after the timing loop
  const bool do_li = (m == n && n == k);
  double cublas_ms = -1;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::size_t> result_index;
  for (const AlgoDef& a : algos) {
    Result r = base(a);
    const int runs = o.warmup + o.reps;
    const double est = runs * flops / (0.4 * peak * 1e12);  // pessimistic: 40 % of peak
    if (now_s() + est > o.max_seconds) {
      r.status = "skipped", r.reason = "time budget (--max-seconds)";
    } else {
      CK(cudaMemGetInfo(&free_b, &total_b));
      void* ws = nullptr;
      if (r.ws_bytes + (64u << 20) > free_b) {
        r.status = "skipped", r.reason = "workspace does not fit in device memory";
      } else {
        if (r.ws_bytes) CK(cudaMalloc(&ws, r.ws_bytes));
        // The pinned shape also for the SIMT kernels strassen_gemm calls inside (whether or not it forwards
        // StrassenConfig::simt_tile); 0 = back to the default.
        kbla::cuda::set_simt_tile(a.cfg.simt_tile);
        auto call = [&]() -> cudaError_t {
          switch (a.kind) {
            case Kind::cublas: return blas_gemm(0, m, n, k, A, B, C);
            case Kind::simt:
              return kbla::cuda::simt_gemm<T>(0, 'N', 'N', m, n, k, T(1), A, m, B, k, T(0), C, m, a.cfg.simt_tile);
            default:
              return kbla::cuda::strassen_gemm<T>(0, a.cfg, 'N', 'N', m, n, k, T(1), A, m, B, k, T(0), C, m, ws,
                                                  r.ws_bytes);
          }
        };
        cudaError_t err = cudaSuccess;
        for (int w = 0; w < o.warmup && err == cudaSuccess; ++w) err = call();
        std::vector<float> ts;
        for (int q = 0; q < o.reps && err == cudaSuccess; ++q) {
          CK(cudaEventRecord(e0));
          err = call();
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float ms = 0;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          ts.push_back(ms);
        }
        if (err == cudaSuccess) err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
          r.status = "error", r.reason = cudaGetErrorString(err);
          if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
            std::printf("sticky CUDA error after %s: aborting the run\n", a.name.c_str());
            std::exit(3);
          }
        } else {
          std::sort(ts.begin(), ts.end());
          r.t_med_ms = ts[ts.size() / 2], r.t_min_ms = ts.front();
          r.tflops = flops / (r.t_med_ms * 1e-3) / 1e12;
          r.pct_peak = 100.0 * r.tflops / peak;
          if (a.kind == Kind::cublas) cublas_ms = r.t_med_ms;
          r.ratio_cublas = cublas_ms > 0 ? cublas_ms / r.t_med_ms : 0;  // > 1: faster than cuBLAS
          const std::vector<double> got = sample_of<T>(smp, C, m);
          r.rnd = accuracy(smp, ref, got, &blas_sample, false);
          // WRONG threshold (normalized by (|A||B|)_ij): classical ~ u, each level a few-fold; a structural bug
          // gives O(1/sqrt(k)). FP32: 1e-3, FP64: 1e-11.
          const double thr = fp32 ? 1e-3 : 1e-11;
          if (!(r.rnd.max <= thr)) {
            r.status = "wrong";
            char b[128];
            std::snprintf(b, sizeof b, "max normalized error %.3e > %.1e vs double-double reference", r.rnd.max,
                          thr);
            r.reason = b;
          }
          if ((a.cfg.algorithm == StrassenAlgorithm::fused && a.kind == Kind::strassen) || a.kind == Kind::simt) {
            const double sec = model_seconds(a.kind == Kind::strassen, fp32, m, n, k, dev, r.simt_tile);
            r.model_ms = sec > 0 ? sec * 1e3 : -1;
          }
        }
        if (ws) cudaFree(ws);
      }
    }
    char line[256];
    if (r.status == "ok" || r.status == "wrong")
      std::snprintf(line, sizeof line, "%8.3f ms %7.2f TF %5.1f%% x%5.3f ws %7.1f MiB err %.2e (vs cuBLAS %.2e)%s",
                    r.t_med_ms, r.tflops, r.pct_peak, r.ratio_cublas, r.ws_bytes / 1048576.0, r.rnd.max,
                    r.rnd.max_vs_cublas, r.status == "wrong" ? "  *** WRONG RESULT ***" : "");
    else
      std::snprintf(line, sizeof line, "%s (%s)", r.status == "error" ? "ERROR" : "SKIPPED", r.reason.c_str());
    std::printf("%-5s %-6s %6lld %6lld %6lld %-26s %s", prec, shape.c_str(), (long long)m, (long long)n,
                (long long)k, a.name.c_str(), line);
    if (r.model_ms > 0) std::printf("  model %.3f ms", r.model_ms);
    std::printf("\n");
    std::fflush(stdout);
    result_index.push_back(out.size());
    out.push_back(r);
  }
  // Li's pair: one run per algorithm that ran
  if (do_li && now_s() < o.max_seconds) {
    double vu = 0;  // v^T u = sum_i sqrt(i) / (N + 1 - i), i = 1..N
    for (i64 i = 1; i <= n; ++i) vu += std::sqrt(double(i)) / double(n + 1 - i);
    fill_li<T><<<2048, 256>>>(A, n, 0, 1.0 / (1.0 + vu));
    fill_li<T><<<2048, 256>>>(B, n, 1, 1.0 / (1.0 + vu));
    CK(cudaGetLastError());
    const RefVals lref = reference<T>(smp, A, B, m, k, n);
    for (std::size_t q = 0; q < algos.size(); ++q) {
      Result& r = out[result_index[q]];
      if (r.status != "ok" && r.status != "wrong") continue;
      const AlgoDef& a = algos[q];
      void* ws = nullptr;
      if (r.ws_bytes) CK(cudaMalloc(&ws, r.ws_bytes));
      kbla::cuda::set_simt_tile(a.cfg.simt_tile);
      cudaError_t err;
      switch (a.kind) {
        case Kind::cublas: err = blas_gemm(0, m, n, k, A, B, C); break;
        case Kind::simt:
          err = kbla::cuda::simt_gemm<T>(0, 'N', 'N', m, n, k, T(1), A, m, B, k, T(0), C, m, a.cfg.simt_tile);
          break;
        default:
          err = kbla::cuda::strassen_gemm<T>(0, a.cfg, 'N', 'N', m, n, k, T(1), A, m, B, k, T(0), C, m, ws,
                                             r.ws_bytes);
      }
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
      if (ws) cudaFree(ws);
      if (err != cudaSuccess) continue;
      r.li = accuracy(smp, lref, sample_of<T>(smp, C, m), nullptr, true);
      std::printf("%-5s %-6s %6lld %6lld %6lld %-26s Li pair: max err %.2e mean %.2e max|C-I| %.2e\n", prec,
                  shape.c_str(), (long long)m, (long long)n, (long long)k, a.name.c_str(), r.li.max, r.li.mean,
                  r.li.max_abs_vs_I);
    }
    std::fflush(stdout);
  }
  kbla::cuda::set_simt_tile(0);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  free_sample(smp);
  cudaFree(A), cudaFree(B), cudaFree(C);
}

static std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) v.push_back(t);
  return v;
}

static void write_json(const Opts& o, const DevInfo& d, const std::vector<Result>& rs) {
  FILE* f = std::fopen(o.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", o.json.c_str());
    return;
  }
  const char* tf32 = std::getenv("NVIDIA_TF32_OVERRIDE");
  std::fprintf(f, "{\n \"device\": {\"name\": %s, \"cc\": \"%d.%d\", \"sm_count\": %d, \"sm_clock_mhz\": %s, "
                  "\"mem_clock_mhz\": %s, \"bus_width_bits\": %d, \"mem_gib\": %s, \"peak_bw_GBs\": %s, "
                  "\"fp32_simt_peak_tflops\": %s, \"fp64_tc_peak_tflops_from_clock\": %s, "
                  "\"fp64_tc_peak_tflops_nominal\": %s},\n",
               jstr(d.name).c_str(), d.cc_major, d.cc_minor, d.sms, jnum(d.sm_clock_khz / 1e3).c_str(),
               jnum(d.mem_clock_khz / 1e3).c_str(), d.bus_bits, jnum(d.mem_gib).c_str(), jnum(d.peak_bw_gbs).c_str(),
               jnum(d.fp32_simt_peak).c_str(), jnum(d.fp64_tc_peak_clk).c_str(), jnum(d.fp64_tc_peak_nominal).c_str());
  std::fprintf(f, " \"cublas_math_mode\": \"CUBLAS_DEFAULT_MATH (SGEMM without TF32)\",\n");
  std::fprintf(f, " \"env_NVIDIA_TF32_OVERRIDE\": %s,\n", tf32 ? jstr(tf32).c_str() : "null");
  std::fprintf(f, " \"peak_used\": {\"fp32\": \"fp32_simt_peak_tflops\", \"fp64\": \"fp64_tc_peak_tflops_from_clock\"},\n");
  std::fprintf(f, " \"config\": {\"reps\": %d, \"warmup\": %d, \"sample\": %d, \"max_seconds\": %s, \"quick\": %s, "
                  "\"rankk_k\": %lld, \"panel_mn\": %lld, \"winograd_default_tau\": {\"fp32\": %lld, \"fp64\": %lld}, "
                  "\"default_leaf_streams\": %d},\n",
               o.reps, o.warmup, o.sample, jnum(o.max_seconds).c_str(), o.quick ? "true" : "false",
               (long long)o.rankk_k, (long long)o.panel_mn, (long long)kbla::cuda::strassen_default_tau<float>(),
               (long long)kbla::cuda::strassen_default_tau<double>(), StrassenConfig{}.leaf_streams);
  std::fprintf(f, " \"elapsed_s\": %s,\n \"results\": [\n", jnum(now_s()).c_str());
  for (std::size_t q = 0; q < rs.size(); ++q) {
    const Result& r = rs[q];
    auto acc = [](const Acc& a) {
      if (!a.have) return std::string("null");
      return "{\"max\": " + jnum(a.max) + ", \"mean\": " + jnum(a.mean) + ", \"max_vs_cublas\": " +
             jnum(a.max_vs_cublas) + ", \"max_abs_vs_I\": " + (a.max_abs_vs_I >= 0 ? jnum(a.max_abs_vs_I) : "null") +
             "}";
    };
    std::fprintf(f,
                 "  {\"precision\": %s, \"shape\": %s, \"m\": %lld, \"n\": %lld, \"k\": %lld, \"algorithm\": %s, "
                 "\"status\": %s, \"reason\": %s, \"levels\": %d, \"leaf_streams\": %d, \"simt_tile\": %d, "
                 "\"time_ms_median\": %s, "
                 "\"time_ms_min\": %s, "
                 "\"tflops\": %s, \"pct_peak\": %s, \"ratio_to_cublas\": %s, \"workspace_bytes\": %zu, "
                 "\"model_time_ms\": %s, \"err_random\": %s, \"err_li\": %s}%s\n",
                 jstr(r.prec).c_str(), jstr(r.shape).c_str(), (long long)r.m, (long long)r.n, (long long)r.k,
                 jstr(r.algo).c_str(), jstr(r.status).c_str(), jstr(r.reason).c_str(), r.levels, r.leaf_streams, r.simt_tile,
                 r.t_med_ms > 0 ? jnum(r.t_med_ms).c_str() : "null", r.t_min_ms > 0 ? jnum(r.t_min_ms).c_str() : "null",
                 r.tflops > 0 ? jnum(r.tflops).c_str() : "null", r.tflops > 0 ? jnum(r.pct_peak).c_str() : "null",
                 r.ratio_cublas > 0 ? jnum(r.ratio_cublas).c_str() : "null", r.ws_bytes,
                 r.model_ms > 0 ? jnum(r.model_ms).c_str() : "null", acc(r.rnd).c_str(), acc(r.li).c_str(),
                 q + 1 < rs.size() ? "," : "");
  }
  std::fprintf(f, " ]\n}\n");
  std::fclose(f);
  std::printf("wrote %s\n", o.json.c_str());
}

int main(int argc, char** argv) {
  Opts o;
  bool sizes_given = false, reps_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--quick") o.quick = true;
    else if (a == "--sizes") {
      o.sizes.clear();
      for (auto& s : split(val())) o.sizes.push_back(std::atoll(s.c_str()));
      sizes_given = true;
    } else if (a == "--shapes") o.shapes = split(val());
    else if (a == "--prec") {
      o.precs.clear();
      for (auto& s : split(val())) o.precs.push_back(s[0]);
    } else if (a == "--reps") o.reps = std::atoi(val().c_str()), reps_given = true;
    else if (a == "--warmup") o.warmup = std::atoi(val().c_str());
    else if (a == "--max-seconds") o.max_seconds = std::atof(val().c_str());
    else if (a == "--sample") o.sample = std::atoi(val().c_str());
    else if (a == "--rankk-k") o.rankk_k = std::atoll(val().c_str());
    else if (a == "--panel-mn") o.panel_mn = std::atoll(val().c_str());
    else if (a == "--json") o.json = val();
    else if (a == "--algos") o.algos = split(val());
    else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--sizes a,b,c] [--shapes square,rankk,panel] [--prec s,d] [--reps N] "
                   "[--warmup N] [--max-seconds S] [--sample N] [--rankk-k K] [--panel-mn N] [--json PATH] "
                   "[--algos a,b,...]\n",
                   argv[0]);
      return 1;
    }
  }
  if (!sizes_given) {
    if (o.quick) o.sizes = {1024, 2048, 4096, 8192};
    else {
      for (i64 s = 1024; s <= 4096; s += 512) o.sizes.push_back(s);
      for (i64 s = 5120; s <= 20480; s += 1024) o.sizes.push_back(s);
    }
  }
  for (const std::string& name : o.algos) {
    bool known = false;
    for (const AlgoDef& a : algorithms()) known = known || a.name == name;
    if (!known) {
      std::fprintf(stderr, "unknown algorithm %s in --algos; rows:", name.c_str());
      for (const AlgoDef& a : algorithms()) std::fprintf(stderr, " %s", a.name.c_str());
      std::fprintf(stderr, "\n");
      return 1;
    }
  }
  if (o.quick && !reps_given) o.reps = 10;
  o.reps = std::max(o.reps, 1);
  o.warmup = std::max(o.warmup, 0);
  o.sample = std::max(o.sample, 64);
  for (i64 s : o.sizes)
    if (s <= 0) {
      std::fprintf(stderr, "sizes must be positive\n");
      return 1;
    }
  now_s();
  const DevInfo d = device_info();
  if (cublasCreate(&g_blas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 2;
  }
  cublasSetMathMode(g_blas, CUBLAS_DEFAULT_MATH);
  std::printf("device %s (cc %d.%d): %d SMs, SM clock %.0f MHz, memory clock %.0f MHz, bus %d bit, %.1f GiB, "
              "peak BW %.0f GB/s\n",
              d.name.c_str(), d.cc_major, d.cc_minor, d.sms, d.sm_clock_khz / 1e3, d.mem_clock_khz / 1e3, d.bus_bits,
              d.mem_gib, d.peak_bw_gbs);
  std::printf("peaks: FP32 SIMT %.1f TFLOP/s (SMs x clock x 128 x 2), FP64 tensor core %.1f TFLOP/s from clock "
              "(SMs x clock x 256), nominal %.0f\n",
              d.fp32_simt_peak, d.fp64_tc_peak_clk, d.fp64_tc_peak_nominal);
  std::printf("cuBLAS math mode: CUBLAS_DEFAULT_MATH (no TF32); NVIDIA_TF32_OVERRIDE=%s\n",
              std::getenv("NVIDIA_TF32_OVERRIDE") ? std::getenv("NVIDIA_TF32_OVERRIDE") : "(unset)");
  std::printf("columns: prec shape m n k algorithm | median ms, TFLOP/s, %% of peak, speed ratio vs cuBLAS (>1 "
              "faster), workspace, max |C-Cref|/(|A||B|) on the sample (and vs cuBLAS)\n");
  std::fflush(stdout);
  std::vector<Result> results;
  for (const std::string& shape : o.shapes) {
    if (shape != "square" && shape != "rankk" && shape != "panel") {
      std::fprintf(stderr, "unknown shape %s (square, rankk, panel)\n", shape.c_str());
      continue;
    }
    for (i64 s : o.sizes) {
      i64 m = s, n = s, k = s;
      if (shape == "rankk") k = o.rankk_k;
      if (shape == "panel") m = n = o.panel_mn;
      for (char p : o.precs) {
        if (p == 's' || p == 'S') run_shape<float>(o, d, shape, m, n, k, results);
        else if (p == 'd' || p == 'D') run_shape<double>(o, d, shape, m, n, k, results);
      }
      write_json(o, d, results);  // keep a valid file after every size (a killed run still leaves data)
    }
  }
  write_json(o, d, results);
  int wrong = 0;
  for (const Result& r : results) wrong += r.status == "wrong" || r.status == "error";
  if (wrong) std::printf("*** %d case(s) WRONG or ERROR: see the table / JSON ***\n", wrong);
  cublasDestroy(g_blas);
  return wrong ? 4 : 0;
}
