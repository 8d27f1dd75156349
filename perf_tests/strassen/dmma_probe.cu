// dmma_probe: FP64 products on the FP64 tensor cores (mma.sync m16n8k4 f64, sm_90) against cuBLAS DGEMM on the same
// GPU, to learn what a fused FP64 Strassen level on DMMA can reach before it goes into the library. Not a library
// kernel. Two forms of one tile kernel:
//  - classical: C = A B (the base a fused level builds on: it needs >= 0.92x cuBLAS for the level to reach 1.05x);
//  - fused Strassen, one level: the 7 products M_i = (X + s Y)(V + t W) of the n/2 quadrants in one launch
//    (blockIdx.z = i), the operand sums formed at the fragment loads from both quadrants staged in shared memory,
//    each M_i added into its one or two quadrants of C by atomics (C cleared first); no workspace.
// C = A B, column-major, n x n (multiples of 256), random operands, both checked against cuBLAS.
//   make -C perf_tests/strassen dmma_probe BUILD=DIR;  DIR/dmma_probe [n ...] [--json FILE]
// The tile: 128 x 128 blocks, 16 warps of 32 x 32 (2 x 4 fragments of 16 x 8, 32 accumulators per thread), 2
// cp.async stages of 32 rows of k (classical) or 16 (fused: both quadrants of an operand sum staged side by side), A
// k-major with 8 doubles of padding per row, B n-major with 4 (fragment loads are then two wavefronts per 256-byte
// request, the minimum), one block per SM, blocks in grouped order (8 tile rows sweep the tile columns together, A
// panels reused from L2). The tiles measured on the way are in docs/strassen.md.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                 \
  do {                                                                        \
    const cudaError_t ck_err = (x);                                           \
    if (ck_err != cudaSuccess) {                                              \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err));    \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

constexpr int BM = 128, BN = 128, STAGES = 2;
constexpr int WARPS_M = 4, WARPS_N = 4;              // 16 warps
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 32 x 32 per warp
constexpr int FM = WM / 16, FN = WN / 8;             // 2 x 4 fragments of 16 x 8
constexpr int AS = BM + 8;                           // A tile rows [k][m] (doubles)
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int GROUP_ROWS = 8;
// A stage holds Quadrants tiles of each operand (2: the fused level stages both terms of an operand sum), Depth rows of
// k deep: 32 for the classical product, 16 for the fused level, so that two stages fit in shared memory either way.
template <int Depth, int Quadrants>
struct Tile {
  static constexpr int BK = Depth;
  static constexpr int BS = BK + 4;  // B tile rows [n][k]
  static constexpr int A_TILE = BK * AS, B_TILE = BN * BS;
  static constexpr int B_OFFSET = Quadrants * A_TILE;
  static constexpr int STAGE = Quadrants * (A_TILE + B_TILE);
  static constexpr int SMEM = STAGES * STAGE * 8;
};
using ClassicalTile = Tile<32, 1>;
using FusedTile = Tile<16, 2>;

// One product of the level: op(A) = A[a_first] + a_sign A[a_second] (a_second < 0: A[a_first] alone), likewise B;
// the result goes to C[c_first] * c_first_sign and, if c_second >= 0, C[c_second] * c_second_sign. Quadrant q:
// rows (q & 1) * h, columns (q >> 1) * h. The classical form is one product of the whole matrices (h = n).
struct Product {
  int a_first, a_second;
  double a_sign;
  int b_first, b_second;
  double b_sign;
  int c_first, c_second;
  double c_first_sign, c_second_sign;
};
constexpr int Q11 = 0, Q21 = 1, Q12 = 2, Q22 = 3;
// Strassen's seven products: C11 = M1 + M4 - M5 + M7, C12 = M3 + M5, C21 = M2 + M4, C22 = M1 - M2 + M3 + M6
const Product kStrassen[7] = {
    {Q11, Q22, 1, Q11, Q22, 1, Q11, Q22, 1, 1},    // M1 = (A11 + A22)(B11 + B22)
    {Q21, Q22, 1, Q11, -1, 0, Q21, Q22, 1, -1},    // M2 = (A21 + A22) B11
    {Q11, -1, 0, Q12, Q22, -1, Q12, Q22, 1, 1},    // M3 = A11 (B12 - B22)
    {Q22, -1, 0, Q21, Q11, -1, Q11, Q21, 1, 1},    // M4 = A22 (B21 - B11)
    {Q11, Q12, 1, Q22, -1, 0, Q11, Q12, -1, 1},    // M5 = (A11 + A12) B22
    {Q21, Q11, -1, Q11, Q12, 1, Q22, -1, 1, 0},    // M6 = (A21 - A11)(B11 + B12)
    {Q12, Q22, -1, Q21, Q22, 1, Q11, -1, 1, 0}};   // M7 = (A12 - A22)(B21 + B22)
const Product kClassical[1] = {{Q11, -1, 0, Q11, -1, 0, Q11, -1, 1, 0}};
__constant__ Product c_products[7];

__device__ __forceinline__ void cp16(void* s, const void* g) {
  const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

__device__ __forceinline__ void mma16n8k4(double (&c)[4], double a0, double a1, double b0) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a0), "d"(a1), "d"(b0));
}

__device__ __forceinline__ std::size_t quadrant(int q, int h, int ld) {
  return std::size_t(q & 1) * h + std::size_t(q >> 1) * h * std::size_t(ld);
}

// Stage k-tile kt of the A rows [m0, m0 + BM) and B columns [n0, n0 + BN) of one quadrant into As / Bs.
template <int BK>
__device__ __forceinline__ void stage_a(double* as, const double* A, int ld, int m0, int k0, int tid) {
#pragma unroll
  for (int i = 0; i < (BK * BM / 2) / THREADS; ++i) {
    const int p = tid + i * THREADS, k = p / (BM / 2), m = (p % (BM / 2)) * 2;
    cp16(as + k * AS + m, A + std::size_t(k0 + k) * ld + m0 + m);
  }
}
template <int BK>
__device__ __forceinline__ void stage_b(double* bs, const double* B, int ld, int n0, int k0, int tid) {
  constexpr int BS = BK + 4;
#pragma unroll
  for (int i = 0; i < (BK * BN / 2) / THREADS; ++i) {
    const int p = tid + i * THREADS, c = p / (BK / 2), k = (p % (BK / 2)) * 2;
    cp16(bs + c * BS + k, B + std::size_t(n0 + c) * ld + k0 + k);
  }
}

// blockIdx.z: the product; blockIdx.x / y: its h x h tile, in grouped order. accumulate: atomics into C (the fused
// level), else plain stores (the classical product).
template <class T>
__global__ void __launch_bounds__(THREADS, 1) dmma_products(int h, int ld, const double* __restrict__ A,
                                                            const double* __restrict__ B, double* __restrict__ C,
                                                            bool accumulate) {
  constexpr int BK = T::BK, BS = T::BS, A_TILE = T::A_TILE, B_TILE = T::B_TILE, STAGE = T::STAGE;
  constexpr int B_OFFSET = T::B_OFFSET;
  extern __shared__ double smem[];
  const Product pr = c_products[blockIdx.z];
  const bool two_a = pr.a_second >= 0, two_b = pr.b_second >= 0;
  const double* A0 = A + quadrant(pr.a_first, h, ld);
  const double* A1 = A + quadrant(two_a ? pr.a_second : pr.a_first, h, ld);
  const double* B0 = B + quadrant(pr.b_first, h, ld);
  const double* B1 = B + quadrant(two_b ? pr.b_second : pr.b_first, h, ld);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;
  const int g = lane >> 2, t = lane & 3;
  const int tiles_m = gridDim.x, tiles_n = gridDim.y;
  const int id = blockIdx.x + blockIdx.y * tiles_m;
  const int per_group = GROUP_ROWS * tiles_n, first = id / per_group * GROUP_ROWS;
  const int rows = min(tiles_m - first, GROUP_ROWS);
  const int m0 = (first + (id % per_group) % rows) * BM, n0 = (id % per_group) / rows * BN;
  const int ktiles = h / BK;
  auto stage = [&](int s, int kt) {
    double* base = smem + s * STAGE;
    stage_a<BK>(base, A0, ld, m0, kt * BK, tid);
    if (two_a) stage_a<BK>(base + A_TILE, A1, ld, m0, kt * BK, tid);
    stage_b<BK>(base + B_OFFSET, B0, ld, n0, kt * BK, tid);
    if (two_b) stage_b<BK>(base + B_OFFSET + B_TILE, B1, ld, n0, kt * BK, tid);
  };
  double acc[FM][FN][4];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) stage(s, s);
    commit();
  }
  const double sa = pr.a_sign, sb = pr.b_sign;
  for (int kt = 0; kt < ktiles; ++kt) {
    wait<STAGES - 2>();
    __syncthreads();
    if (kt + STAGES - 1 < ktiles) stage((kt + STAGES - 1) % STAGES, kt + STAGES - 1);
    commit();
    const double* as = smem + (kt % STAGES) * STAGE + wm * WM;
    const double* bs = smem + (kt % STAGES) * STAGE + B_OFFSET + (wn * WN) * BS;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
      double a[FM][2], b[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int at = (kk + t) * AS + i * 16 + g + 8 * r;
          a[i][r] = two_a ? as[at] + sa * as[A_TILE + at] : as[at];
        }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int bt = (j * 8 + g) * BS + kk + t;
        b[j] = two_b ? bs[bt] + sb * bs[B_TILE + bt] : bs[bt];
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) mma16n8k4(acc[i][j], a[i][0], a[i][1], b[j]);
    }
  }
  wait<0>();
  // fragment (i, j): entries (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1) of its 16 x 8 block
  for (int out = 0; out < 2; ++out) {
    const int q = out == 0 ? pr.c_first : pr.c_second;
    if (q < 0) break;
    const double sign = out == 0 ? pr.c_first_sign : pr.c_second_sign;
    double* Cq = C + quadrant(q, h, ld);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int m = m0 + wm * WM + i * 16 + g + 8 * (e >> 1), c = n0 + wn * WN + j * 8 + 2 * t + (e & 1);
          double* p = Cq + std::size_t(c) * ld + m;
          if (accumulate)
            atomicAdd(p, sign * acc[i][j][e]);
          else
            *p = sign * acc[i][j][e];
        }
  }
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--json" && i + 1 < argc)
      json = argv[++i];
    else
      sizes.push_back(atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {4096, 8192, 16384};
  for (int n : sizes)
    if (n <= 0 || n % (2 * BM) != 0) {
      printf("dmma_probe: sizes must be positive multiples of %d, got %d\n", 2 * BM, n);
      return 1;
    }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  cublasHandle_t handle;
  cublasCreate(&handle);
  CK(cudaFuncSetAttribute(dmma_products<ClassicalTile>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          ClassicalTile::SMEM));
  CK(cudaFuncSetAttribute(dmma_products<FusedTile>, cudaFuncAttributeMaxDynamicSharedMemorySize, FusedTile::SMEM));
  std::string rows;
  for (int n : sizes) {
    const std::size_t count = std::size_t(n) * n;
    std::vector<double> hA(count), hB(count);
    srand(1);
    for (auto& x : hA) x = rand() / double(RAND_MAX) - 0.5;
    for (auto& x : hB) x = rand() / double(RAND_MAX) - 0.5;
    double *A, *B, *C, *R;
    CK(cudaMalloc(&A, count * 8));
    CK(cudaMalloc(&B, count * 8));
    CK(cudaMalloc(&C, count * 8));
    CK(cudaMalloc(&R, count * 8));
    CK(cudaMemcpy(A, hA.data(), count * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), count * 8, cudaMemcpyHostToDevice));
    const double one = 1, zero = 0;
    auto classical = [&] {
      CK(cudaMemcpyToSymbolAsync(c_products, kClassical, sizeof kClassical));
      dmma_products<ClassicalTile><<<dim3(n / BM, n / BN, 1), THREADS, ClassicalTile::SMEM>>>(n, n, A, B, C, false);
    };
    auto strassen = [&] {
      CK(cudaMemcpyToSymbolAsync(c_products, kStrassen, sizeof kStrassen));
      CK(cudaMemsetAsync(C, 0, count * 8));
      dmma_products<FusedTile><<<dim3(n / 2 / BM, n / 2 / BN, 7), THREADS, FusedTile::SMEM>>>(n / 2, n, A, B, C, true);
    };
    auto vendor = [&] { cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, R, n); };
    vendor();
    std::vector<double> hR(count), hC(count);
    CK(cudaMemcpy(hR.data(), R, count * 8, cudaMemcpyDeviceToHost));
    double largest = 0;
    for (double x : hR) largest = std::max(largest, std::abs(x));
    auto error_of = [&](auto call) {  // max |C - C_cublas| / max |C_cublas|
      call();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hC.data(), C, count * 8, cudaMemcpyDeviceToHost));
      double diff = 0;
      for (std::size_t i = 0; i < count; ++i) diff = std::max(diff, std::abs(hC[i] - hR[i]));
      return diff / largest;
    };
    const double classical_error = error_of(classical), strassen_error = error_of(strassen);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    // median of 3 batches of calls between two events; the three forms alternate over 2 rounds
    auto time_ms = [&](auto call) {
      const int reps = n >= 8192 ? 5 : 20;
      std::vector<float> ms;
      for (int r = 0; r < 3; ++r) {
        cudaEventRecord(start);
        for (int i = 0; i < reps; ++i) call();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float v;
        cudaEventElapsedTime(&v, start, stop);
        ms.push_back(v / reps);
      }
      std::sort(ms.begin(), ms.end());
      return ms[1];
    };
    float t_classical = 0, t_strassen = 0, t_vendor = 0;
    for (int round = 0; round < 2; ++round) {
      t_classical = time_ms(classical);
      t_strassen = time_ms(strassen);
      t_vendor = time_ms(vendor);
    }
    const double tf = 2.0 * n * n * double(n) / 1e9;  // classical flop count, for every form
    printf("n %5d  cuBLAS %.1f TF/s | DMMA classical %.1f TF/s (%.3fx cuBLAS, err %.1e) | DMMA fused Strassen 1L "
           "%.1f effective TF/s (%.3fx cuBLAS, err %.1e)\n",
           n, tf / t_vendor, tf / t_classical, t_vendor / t_classical, classical_error, tf / t_strassen,
           t_vendor / t_strassen, strassen_error);
    char row[512];
    snprintf(row, sizeof row,
             "%s    {\"n\": %d, \"cublas_ms\": %.4f, \"classical_ms\": %.4f, \"strassen_ms\": %.4f, "
             "\"classical_vs_cublas\": %.4f, \"strassen_vs_cublas\": %.4f, \"classical_rel_err\": %.2e, "
             "\"strassen_rel_err\": %.2e}",
             rows.empty() ? "" : ",\n", n, t_vendor, t_classical, t_strassen, t_vendor / t_classical,
             t_vendor / t_strassen, classical_error, strassen_error);
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
    fprintf(f, "{\n  \"program\": \"dmma_probe\",\n  \"device\": \"%s\",\n  \"sm_count\": %d,\n", prop.name,
            prop.multiProcessorCount);
    fprintf(f,
            "  \"tile\": \"%dx%d blocks, k-depth %d (classical) / %d (fused, two quadrants staged), %d warps of %dx%d, "
            "mma.sync m16n8k4 f64, %d cp.async stages, grouped block order\",\n",
            BM, BN, ClassicalTile::BK, FusedTile::BK, WARPS_M * WARPS_N, WM, WN, STAGES);
    fprintf(f, "  \"timing\": \"median of 3 batches of calls between events, second of 2 alternating rounds\",\n");
    fprintf(f, "  \"results\": [\n%s\n  ]\n}\n", rows.c_str());
    fclose(f);
  }
  return 0;
}
