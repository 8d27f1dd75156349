// The SIMT tile engine of the library's own float / double GEMM (not the tall & skinny kernels): C = alpha op(A)
// op(B) + beta C, or the 7 products of one Strassen level with the operand sums folded into the tile loads and the
// results added into C's quadrants. Threadblock tile -> warp tile -> thread tile. Used by simt_gemm.cu, by
// strassen_fused.cu (StrassenAlgorithm::fused, and the fused level of hybrid) and for the leaves of conventional /
// winograd when StrassenConfig::cublas_leaves is false.

// One block computes a BM x BN tile of a product over the whole k range in BK-deep slabs:
//  * each slab of op(A) / op(B) is read from global memory into registers (128-bit loads where the contiguous
//    dimension is aligned, scalar loads with bounds checks elsewhere; out-of-range elements read as zero, so
//    fringe tiles are zero-padded while packing and no padding copy exists), then stored to shared memory as
//    k-major rows [BK][BM + 4] (the +4 keeps the transposed scalar stores conflict-free and rows 16-byte aligned);
//    a slab wholly inside the operand (every slab of an interior tile but a k fringe) skips those checks: one
//    pointer per matrix set per tile plus block-uniform offsets (TileLoader::begin / load; the wide plain GEMM's
//    interior tiles run their own loop, tile_loop_interior);
//  * shared memory is double-buffered: slab t+1 is fetched into registers while slab t is multiplied, so one
//    __syncthreads per slab suffices;
//  * a warp is 8 (m) x 4 (n) threads; a thread owns TM x TN accumulators made of V-wide pieces strided by 8V
//    rows and 4V columns (V = 4 floats / 2 doubles = 128 bits), so every shared-memory fragment read is one
//    128-bit load and the 8 (4) threads sharing a row (column) piece are broadcasts;
//  * the fragments of depth kk + 1 are read from shared memory into a second register set while the rank-1
//    update of depth kk runs (explicit double buffering of the fragments inside the fully unrolled slab).
// Three FP32 shapes (Shape::classic, Shape::wide, Shape::wide_async: wide's tiles with a 3-stage cp.async ring
// for the non-sum operands instead of the register staging above) are compiled side by side and picked at run time
// (resolve_shape below: call argument, set_simt_tile, built-in default); FP64 has one shape.
// The operand loader optionally reads X + delta * Y (two quadrants, Strassen) and keeps both raw values in
// registers until the shared-memory store, so the extra loads overlap the math like the plain ones do.
// The epilogue is a policy: classical (C = alpha acc + beta C, beta == 0 never reads C) or Strassen (atomicAdd of
// gamma0 alpha acc into D and gamma1 alpha acc into E, each masked to its real extent; 16-byte atomics when the
// launch splits k into slices on blockIdx.y, see strassen_fused.cu).
// Everything is column-major in storage terms; the host side (make_operand) maps op(A), op(B) onto it.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace kbla {
namespace cuda {
namespace gemm_tile {

template <class Scalar>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int n = 4;
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int n = 2;
};

// Block tile BM x BN x BK, thread tile TM x TN; threads = (BM / 8TM) (BN / 4TN) warps.
// Shape::classic
//   FP32: 128x128x8, 8x8 per thread, 256 threads, 2 blocks / SM (the paper's "Huge" CUTLASS strategy; it keeps
//   the fused kernel above the global-bandwidth bound even when both operands are read twice).
//   FP64: 128x64x8, 8x4 per thread, 256 threads: same 64 accumulator registers per thread as FP32 8x8.
// Shape::wide (FP32 only; FP64 always runs classic)
//   256x128x8, 8x16 per thread (128 accumulators), warp tile 64x64, 4 x 2 warps, 256 threads, 1 block / SM
//   (up to 255 registers), the cuBLAS SGEMM block tile. Per depth step a thread issues 6 LDS.128 for 128 FFMA
//   (classic: 4 for 64), and the k loop overhead, address arithmetic and barrier are spread over twice the
//   FFMAs. 256 (m) x 128 (n) rather than 128 x 256: in the NN case (the benchmark's) A is staged with 128-bit
//   shared stores and B, contiguous along k, with scalar transposed stores, so the larger tile side goes to A
//   (2 STS.128 + 4 STS.32 per slab and thread instead of 1 + 8). BK = 8 rather than 16: a 16-deep slab would
//   double the staging registers (the Strassen loader holds X and Y: 24 -> 48 floats) on top of 128
//   accumulators and 2 x 24 fragment registers, and the transposed stores of a 16-deep slab are 2-way bank
//   conflicted with the +4 row padding; the one barrier per slab then covers 1024 FFMAs per thread.
//   Tried and dropped: a 16-deep shared slab filled in two 8-deep halves through the same staging registers (one
//   barrier per 16 depths, 48 KiB static shared memory with no row pad): no spills, but slower at every size, also
//   with the interior fast path in the plain GEMM; in the SASS the fragment LDS.128 went out in bursts and the
//   loads' address code sat in the middle of the slab (docs/strassen.md, tried and not kept).
// Shape::wide_async (FP32 only): wide's block / warp / thread tiles with a STAGES-deep shared-memory ring filled
//   by cp.async (sm_80+) for operands that are not Strassen sums: no registers hold the next slab and
//   STAGES - 1 slabs are in flight while one is multiplied (one barrier per slab). See AsyncLoader / tile_body_async.
enum class Shape : int { classic = 1, wide = 2, wide_async = 3 };

template <class Scalar, Shape TileShape = Shape::classic>
struct TileConfig;
// STRASSEN_MIN_BLOCKS (classic): FP32 fused kernel at 2 blocks / SM is capped at 128 registers (it spilled
// 8-24 bytes in two trans variants before the fragment double buffer; now 128 registers, no spills, nvcc 13);
// at 1 block / SM it has half the warps.
template <>
struct TileConfig<float, Shape::classic> {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, MIN_BLOCKS = 2;
  static constexpr int STRASSEN_MIN_BLOCKS = 2;
};
template <>
struct TileConfig<float, Shape::wide> {
  static constexpr int BM = 256, BN = 128, BK = 8, TM = 8, TN = 16, MIN_BLOCKS = 1;
  static constexpr int STRASSEN_MIN_BLOCKS = 1;
};
// 3 stages: 3 x (8 x 260 + 8 x 132) x 4 B = 37632 B of static shared memory (4 stages, 50176 B, would need the
// dynamic-shared-memory opt-in above 48 KiB).
// Measured slower than wide for simt_gemm, fused 1L and hybrid 2L at 4096-16384, also with the NN B operand
// register-staged (registers 226-255, no spills). Not the default.
template <>
struct TileConfig<float, Shape::wide_async> {
  static constexpr int BM = 256, BN = 128, BK = 8, TM = 8, TN = 16, MIN_BLOCKS = 1;
  static constexpr int STRASSEN_MIN_BLOCKS = 1;
  static constexpr int STAGES = 3;
};
template <>
struct TileConfig<double, Shape::classic> {
  // 2 blocks / SM (128 registers) spilled in the transposed variants; 1 block uses ~152 (gemm) / ~164 (fused).
  static constexpr int BM = 128, BN = 64, BK = 8, TM = 8, TN = 4, MIN_BLOCKS = 1;
  static constexpr int STRASSEN_MIN_BLOCKS = 1;
};

template <class Scalar, Shape TileShape>
struct Derived {
  using C = TileConfig<Scalar, TileShape>;
  static constexpr int V = Vec<Scalar>::n;
  static constexpr int WARPS_M = C::BM / (8 * C::TM), WARPS_N = C::BN / (4 * C::TN);
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int LDA_S = C::BM + 4, LDB_S = C::BN + 4;  // shared row lengths
  static_assert(C::TM % V == 0 && C::TN % V == 0, "thread tile is made of V-wide pieces");
  static_assert(WARPS_M * 8 * C::TM == C::BM && WARPS_N * 4 * C::TN == C::BN, "warps tile the block");
};

// One operand quadrant pair in storage terms: element (c, s) of X is x[c + s * ld], c along the contiguous
// dimension. Only (c < xc, s < xs) is real, the rest reads as zero (same for Y). y == nullptr: no sum.
template <class Scalar>
struct Operand {
  const Scalar* x;
  const Scalar* y;
  std::int64_t ld;
  int xc, xs, yc, ys;
  Scalar delta;
  int vec;  // 1: ld % V == 0 and x, y 16-byte aligned, so in-range V-runs may be read as one 128-bit load
};

// An output quadrant: element (r, c) at p[r + c * ldc], written only where r < rows and c < cols.
template <class Scalar>
struct Output {
  Scalar* p;
  int rows, cols;
  Scalar gamma;  // Strassen: coefficient times alpha; classical: unused
};

template <class Scalar>
struct Product {
  Operand<Scalar> a, b;
  Output<Scalar> d, e;  // e.p == nullptr: one output
};

constexpr int kMaxProducts = 7;

// Kernel parameters: m x n x k is the (padded) product every blockIdx.z computes; z[blockIdx.z] says where its
// operands and outputs are. Passed as __grid_constant__, so the per-z entry is read in place.
template <class Scalar>
struct Batch {
  int m, n, k;
  int tiles_m, tiles_n;
  std::int64_t ldc;
  Scalar alpha, beta;
  Product<Scalar> z[kMaxProducts];
  int slice_slabs;  // strassen_kernel: BK-slabs of k per blockIdx.y slice (the launch sets gridDim.y to match)
  // strassen_stream_k_kernel: tiles sk_tile0 .. tiles - 1 of every product, split into gridDim.x equal runs of
  // (tile, slab) iterations (the tiles before sk_tile0 belong to a strassen_kernel launch of grid.x = sk_tile0).
  int sk_tile0;
};

__device__ __forceinline__ void opaque(float& v) { asm volatile("" : "+f"(v)); }
__device__ __forceinline__ void opaque(double& v) { asm volatile("" : "+d"(v)); }

template <class Scalar, Shape TileShape, int TileExtent, bool KContig, bool Sum, bool Fused>
struct TileLoader {
  // TileExtent: the tile's extent along m (operand A: BM) or n (operand B: BN). KContig: storage is contiguous
  // along k (A transposed, B not).
  using D = Derived<Scalar, TileShape>;
  using VT = typename Vec<Scalar>::type;
  static constexpr int V = D::V, BK = TileConfig<Scalar, TileShape>::BK;
  static constexpr int LC = KContig ? BK : TileExtent;  // contiguous length of the slab in storage
  static constexpr int LS = KContig ? TileExtent : BK;
  static constexpr int VPR = LC / V;  // vectors per storage column of the slab
  static constexpr int NV = LC * LS / V / D::THREADS;
  static constexpr int LDS = TileExtent + 4;
  static_assert(LC % V == 0 && NV >= 1 && NV * V * D::THREADS == LC * LS, "slab splits evenly into vectors");

  static constexpr int SPI = D::THREADS / VPR;  // storage columns between a thread's consecutive V-runs
  // The interior fast path costs two 64-bit pointers per matrix; FP32 classic Strassen sums run at the 128-register
  // cap of 2 blocks / SM and spilled 24-44 bytes with it (nvcc 13), so they keep the checked path only. Fused:
  // the tile has a Strassen sum on either side; the plain GEMM does not use it (slower there; the wide plain GEMM
  // has tile_loop_interior instead).
  static constexpr bool FAST = Fused && !(Sum && std::is_same<Scalar, float>::value && TileShape == Shape::classic);
  static_assert(SPI * VPR == D::THREADS, "a thread's V-runs share their contiguous offset");
  // The plain GEMM of Shape::wide runs whole interior tiles in tile_loop_interior instead (see there).
  static constexpr bool INTERIOR = TileShape == Shape::wide && !Fused;
  // The fused tiles of Shape::wide that lie inside their operands along m / n run tile_loop_fused_interior
  // (seek / load_slab).
  static constexpr bool STEP = TileShape == Shape::wide && Fused;
  static constexpr int RUNS = NV * (Sum ? 2 : 1);  // 16-byte loads per slab and thread

  Scalar x[NV][V];
  Scalar y[Sum ? NV : 1][V];
  // Interior fast path (set by begin): this thread's first run of slab 0 in X and Y, and the k extent up to which
  // whole slabs are in range (0 when the tile is not inside X and Y along m / n, or 16-byte loads are not allowed).
  const Scalar* px;
  const Scalar* py;
  int kin;
  std::int64_t run_stride;  // interior loop: storage distance between a thread's runs (SPI columns)
  int full;                 // interior loop: slabs from kt0 on that lie wholly inside X and Y
  int off, run_off, step_off;  // fused interior loop: offset of this slab, between runs, between slabs
  Scalar sign;  // op.delta, held in a register (set by begin; see there)

  static __device__ __forceinline__ void load_vec(const Scalar* p, Scalar (&v)[V]) {
    const VT w = __ldg(reinterpret_cast<const VT*>(p));
    const Scalar* wp = reinterpret_cast<const Scalar*>(&w);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = wp[j];
  }

  static __device__ __forceinline__ void fetch(const Scalar* __restrict__ p, std::int64_t ld, int ec, int es, int vec,
                                               int gc, int gs, Scalar (&v)[V]) {
    if (vec && gs < es && gc + V <= ec) {
      load_vec(p + gc + gs * ld, v);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = (gs < es && gc + j < ec) ? __ldg(p + (gc + j) + gs * ld) : Scalar(0);
    }
  }

  // Once per tile (origin mn0 along m or n), before the first load.
  __device__ __forceinline__ void begin(const Operand<Scalar>& op, int mn0, int tid) {
    // Opaque to ptxas: otherwise, at 250-255 registers, it re-reads delta from the kernel parameters (an LDC with a
    // per-block index) in every slab, a visible share of the fused NN kernel's stalls; the register copy made fused
    // 1L faster. Sum loaders only: the empty asm is volatile, so in the others it would keep a dead load per tile.
    if constexpr (Sum) {
      sign = op.delta;
      opaque(sign);
    }
    const int c = (tid % VPR) * V, s = tid / VPR;
    const std::int64_t off = KContig ? c + std::int64_t(mn0 + s) * op.ld : (mn0 + c) + std::int64_t(s) * op.ld;
    px = op.x + off;
    py = Sum ? op.y + off : op.x;
    int emn = KContig ? op.xs : op.xc, ek = KContig ? op.xc : op.xs;
    if (Sum) {
      emn = min(emn, KContig ? op.ys : op.yc);
      ek = min(ek, KContig ? op.yc : op.ys);
    }
    kin = ((FAST || INTERIOR) && op.vec && mn0 + TileExtent <= emn) ? ek : 0;
  }

  // Interior loop setup: px / py at this thread's first run of slab kt0. True when the tile lies inside X and Y
  // along m / n, 16-byte loads are allowed and slab kt0 is wholly in range (block-uniform).
  __device__ __forceinline__ bool begin_interior(const Operand<Scalar>& op, int mn0, int kt0, int tid) {
    begin(op, mn0, tid);
    run_stride = std::int64_t(SPI) * op.ld;
    const std::int64_t s0 = KContig ? std::int64_t(kt0) * BK : std::int64_t(kt0) * BK * op.ld;
    px += s0;
    py += s0;
    full = kin / BK - kt0;
    return full >= 1;
  }

  // Fused interior loop (after begin): 32-bit element offsets from px / py (the first run of slab 0) replace the 64-bit
  // pointer steps: one IMAD.WIDE per 16-byte load plus one add per slab, no 64-bit pairs to step or copy. True
  // when the tile lies inside X and Y along m / n, 16-byte loads are allowed, slab kt0 is wholly in range and
  // every offset read stays below 2^31 elements (block-uniform).
  __device__ __forceinline__ bool seek(const Operand<Scalar>& op, int kt0) {
    const std::int64_t reach =
        KContig ? kin + std::int64_t(TileExtent) * op.ld : std::int64_t(kin) * op.ld + TileExtent;
    run_off = int(SPI * op.ld);
    step_off = KContig ? BK : int(BK * op.ld);
    off = int(kt0 * std::int64_t(step_off));  // used only when reach fits, then exact
    // Opaque to nvcc's optimizer: otherwise it re-associates px + off into (x + (tile offset + off)) and steps
    // a 64-bit sum per load (22 instructions for A's four loads instead of 13).
    asm("mov.b64 %0, %0;" : "+l"(px));
    asm("mov.b64 %0, %0;" : "+l"(py));
    full = kin / BK - kt0;
    return full >= 1 && reach <= INT_MAX;
  }

  // Fused interior loop: every run of the slab at offset off, then off one slab on.
  __device__ __forceinline__ void load_slab() {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int o = off + i * run_off;
      load_vec(px + o, x[i]);
      if (Sum) load_vec(py + o, y[Sum ? i : 0]);
    }
    off += step_off;
  }

  // Interior loop: run j (0 .. RUNS - 1; X runs first) of the slab px / py point at.
  __device__ __forceinline__ void load_run(int j) {
    const int i = j % NV;
    if (j < NV)
      load_vec(px + i * run_stride, x[i]);
    else if (Sum)
      load_vec(py + i * run_stride, y[Sum ? i : 0]);
  }

  // Interior loop: to the next slab (go) or stay (the next slab is a k fringe or past the end: the spread loads
  // then re-read a slab in range and the checked load replaces what they read).
  __device__ __forceinline__ void advance(const Operand<Scalar>& op, bool go) {
    const std::int64_t step = KContig ? std::int64_t(BK) : std::int64_t(BK) * op.ld;
    if (go) {
      px += step;
      if (Sum) py += step;
    }
  }

  // Slab at k offset k0 of the tile whose m (or n) origin is mn0. A slab wholly in range (every slab of an
  // interior tile but a k fringe) is read from px / py plus offsets that are the same for the whole block (k0 and
  // the distance between a thread's runs), so the per-run bounds checks and 64-bit index arithmetic of fetch drop
  // out of the main loop (about 25 instructions per run; a two-sum Strassen slab of the wide tile has 6 runs).
  // Measured faster for the fused Strassen tiles (1L and 2L, 4096-16384); the plain wide GEMM got slower with it
  // (nvcc schedules its loop worse), so only the sums use it, and they are what the fused kernel is for.
  __device__ __forceinline__ void load(const Operand<Scalar>& op, int mn0, int k0, int tid) {
    if (FAST && k0 + BK <= kin) {
      const std::int64_t ks = KContig ? std::int64_t(k0) : std::int64_t(k0) * op.ld;
#pragma unroll
      for (int i = 0; i < NV; ++i) {
        const std::int64_t o = ks + std::int64_t(i * SPI) * op.ld;
        load_vec(px + o, x[i]);
        if (Sum) load_vec(py + o, y[Sum ? i : 0]);
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int q = tid + i * D::THREADS;
      const int c = (q % VPR) * V, s = q / VPR;
      const int gc = (KContig ? k0 : mn0) + c, gs = (KContig ? mn0 : k0) + s;
      fetch(op.x, op.ld, op.xc, op.xs, op.vec, gc, gs, x[i]);
      if (Sum) fetch(op.y, op.ld, op.yc, op.ys, op.vec, gc, gs, y[Sum ? i : 0]);
    }
  }

  // Shared slab is [BK][LDS]: row kk holds the TileExtent values of the tile at depth kk.
  __device__ __forceinline__ void store(const Operand<Scalar>& op, Scalar* __restrict__ sm, int tid) const {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int q = tid + i * D::THREADS;
      const int c = (q % VPR) * V, s = q / VPR;
      Scalar v[V];
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = Sum ? fma(sign, y[Sum ? i : 0][j], x[i][j]) : x[i][j];
      if (KContig) {
#pragma unroll
        for (int j = 0; j < V; ++j) sm[(c + j) * LDS + s] = v[j];
      } else {
        *reinterpret_cast<VT*>(sm + s * LDS + c) = *reinterpret_cast<const VT*>(v);
      }
    }
  }
};

// Shared-memory stages: 2 (register-staged shapes) or TileConfig::STAGES (wide_async).
template <class Config, class = void>
struct StagesOf {
  static constexpr int value = 2;
};
template <class Config>
struct StagesOf<Config, std::void_t<decltype(Config::STAGES)>> {
  static constexpr int value = Config::STAGES;
};

template <class Scalar, Shape TileShape>
struct SharedStorage {
  using D = Derived<Scalar, TileShape>;
  static constexpr int BK = TileConfig<Scalar, TileShape>::BK;
  static constexpr int STAGES = StagesOf<TileConfig<Scalar, TileShape>>::value;
  __align__(16) Scalar a[STAGES][BK][D::LDA_S];
  __align__(16) Scalar b[STAGES][BK][D::LDB_S];
};

// ---- cp.async (sm_80+) ------------------------------------------------------------------------------------
// src_bytes < copy size: the rest of the destination is zero-filled (src_bytes == 0 reads nothing; the source
// address passed then is a valid base pointer anyway).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sa), "l"(gmem), "r"(src_bytes) : "memory");
#endif
}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sa), "l"(gmem), "r"(src_bytes) : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int PendingGroups>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PendingGroups) : "memory");
#endif
}

// cp.async loader of one plain (non-sum) operand slab into a k-major shared slab [BK][TileExtent + 4] (FP32,
// V = 4); TileExtent: the tile's extent along m (operand A: BM) or n (operand B: BN).
//  * contiguous along m / n (!KContig: A not transposed, B transposed), vec: each thread copies 16-byte runs
//    straight into a k-row (cp.async.cg 16, src-size = 4 x the in-range elements of the run, 0 past the k / s
//    edge: the zero fill pads the fringe). A warp writes 512 contiguous bytes of one row: no bank conflicts.
//  * contiguous along m / n, not vec (pointer or ld not 16-byte compatible): element e of the slab goes to
//    (c = e % TileExtent, s = e / TileExtent) with 4-byte cp.async.ca: a warp reads 128 contiguous bytes and
//    writes 32 consecutive words of one row (conflict-free).
//  * contiguous along k (KContig: A transposed, B not): element e -> (c = e % BK along k, s = e / BK), 4-byte
//    cp.async.ca, written transposed to sm[c][s]. A warp reads 4 columns x 8 contiguous k values (4 full 32-byte
//    sectors) and writes words c * (TileExtent + 4) + s; with TileExtent % 32 == 0 the bank is (4c + s) % 32, c in
//    0..7 and s = s0 .. s0 + 3 (s0 % 4 == 0): 32 distinct banks, so the +4 row pad keeps these writes
//    conflict-free (a pad of 0 would be 8-way, 1 would be 4-way... only pads == 4 mod 8 with BK = 8 hit every bank
//    once).
template <class Scalar, Shape TileShape, int TileExtent, bool KContig>
struct AsyncLoader {
  using D = Derived<Scalar, TileShape>;
  static constexpr int V = D::V, BK = TileConfig<Scalar, TileShape>::BK, LDS = TileExtent + 4;
  static constexpr int NE = TileExtent * BK / D::THREADS;  // elements per thread
  static constexpr int NV = NE / V;                        // 16-byte runs per thread (!KContig, vec)
  static_assert(NE * D::THREADS == TileExtent * BK && NV * V == NE && NV >= 1, "slab splits evenly");
  static_assert(std::is_same<Scalar, float>::value, "cp.async loader: FP32");

  static __device__ __forceinline__ void issue(const Operand<Scalar>& op, Scalar* __restrict__ sm, int mn0, int k0,
                                               int tid) {
    if (!KContig && op.vec) {
      constexpr int VPR = TileExtent / V;
#pragma unroll
      for (int i = 0; i < NV; ++i) {
        const int q = tid + i * D::THREADS;
        const int c = (q % VPR) * V, s = q / VPR;
        const int gc = mn0 + c, gs = k0 + s;
        const int n = gs < op.xs ? min(max(op.xc - gc, 0), V) : 0;
        const Scalar* src = n > 0 ? op.x + gc + std::int64_t(gs) * op.ld : op.x;
        cp_async16(sm + s * LDS + c, src, n * int(sizeof(Scalar)));
      }
    } else {
      constexpr int LC = KContig ? BK : TileExtent;
#pragma unroll
      for (int i = 0; i < NE; ++i) {
        const int e = tid + i * D::THREADS;
        const int c = e % LC, s = e / LC;
        const int gc = (KContig ? k0 : mn0) + c, gs = (KContig ? mn0 : k0) + s;
        const bool in = gc < op.xc && gs < op.xs;
        const Scalar* src = in ? op.x + gc + std::int64_t(gs) * op.ld : op.x;
        Scalar* dst = KContig ? sm + c * LDS + s : sm + s * LDS + c;
        cp_async4(dst, src, in ? int(sizeof(Scalar)) : 0);
      }
    }
  }
};

struct ClassicalEpilogue {
  static constexpr bool kVec4 = false;
  template <class Scalar>
  static __device__ __forceinline__ void store(const Batch<Scalar>& bp, const Product<Scalar>& pr, int r, int c,
                                               Scalar v) {
    if (r < pr.d.rows && c < pr.d.cols) {
      Scalar* p = pr.d.p + r + c * bp.ldc;
      *p = bp.beta == Scalar(0) ? bp.alpha * v : bp.alpha * v + bp.beta * *p;
    }
  }
};

// Vec4 (FP32, k-sliced launches only): a thread's 4 row-contiguous values of a column go out as one 16-byte atomic
// (sm_90 float4 atomicAdd) where the run is in range and 16-byte aligned: 4x fewer reductions, which k slices
// multiply. Not in the unsliced kernel: there the reductions are not what costs, and its main loop's registers got
// worse with it (slower at 8192).
template <bool Vec4>
struct StrassenEpilogue {
  static constexpr bool kVec4 = Vec4;
  template <class Scalar>
  static __device__ __forceinline__ void store(const Batch<Scalar>& bp, const Product<Scalar>& pr, int r, int c,
                                               Scalar v) {
    if (r < pr.d.rows && c < pr.d.cols) atomicAdd(pr.d.p + r + c * bp.ldc, pr.d.gamma * v);
    if (pr.e.p != nullptr && r < pr.e.rows && c < pr.e.cols) atomicAdd(pr.e.p + r + c * bp.ldc, pr.e.gamma * v);
  }
};

// A thread's place in the block tile, shared by both main loops: its warp / lane coordinates, the 128-bit
// fragment reads of one depth of a shared slab, the BK rank-1 updates of a slab and the epilogue. The
// accumulators stay a local array of the caller (passed by reference), so they live in registers.
template <class Scalar, Shape TileShape>
struct ThreadTile {
  using C = TileConfig<Scalar, TileShape>;
  using D = Derived<Scalar, TileShape>;
  using VT = typename Vec<Scalar>::type;
  static constexpr int V = D::V, BK = C::BK, TM = C::TM, TN = C::TN;

  int tx, ty, wm0, wn0;

  __device__ __forceinline__ explicit ThreadTile(int tid) {
    const int warp = tid >> 5, lane = tid & 31;
    tx = lane & 7;
    ty = lane >> 3;
    wm0 = (warp % D::WARPS_M) * 8 * TM;
    wn0 = (warp / D::WARPS_M) * 4 * TN;
  }

  // Fragments of depth kk of the shared slab buf into registers.
  __device__ __forceinline__ void frag(const SharedStorage<Scalar, TileShape>& sh, int buf, int kk, Scalar (&a)[TM],
                                      Scalar (&b)[TN]) const {
#pragma unroll
    for (int p = 0; p < TM / V; ++p) {
      const VT w = *reinterpret_cast<const VT*>(&sh.a[buf][kk][wm0 + p * 8 * V + tx * V]);
#pragma unroll
      for (int j = 0; j < V; ++j) a[p * V + j] = reinterpret_cast<const Scalar*>(&w)[j];
    }
#pragma unroll
    for (int p = 0; p < TN / V; ++p) {
      const VT w = *reinterpret_cast<const VT*>(&sh.b[buf][kk][wn0 + p * 4 * V + ty * V]);
#pragma unroll
      for (int j = 0; j < V; ++j) b[p * V + j] = reinterpret_cast<const Scalar*>(&w)[j];
    }
  }

  // The BK rank-1 updates of slab buf; fa[0] / fb[0] already hold depth 0 (the caller reads them before issuing
  // its global loads, so those overlap the math); depth kk + 1 is read while depth kk is multiplied.
  __device__ __forceinline__ void multiply(const SharedStorage<Scalar, TileShape>& sh, int buf, Scalar (&fa)[2][TM],
                                           Scalar (&fb)[2][TN], Scalar (&acc)[TM][TN]) const {
    multiply(sh, buf, fa, fb, acc, [](int) {});
  }
  // Same, calling at_depth(kk) after depth kk + 1's fragment reads and before depth kk's FFMAs.
  template <class Hook>
  __device__ __forceinline__ void multiply(const SharedStorage<Scalar, TileShape>& sh, int buf, Scalar (&fa)[2][TM],
                                           Scalar (&fb)[2][TN], Scalar (&acc)[TM][TN], Hook&& at_depth) const {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk + 1 < BK) frag(sh, buf, kk + 1, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
      at_depth(kk);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(fa[kk & 1][i], fb[kk & 1][j], acc[i][j]);
    }
  }

  template <class Epi>
  __device__ __forceinline__ void store(const Batch<Scalar>& bp, const Product<Scalar>& pr, int m0, int n0,
                                        const Scalar (&acc)[TM][TN]) const {
    if constexpr (Epi::kVec4 && std::is_same<Scalar, float>::value) {
      store_vec4(bp, pr, m0, n0, acc);
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = m0 + wm0 + (i / V) * 8 * V + tx * V + i % V;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int c = n0 + wn0 + (j / V) * 4 * V + ty * V + j % V;
          Epi::template store<Scalar>(bp, pr, r, c, acc[i][j]);
        }
      }
    }
  }

  // Strassen epilogue with 16-byte atomics (FP32): rows p * 8V + tx * V + 0..V-1 of a column are one run.
  __device__ __forceinline__ void store_vec4(const Batch<Scalar>& bp, const Product<Scalar>& pr, int m0, int n0,
                                             const Scalar (&acc)[TM][TN]) const {
    const bool vd = (reinterpret_cast<std::uintptr_t>(pr.d.p) & 15u) == 0 && (bp.ldc & 3) == 0;
    const bool ve = (reinterpret_cast<std::uintptr_t>(pr.e.p) & 15u) == 0 && (bp.ldc & 3) == 0;
    auto add4 = [&](const Output<Scalar>& o, bool vec, int r, int c, const Scalar (&v)[V]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      if (vec && r + V <= o.rows && c < o.cols) {
        atomicAdd(reinterpret_cast<float4*>(o.p + r + c * bp.ldc),
                  make_float4(o.gamma * v[0], o.gamma * v[1], o.gamma * v[2], o.gamma * v[3]));
        return;
      }
#endif
#pragma unroll
      for (int q = 0; q < V; ++q)
        if (r + q < o.rows && c < o.cols) atomicAdd(o.p + r + q + c * bp.ldc, o.gamma * v[q]);
    };
#pragma unroll
    for (int p = 0; p < TM / V; ++p) {
      const int r = m0 + wm0 + p * 8 * V + tx * V;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int c = n0 + wn0 + (j / V) * 4 * V + ty * V + j % V;
        Scalar v[V];
#pragma unroll
        for (int q = 0; q < V; ++q) v[q] = acc[p * V + q][j];
        add4(pr.d, vd, r, c, v);
        if (pr.e.p != nullptr) add4(pr.e, ve, r, c, v);
      }
    }
  }
};

// Main loop of a tile that lies inside its operands along m and n (Shape::wide; begin_interior set up la / lb and
// checked that slab kt0 is in range). Against tile_body's loop: no bounds checks or index arithmetic per load
// (each loader steps its pointers by one slab), and the next slab's RUNS 16-byte loads per loader go out one per
// depth step over the first depths of the current slab (A's runs, then B's), interleaved with the FFMAs, instead
// of as one block right after the barrier, where both warps of a scheduler would issue it together while the FMA
// pipe idles. A k-fringe slab (k % BK != 0) is read by the checked load after the math. In the SASS (nvcc 13,
// wide NN) ptxas gathers the 3 loads at about depth 3 of 8; the post-barrier block before the first FFMA shrinks
// from ~190 instructions (bounds-checked address code and 15 load instructions) to ~16.
// Measured faster than tile_body's loop for simt_gemm at 2048-16384 (more issue slots and FMA pipe in use, fewer
// instructions). Tried and not kept: this loop for the fused Strassen tiles too (their two-sum loads, 6 per slab,
// issued mid-slab leave part of their latency exposed at full clock; see tile_loop_fused_interior), and the next
// slab's loads issued before the barrier.
template <class Scalar, Shape TileShape, class LoaderA, class LoaderB>
__device__ __forceinline__ void tile_loop_interior(
    const Product<Scalar>& pr, SharedStorage<Scalar, TileShape>& sh, const ThreadTile<Scalar, TileShape>& th,
    LoaderA& la, LoaderB& lb, int m0, int n0, int kt0, int nk,
    Scalar (&acc)[ThreadTile<Scalar, TileShape>::TM][ThreadTile<Scalar, TileShape>::TN]) {
  constexpr int BK = ThreadTile<Scalar, TileShape>::BK, TM = ThreadTile<Scalar, TileShape>::TM,
                TN = ThreadTile<Scalar, TileShape>::TN;
  static_assert(LoaderA::RUNS + LoaderB::RUNS <= BK, "one spread load per depth step");
  const int tid = threadIdx.x;
  const int last_a = min(la.full, nk), last_b = min(lb.full, nk);  // slabs t < last_* are read by pointer

#pragma unroll
  for (int j = 0; j < LoaderA::RUNS; ++j) la.load_run(j);
#pragma unroll
  for (int j = 0; j < LoaderB::RUNS; ++j) lb.load_run(j);
  la.store(pr.a, &sh.a[0][0][0], tid);
  lb.store(pr.b, &sh.b[0][0][0], tid);
  __syncthreads();

  Scalar fa[2][TM], fb[2][TN];
  for (int t = 0; t < nk; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < nk;
    th.frag(sh, cur, 0, fa[0], fb[0]);
    la.advance(pr.a, t + 1 < last_a);
    lb.advance(pr.b, t + 1 < last_b);
    th.multiply(sh, cur, fa, fb, acc, [&](int kk) {
      if (kk < LoaderA::RUNS) la.load_run(kk);
      else if (kk < LoaderA::RUNS + LoaderB::RUNS) lb.load_run(kk - LoaderA::RUNS);
    });
    // The registers hold slab t + 1 where it is read by pointer (t + 1 < last_*); a k fringe is read here.
    if (more && t + 1 >= last_a) la.load(pr.a, m0, (kt0 + t + 1) * BK, tid);
    if (more && t + 1 >= last_b) lb.load(pr.b, n0, (kt0 + t + 1) * BK, tid);
    // Unconditional (also after the last slab): the other buffer was last read in iteration t - 1, and a store
    // the compiler must keep pins the spread loads inside the slab (with `if (more)` it sank them past the math).
    la.store(pr.a, &sh.a[cur ^ 1][0][0], tid);
    lb.store(pr.b, &sh.b[cur ^ 1][0][0], tid);
    __syncthreads();
  }
}

// Main loop of a fused Strassen tile (Shape::wide) inside its operands along m and n, slab kt0 in range (seek):
// tile_body's loop with the loads of slab t + 1 still at the top of slab t, where the slab's 1024 FFMAs cover
// their latency (the two-sum tiles issue 6; issued mid-slab, as tile_loop_interior does, they left latency
// exposed and ran slower), but an in-range slab is read at px / py + a 32-bit offset
// stepped once per slab, so no bounds checks or 64-bit index products sit between the barrier and the first FFMA
// (NN two-sum SASS: 34 instructions from the loop top to the first FFMA, 6 LDS and 6 LDG among them; tile_body's
// fast path ~70). A k-fringe slab goes through the checked load. The fast load and the checked load stay two
// arms of one branch: with the loads alone under `if (t + 1 < nk)` (or straight-line, the last slab peeled)
// ptxas sank them to FFMA ~1000 (~600) of 1024, next to the shared stores.
template <class Scalar, Shape TileShape, class LoaderA, class LoaderB>
__device__ __forceinline__ void tile_loop_fused_interior(
    const Product<Scalar>& pr, SharedStorage<Scalar, TileShape>& sh, const ThreadTile<Scalar, TileShape>& th,
    LoaderA& la, LoaderB& lb, int m0, int n0, int kt0, int nk,
    Scalar (&acc)[ThreadTile<Scalar, TileShape>::TM][ThreadTile<Scalar, TileShape>::TN]) {
  constexpr int BK = ThreadTile<Scalar, TileShape>::BK, TM = ThreadTile<Scalar, TileShape>::TM,
                TN = ThreadTile<Scalar, TileShape>::TN;
  const int tid = threadIdx.x;
  const int last_a = min(la.full, nk), last_b = min(lb.full, nk);  // slabs t < last_* are read by pointer
  la.load_slab();
  lb.load_slab();
  la.store(pr.a, &sh.a[0][0][0], tid);
  lb.store(pr.b, &sh.b[0][0][0], tid);
  __syncthreads();

  Scalar fa[2][TM], fb[2][TN];
  for (int t = 0; t < nk; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < nk;
    th.frag(sh, cur, 0, fa[0], fb[0]);
    if (t + 1 < last_a)
      la.load_slab();
    else if (more)
      la.load(pr.a, m0, (kt0 + t + 1) * BK, tid);
    if (t + 1 < last_b)
      lb.load_slab();
    else if (more)
      lb.load(pr.b, n0, (kt0 + t + 1) * BK, tid);
    th.multiply(sh, cur, fa, fb, acc);
    if (more) {
      la.store(pr.a, &sh.a[cur ^ 1][0][0], tid);
      lb.store(pr.b, &sh.b[cur ^ 1][0][0], tid);
    }
    __syncthreads();
  }
}

// The whole tile: main loop over k slabs, then the epilogue. TransposeA / TransposeB: op(A) / op(B) transposed.
// Slabs kt0 .. kt0 + nk - 1 of the k range (all of it for a classical GEMM, one k slice for split Strassen).
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, bool SumA, bool SumB, class Epi>
__device__ __forceinline__ void tile_body(const Batch<Scalar>& bp, const Product<Scalar>& pr,
                                          SharedStorage<Scalar, TileShape>& sh, int tm, int tn, int kt0, int nk) {
  using C = TileConfig<Scalar, TileShape>;
  constexpr int BK = C::BK, TM = C::TM, TN = C::TN;

  const int tid = threadIdx.x;
  const int m0 = tm * C::BM, n0 = tn * C::BN;
  const ThreadTile<Scalar, TileShape> th(tid);

  using LoaderA = TileLoader<Scalar, TileShape, C::BM, TransposeA, SumA, SumA || SumB>;
  using LoaderB = TileLoader<Scalar, TileShape, C::BN, !TransposeB, SumB, SumA || SumB>;
  LoaderA la;
  LoaderB lb;
  if (SumA || SumB) {  // the interior fast path (Strassen tiles only)
    la.begin(pr.a, m0, tid);
    lb.begin(pr.b, n0, tid);
  }

  Scalar acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = Scalar(0);

  bool interior = false;  // the plain GEMM's interior loop (Shape::wide)
  if constexpr (LoaderA::INTERIOR) {
    // & (not &&): both loaders' setup runs either way, and the branch is one block-uniform test.
    interior = la.begin_interior(pr.a, m0, kt0, tid) & lb.begin_interior(pr.b, n0, kt0, tid);
  }

  bool fused_interior = false;  // wide Strassen tiles inside their operands along m and n
  if constexpr (LoaderA::STEP) fused_interior = la.seek(pr.a, kt0) & lb.seek(pr.b, kt0);

  if (interior) {
    tile_loop_interior<Scalar, TileShape>(pr, sh, th, la, lb, m0, n0, kt0, nk, acc);
  } else if (fused_interior) {
    tile_loop_fused_interior<Scalar, TileShape>(pr, sh, th, la, lb, m0, n0, kt0, nk, acc);
  } else {
    la.load(pr.a, m0, kt0 * BK, tid);
    lb.load(pr.b, n0, kt0 * BK, tid);
    la.store(pr.a, &sh.a[0][0][0], tid);
    lb.store(pr.b, &sh.b[0][0][0], tid);
    __syncthreads();

    Scalar fa[2][TM], fb[2][TN];  // fragment double buffer across kk
    for (int t = 0; t < nk; ++t) {
      const int cur = t & 1;
      const bool more = t + 1 < nk;
      th.frag(sh, cur, 0, fa[0], fb[0]);
      if (more) {  // next slab into registers; its latency hides behind the BK rank-1 updates below
        la.load(pr.a, m0, (kt0 + t + 1) * BK, tid);
        lb.load(pr.b, n0, (kt0 + t + 1) * BK, tid);
      }
      th.multiply(sh, cur, fa, fb, acc);
      if (more) {  // the other buffer was last read in iteration t-1, which ended with a barrier
        la.store(pr.a, &sh.a[cur ^ 1][0][0], tid);
        lb.store(pr.b, &sh.b[cur ^ 1][0][0], tid);
      }
      __syncthreads();
    }
  }

  th.template store<Epi>(bp, pr, m0, n0, acc);
}

// wide_async main loop: STAGES-deep ring. Plain operands are copied by cp.async STAGES - 1 slabs ahead (one
// commit group per slab, empty groups past the end keep the count uniform); summed operands (Strassen X + delta Y)
// keep the register-staged path: slab t + 1 is read into registers during slab t and stored into its ring slot
// after the math. One barrier per slab: at the end of slab t, after cp.async.wait_group(STAGES - 2) (this
// thread's copies of slab t + 1 have landed) and the register stores; it also frees slot t % STAGES, which the
// copies issued at the top of slab t + 1 (slab t + STAGES) overwrite.
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, bool SumA, bool SumB, class Epi>
__device__ __forceinline__ void tile_body_async(const Batch<Scalar>& bp, const Product<Scalar>& pr,
                                                SharedStorage<Scalar, TileShape>& sh, int tm, int tn, int kt0, int nk) {
  using C = TileConfig<Scalar, TileShape>;
  constexpr int BK = C::BK, TM = C::TM, TN = C::TN, Stages = C::STAGES;

  const int tid = threadIdx.x;
  const int m0 = tm * C::BM, n0 = tn * C::BN;
  const ThreadTile<Scalar, TileShape> th(tid);

  TileLoader<Scalar, TileShape, C::BM, TransposeA, SumA, SumA || SumB> la;  // register path (used only when SumA)
  TileLoader<Scalar, TileShape, C::BN, !TransposeB, SumB, SumA || SumB> lb;
  if (SumA) la.begin(pr.a, m0, tid);
  if (SumB) lb.begin(pr.b, n0, tid);
  using AA = AsyncLoader<Scalar, TileShape, C::BM, TransposeA>;
  using AB = AsyncLoader<Scalar, TileShape, C::BN, !TransposeB>;

  Scalar acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = Scalar(0);

  auto issue = [&](int slab) {  // cp.async of the plain operands of slab kt0 + `slab` (if it exists), one group
    if (slab < nk) {
      const int st = slab % Stages;
      if (!SumA) AA::issue(pr.a, &sh.a[st][0][0], m0, (kt0 + slab) * BK, tid);
      if (!SumB) AB::issue(pr.b, &sh.b[st][0][0], n0, (kt0 + slab) * BK, tid);
    }
    cp_async_commit();
  };

#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) issue(s);
  if (SumA) {
    la.load(pr.a, m0, kt0 * BK, tid);
    la.store(pr.a, &sh.a[0][0][0], tid);
  }
  if (SumB) {
    lb.load(pr.b, n0, kt0 * BK, tid);
    lb.store(pr.b, &sh.b[0][0][0], tid);
  }
  cp_async_wait<Stages - 2>();
  __syncthreads();

  Scalar fa[2][TM], fb[2][TN];
  int cur = 0;
  for (int t = 0; t < nk; ++t) {
    const bool more = t + 1 < nk;
    issue(t + Stages - 1);  // into slot (t - 1) % Stages, last read in slab t - 1 (ended by the barrier)
    th.frag(sh, cur, 0, fa[0], fb[0]);
    if (more) {
      if (SumA) la.load(pr.a, m0, (kt0 + t + 1) * BK, tid);
      if (SumB) lb.load(pr.b, n0, (kt0 + t + 1) * BK, tid);
    }
    th.multiply(sh, cur, fa, fb, acc);
    const int nxt = cur + 1 == Stages ? 0 : cur + 1;
    if (more) {  // slot (t + 1) % Stages was last read in slab t + 1 - Stages <= t - 2
      if (SumA) la.store(pr.a, &sh.a[nxt][0][0], tid);
      if (SumB) lb.store(pr.b, &sh.b[nxt][0][0], tid);
    }
    cp_async_wait<Stages - 2>();
    __syncthreads();
    cur = nxt;
  }
  cp_async_wait<0>();  // only empty groups can remain; drain before exit anyway

  th.template store<Epi>(bp, pr, m0, n0, acc);
}

// The main loop a shape runs.
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, bool SumA, bool SumB, class Epi>
__device__ __forceinline__ void tile_run(const Batch<Scalar>& bp, const Product<Scalar>& pr,
                                         SharedStorage<Scalar, TileShape>& sh, int tm, int tn, int kt0, int nk) {
  if constexpr (TileShape == Shape::wide_async)
    tile_body_async<Scalar, TileShape, TransposeA, TransposeB, SumA, SumB, Epi>(bp, pr, sh, tm, tn, kt0, nk);
  else
    tile_body<Scalar, TileShape, TransposeA, TransposeB, SumA, SumB, Epi>(bp, pr, sh, tm, tn, kt0, nk);
}

// Grouped block order: GROUP tile rows are swept column by column, so consecutive blocks share B slabs and
// a GROUP-tall band of A stays in L2.
__device__ __forceinline__ void tile_coords(int pid, int tiles_m, int tiles_n, int* tm, int* tn) {
  constexpr int GROUP = 8;
  const int per_group = GROUP * tiles_n;
  const int g = pid / per_group;
  const int first = g * GROUP;
  const int rows = min(tiles_m - first, GROUP);
  const int in = pid - g * per_group;
  *tm = first + in % rows;
  *tn = in / rows;
}

// Classical GEMM: one product (z[0]), plain loaders, classical epilogue.
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB>
__global__ void __launch_bounds__(Derived<Scalar, TileShape>::THREADS, TileConfig<Scalar, TileShape>::MIN_BLOCKS)
    gemm_kernel(const __grid_constant__ Batch<Scalar> bp) {
  __shared__ SharedStorage<Scalar, TileShape> sh;
  int tm, tn;
  tile_coords(blockIdx.x, bp.tiles_m, bp.tiles_n, &tm, &tn);
  tile_run<Scalar, TileShape, TransposeA, TransposeB, false, false, ClassicalEpilogue>(
      bp, bp.z[0], sh, tm, tn, 0, (bp.k + TileConfig<Scalar, TileShape>::BK - 1) / TileConfig<Scalar, TileShape>::BK);
}

// One Strassen tile (or a k range of it): the variant (which operands are sums) is uniform per tile and each
// variant is its own compile-time body, so single-operand loads carry no dead registers or branches.
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, class Epi>
__device__ __forceinline__ void strassen_tile(const Batch<Scalar>& bp, const Product<Scalar>& pr,
                                              SharedStorage<Scalar, TileShape>& sh, int tm, int tn, int kt0, int nk) {
  if (pr.a.y != nullptr && pr.b.y != nullptr)
    tile_run<Scalar, TileShape, TransposeA, TransposeB, true, true, Epi>(bp, pr, sh, tm, tn, kt0, nk);
  else if (pr.a.y != nullptr)
    tile_run<Scalar, TileShape, TransposeA, TransposeB, true, false, Epi>(bp, pr, sh, tm, tn, kt0, nk);
  else  // every Strassen product sums at least one operand
    tile_run<Scalar, TileShape, TransposeA, TransposeB, false, true, Epi>(bp, pr, sh, tm, tn, kt0, nk);
}

// Fused Strassen: blockIdx.z picks the product, blockIdx.y the k slice (bp.slice_slabs slabs; the partial products
// of the slices meet in the epilogue's atomics, as the 7 products do). All 7 products go out in one launch (the
// paper batches per variant on 4 streams; one grid does the same without streams or events).
// Sliced: the launch has k slices (gridDim.y > 1); selects the 16-byte-atomic epilogue (FP32).
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, bool Sliced>
__global__ void __launch_bounds__(Derived<Scalar, TileShape>::THREADS,
                                  TileConfig<Scalar, TileShape>::STRASSEN_MIN_BLOCKS)
    strassen_kernel(const __grid_constant__ Batch<Scalar> bp) {
  using Epi = StrassenEpilogue<Sliced && std::is_same<Scalar, float>::value>;
  __shared__ SharedStorage<Scalar, TileShape> sh;
  int tm, tn;
  tile_coords(blockIdx.x, bp.tiles_m, bp.tiles_n, &tm, &tn);
  const Product<Scalar>& pr = bp.z[blockIdx.z];
  const int kt0 = blockIdx.y * bp.slice_slabs;
  const int nk = min(bp.slice_slabs,
                     (bp.k + TileConfig<Scalar, TileShape>::BK - 1) / TileConfig<Scalar, TileShape>::BK - kt0);  // >= 1
  strassen_tile<Scalar, TileShape, TransposeA, TransposeB, Epi>(bp, pr, sh, tm, tn, kt0, nk);
}

// Fused Strassen, stream-K part (Osama et al., "Stream-K", PPoPP 2023): the tiles sk_tile0 .. tiles - 1 of the
// products in linear order (product-major), each BK-slab of a tile one iteration, cut into gridDim.x equal runs
// (one per resident block); a run crosses tile boundaries and adds each partial tile through the epilogue's atomics
// (as k slices do).
// The launch runs it after strassen_kernel has computed tiles 0 .. sk_tile0 - 1 in whole waves (or alone, sk_tile0
// = 0), so the partial last wave, where most SMs would idle, becomes work spread evenly over all of them. It is a
// kernel of its own because the loop over runs changes nvcc's schedule of the main loop: with every tile of a launch
// in it, the main loop ran a few percent slower than strassen_kernel. Vec4: 16-byte atomics (FP32).
template <class Scalar, Shape TileShape, bool TransposeA, bool TransposeB, bool Vec4>
__global__ void __launch_bounds__(Derived<Scalar, TileShape>::THREADS,
                                  TileConfig<Scalar, TileShape>::STRASSEN_MIN_BLOCKS)
    strassen_stream_k_kernel(const __grid_constant__ Batch<Scalar> bp) {
  using Epi = StrassenEpilogue<Vec4 && std::is_same<Scalar, float>::value>;
  __shared__ SharedStorage<Scalar, TileShape> sh;
  const int slabs = (bp.k + TileConfig<Scalar, TileShape>::BK - 1) / TileConfig<Scalar, TileShape>::BK;
  const int per_z = bp.tiles_m * bp.tiles_n - bp.sk_tile0;  // stream-K tiles per product
  const std::int64_t n = std::int64_t(per_z) * kMaxProducts * slabs;
  std::int64_t it = n * blockIdx.x / gridDim.x;  // this block's iterations [it, end)
  const std::int64_t end = n * (blockIdx.x + 1) / gridDim.x;
  while (it < end) {  // the loops of tile_run end with a barrier, so the next run may refill the shared slabs
    const int lin = int(it / slabs);
    const int kt0 = int(it - std::int64_t(lin) * slabs);
    const int nk = int(min(std::int64_t(slabs - kt0), end - it));
    const int z = lin / per_z;
    int tm, tn;
    tile_coords(bp.sk_tile0 + lin - z * per_z, bp.tiles_m, bp.tiles_n, &tm, &tn);
    strassen_tile<Scalar, TileShape, TransposeA, TransposeB, Epi>(bp, bp.z[z], sh, tm, tn, kt0, nk);
    it += nk;
  }
}

// C = beta * C on an m x n submatrix; beta == 0 writes zeros without reading (NaN must not spread).
template <class Scalar>
__global__ void scale_kernel(int m, int n, Scalar beta, Scalar* __restrict__ C, std::int64_t ldc) {
  for (int j = blockIdx.y; j < n; j += gridDim.y) {
    Scalar* col = C + j * ldc;
    for (std::int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
      col[i] = beta == Scalar(0) ? Scalar(0) : beta * col[i];
  }
}

// ---- host side -------------------------------------------------------------------------------------------

// Which shape a call runs. requested (the call's simt_tile argument / StrassenConfig::simt_tile): 1 classic,
// 2 wide, 3 wide_async, anything else = not chosen; then the process-wide setting (set_simt_tile), then the
// built-in default. FP64 always runs classic.
// Built-in FP32 default: wide (kDefaultShapeF32), measured faster than classic for simt_gemm, fused 1L and hybrid 2L
// at 8192 on an H100 (docs/strassen.md); wide_async measured slower (see its TileConfig). Confirm on other GPUs with
// the bench rows ..._classic / ..._wide.
// (Tried and dropped: storing the next slab and taking the barrier before the last depth step, so the next
// slab's first fragment read overlaps the last rank-1 update: slower for both shapes, and classic spilled.)
constexpr Shape kDefaultShapeF32 = Shape::wide;

inline bool valid_shape(int t) {
  return t == int(Shape::classic) || t == int(Shape::wide) || t == int(Shape::wide_async);
}

inline std::atomic<int>& process_shape() {
  static std::atomic<int> v{0};
  return v;
}

template <class Scalar>
inline Shape resolve_shape(int requested) {
  if (!std::is_same<Scalar, float>::value) return Shape::classic;
  if (valid_shape(requested)) return Shape(requested);
  const int p = process_shape().load(std::memory_order_relaxed);
  if (valid_shape(p)) return Shape(p);
  return kDefaultShapeF32;
}

// 'N' -> 0, 'T' / 'C' -> 1 (real types), anything else -> -1.
inline int parse_op(char t) {
  if (t == 'N' || t == 'n') return 0;
  if (t == 'T' || t == 't' || t == 'C' || t == 'c') return 1;
  return -1;
}

// BLAS argument rules plus this engine's int extents. 0 = fine.
inline cudaError_t check_args(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                              std::int64_t ldb, std::int64_t ldc) {
  if (ta < 0 || tb < 0 || m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  auto mx1 = [](std::int64_t v) { return v > 1 ? v : std::int64_t(1); };
  if (lda < mx1(ta ? k : m) || ldb < mx1(tb ? n : k) || ldc < mx1(m)) return cudaErrorInvalidValue;
  const std::int64_t lim = INT_MAX - 256;  // tile origins plus in-tile offsets stay in int
  if (m > lim || n > lim || k > lim) return cudaErrorNotSupported;
  return cudaSuccess;
}

template <class Scalar>
inline bool aligned16(const Scalar* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

// Quadrant pair of op(M) (rows x cols in op terms, at op offsets (r0, c0) for X and (r1, c1) for Y) as an
// Operand in storage terms. trans: M is stored transposed (element (r, c) of op(M) at M[c + r * ld]).
template <class Scalar>
inline Operand<Scalar> make_operand(const Scalar* M, std::int64_t ld, bool trans, std::int64_t r0, std::int64_t c0,
                               std::int64_t xr, std::int64_t xcn, bool has_y, std::int64_t r1, std::int64_t c1,
                               std::int64_t yr, std::int64_t ycn, Scalar delta) {
  Operand<Scalar> o{};
  auto at = [&](std::int64_t r, std::int64_t c) { return trans ? M + c + r * ld : M + r + c * ld; };
  o.ld = ld;
  o.x = at(r0, c0);
  o.xc = int(trans ? xcn : xr);
  o.xs = int(trans ? xr : xcn);
  o.y = has_y ? at(r1, c1) : nullptr;
  o.yc = has_y ? int(trans ? ycn : yr) : 0;
  o.ys = has_y ? int(trans ? yr : ycn) : 0;
  o.delta = delta;
  constexpr int V = Vec<Scalar>::n;
  o.vec = (ld % V == 0) && aligned16(o.x) && (!has_y || aligned16(o.y));
  return o;
}

template <class Scalar>
inline cudaError_t launch_scale(cudaStream_t s, std::int64_t m, std::int64_t n, Scalar beta, Scalar* C,
                                std::int64_t ldc) {
  if (m == 0 || n == 0 || beta == Scalar(1)) return cudaSuccess;
  const int threads = 256;
  const std::int64_t bx = (m + threads - 1) / threads;
  dim3 grid(unsigned(bx < 64 ? bx : 64), unsigned(n < 32768 ? n : 32768));
  scale_kernel<Scalar><<<grid, threads, 0, s>>>(int(m), int(n), beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace gemm_tile
}  // namespace cuda
}  // namespace kbla
