// Ramp-up probe (the K = 2^20 target): where the time of a short tall & skinny call goes. For K rows of a
// narrow D row-major product it times, event-to-event like the benchmark (median of 31 after 3 warm-ups):
//   empty    an empty kernel launch (the floor any call pays),
//   read     a plain streaming read of the same bytes (16-byte loads, grid-stride, one store per block):
//            what the memory system gives at this size, i.e. the realistic ceiling of the ramp,
//   tsmttsm  the library's TSMTTSM (default dispatch, routes off) and the SIMT kernel at forced grid sizes,
//   tsmm     the library's TSMM (default dispatch).
//   ramp_probe [--widths 4,16] [--rows-log2 18,20,22] [--constant-data]
//   ramp_probe --route-sweep | --sweep-shapes D:tsmm:C:49-64,Z:tsmttsm:R:57 [--sweep-min-log2 12] [--constant-data]
//   ramp_probe --launch [--widths 4] [--rows-log2 20]
// --launch: the launch floor by stream kind (the legacy default stream 0, which Kokkos 3.4's default Cuda instance
// uses, a created blocking stream, a created non-blocking stream): for each, the event-timed empty kernel, plain
// read and library calls as above, plus the host's enqueue cost per call (CPU time of 200 calls without a sync)
// and the GPU time per call when 50 calls run back to back (launch latency hidden).
// Operands hold random values (--constant-data: the byte 0x3f everywhere, as before session 8).
// With --route-sweep (square shapes D / Z, both ops, both layouts, widths 1, 2, 4, 8, 16, 24, ..., 64) or
// --sweep-shapes (the listed shapes): own kernel against cuBLAS at K = 2^min, 2^(min+2), ... (min 12 by default)
// up to the benchmark's square size (2^29 / w rows D, 2^28 / w Z), one line per (shape, K):
// "SWEEP D tsmttsm R 16 <K> <own ms> <cuBLAS ms>": where the choice between the two changes with the row count
// on this GPU (the selection, src/cuda/tall_skinny/tall_skinny_select.cu, measures it per row-count bucket).
// Kernel-only (no Kokkos): make -C perf_tests/tall_skinny ramp BUILD=/tmp/bts
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tall_skinny/tall_skinny_dispatch.cuh"
#include "../common/kbla_cuda_check.hpp"
#include "../common/kbla_hash_fill.cuh"
#include "../common/kbla_event_median.hpp"

using namespace kbla::cuda;
using namespace kbla::cuda::detail;

// The own kernels at every shape: the routes to cuBLAS off (they would send measured shapes to cuBLAS).
inline kbla::cuda::TallSkinnyOptions own_kernels() {
  kbla::cuda::TallSkinnyOptions o;
  o.allow_cublas = false;
  return o;
}

__global__ void empty_kernel() {}


// Streams n doubles of x and of y with 16-byte loads; one store per block keeps the loads alive.
__global__ void read_kernel(const double2* x, const double2* y, std::int64_t n2, double* sink) {
  double s = 0.0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n2;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double2 a = __ldg(x + i), b = __ldg(y + i);
    s += a.x + a.y + b.x + b.y;
  }
  if (s == 1.2345) sink[blockIdx.x] = s;  // practically never: no store traffic
}

template <class F>
double median_ms(F&& f) {
  return median_event_ms(f, 3, 31);
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

#include <chrono>

// Host enqueue cost (us per call, no sync in between) and GPU time per call back to back (us), n calls.
template <class F>
void launch_costs(F&& f, cudaStream_t st, int n, double& host_us, double& pipe_us) {
  for (int i = 0; i < 5; ++i) f();
  CK(cudaStreamSynchronize(st));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  const auto t1 = std::chrono::steady_clock::now();
  CK(cudaStreamSynchronize(st));
  host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
  pipe_us = 1000.0 * mean_back_to_back_ms(f, 0, n, st);
}

void launch_floor(const std::vector<int>& widths, const std::vector<int>& logs, int sms, double* A, double* B,
                  double* C, double* sink) {
  cudaStream_t blocking, nonblocking;
  CK(cudaStreamCreate(&blocking));
  CK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
  const std::pair<const char*, cudaStream_t> kinds[] = {
      {"legacy0", 0}, {"created", blocking}, {"nonblock", nonblocking}};
  for (int round = 0; round < 2; ++round) {
    for (const auto& kd : kinds) {
      const cudaStream_t st = kd.second;
      const char* name = kd.first;
      auto ev = [&](auto&& f) { return median_event_ms(f, 3, 31, st); };
      double h = 0, pp = 0;
      auto empty = [&] { empty_kernel<<<1, 32, 0, st>>>(); };
      launch_costs(empty, st, 200, h, pp);
      std::printf("%s round %d empty   event %.4f ms  host %.2f us/call  back-to-back %.2f us/call\n", name, round,
                  ev(empty), h, pp);
      for (int w : widths)
        for (int L : logs) {
          const std::int64_t K = std::int64_t(1) << L;
          const double bytes = 8.0 * (2.0 * K * w);
          auto gbs = [&](double ms) { return bytes / ms / 1e6; };
          for (int per_sm : {2, 8}) {
            auto rd = [&] {
              read_kernel<<<sms * per_sm, 256, 0, st>>>(reinterpret_cast<const double2*>(A),
                                                         reinterpret_cast<const double2*>(B), K * w / 2, sink);
            };
            const double t = ev(rd);
            launch_costs(rd, st, 50, h, pp);
            std::printf("%s round %d w %d K 2^%d read %d x 256/SM  event %.4f ms %7.1f GB/s  back-to-back %.2f us "
                        "%7.1f GB/s\n", name, round, w, L, per_sm, t, gbs(t), pp, gbs(pp / 1000));
          }
          auto ts = [&] {
            CK(tsmttsm<double>(st, K, w, w, 1.0, A, w, Layout::RowMajor, B, w, Layout::RowMajor, 0.0, C, w,
                               Layout::RowMajor));
          };
          auto tm = [&] {
            CK(tsmm<double>(st, K, w, w, 1.0, A, w, Layout::RowMajor, C, w, Layout::RowMajor, 0.0, B, w,
                            Layout::RowMajor));
          };
          const double t1 = ev(ts);
          launch_costs(ts, st, 50, h, pp);
          std::printf("%s round %d w %d K 2^%d tsmttsm event %.4f ms %7.1f GB/s  host %.2f us/call  back-to-back "
                      "%.2f us %7.1f GB/s\n", name, round, w, L, t1, gbs(t1), h, pp, gbs(pp / 1000));
          const double t2 = ev(tm);
          launch_costs(tm, st, 50, h, pp);
          std::printf("%s round %d w %d K 2^%d tsmm    event %.4f ms %7.1f GB/s  host %.2f us/call  back-to-back "
                      "%.2f us %7.1f GB/s\n", name, round, w, L, t2, gbs(t2), h, pp, gbs(pp / 1000));
          std::fflush(stdout);
        }
    }
  }
  CK(cudaStreamDestroy(blocking));
  CK(cudaStreamDestroy(nonblocking));
}

template <int W, int TM, int TN, int PM, int PN>
double tsmttsm_forced(std::int64_t K, const double* A, const double* B, double* C, int blocks) {
  auto run = [blocks](const TsmttsmArgs<double, false>& a, int, cudaStream_t st) -> cudaError_t {
    return launch_tsmttsm<double, false, TM, TN, PM, PN, kLayRR>(a, st, blocks);
  };
  const auto no_narrow = [](const auto&, int, cudaStream_t) -> cudaError_t { return cudaErrorNotSupported; };
  return median_ms([&] {
    CK(tsmttsm_entry<double>(0, K, W, W, 1.0, A, W, Layout::RowMajor, B, W, Layout::RowMajor, 0.0, C, W,
                             Layout::RowMajor, own_kernels(), run, no_narrow));
  });
}

// Own kernel (routes are off in this program) and cuBLAS on one square shape, K rows.
template <class T>
void sweep_one(int op, bool row, int w, std::int64_t K, void* A, void* B, void* C) {
  const Layout l = row ? Layout::RowMajor : Layout::ColMajor;
  const std::int64_t ld = row ? w : K;
  T* a = static_cast<T*>(A);
  T* b = static_cast<T*>(B);
  T* c = static_cast<T*>(C);
  const T one(1), zero(0);
  double own, cub;
  if (op == 0) {
    own = median_ms([&] { CK(tsmttsm<T>(0, K, w, w, one, a, ld, l, b, ld, l, zero, c, w, l, own_kernels())); });
    cub = median_ms([&] { CK(cublas_tsmttsm(0, K, w, w, one, a, ld, l, b, ld, l, zero, c, w, l)); });
  } else {
    own = median_ms([&] { CK(tsmm<T>(0, K, w, w, one, a, ld, l, c, w, l, zero, b, ld, l, own_kernels())); });
    cub = median_ms([&] { CK(cublas_tsmm(0, K, w, w, one, a, ld, l, c, w, l, zero, b, ld, l)); });
  }
  std::printf("SWEEP %c %s %c %d %lld %.5f %.5f\n", std::is_same<T, double>::value ? 'D' : 'Z',
              op == 0 ? "tsmttsm" : "tsmm", row ? 'R' : 'C', w, (long long)K, own, cub);
  std::fflush(stdout);
}

// K = 2^L0, 2^(L0 + 2), ... below the benchmark's square size, then that size (2^29 / w rows D, 2^28 / w Z) itself.
void sweep_shape(int t, int op, int lay, int w, int min_log2, void* A, void* B, void* C) {
  const std::int64_t Ksq = (std::int64_t(1) << (t == 0 ? 29 : 28)) / w;
  for (std::int64_t K = std::int64_t(1) << min_log2;; K *= 4) {
    const std::int64_t k = std::min(K, Ksq);
    if (t == 0) sweep_one<double>(op, lay == 0, w, k, A, B, C);
    else sweep_one<std::complex<double>>(op, lay == 0, w, k, A, B, C);
    if (k == Ksq) break;
  }
}

// Square shapes D / Z, both ops, both layouts, at widths 1, 2, 4 and every multiple of 8 up to 64.
void route_sweep(int min_log2, void* A, void* B, void* C) {
  for (int t = 0; t < 2; ++t)
    for (int op = 0; op < 2; ++op)
      for (int lay = 0; lay < 2; ++lay)
        for (int w = 1; w <= 64; w = w < 8 ? 2 * w : w + 8) sweep_shape(t, op, lay, w, min_log2, A, B, C);
}

// --sweep-shapes D:tsmm:C:49-64,Z:tsmttsm:R:57: the listed shapes (e.g. to see where the own kernel loses at small K
// only). Returns false on a malformed item.
bool shapes_sweep(const char* spec, int min_log2, void* A, void* B, void* C) {
  std::string all(spec);
  std::size_t pos = 0;
  while (pos < all.size()) {
    const std::size_t end = std::min(all.find(',', pos), all.size());
    const std::string item = all.substr(pos, end - pos);
    char type = 0, op[16] = {0}, layout = 0;
    int w0 = 0, w1 = 0;
    const int n = std::sscanf(item.c_str(), "%c:%15[a-z]:%c:%d-%d", &type, op, &layout, &w0, &w1);
    if (n < 4 || (type != 'D' && type != 'Z') || (layout != 'R' && layout != 'C')) return false;
    if (n == 4) w1 = w0;
    const int o = std::strcmp(op, "tsmttsm") == 0 ? 0 : std::strcmp(op, "tsmm") == 0 ? 1 : -1;
    if (o < 0 || w0 < 1 || w1 > 64 || w0 > w1) return false;
    for (int w = w0; w <= w1; ++w) sweep_shape(type == 'D' ? 0 : 1, o, layout == 'R' ? 0 : 1, w, min_log2, A, B, C);
    pos = end + 1;
  }
  return true;
}

int main(int argc, char** argv) {
  std::vector<int> widths{4, 16}, logs{18, 20, 22};
  bool sweep = false, constant_data = false, launch = false;
  const char* shapes = nullptr;
  int sweep_min_log2 = 12;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--widths") && i + 1 < argc) widths = parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--rows-log2") && i + 1 < argc) logs = parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--route-sweep")) sweep = true;
    else if (!std::strcmp(argv[i], "--constant-data")) constant_data = true;
    else if (!std::strcmp(argv[i], "--launch")) launch = true;
    else if (!std::strcmp(argv[i], "--sweep-shapes") && i + 1 < argc) shapes = argv[++i];
    else if (!std::strcmp(argv[i], "--sweep-min-log2") && i + 1 < argc) sweep_min_log2 = std::atoi(argv[++i]);
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("# %s, %d SMs; times are medians of 31 event-timed calls\n", prop.name, sms);
  // doubles per operand
  const std::size_t maxn = (sweep || shapes) ? std::size_t(1) << 29 : (std::size_t(1) << 22) * 64;
  double *A, *B, *C, *sink;
  CK(cudaMalloc(&A, maxn * 8));
  CK(cudaMalloc(&B, maxn * 8));
  CK(cudaMalloc(&C, 64 * 64 * 16));
  CK(cudaMalloc(&sink, 1 << 20));
  if (constant_data) {
    CK(cudaMemset(A, 0x3f, maxn * 8));
    CK(cudaMemset(B, 0x3f, maxn * 8));
  } else {
    kbla_fill_hash_uniform<<<4096, 256>>>(A, maxn, 1u);
    kbla_fill_hash_uniform<<<4096, 256>>>(B, maxn, 7u);
    kbla_fill_hash_uniform<<<32, 256>>>(C, 64 * 64 * 2, 3u);  // TSMM's small input
    CK(cudaGetLastError());
  }
  std::printf("# operands: %s\n", constant_data ? "constant bytes 0x3f" : "random uniform [-0.5, 0.5)");
  if (shapes) {
    if (!shapes_sweep(shapes, sweep_min_log2, A, B, C)) {
      std::fprintf(stderr, "--sweep-shapes: TYPE:OP:LAYOUT:W or TYPE:OP:LAYOUT:W0-W1 (D|Z, tsmttsm|tsmm, R|C)\n");
      return 1;
    }
    return 0;
  }
  if (sweep) {
    route_sweep(sweep_min_log2, A, B, C);
    return 0;
  }
  if (launch) {
    launch_floor(widths, logs, sms, A, B, C, sink);
    return 0;
  }
  const double t_empty = median_ms([] { empty_kernel<<<1, 32>>>(); });
  std::printf("empty kernel %.4f ms\n", t_empty);
  for (int w : widths) {
    for (int L : logs) {
      const std::int64_t K = std::int64_t(1) << L;
      const double bytes = 8.0 * (2.0 * K * w);
      auto gbs = [&](double ms) { return bytes / ms / 1e6; };
      for (int per_sm : {2, 4, 8, 16}) {
        const std::int64_t n2 = K * w / 2;
        const double t = median_ms([&] {
          read_kernel<<<sms * per_sm, 256>>>(reinterpret_cast<const double2*>(A),
                                              reinterpret_cast<const double2*>(B), n2, sink);
        });
        std::printf("w %2d K 2^%d read     %2d x 256/SM   %.4f ms %7.1f GB/s\n", w, L, per_sm, t, gbs(t));
      }
      const double td = median_ms([&] {
        CK(tsmttsm<double>(0, K, w, w, 1.0, A, w, Layout::RowMajor, B, w, Layout::RowMajor, 0.0, C, w,
                           Layout::RowMajor));
      });
      std::printf("w %2d K 2^%d tsmttsm  default        %.4f ms %7.1f GB/s\n", w, L, td, gbs(td));
      if (w == 4) {
        for (int blocks : {sms, 2 * sms, 4 * sms, 8 * sms, 16 * sms}) {
          const double t = tsmttsm_forced<4, 4, 4, 1, 1>(K, A, B, C, blocks);
          std::printf("w %2d K 2^%d tsmttsm  simt %5d blocks %.4f ms %7.1f GB/s\n", w, L, blocks, t, gbs(t));
        }
      }
      const double tm = median_ms([&] {
        CK(tsmm<double>(0, K, w, w, 1.0, A, w, Layout::RowMajor, C, w, Layout::RowMajor, 0.0, B, w,
                        Layout::RowMajor));
      });
      std::printf("w %2d K 2^%d tsmm     default        %.4f ms %7.1f GB/s\n", w, L, tm, gbs(tm));
    }
  }
  return 0;
}
