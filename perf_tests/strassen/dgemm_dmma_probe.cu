// dgemm_dmma_probe: how fast a plain FP64 GEMM tile on the FP64 tensor cores (mma.sync m16n8k4 f64, sm_90) runs
// against cuBLAS DGEMM on the same GPU: the question a fused FP64 Strassen level on DMMA depends on (its base tile
// must run at >= 0.92x cuBLAS for the level to reach 1.05x, 7/8 of the multiplications). Not a library kernel.
// C = A B, column-major, n x n (multiples of 128), random operands, checked against cuBLAS.
//   make -C perf_tests/strassen dmma_probe BUILD=DIR;  DIR/dgemm_dmma_probe [n ...] [--json FILE]
// The tile: 128 x 128 x 32 blocks, 16 warps of 32 x 32 (2 x 4 fragments of 16 x 8, 32 accumulators per thread, 128
// registers), 2 cp.async stages (A k-major with 8 doubles of padding per row, B n-major with 4: the fragment loads are
// then two wavefronts per request, the minimum for 256 bytes), one block per SM; optionally the grouped block order
// (8 tile rows sweep the columns together). Measured against 8 warps of 64 x 32 (224 registers) with 16-deep stages
// (3 or 4) and 16 warps with 16-deep stages: this one was the fastest (docs/strassen.md).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                      \
  do {                                                                             \
    const cudaError_t ck_err = (x);                                                \
    if (ck_err != cudaSuccess) {                                                   \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err));         \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 2;
constexpr int WARPS_M = 4, WARPS_N = 4;              // 16 warps
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 32 x 32 per warp
constexpr int FM = WM / 16, FN = WN / 8;             // 2 x 4 fragments of 16 x 8
constexpr int AS = BM + 8;   // As[k][m] row stride (doubles)
constexpr int BS = BK + 4;   // Bs[n][k] row stride
constexpr int A_STAGE = BK * AS, B_STAGE = BN * BS;
constexpr int SMEM = STAGES * (A_STAGE + B_STAGE) * 8;
constexpr int THREADS = 32 * WARPS_M * WARPS_N;

__device__ __forceinline__ void cp16(void* s, const void* g) {
  unsigned sa = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void mma16n8k4(double (&c)[4], double a0, double a1, double b0) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a0), "d"(a1), "d"(b0));
}

__device__ __forceinline__ void load_tile(double* As, double* Bs, const double* A, const double* B, int n, int m0,
                                          int n0, int tid, int stage, int kt) {
  const int k0 = kt * BK;
  double* as = As + stage * A_STAGE;
  double* bs = Bs + stage * B_STAGE;
#pragma unroll
  for (int i = 0; i < (BK * BM / 2) / THREADS; ++i) {
    const int p = tid + i * THREADS, k = p / (BM / 2), m = (p % (BM / 2)) * 2;
    cp16(as + k * AS + m, A + (size_t)(k0 + k) * n + m0 + m);
  }
#pragma unroll
  for (int i = 0; i < (BK * BN / 2) / THREADS; ++i) {
    const int p = tid + i * THREADS, c = p / (BK / 2), k = (p % (BK / 2)) * 2;
    cp16(bs + c * BS + k, B + (size_t)(n0 + c) * n + k0 + k);
  }
}


__global__ void __launch_bounds__(THREADS, 1) dgemm_dmma(int n, int group_rows, const double* __restrict__ A,
                                                         const double* __restrict__ B, double* __restrict__ C) {
  extern __shared__ double smem[];
  double* As = smem;
  double* Bs = smem + STAGES * A_STAGE;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;
  const int g = lane >> 2, t = lane & 3;
  int tile_m = blockIdx.x, tile_n = blockIdx.y;
  if (group_rows > 0) {  // grouped order: group_rows tile rows sweep the tile columns together (A reused from L2)
    const int tiles_m = gridDim.x, tiles_n = gridDim.y;
    const int id = blockIdx.x + blockIdx.y * tiles_m;
    const int per_group = group_rows * tiles_n, group = id / per_group, first = group * group_rows;
    const int rows = min(tiles_m - first, group_rows);
    tile_m = first + (id % per_group) % rows;
    tile_n = (id % per_group) / rows;
  }
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int ktiles = n / BK;
  double acc[FM][FN][4];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load_tile(As, Bs, A, B, n, m0, n0, tid, s, s);
    commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    wait<STAGES - 2>();
    __syncthreads();
    const int nk = kt + STAGES - 1;
    if (nk < ktiles) load_tile(As, Bs, A, B, n, m0, n0, tid, nk % STAGES, nk);
    commit();
    const double* as = As + (kt % STAGES) * A_STAGE + wm * WM;
    const double* bs = Bs + (kt % STAGES) * B_STAGE + (wn * WN) * BS;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
      double a[FM][2], b[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        a[i][0] = as[(kk + t) * AS + i * 16 + g];
        a[i][1] = as[(kk + t) * AS + i * 16 + g + 8];
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) b[j] = bs[(j * 8 + g) * BS + kk + t];
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) mma16n8k4(acc[i][j], a[i][0], a[i][1], b[j]);
    }
  }
  wait<0>();
  // C(m, n): c0, c1 at (g, 2t), (g, 2t + 1); c2, c3 at (g + 8, ...)
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const int m = m0 + wm * WM + i * 16 + g, c = n0 + wn * WN + j * 8 + 2 * t;
      C[(size_t)c * n + m] = acc[i][j][0];
      C[(size_t)(c + 1) * n + m] = acc[i][j][1];
      C[(size_t)c * n + m + 8] = acc[i][j][2];
      C[(size_t)(c + 1) * n + m + 8] = acc[i][j][3];
    }
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json = argv[++i];
    else sizes.push_back(atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {4096, 8192, 16384};
  for (int n : sizes)
    if (n <= 0 || n % BM != 0) {
      printf("dgemm_dmma_probe: sizes must be positive multiples of %d, got %d\n", BM, n);
      return 1;
    }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  cublasHandle_t handle;
  cublasCreate(&handle);
  CK(cudaFuncSetAttribute(dgemm_dmma, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  std::string rows;
  for (int n : sizes) {
    const size_t count = (size_t)n * n;
    std::vector<double> hA(count), hB(count);
    srand(1);
    for (auto& x : hA) x = rand() / (double)RAND_MAX - 0.5;
    for (auto& x : hB) x = rand() / (double)RAND_MAX - 0.5;
    double *A, *B, *C, *R;
    CK(cudaMalloc(&A, count * 8));
    CK(cudaMalloc(&B, count * 8));
    CK(cudaMalloc(&C, count * 8));
    CK(cudaMalloc(&R, count * 8));
    CK(cudaMemcpy(A, hA.data(), count * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), count * 8, cudaMemcpyHostToDevice));
    const double one = 1, zero = 0;
    const dim3 grid(n / BM, n / BN);
    auto tile = [&](int group_rows) { dgemm_dmma<<<grid, THREADS, SMEM>>>(n, group_rows, A, B, C); };
    auto vendor = [&] { cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, R, n); };
    tile(8);
    vendor();
    CK(cudaDeviceSynchronize());
    std::vector<double> hC(count), hR(count);
    CK(cudaMemcpy(hC.data(), C, count * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hR.data(), R, count * 8, cudaMemcpyDeviceToHost));
    double diff = 0, largest = 0;
    for (size_t i = 0; i < count; ++i) {
      diff = std::max(diff, std::abs(hC[i] - hR[i]));
      largest = std::max(largest, std::abs(hR[i]));
    }
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    // median of 3 batches, each of `reps` calls between two events; the three forms alternate over 2 rounds
    auto time_ms = [&](auto call) {
      const int reps = n >= 8192 ? 5 : 20;
      std::vector<float> ms;
      for (int r = 0; r < 3; ++r) {
        cudaEventRecord(start);
        for (int i = 0; i < reps; ++i) call();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float t;
        cudaEventElapsedTime(&t, start, stop);
        ms.push_back(t / reps);
      }
      std::sort(ms.begin(), ms.end());
      return ms[1];
    };
    float plain = 0, grouped = 0, blas = 0;
    for (int round = 0; round < 2; ++round) {
      plain = time_ms([&] { tile(0); });
      grouped = time_ms([&] { tile(8); });
      blas = time_ms(vendor);
    }
    const double tf = 2.0 * n * n * (double)n / 1e9;
    printf("n %5d  DMMA tile %.1f TF/s (grouped order %.1f)  cuBLAS %.1f TF/s  ratio %.3f (%.3f)  max|diff|/max|C| %.1e\n",
           n, tf / plain, tf / grouped, tf / blas, blas / plain, blas / grouped, diff / largest);
    char row[512];
    snprintf(row, sizeof row,
             "%s    {\"n\": %d, \"tile_ms\": %.4f, \"tile_grouped_ms\": %.4f, \"cublas_ms\": %.4f, \"tile_tflops\": %.2f, "
             "\"tile_grouped_tflops\": %.2f, \"cublas_tflops\": %.2f, \"ratio_grouped_vs_cublas\": %.4f, "
             "\"max_rel_diff\": %.2e}",
             rows.empty() ? "" : ",\n", n, plain, grouped, blas, tf / plain, tf / grouped, tf / blas, blas / grouped,
             diff / largest);
    rows += row;
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(R);
  }
  if (json) {
    FILE* f = fopen(json, "w");
    if (!f) {
      printf("cannot write %s\n", json);
      return 1;
    }
    fprintf(f, "{\n  \"program\": \"dgemm_dmma_probe\",\n  \"device\": \"%s\",\n  \"sm_count\": %d,\n", prop.name,
            prop.multiProcessorCount);
    fprintf(f, "  \"tile\": \"%dx%dx%d block, %d warps of %dx%d, mma.sync m16n8k4 f64, %d cp.async stages\",\n", BM, BN, BK,
            WARPS_M * WARPS_N, WM, WN, STAGES);
    fprintf(f, "  \"timing\": \"median of 3 batches of calls between events, second of 2 alternating rounds\",\n");
    fprintf(f, "  \"results\": [\n%s\n  ]\n}\n", rows.c_str());
    fclose(f);
  }
  return 0;
}
