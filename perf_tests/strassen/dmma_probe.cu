// dmma_probe: FP64 products on the FP64 tensor cores (mma.sync m16n8k8 f64, sm_90a) against cuBLAS DGEMM on the same
// GPU, to learn what a fused FP64 Strassen level on DMMA can reach before it goes into the library. Not a library
// kernel. Forms:
//  - classical: C = A B (the base a fused level builds on: it needs >= 0.92x cuBLAS for the level to reach 1.05x);
//  - fused Strassen, one level: the 7 products M_i = (X + s Y)(V + t W) of the n/2 quadrants in one launch
//    (blockIdx.z = i), each M_i added into its one or two quadrants of C by atomics (C cleared first); no workspace.
// Two ways of filling shared memory:
//  - cp.async stages issued by every warp (one term per operand: the classical product only), as cuBLAS's sm_90
//    DGEMM tile does (128 x 64 blocks of 4 warps, two blocks per SM); plain, and with the fragments of the next k8
//    step loaded while the current one multiplies, across slab boundaries (two fragment sets in registers, about
//    the 246 registers cuBLAS's kernel uses);
//  - warp-specialised: producer warpgroups load a k-slab of both terms into registers, add them and store the sum
//    once (Huang et al.'s packing with the sum formed on the way in: shared traffic as for the classical product),
//    into a ring of slabs guarded by full / empty mbarriers; two consumer warpgroups multiply; setmaxnreg gives the
//    consumers the registers the producers do not need.
// Warp tiles of 64 x 32 (4 x 4 fragments of 16 x 8, 64 accumulators per thread). k inside a k8 step is relabelled
// (mma slot t <-> k = 2t, slot t + 4 <-> k = 2t + 1) so that a B fragment pair is one 16-byte shared load; A is
// staged k-major with rows of BM + 2 doubles (a half-warp's fragment loads then hit 16 distinct 8-byte banks).
// C = A B, column-major, n x n (multiples of 256), random operands, all forms checked against cuBLAS.
//   make -C perf_tests/strassen dmma_probe BUILD=DIR;  DIR/dmma_probe [n ...] [--only TEXT] [--json FILE]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
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

constexpr int GROUP_ROWS = 8;

// What both tiles share: BlockM x BlockN blocks, k-slabs of Depth in Stages shared stages, warps of (BM / WarpsM) x
// (BN / WarpsN), and StagingThreads threads that copy a slab (16-byte pieces, A_PAIRS / B_PAIRS each).
template <int BlockM, int BlockN, int WarpsM, int WarpsN, int Depth, int Stages, int StagingThreads>
struct SlabGeometry {
  static constexpr int BM = BlockM, BN = BlockN, BK = Depth, STAGES = Stages;
  static constexpr int WARPS_M = WarpsM, WARPS_N = WarpsN, THREADS = StagingThreads;
  static constexpr int WM = BM / WarpsM, WN = BN / WarpsN, FM = WM / 16, FN = WN / 8;
  static constexpr int AS = BM + 2;  // A rows [k][m]: a half-warp's fragment loads (rows 2t, 2t + 1) hit 16 banks
  static constexpr int BS = BK % 16 == 0 ? BK + 8 : BK;  // B rows [n][k]: rows 1 apart start 64 bytes apart
  static constexpr int A_TILE = BK * AS, B_TILE = BN * BS, STAGE = A_TILE + B_TILE;
  static constexpr int SMEM = STAGES * STAGE * 8;
  static constexpr int A_PAIRS = BK * BM / 2 / THREADS, B_PAIRS = BK * BN / 2 / THREADS;
  static_assert(A_PAIRS * THREADS * 2 == BK * BM && B_PAIRS * THREADS * 2 == BK * BN, "slab not split evenly");
  static_assert(BK % 8 == 0, "k8 steps");
};

// The cp.async tile (classical product only): every warp multiplies and stages; BlocksPerSM resident.
template <int BlockM, int BlockN, int WarpsM, int WarpsN, int Depth, int Stages, int BlocksPerSM>
struct Tile : SlabGeometry<BlockM, BlockN, WarpsM, WarpsN, Depth, Stages, 32 * WarpsM * WarpsN> {
  static constexpr int MIN_BLOCKS = BlocksPerSM;
};

// Warp-specialised tile: 128 x 128 blocks, consumer warps 0-7 (64 x 32 each), then Producers warpgroups of 128
// threads: 1 (stages both operands) or 2 (one stages A, the other B: twice the loads in flight). A producer holds one
// slab of its operands' terms in registers; setmaxnreg moves the rest of its registers to the consumers.
template <int Depth, int Stages, int ProducerRegisters, int ConsumerRegisters, int Producers>
struct SpecTile : SlabGeometry<128, 128, 2, 4, Depth, Stages, 128> {  // THREADS: one producer warpgroup
  static constexpr int PRODUCERS = Producers, CONSUMERS = 32 * 2 * 4;
  static constexpr int BLOCK_THREADS = CONSUMERS + Producers * 128;
  static constexpr int PRODUCER_REGISTERS = ProducerRegisters, CONSUMER_REGISTERS = ConsumerRegisters;
  static_assert(Producers * 128 * ProducerRegisters + CONSUMERS * ConsumerRegisters <= 64512, "register file");
};

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

// a0 / a1: rows g / g + 8 at mma slot t, a2 / a3 at slot t + 4; b0 / b1: slots t / t + 4 of column g.
__device__ __forceinline__ void mma16n8k8(double (&c)[4], const double (&a)[4], double b0, double b1) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b0), "d"(b1));
}

__device__ __forceinline__ std::size_t quadrant(int q, int h, int ld) {
  return std::size_t(q & 1) * h + std::size_t(q >> 1) * h * std::size_t(ld);
}

// Piece p of a slab: A (k, m .. m + 1) with k = p / (BM / 2); B (k .. k + 1, n) with n = p / (BK / 2).
template <class T>
__device__ __forceinline__ std::size_t a_global(int p, int ld) {
  return std::size_t(p / (T::BM / 2)) * ld + (p % (T::BM / 2)) * 2;
}
template <class T>
__device__ __forceinline__ int a_shared(int p) {
  return (p / (T::BM / 2)) * T::AS + (p % (T::BM / 2)) * 2;
}
template <class T>
__device__ __forceinline__ std::size_t b_global(int p, int ld) {
  return std::size_t(p / (T::BK / 2)) * ld + (p % (T::BK / 2)) * 2;
}
template <class T>
__device__ __forceinline__ int b_shared(int p) {
  return (p / (T::BK / 2)) * T::BS + (p % (T::BK / 2)) * 2;
}

// The operands of one block: the first and (for sums) second term's top-left corners of this block's panels.
struct Panels {
  const double *a0, *a1, *b0, *b1;
  double a_sign, b_sign;
  bool two_a, two_b;
};

// Registers holding a slab's pieces of both terms until they are summed into shared memory.
template <class T, bool StageA = true, bool StageB = true>
struct Staged {
  double2 a[StageA ? T::A_PAIRS : 1][2], b[StageB ? T::B_PAIRS : 1][2];

  __device__ __forceinline__ void load(const Panels& pn, int ld, int k0, int tid) {
#pragma unroll
    for (int i = 0; i < (StageA ? T::A_PAIRS : 0); ++i) {
      const std::size_t off = a_global<T>(tid + i * T::THREADS, ld) + std::size_t(k0) * ld;
      a[i][0] = __ldcg(reinterpret_cast<const double2*>(pn.a0 + off));
      if (pn.two_a) a[i][1] = __ldcg(reinterpret_cast<const double2*>(pn.a1 + off));
    }
#pragma unroll
    for (int i = 0; i < (StageB ? T::B_PAIRS : 0); ++i) {
      const std::size_t off = b_global<T>(tid + i * T::THREADS, ld) + k0;
      b[i][0] = __ldcg(reinterpret_cast<const double2*>(pn.b0 + off));
      if (pn.two_b) b[i][1] = __ldcg(reinterpret_cast<const double2*>(pn.b1 + off));
    }
  }
  __device__ __forceinline__ void store(const Panels& pn, double* stage, int tid) const {
#pragma unroll
    for (int i = 0; i < (StageA ? T::A_PAIRS : 0); ++i) {
      double2 v = a[i][0];
      if (pn.two_a) {
        v.x = fma(pn.a_sign, a[i][1].x, v.x);
        v.y = fma(pn.a_sign, a[i][1].y, v.y);
      }
      *reinterpret_cast<double2*>(stage + a_shared<T>(tid + i * T::THREADS)) = v;
    }
#pragma unroll
    for (int i = 0; i < (StageB ? T::B_PAIRS : 0); ++i) {
      double2 v = b[i][0];
      if (pn.two_b) {
        v.x = fma(pn.b_sign, b[i][1].x, v.x);
        v.y = fma(pn.b_sign, b[i][1].y, v.y);
      }
      *reinterpret_cast<double2*>(stage + T::A_TILE + b_shared<T>(tid + i * T::THREADS)) = v;
    }
  }
};

template <class T>
__device__ __forceinline__ void copy_async(const Panels& pn, int ld, double* stage, int k0, int tid) {
#pragma unroll
  for (int i = 0; i < T::A_PAIRS; ++i) {
    const int p = tid + i * T::THREADS;
    cp16(stage + a_shared<T>(p), pn.a0 + a_global<T>(p, ld) + std::size_t(k0) * ld);
  }
#pragma unroll
  for (int i = 0; i < T::B_PAIRS; ++i) {
    const int p = tid + i * T::THREADS;
    cp16(stage + T::A_TILE + b_shared<T>(p), pn.b0 + b_global<T>(p, ld) + k0);
  }
}

// The warp's k8 steps over one staged slab.
template <class T>
__device__ __forceinline__ void multiply_slab(const double* stage, int wm, int wn, int g, int t,
                                              double (&acc)[T::FM][T::FN][4]) {
  const double* as = stage + wm * T::WM + g;
  const double* bs = stage + T::A_TILE + (wn * T::WN + g) * T::BS + 2 * t;
#pragma unroll
  for (int kk = 0; kk < T::BK; kk += 8) {
    double2 b[T::FN];
#pragma unroll
    for (int j = 0; j < T::FN; ++j) b[j] = *reinterpret_cast<const double2*>(bs + j * 8 * T::BS + kk);
#pragma unroll
    for (int i = 0; i < T::FM; ++i) {
      double a[4];
      const double* ai = as + (kk + 2 * t) * T::AS + i * 16;
      a[0] = ai[0];
      a[1] = ai[8];
      a[2] = ai[T::AS];
      a[3] = ai[T::AS + 8];
#pragma unroll
      for (int j = 0; j < T::FN; ++j) mma16n8k8(acc[i][j], a, b[j].x, b[j].y);
    }
  }
}

// One k8 step's fragments of a warp: B pairs (slots t, t + 4 of its columns) and A quads (see mma16n8k8).
template <class T>
struct Fragments {
  double2 b[T::FN];
  double a[T::FM][4];
};

template <class T>
__device__ __forceinline__ void load_fragments(const double* stage, int kk, int wm, int wn, int g, int t,
                                               Fragments<T>& f) {
  const double* as = stage + wm * T::WM + g + (kk + 2 * t) * T::AS;
  const double* bs = stage + T::A_TILE + (wn * T::WN + g) * T::BS + 2 * t + kk;
#pragma unroll
  for (int j = 0; j < T::FN; ++j) f.b[j] = *reinterpret_cast<const double2*>(bs + j * 8 * T::BS);
#pragma unroll
  for (int i = 0; i < T::FM; ++i) {
    const double* ai = as + i * 16;
    f.a[i][0] = ai[0];
    f.a[i][1] = ai[8];
    f.a[i][2] = ai[T::AS];
    f.a[i][3] = ai[T::AS + 8];
  }
}

template <class T>
__device__ __forceinline__ void multiply_fragments(const Fragments<T>& f, double (&acc)[T::FM][T::FN][4]) {
#pragma unroll
  for (int i = 0; i < T::FM; ++i)
#pragma unroll
    for (int j = 0; j < T::FN; ++j) mma16n8k8(acc[i][j], f.a[i], f.b[j].x, f.b[j].y);
}

// This block's tile corner (m0, n0) of its product's h x h result, blocks in grouped order (GROUP_ROWS tile rows
// sweep the tile columns together, so A panels are reused from L2), and the panels of its operand terms.
template <class T>
__device__ __forceinline__ Panels block_panels(const Product& pr, int h, int ld, const double* A, const double* B,
                                               int& m0, int& n0) {
  const int tiles_m = gridDim.x, tiles_n = gridDim.y;
  const int id = blockIdx.x + blockIdx.y * tiles_m;
  const int per_group = GROUP_ROWS * tiles_n, first = id / per_group * GROUP_ROWS;
  const int rows = min(tiles_m - first, GROUP_ROWS);
  m0 = (first + (id % per_group) % rows) * T::BM;
  n0 = (id % per_group) / rows * T::BN;
  Panels pn;
  pn.two_a = pr.a_second >= 0;
  pn.two_b = pr.b_second >= 0;
  pn.a_sign = pr.a_sign;
  pn.b_sign = pr.b_sign;
  pn.a0 = A + quadrant(pr.a_first, h, ld) + m0;
  pn.a1 = A + quadrant(pn.two_a ? pr.a_second : pr.a_first, h, ld) + m0;
  pn.b0 = B + quadrant(pr.b_first, h, ld) + std::size_t(n0) * ld;
  pn.b1 = B + quadrant(pn.two_b ? pr.b_second : pr.b_first, h, ld) + std::size_t(n0) * ld;
  return pn;
}

template <class T>
__device__ __forceinline__ void clear(double (&acc)[T::FM][T::FN][4]) {
#pragma unroll
  for (int i = 0; i < T::FM; ++i)
#pragma unroll
    for (int j = 0; j < T::FN; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0;
}

// The warp's accumulators into its product's one or two C quadrants: atomics (the fused level, C cleared first) or
// plain stores (the classical product). Fragment (i, j) holds entries (g, 2t), (g, 2t + 1), (g + 8, 2t),
// (g + 8, 2t + 1) of its 16 x 8 block.
template <class T>
__device__ __forceinline__ void write_c(const Product& pr, int h, int ld, double* C, int m0, int n0, int wm, int wn,
                                        int g, int t, bool accumulate, const double (&acc)[T::FM][T::FN][4]) {
  for (int out = 0; out < 2; ++out) {
    const int q = out == 0 ? pr.c_first : pr.c_second;
    if (q < 0) break;
    const double sign = out == 0 ? pr.c_first_sign : pr.c_second_sign;
    double* Cq = C + quadrant(q, h, ld);
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
      for (int j = 0; j < T::FN; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int m = m0 + wm * T::WM + i * 16 + g + 8 * (e >> 1);
          const int c = n0 + wn * T::WN + j * 8 + 2 * t + (e & 1);
          double* p = Cq + std::size_t(c) * ld + m;
          if (accumulate)
            atomicAdd(p, sign * acc[i][j][e]);
          else
            *p = sign * acc[i][j][e];
        }
  }
}

// Where a thread's warp sits in the block's tile (wm, wn) and the thread in its fragments (g, t).
template <class T>
struct WarpPlace {
  int wm, wn, g, t;
  __device__ explicit WarpPlace(int tid)
      : wm((tid >> 5) % T::WARPS_M), wn((tid >> 5) / T::WARPS_M), g((tid & 31) >> 2), t(tid & 3) {}
};

// Every warp multiplies; all threads issue the cp.async stages (one term per operand: the classical product).
template <class T>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    dmma_products(int h, int ld, const double* __restrict__ A, const double* __restrict__ B, double* __restrict__ C,
                  bool accumulate) {
  extern __shared__ __align__(16) double smem[];
  const Product pr = c_products[blockIdx.z];
  const int tid = threadIdx.x;
  const WarpPlace<T> at(tid);
  int m0, n0;
  const Panels pn = block_panels<T>(pr, h, ld, A, B, m0, n0);
  const int ktiles = h / T::BK;
  double acc[T::FM][T::FN][4];
  clear<T>(acc);
#pragma unroll
  for (int s = 0; s < T::STAGES - 1; ++s) {
    if (s < ktiles) copy_async<T>(pn, ld, smem + s * T::STAGE, s * T::BK, tid);
    commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    wait<T::STAGES - 2>();
    __syncthreads();
    const int next = kt + T::STAGES - 1;
    if (next < ktiles) copy_async<T>(pn, ld, smem + (next % T::STAGES) * T::STAGE, next * T::BK, tid);
    commit();
    multiply_slab<T>(smem + (kt % T::STAGES) * T::STAGE, at.wm, at.wn, at.g, at.t, acc);
  }
  wait<0>();
  write_c<T>(pr, h, ld, C, m0, n0, at.wm, at.wn, at.g, at.t, accumulate, acc);
}

// copy_async with each operand's pieces addressed from one pointer (this thread's first piece) plus whole rows of
// pieces, so the loop keeps two addresses live instead of one per piece.
template <class T>
__device__ __forceinline__ void copy_async_strided(const double* a_first, const double* b_first, int ld, double* stage,
                                                   int tid) {
  constexpr int A_ROWS = T::THREADS / (T::BM / 2), B_COLS = T::THREADS / (T::BK / 2);  // per step of THREADS pieces
  static_assert(T::THREADS % (T::BM / 2) == 0 && T::THREADS % (T::BK / 2) == 0, "whole rows of pieces");
  double* as = stage + a_shared<T>(tid);
  double* bs = stage + T::A_TILE + b_shared<T>(tid);
#pragma unroll
  for (int i = 0; i < T::A_PAIRS; ++i) cp16(as + i * A_ROWS * T::AS, a_first + std::size_t(i * A_ROWS) * ld);
#pragma unroll
  for (int i = 0; i < T::B_PAIRS; ++i) cp16(bs + i * B_COLS * T::BS, b_first + std::size_t(i * B_COLS) * ld);
}

// The cp.async tile with the fragments of the next k8 step loaded while the current one multiplies, across slab
// boundaries too: the block barrier sits before the last k8 step of a slab, after which that slab's stage is free
// (every warp holds its last fragments in registers) and takes slab kt + STAGES, so all STAGES stages are in flight.
template <class T>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    dmma_products_pipelined(int h, int ld, const double* __restrict__ A, const double* __restrict__ B,
                            double* __restrict__ C, bool accumulate) {
  static_assert(T::BK % 16 == 0, "an even number of k8 steps per slab: slab kt's first step uses buffer 0");
  constexpr int STEPS = T::BK / 8;
  extern __shared__ __align__(16) double smem[];
  const Product pr = c_products[blockIdx.z];
  const int tid = threadIdx.x;
  const WarpPlace<T> at(tid);
  int m0, n0;
  const Panels pn = block_panels<T>(pr, h, ld, A, B, m0, n0);
  const int ktiles = h / T::BK;
  double acc[T::FM][T::FN][4];
  clear<T>(acc);
  const double* a_next = pn.a0 + a_global<T>(tid, ld);  // this thread's first piece of the next slab to copy
  const double* b_next = pn.b0 + b_global<T>(tid, ld);
#pragma unroll
  for (int s = 0; s < T::STAGES; ++s) {
    if (s < ktiles) copy_async_strided<T>(a_next, b_next, ld, smem + s * T::STAGE, tid);
    commit();
    a_next += std::size_t(T::BK) * ld;
    b_next += T::BK;
  }
  wait<T::STAGES - 1>();
  __syncthreads();
  Fragments<T> f[2];
  load_fragments<T>(smem, 0, at.wm, at.wn, at.g, at.t, f[0]);
  for (int kt = 0; kt < ktiles; ++kt) {
    const double* stage = smem + (kt % T::STAGES) * T::STAGE;
#pragma unroll
    for (int step = 0; step < STEPS; ++step) {
      if (step + 1 < STEPS) {
        load_fragments<T>(stage, (step + 1) * 8, at.wm, at.wn, at.g, at.t, f[(step + 1) & 1]);
      } else {
        wait<T::STAGES - 2>();  // slab kt + 1 has landed
        __syncthreads();        // and every warp is done reading slab kt
        if (kt + T::STAGES < ktiles) copy_async_strided<T>(a_next, b_next, ld, smem + (kt % T::STAGES) * T::STAGE, tid);
        commit();
        a_next += std::size_t(T::BK) * ld;
        b_next += T::BK;
        if (kt + 1 < ktiles)
          load_fragments<T>(smem + ((kt + 1) % T::STAGES) * T::STAGE, 0, at.wm, at.wn, at.g, at.t,
                            f[(step + 1) & 1]);
      }
      multiply_fragments<T>(f[step & 1], acc);
    }
  }
  wait<0>();
  write_c<T>(pr, h, ld, C, m0, n0, at.wm, at.wn, at.g, at.t, accumulate, acc);
}

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void barrier_init(std::uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count));
}
__device__ __forceinline__ void barrier_arrive(std::uint64_t* bar) {  // release: the slab's stores before it
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                   shared_address(bar))
               : "memory");
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {  // acquire
  asm volatile(
      "{\n .reg .pred done;\n wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra "
      "wait_%=;\n}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}
template <int Registers>
__device__ __forceinline__ void registers_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void registers_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// Cycles the warps of a measured launch spent waiting on the ring, summed over lane 0 of every warp: consumers on
// full, their whole loop, producers on empty, their whole loop (a diagnostic: not in timed launches).
__device__ unsigned long long g_ring_cycles[4];

// A producer's loop: slab kt's terms into registers, then (once the consumers have left its stage) the sums into
// the stage, then its arrival on full.
template <class T, class SlabRegisters, bool Measure>
__device__ __forceinline__ void produce(const Panels& pn, int ld, int ktiles, int ptid, double* smem,
                                        std::uint64_t* full, std::uint64_t* empty) {
  SlabRegisters staged;
  long long waited = 0, begin = Measure ? clock64() : 0;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % T::STAGES;
    staged.load(pn, ld, kt * T::BK, ptid);
    if (kt >= T::STAGES) {
      const long long before = Measure ? clock64() : 0;
      barrier_wait(&empty[s], ((kt / T::STAGES) & 1) ^ 1);
      if (Measure) waited += clock64() - before;
    }
    staged.store(pn, smem + s * T::STAGE, ptid);
    barrier_arrive(&full[s]);
  }
  if (Measure && (ptid & 31) == 0) {
    atomicAdd(&g_ring_cycles[2], (unsigned long long)waited);
    atomicAdd(&g_ring_cycles[3], (unsigned long long)(clock64() - begin));
  }
}

// Warp-specialised form (SpecTile). full[s]: the producer's 128 threads arrive once slab s is stored; empty[s]: each
// consumer warp arrives once it has read slab s. Slab kt lives in stage kt % STAGES, in that stage's round kt / STAGES.
template <class T, bool Measure = false>
__global__ void __launch_bounds__(T::BLOCK_THREADS, 1)
    dmma_specialized(int h, int ld, const double* __restrict__ A, const double* __restrict__ B,
                     double* __restrict__ C, bool accumulate) {
  extern __shared__ __align__(16) double smem[];
  __shared__ std::uint64_t full[T::STAGES], empty[T::STAGES];
  const Product pr = c_products[blockIdx.z];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0)
    for (int s = 0; s < T::STAGES; ++s) {
      barrier_init(&full[s], T::PRODUCERS * T::THREADS);
      barrier_init(&empty[s], T::CONSUMERS / 32);
    }
  __syncthreads();
  int m0, n0;
  const Panels pn = block_panels<T>(pr, h, ld, A, B, m0, n0);
  const int ktiles = h / T::BK;
  if (warp >= T::CONSUMERS / 32) {
    registers_decrease<T::PRODUCER_REGISTERS>();
    const int ptid = tid - T::CONSUMERS;
    if constexpr (T::PRODUCERS == 1) {
      produce<T, Staged<T>, Measure>(pn, ld, ktiles, ptid, smem, full, empty);
    } else if (ptid < T::THREADS) {
      produce<T, Staged<T, true, false>, Measure>(pn, ld, ktiles, ptid, smem, full, empty);
    } else {
      produce<T, Staged<T, false, true>, Measure>(pn, ld, ktiles, ptid - T::THREADS, smem, full, empty);
    }
    return;
  }
  registers_increase<T::CONSUMER_REGISTERS>();
  const int wm = warp % T::WARPS_M, wn = warp / T::WARPS_M;
  const int g = lane >> 2, t = lane & 3;
  double acc[T::FM][T::FN][4];
  clear<T>(acc);
  long long waited = 0, begin = Measure ? clock64() : 0;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % T::STAGES;
    const long long before = Measure ? clock64() : 0;
    barrier_wait(&full[s], (kt / T::STAGES) & 1);
    if (Measure) waited += clock64() - before;
    multiply_slab<T>(smem + s * T::STAGE, wm, wn, g, t, acc);
    __syncwarp();
    if (lane == 0) barrier_arrive(&empty[s]);
  }
  if (Measure && lane == 0) {
    atomicAdd(&g_ring_cycles[0], (unsigned long long)waited);
    atomicAdd(&g_ring_cycles[1], (unsigned long long)(clock64() - begin));
  }
  write_c<T>(pr, h, ld, C, m0, n0, wm, wn, g, t, accumulate, acc);
}

// The forms measured: name, tile, and whether it is the fused level.
struct Form {
  std::string name;
  bool fused;
  std::function<void(int n, const double* A, const double* B, double* C)> launch, measured;  // measured: may be empty
  int registers, smem;
};

template <class T, bool Specialized = false, bool Pipelined = false>
Form make_form(const std::string& name, bool fused) {
  using Kernel = void (*)(int, int, const double*, const double*, double*, bool);
  Kernel kernel;
  int threads;
  Kernel measured = nullptr;
  if constexpr (Specialized) {
    kernel = dmma_specialized<T>;
    measured = dmma_specialized<T, true>;
    threads = T::BLOCK_THREADS;
    CK(cudaFuncSetAttribute(measured, cudaFuncAttributeMaxDynamicSharedMemorySize, T::SMEM));
  } else {
    kernel = Pipelined ? dmma_products_pipelined<T> : dmma_products<T>;
    threads = T::THREADS;
  }
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::SMEM));
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, kernel));
  Form f;
  f.name = name;
  f.fused = fused;
  f.registers = attr.numRegs;
  f.smem = T::SMEM;
  auto launcher = [fused, threads](Kernel k) {
    return [fused, threads, k](int n, const double* A, const double* B, double* C) {
      if (fused) {
        CK(cudaMemcpyToSymbolAsync(c_products, kStrassen, sizeof kStrassen));
        CK(cudaMemsetAsync(C, 0, std::size_t(n) * n * 8));
        k<<<dim3(n / 2 / T::BM, n / 2 / T::BN, 7), threads, T::SMEM>>>(n / 2, n, A, B, C, true);
      } else {
        CK(cudaMemcpyToSymbolAsync(c_products, kClassical, sizeof kClassical));
        k<<<dim3(n / T::BM, n / T::BN, 1), threads, T::SMEM>>>(n, n, A, B, C, false);
      }
    };
  };
  f.launch = launcher(kernel);
  if (measured) f.measured = launcher(measured);
  return f;
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  const char* json = nullptr;
  std::string only;  // --only TEXT: the forms whose names contain TEXT
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--json" && i + 1 < argc)
      json = argv[++i];
    else if (std::string(argv[i]) == "--only" && i + 1 < argc)
      only = argv[++i];
    else
      sizes.push_back(atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {4096, 8192, 16384};
  for (int n : sizes)
    if (n <= 0 || n % 256 != 0) {
      printf("dmma_probe: sizes must be positive multiples of 256, got %d\n", n);
      return 1;
    }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  // FP64 tensor-core roofline at the maximum SM clock: 256 flops per SM per cycle on sm_90 (H100 / H200 SXM)
  const double peak_tflops = prop.multiProcessorCount * 256.0 * clock_khz * 1e3 / 1e12;
  cublasHandle_t handle;
  cublasCreate(&handle);
  // 128 x 64 blocks of 4 warps, two per SM (cuBLAS's sm_90 DGEMM shape); 128 x 128 blocks of 8 warps, one per SM.
  using Async64 = Tile<128, 64, 2, 2, 16, 3, 2>;
  using One16 = SpecTile<16, 4, 152, 176, 1>;
  using Two16 = SpecTile<16, 4, 80, 168, 2>;

  std::vector<Form> forms = {
      make_form<Async64>("classical, cp.async 128x64 (4 warps, 2 blocks/SM), 3 slabs of 16", false),
      make_form<Async64, false, true>("classical, cp.async 128x64, fragments double-buffered", false),
      make_form<One16, true>("classical, 1 producer WG, 4 slabs of 16", false),
      make_form<One16, true>("fused 1L, 1 producer WG (152/176 regs), 4 slabs of 16", true),
      make_form<Two16, true>("fused 1L, 2 producer WGs (80/168 regs), 4 slabs of 16", true),

  };
  forms.erase(std::remove_if(forms.begin(), forms.end(),
                             [&](const Form& f) { return f.name.find(only) == std::string::npos; }),
              forms.end());
  for (const Form& f : forms) printf("form %-60s %3d registers, %6d bytes shared\n", f.name.c_str(), f.registers, f.smem);
  std::string rows;
  for (int n : sizes) {  // per size: errors, timings, ring waits, rows
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
    auto vendor = [&] { cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, R, n); };
    vendor();
    std::vector<double> hR(count), hC(count);
    CK(cudaMemcpy(hR.data(), R, count * 8, cudaMemcpyDeviceToHost));
    double largest = 0;
    for (double x : hR) largest = std::max(largest, std::abs(x));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    // median of 3 batches of calls between two events
    auto time_ms = [&](const std::function<void()>& call) {
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
    std::vector<double> errors(forms.size());
    for (std::size_t f = 0; f < forms.size(); ++f) {  // max |C - C_cublas| / max |C_cublas|
      CK(cudaMemset(C, 0xff, count * 8));
      forms[f].launch(n, A, B, C);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hC.data(), C, count * 8, cudaMemcpyDeviceToHost));
      double diff = 0;
      for (std::size_t i = 0; i < count; ++i) diff = std::max(diff, std::abs(hC[i] - hR[i]));
      errors[f] = std::isnan(diff) ? INFINITY : diff / largest;
    }
    // a warm-up round, then 3 rounds in which each form is timed right after cuBLAS: a form's ratio is against the
    // cuBLAS timings next to it (the chip's clock under the power cap drifts between rounds)
    auto median = [](std::vector<float> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::vector<std::vector<float>> form_samples(forms.size()), vendor_samples(forms.size());
    std::vector<float> all_vendor;
    for (int round = 0; round < 4; ++round)
      for (std::size_t f = 0; f < forms.size(); ++f) {
        const float v = time_ms(vendor), x = time_ms([&] { forms[f].launch(n, A, B, C); });
        if (round == 0) continue;
        vendor_samples[f].push_back(v);
        form_samples[f].push_back(x);
        all_vendor.push_back(v);
      }
    std::vector<float> ms(forms.size()), vendor_ms(forms.size());
    for (std::size_t f = 0; f < forms.size(); ++f) {
      ms[f] = median(form_samples[f]);
      vendor_ms[f] = median(vendor_samples[f]);
    }
    const float t_vendor = median(all_vendor);
    // where the warp-specialised forms' warps wait, from one measured launch each (not timed)
    std::vector<double> consumer_wait(forms.size(), -1), producer_wait(forms.size(), -1);
    for (std::size_t f = 0; f < forms.size(); ++f) {
      if (!forms[f].measured) continue;
      unsigned long long zero_cycles[4] = {0, 0, 0, 0}, cycles[4];
      CK(cudaMemcpyToSymbol(g_ring_cycles, zero_cycles, sizeof zero_cycles));
      forms[f].measured(n, A, B, C);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpyFromSymbol(cycles, g_ring_cycles, sizeof cycles));
      consumer_wait[f] = 100.0 * cycles[0] / cycles[1];
      producer_wait[f] = 100.0 * cycles[2] / cycles[3];
    }
    const double tf = 2.0 * n * n * double(n) / 1e9;  // classical flop count, for every form
    printf("n %5d  cuBLAS %.1f TF/s (%.0f %% of the %.1f TF/s FP64 tensor roofline)\n", n, tf / t_vendor,
           100 * tf / t_vendor / peak_tflops, peak_tflops);
    for (std::size_t f = 0; f < forms.size(); ++f) {
      printf("  %-58s %5.1f TF/s  %.3fx cuBLAS  err %.1e", forms[f].name.c_str(), tf / ms[f], vendor_ms[f] / ms[f],
             errors[f]);
      if (consumer_wait[f] >= 0)
        printf("  waits: consumers %4.1f %%, producers %4.1f %%", consumer_wait[f], producer_wait[f]);
      printf("\n");
      char row[768];
      snprintf(row, sizeof row,
               "%s    {\"n\": %d, \"form\": \"%s\", \"fused\": %s, \"ms\": %.4f, \"cublas_ms\": %.4f, "
               "\"vs_cublas\": %.4f, \"effective_tflops\": %.2f, \"pct_peak\": %.1f, \"cublas_pct_peak\": %.1f, "
               "\"registers\": %d, \"rel_err\": %.2e, \"consumer_wait_pct\": %.1f, \"producer_wait_pct\": %.1f}",
               rows.empty() ? "" : ",\n", n, forms[f].name.c_str(), forms[f].fused ? "true" : "false", ms[f],
               vendor_ms[f], vendor_ms[f] / ms[f], tf / ms[f], 100 * tf / ms[f] / peak_tflops,
               100 * tf / vendor_ms[f] / peak_tflops, forms[f].registers, errors[f], consumer_wait[f], producer_wait[f]);
      rows += row;
    }
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
    fprintf(f,
            "{\n  \"program\": \"dmma_probe\",\n  \"device\": \"%s\",\n  \"sm_count\": %d,\n  \"max_sm_clock_mhz\": %d,\n"
            "  \"fp64_tensor_peak_tflops\": %.2f,\n",
            prop.name, prop.multiProcessorCount, clock_khz / 1000, peak_tflops);
    fprintf(f, "  \"mma\": \"mma.sync m16n8k8 f64, warp tiles 64x32, grouped block order\",\n");
    fprintf(f,
            "  \"timing\": \"a timing: median of 3 batches of calls between events; after a warm-up round, 3 rounds in which "
            "each form is timed right after cuBLAS; ms / cublas_ms: medians of a form's 3 timings and of the cuBLAS "
            "timings next to them\",\n");
    fprintf(f, "  \"rel_err\": \"max |C - C_cuBLAS| / max |C_cuBLAS|, operands uniform in [-0.5, 0.5]\",\n");
    fprintf(f,
            "  \"waits\": \"warp-specialised forms, one clock64-instrumented launch: share of the consumers' loop spent "
            "waiting for full slabs and of the producers' loop waiting for empty stages (-1: not such a form)\",\n");
    fprintf(f, "  \"results\": [\n%s\n  ]\n}\n", rows.c_str());
    fclose(f);
  }
  return 0;
}
