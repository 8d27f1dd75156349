// Benchmark of the tall & skinny kernels (issue 4), Kokkos-free: kbla::cuda::tsmttsm / tsmm against cuBLAS
// called directly, in one run. Measures its own read and copy bandwidth first.
//   bench_tall_skinny [--quick] [--out file.json] [--reps N]
// Roofline: P = min(intensity * measured read bandwidth, peak), intensity = flops / bytes of A, B, C moved
// once (beta = 0, so the output is only written), peak = 67 TFLOP/s (FP64 tensor cores, H100/H200 SXM) for
// D and Z. Times: CUDA events around each call, median of the repetitions after warm-up; inputs rotate
// through the allocation so that small cases do not run from L2 twice in a row.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kbla_cuda_tall_skinny.hpp"

using kbla::cuda::Layout;

#define CK(x)                                                                                            \
  do {                                                                                                   \
    cudaError_t e_ = (x);                                                                                \
    if (e_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);     \
      std::exit(2);                                                                                      \
    }                                                                                                    \
  } while (0)
#define CB(x)                                                                         \
  do {                                                                                \
    cublasStatus_t s_ = (x);                                                          \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

static const double kPeakFP64 = 67.0e12;  // FP64 tensor cores, H100/H200 SXM; float would be 2x (not measured)
static double g_bw_read = 0, g_bw_copy = 0;
static int g_reps = 10;  // timed repetitions per case (median), after 2 warm-up calls
static cublasHandle_t g_handle;
static cudaEvent_t g_e0, g_e1;

__global__ void fill_kernel(double* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u + seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = (double(x & 0xffffff) / double(0x1000000)) - 0.5;
  }
}
// read-only: thread-local sums of 16-byte loads, 4 in flight
__global__ void read_kernel(const double2* __restrict__ p, std::size_t n, double* out) {
  double s = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    double2 a = __ldg(p + i), b = __ldg(p + i + stride), c = __ldg(p + i + 2 * stride), d = __ldg(p + i + 3 * stride);
    s += a.x + a.y + b.x + b.y + c.x + c.y + d.x + d.y;
  }
  for (; i < n; i += stride) {
    double2 a = __ldg(p + i);
    s += a.x + a.y;
  }
  if (s == 12345.678) out[0] = s;  // keeps the loads, practically never stores
}
__global__ void copy_kernel(const double2* __restrict__ p, double2* __restrict__ q, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += stride) q[i] = __ldg(p + i);
}

template <class F>
double median_ms(F&& f, int reps, int warm = 2) {
  {  // a pathologically slow call (seen: some cuBLAS shapes) is timed once, not 12 times
    CK(cudaEventRecord(g_e0));
    f(0);
    CK(cudaEventRecord(g_e1));
    CK(cudaEventSynchronize(g_e1));
    float t0 = 0;
    CK(cudaEventElapsedTime(&t0, g_e0, g_e1));
    if (t0 > 250.f) return t0;
  }
  for (int i = 1; i < warm; ++i) f(i);
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(g_e0));
    f(warm + i);
    CK(cudaEventRecord(g_e1));
    CK(cudaEventSynchronize(g_e1));
    CK(cudaEventElapsedTime(&t[i], g_e0, g_e1));
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

struct Res {
  double ms, gbs, gfs, pct;
};
static std::string js(const Res& r) {
  char b[160];
  std::snprintf(b, sizeof b, "{\"ms\":%.5g,\"GBs\":%.5g,\"GFs\":%.6g,\"pct_roof\":%.4g}", r.ms, r.gbs, r.gfs, r.pct);
  return b;
}

// Buffers: A, B (outputs of tsmm), C (small). Large enough for 2^29 doubles each (4 GiB).
static char *g_A, *g_B, *g_C;
static const std::size_t kBig = std::size_t(1) << 32;

template <class T>
T one() {
  return T(1);
}
template <class T>
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T* A, int lda,
                    const T* B, int ldb, T* C, int ldc) {
  const T a = T(1), b = T(0);
  if constexpr (std::is_same<T, double>::value)
    return cublasDgemm(g_handle, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
  else
    return cublasZgemm(g_handle, ta, tb, m, n, k, reinterpret_cast<const cuDoubleComplex*>(&a),
                       reinterpret_cast<const cuDoubleComplex*>(A), lda, reinterpret_cast<const cuDoubleComplex*>(B),
                       ldb, reinterpret_cast<const cuDoubleComplex*>(&b), reinterpret_cast<cuDoubleComplex*>(C), ldc);
}

// one measurement: op 0 = tsmttsm, 1 = tsmm; impl 0 = kbla, 1 = cuBLAS
template <class T>
Res measure(int op, int impl, Layout l, std::int64_t K, int M, int N, int reps) {
  const bool cplx = sizeof(T) == 16;
  const std::size_t es = sizeof(T);
  const std::size_t needA = std::size_t(K) * M * es, needB = std::size_t(K) * N * es;
  // rotate the start so that consecutive calls touch different memory (2 x 60 MB apart at least)
  const std::size_t need = std::max(needA, needB);
  const std::size_t span = kBig - need;
  const std::size_t step = ((std::max<std::size_t>(need, 128u << 20)) + 4095) / 4096 * 4096;
  auto base = [&](int it) -> std::size_t { return span == 0 ? 0 : (std::size_t(it) * step) % (span + 1) / 4096 * 4096; };
  const T alpha = T(1), beta = T(0);
  const bool row = l == Layout::RowMajor;
  auto call = [&](int it) {
    const std::size_t o = base(it);
    const T* A = reinterpret_cast<const T*>(g_A + o);
    T* B = reinterpret_cast<T*>(g_B + o);
    T* C = reinterpret_cast<T*>(g_C);
    if (impl == 0) {
      if (op == 0)
        CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, A, row ? M : K, l, B, row ? N : K, l, beta, C, row ? N : M, l));
      else
        CK(kbla::cuda::tsmm<T>(0, K, M, N, alpha, A, row ? M : K, l, C, row ? N : M, l, beta, B, row ? N : K, l));
    } else {
      const cublasOperation_t H = cplx ? CUBLAS_OP_C : CUBLAS_OP_T;
      if (op == 0) {
        if (row) CB(gemm<T>(CUBLAS_OP_N, H, N, M, int(K), B, N, A, M, C, N));
        else CB(gemm<T>(H, CUBLAS_OP_N, M, N, int(K), A, int(K), B, int(K), C, M));
      } else {
        if (row) CB(gemm<T>(CUBLAS_OP_N, CUBLAS_OP_N, N, int(K), M, C, N, A, M, B, N));
        else CB(gemm<T>(CUBLAS_OP_N, CUBLAS_OP_N, int(K), N, M, A, int(K), C, M, B, int(K)));
      }
    }
  };
  const double ms = median_ms(call, reps);
  const double flops = (cplx ? 8.0 : 2.0) * double(M) * N * double(K);
  const double bytes = double(es) * (double(K) * M + double(K) * N + double(M) * N);
  const double roof = std::min(flops / bytes * g_bw_read, kPeakFP64);
  Res r;
  r.ms = ms;
  r.gbs = bytes / (ms * 1e-3) / 1e9;
  r.gfs = flops / (ms * 1e-3) / 1e9;
  r.pct = 100.0 * (flops / (ms * 1e-3)) / roof;
  return r;
}

// compare kbla with cuBLAS on one case (relative max difference of C, or of a sample of B's rows)
template <class T>
double check(int op, Layout l, std::int64_t K, int M, int N) {
  const bool cplx = sizeof(T) == 16;
  const bool row = l == Layout::RowMajor;
  const T alpha = T(1), beta = T(0);
  const T* A = reinterpret_cast<const T*>(g_A);
  T* B = reinterpret_cast<T*>(g_B);
  T* C = reinterpret_cast<T*>(g_C);
  std::vector<T> x, y;
  const cublasOperation_t H = cplx ? CUBLAS_OP_C : CUBLAS_OP_T;
  if (op == 0) {
    const std::size_t n = std::size_t(M) * N;
    x.resize(n);
    y.resize(n);
    CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, A, row ? M : K, l, B, row ? N : K, l, beta, C, row ? N : M, l));
    CK(cudaMemcpy(x.data(), C, n * sizeof(T), cudaMemcpyDeviceToHost));
    if (row) CB(gemm<T>(CUBLAS_OP_N, H, N, M, int(K), B, N, A, M, C, N));
    else CB(gemm<T>(H, CUBLAS_OP_N, M, N, int(K), A, int(K), B, int(K), C, M));
    CK(cudaMemcpy(y.data(), C, n * sizeof(T), cudaMemcpyDeviceToHost));
  } else {
    const std::size_t n = std::min<std::size_t>(std::size_t(K) * N, 1 << 20);  // first elements of B
    x.resize(n);
    y.resize(n);
    CK(kbla::cuda::tsmm<T>(0, K, M, N, alpha, A, row ? M : K, l, C, row ? N : M, l, beta, B, row ? N : K, l));
    CK(cudaMemcpy(x.data(), B, n * sizeof(T), cudaMemcpyDeviceToHost));
    if (row) CB(gemm<T>(CUBLAS_OP_N, CUBLAS_OP_N, N, int(K), M, C, N, A, M, B, N));
    else CB(gemm<T>(CUBLAS_OP_N, CUBLAS_OP_N, int(K), N, M, A, int(K), C, M, B, int(K)));
    CK(cudaMemcpy(y.data(), B, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, double(std::abs(x[i] - y[i])));
    den = std::max(den, double(std::abs(y[i])));
  }
  return den > 0 ? num / den : num;
}

static std::string nvsmi(const char* q) {
  std::string cmd = std::string("nvidia-smi --query-gpu=") + q + " --format=csv,noheader 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return "";
  char buf[256] = {0};
  std::string s;
  while (fgets(buf, sizeof buf, f)) s += buf;
  pclose(f);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

int main(int argc, char** argv) {
  bool quick = false, do_ramp = true;
  std::string out = "tall_skinny.json", types = "DZ";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--reps" && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    else if (a == "--types" && i + 1 < argc) types = argv[++i];  // D, Z or DZ
    else if (a == "--no-ramp") do_ramp = false;
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int sm_clk = 0, mem_clk = 0, bus = 0;
  cudaDeviceGetAttribute(&sm_clk, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&mem_clk, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
  CB(cublasCreate(&g_handle));
  CK(cudaEventCreate(&g_e0));
  CK(cudaEventCreate(&g_e1));
  CK(cudaMalloc(&g_A, kBig));
  CK(cudaMalloc(&g_B, kBig));
  CK(cudaMalloc(&g_C, 64 << 20));
  fill_kernel<<<4096, 256>>>(reinterpret_cast<double*>(g_A), kBig / 8, 1u);
  fill_kernel<<<4096, 256>>>(reinterpret_cast<double*>(g_B), kBig / 8, 7u);
  fill_kernel<<<4096, 256>>>(reinterpret_cast<double*>(g_C), (64 << 20) / 8, 3u);
  CK(cudaDeviceSynchronize());
  const std::string smi_before = nvsmi("clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,temperature.gpu");

  // bandwidths (4 GiB read; 2 GiB + 2 GiB copy)
  {
    const std::size_t n = kBig / 16;
    double* dummy = reinterpret_cast<double*>(g_C);
    const int blocks = prop.multiProcessorCount * 8;
    const double ms = median_ms([&](int) { read_kernel<<<blocks, 256>>>(reinterpret_cast<const double2*>(g_A), n, dummy); }, 20);
    g_bw_read = double(kBig) / (ms * 1e-3);
    const std::size_t nc = n / 2;
    const double mc = median_ms([&](int) {
      copy_kernel<<<blocks, 256>>>(reinterpret_cast<const double2*>(g_A), reinterpret_cast<double2*>(g_B), nc);
    }, 20);
    g_bw_copy = 2.0 * double(nc) * 16 / (mc * 1e-3);
    fill_kernel<<<4096, 256>>>(reinterpret_cast<double*>(g_B), kBig / 8, 7u);
    CK(cudaDeviceSynchronize());
  }
  std::printf("device %s, %d SMs; read %.0f GB/s, copy %.0f GB/s; nvidia-smi: %s\n", prop.name,
              prop.multiProcessorCount, g_bw_read / 1e9, g_bw_copy / 1e9, smi_before.c_str());

  std::vector<int> widths;
  if (quick) widths = {1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 128, 512};
  else {
    for (int w = 1; w <= 64; ++w) widths.push_back(w);
    for (int w : {96, 128, 256, 512}) widths.push_back(w);
  }
  FILE* f = std::fopen(out.c_str(), "w");
  if (!f) return 3;
  std::fprintf(f, "{\n\"device\":\"%s\",\"sm_count\":%d,\"sm_clock_khz_attr\":%d,\"mem_clock_khz_attr\":%d,"
                  "\"mem_bus_bits\":%d,\n\"nvidia_smi_before\":\"%s\",\n",
               prop.name, prop.multiProcessorCount, sm_clk, mem_clk, bus, smi_before.c_str());
  std::fprintf(f, "\"bw_read_GBs\":%.1f,\"bw_copy_GBs\":%.1f,\"peak_fp64_TFLOPs\":%.1f,\"peak_note\":\"roofline = "
                  "min(flops/bytes(A,B,C once) * bw_read, 67 TFLOP/s FP64 tensor); float (not measured here) would use "
                  "2x\",\"beta\":0,\"reps\":%d,\n\"cases\":[\n",
               g_bw_read / 1e9, g_bw_copy / 1e9, kPeakFP64 / 1e12, g_reps);
  bool first = true;
  std::printf("%-4s %-8s %-3s %5s %11s | %7s %7s | %7s %7s | %6s | %s\n", "type", "op", "lay", "w", "K", "kbla%",
              "GF/s", "cublas%", "GF/s", "ratio", "check");
  double minratio = 1e9, maxratio = 0;
  const auto t_start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  for (int cplx = 0; cplx < 2; ++cplx)
    for (int op = 0; op < 2; ++op)
      for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (int w : widths) {
          if (types.find(cplx ? 'Z' : 'D') == std::string::npos) continue;
          const std::int64_t K = (std::int64_t(1) << (cplx ? 28 : 29)) / w;
          Res r0, r1;
          double chk;
          if (cplx) {
            chk = check<std::complex<double>>(op, l, K, w, w);
            r0 = measure<std::complex<double>>(op, 0, l, K, w, w, g_reps);
            r1 = measure<std::complex<double>>(op, 1, l, K, w, w, g_reps);
          } else {
            chk = check<double>(op, l, K, w, w);
            r0 = measure<double>(op, 0, l, K, w, w, g_reps);
            r1 = measure<double>(op, 1, l, K, w, w, g_reps);
          }
          const double ratio = r1.ms / r0.ms;  // > 1: kbla faster
          minratio = std::min(minratio, ratio);
          maxratio = std::max(maxratio, ratio);
          const char* tn = cplx ? "Z" : "D";
          const char* on = op ? "tsmm" : "tsmttsm";
          const char* ln = l == Layout::RowMajor ? "R" : "C";
          std::printf("%-4s %-8s %-3s %5d %11lld | %6.1f%% %7.0f | %6.1f%% %7.0f | %6.2f | %.1e%s %6.1fs\n", tn, on, ln,
                      w, (long long)K, r0.pct, r0.gfs, r1.pct, r1.gfs, ratio, chk, chk > 1e-10 ? " CHECK!" : "",
                      elapsed());
          std::fprintf(f, "%s{\"type\":\"%s\",\"op\":\"%s\",\"layout\":\"%s\",\"M\":%d,\"N\":%d,\"K\":%lld,\"kbla\":%s,"
                          "\"cublas\":%s,\"ratio_vs_cublas\":%.4g,\"check_rel_diff\":%.3g}",
                       first ? "" : ",\n", tn, on, ln, w, w, (long long)K, js(r0).c_str(), js(r1).c_str(), ratio, chk);
          first = false;
          std::fflush(stdout);
          std::fflush(f);
        }
  std::fprintf(f, "\n],\n\"ramp\":[\n");
  first = true;
  for (int cplx = 0; cplx < 2; ++cplx)
    for (int op = 0; op < 2; ++op)
      for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (int w : {4, 16, 64})
          for (int e = 10; e <= 27; e += (quick ? 3 : 1)) {
            if (!do_ramp || types.find(cplx ? 'Z' : 'D') == std::string::npos) continue;
            // A and B must fit the 4 GiB buffers: K <= 2^29/w (D), 2^28/w (Z); larger K are skipped
            if ((std::int64_t(1) << e) * w > (std::int64_t(1) << (cplx ? 28 : 29))) continue;
            const std::int64_t K = std::int64_t(1) << e;
            const int reps = e < 20 ? 4 * g_reps : g_reps;
            Res r0 = cplx ? measure<std::complex<double>>(op, 0, l, K, w, w, reps) : measure<double>(op, 0, l, K, w, w, reps);
            Res r1 = cplx ? measure<std::complex<double>>(op, 1, l, K, w, w, reps) : measure<double>(op, 1, l, K, w, w, reps);
            std::fprintf(f, "%s{\"type\":\"%s\",\"op\":\"%s\",\"layout\":\"%s\",\"w\":%d,\"K\":%lld,\"kbla\":%s,\"cublas\":%s}",
                         first ? "" : ",\n", cplx ? "Z" : "D", op ? "tsmm" : "tsmttsm",
                         l == Layout::RowMajor ? "R" : "C", w, (long long)K, js(r0).c_str(), js(r1).c_str());
            first = false;
            std::fflush(f);
            if (e == 20)
              std::printf("ramp %s %-8s %s w=%2d K=2^20: kbla %.1f%%  cublas %.1f%%\n", cplx ? "Z" : "D",
                          op ? "tsmm" : "tsmttsm", l == Layout::RowMajor ? "R" : "C", w, r0.pct, r1.pct);
          }
  const std::string smi_after = nvsmi("clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,temperature.gpu");
  std::fprintf(f, "\n],\n\"nvidia_smi_after\":\"%s\",\"ratio_min\":%.4g,\"ratio_max\":%.4g\n}\n", smi_after.c_str(),
               minratio, maxratio);
  std::fclose(f);
  std::printf("ratio kbla/cuBLAS speed: min %.3g max %.3g; nvidia-smi after: %s\nwrote %s\n", minratio, maxratio,
              smi_after.c_str(), out.c_str());
  return 0;
}
