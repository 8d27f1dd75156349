// Times single tall & skinny cases through the raw API (no Kokkos): the quick what-if and profiling companion
// of kbla_bench_tall_skinny. Each case runs 2 warm-ups, then the median of --reps launches; one line per case.
//
//   ts_cases [--reps N] [--rows-log2 L] [--rows K] [--complex-3m] [--random-data] [--cublas] [--own-kernels]
//            [--z-tile V] CASE...
//     CASE = TYPE:OP:LAYOUT:MxN, e.g. D:tsmttsm:R:48x48
//     --complex-3m: TSMTTSM cases opt in to the three-product complex form (TallSkinnyOptions::complex_3m)
//     --random-data: operands from the benchmark's hash fill (common/kbla_hash_fill.cuh) instead of 1/(1 + i % 97)
//     --big-alloc: A and B each in an allocation of at least 4 GiB (the benchmark's buffers)
//     --prefer-shared: the device-wide cache preference Kokkos::initialize sets (cudaFuncCachePreferShared)
//     --b2b: the mean of --reps calls launched back to back (one event pair: launch latency hidden, ~0.1 % spread at
//            2^20 rows) instead of the median of single event-timed calls
//     --cublas: the cases through cuBLAS (the library's cublas_tsmttsm / cublas_tsmm wrappers) instead of kbla
//     --own-kernels: kbla with its cuBLAS routes off (TallSkinnyOptions::allow_cublas = false): the own kernels
//     --z-tile V: Z tsmttsm cases (dense, same layout) through candidate 128 x 128 DMMA row V (kZTiles below)
//     TYPE D | Z, OP tsmttsm | tsmm, LAYOUT R (row-major) | C (column-major)
//     rows K = 2^L / max(M, N) (default L = 26 for D, 25 for Z: ~1 GiB of A + B, as in the benchmark's
//     bandwidth regime but small enough for ncu's replay); --rows K: exactly K rows (e.g. an odd K for ncu)
// Under ncu, --reps 1 gives 3 launches per case (2 warm-ups + 1): profile with `-k regex:'tsm|dmma' -s 2 -c 1`
// per case, or all launches with a small reps.
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kbla_cuda_tall_skinny.hpp"
#include "tall_skinny/tall_skinny_dispatch.cuh"
#include "../common/kbla_cuda_check.hpp"
#include "../common/kbla_event_median.hpp"
#include "../common/kbla_hash_fill.cuh"

using kbla::cuda::Layout;
using namespace kbla::cuda::detail;


__global__ void fill(double* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x)
    p[i] = 1.0 / (1 + (i % 97));
}

struct Case {
  char type;
  bool tsmm, row;
  int M, N;
};

bool parse(const char* s, Case* c) {
  char op[16], lay;
  if (std::sscanf(s, "%c:%15[a-z]:%c:%dx%d", &c->type, op, &lay, &c->M, &c->N) != 5) return false;
  c->tsmm = std::strcmp(op, "tsmm") == 0;
  c->row = lay == 'R';
  return (c->type == 'D' || c->type == 'Z') && (c->tsmm || std::strcmp(op, "tsmttsm") == 0) &&
         (lay == 'R' || lay == 'C') && c->M > 0 && c->N > 0;
}

bool g_complex_3m = false, g_random = false, g_cublas = false, g_big_alloc = false, g_prefer_shared = false,
     g_b2b = false, g_own_kernels = false;
int g_z_tile = -1;

// Candidate tiles of the complex 57-64 TSMTTSM rows: (FM, FN, KC, Stages) of a 128 x 128 real-view tile; 0 is the row
// before zts4, 2 the column-major row since, 3 the row-major one (tall_skinny_params.hpp)
template <int FM, int FN, int KC, int Stages>
cudaError_t z_tile_run(const TsmttsmArgs<double, true>& a, int lay, cudaStream_t st) {
  if (lay == kLayRR)
    return launch_tsmttsm_dmma_v<true, 128, 128, FM, FN, KC, Stages, false, InnerCopy::dense_complex_rows>(a, st);
  if (lay == kLayCC)
    return launch_tsmttsm_dmma_v<true, 128, 128, FM, FN, KC, Stages, false, InnerCopy::complex_columns>(a, st);
  return cudaErrorNotSupported;
}
using ZTileRun = cudaError_t (*)(const TsmttsmArgs<double, true>&, int, cudaStream_t);
constexpr ZTileRun kZTiles[] = {z_tile_run<4, 8, 32, 3>, z_tile_run<2, 8, 32, 3>, z_tile_run<4, 4, 32, 3>,
                                z_tile_run<4, 4, 48, 2>, z_tile_run<4, 8, 48, 2>};

template <class T>
float run(const Case& c, std::int64_t K, void* bufA, void* bufB, void* bufC, cudaStream_t s, int reps) {
  const Layout L = c.row ? Layout::RowMajor : Layout::ColMajor;
  T* A = static_cast<T*>(bufA);
  T* B = static_cast<T*>(bufB);
  T* C = static_cast<T*>(bufC);
  auto ld = [&](std::int64_t rows, int cols) { return c.row ? (std::int64_t)cols : rows; };
  kbla::cuda::TallSkinnyOptions options;
  options.complex_3m = g_complex_3m;
  options.allow_cublas = !g_own_kernels;
  auto call = [&]() {
    if (g_cublas) {
      if (c.tsmm)
        CK(cublas_tsmm(s, K, c.M, c.N, T(1), A, ld(K, c.M), L, C, ld(c.M, c.N), L, T(0), B, ld(K, c.N), L));
      else
        CK(cublas_tsmttsm(s, K, c.M, c.N, T(1), A, ld(K, c.M), L, B, ld(K, c.N), L, T(0), C, ld(c.M, c.N), L));
      return;
    }
    if constexpr (std::is_same<T, std::complex<double>>::value) {
      if (!c.tsmm && g_z_tile >= 0) {
        const auto no_narrow = [](const auto&, int, cudaStream_t) -> cudaError_t { return cudaErrorNotSupported; };
        CK(tsmttsm_entry<T>(s, K, c.M, c.N, T(1), A, ld(K, c.M), L, B, ld(K, c.N), L, T(0), C, ld(c.M, c.N), L,
                            options, kZTiles[g_z_tile], no_narrow));
        return;
      }
    }
    if (c.tsmm)  // B (K x N) = A (K x M) * C (M x N)
      CK(kbla::cuda::tsmm<T>(s, K, c.M, c.N, T(1), A, ld(K, c.M), L, C, ld(c.M, c.N), L, T(0), B, ld(K, c.N), L,
                             options));
    else  // C (M x N) = A^H B
      CK(kbla::cuda::tsmttsm<T>(s, K, c.M, c.N, T(1), A, ld(K, c.M), L, B, ld(K, c.N), L, T(0), C, ld(c.M, c.N), L,
                                options));
  };
  return g_b2b ? mean_back_to_back_ms(call, 2, reps, s) : median_event_ms(call, 2, reps, s);
}

int main(int argc, char** argv) {
  int reps = 10, rows_log2 = 0;
  std::int64_t rows = 0;
  std::vector<Case> cases;
  for (int i = 1; i < argc; ++i) {
    Case c{};
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--rows-log2") && i + 1 < argc) rows_log2 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) rows = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--complex-3m")) g_complex_3m = true;
    else if (!std::strcmp(argv[i], "--random-data")) g_random = true;
    else if (!std::strcmp(argv[i], "--big-alloc")) g_big_alloc = true;
    else if (!std::strcmp(argv[i], "--prefer-shared")) g_prefer_shared = true;
    else if (!std::strcmp(argv[i], "--cublas")) g_cublas = true;
    else if (!std::strcmp(argv[i], "--own-kernels")) g_own_kernels = true;
    else if (!std::strcmp(argv[i], "--b2b")) g_b2b = true;
    else if (!std::strcmp(argv[i], "--z-tile") && i + 1 < argc)
      g_z_tile = std::min(std::atoi(argv[++i]), int(sizeof(kZTiles) / sizeof(kZTiles[0])) - 1);
    else if (parse(argv[i], &c)) cases.push_back(c);
    else {
      std::fprintf(stderr,
                   "usage: %s [--reps N] [--rows-log2 L] [--rows K] [--complex-3m] [--random-data] [--big-alloc] "
                   "[--prefer-shared] [--b2b] [--cublas] [--own-kernels] [--z-tile V] "
                   "TYPE:OP:LAYOUT:MxN ...\n", argv[0]);
      return 1;
    }
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, reps %d%s%s%s%s", prop.name, reps, g_random ? ", random data" : "", g_cublas ? ", cuBLAS" : "",
              g_own_kernels ? ", own kernels" : "", g_b2b ? ", back to back" : "");
  if (g_z_tile >= 0) std::printf(", Z tile %d", g_z_tile);
  std::printf("\n");
  if (g_prefer_shared) CK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  for (const Case& c : cases) {
    const bool z = c.type == 'Z';
    const int es = z ? 16 : 8, w = std::max(c.M, c.N);
    const std::int64_t K = rows ? rows : (std::int64_t(1) << (rows_log2 ? rows_log2 : z ? 25 : 26)) / w;
    void *A, *B, *C;
    const std::int64_t nA = K * c.M * (z ? 2 : 1), nB = K * c.N * (z ? 2 : 1),
                       nC = (std::int64_t)c.M * c.N * (z ? 2 : 1);
    // --big-alloc: A and B in 4 GiB allocations at least, as the benchmark's rotating buffers
    const std::int64_t big = g_big_alloc ? std::int64_t(1) << 32 : 0;
    CK(cudaMalloc(&A, std::max(nA * 8, big)));
    CK(cudaMalloc(&B, std::max(nB * 8, big)));
    CK(cudaMalloc(&C, nC * 8));
    if (g_random) {
      kbla_fill_hash_uniform<<<1024, 256, 0, s>>>(static_cast<double*>(A), nA, 1u);
      kbla_fill_hash_uniform<<<1024, 256, 0, s>>>(static_cast<double*>(B), nB, 2u);
      kbla_fill_hash_uniform<<<1024, 256, 0, s>>>(static_cast<double*>(C), nC, 3u);
    } else {
      fill<<<1024, 256, 0, s>>>(static_cast<double*>(A), nA);
      fill<<<1024, 256, 0, s>>>(static_cast<double*>(B), nB);
      fill<<<1024, 256, 0, s>>>(static_cast<double*>(C), nC);
    }
    const float ms = z ? run<std::complex<double>>(c, K, A, B, C, s, reps) : run<double>(c, K, A, B, C, s, reps);
    const double bytes = double(es) * (K * (c.M + c.N) + (double)c.M * c.N);
    const double flops = (z ? 8.0 : 2.0) * K * c.M * c.N;
    std::printf("%c %-7s %c %3dx%-3d K=%-10lld %9.4f ms %8.1f GB/s %8.2f TF/s\n", c.type, c.tsmm ? "tsmm" : "tsmttsm",
                c.row ? 'R' : 'C', c.M, c.N, (long long)K, ms, bytes / ms / 1e6, flops / ms / 1e9);
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  return 0;
}
