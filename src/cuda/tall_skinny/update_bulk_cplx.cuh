// Bulk-copy TSMM for kbla::update with alpha C in shared memory: B = alpha A C (beta = 0) for complex double at
// widths up to 64, row-major or column-major A and B, on Hopper's bulk-copy engine (cp.async.bulk, sm_90). A: K x M,
// B: K x N, C: M x N (either layout). Loader, compute and storer warps meet at mbarriers, one block per SM. The
// dispatch (tsmm_bulk_cplx_try) tries it before every other A C kernel for the KBLA_TSMM_BULK_ZC rows: complex
// row-major 34-48 and 49-64 in both layouts, from 2^18 rows (2^19 at width 64). No Kokkos.

// Why: update_bulk.cuh keeps alpha*C as B fragments in registers, 2 W / 8 doubles per lane and 16-column group. At the
// complex class of widths 49-64 (W 128 in the real view) that is 128 registers: its W 128 row spilled and lost under
// sustained load at the power cap, and update_dmma.cuh's W 128 row moves one block of 8 warps per SM together from
// barrier to barrier.
// Here alpha*C sits in shared memory as complex numbers (64 KB at 64 x 64) and the real view is folded into the
// n-tiles instead of the data: a warp's output n-tiles come in pairs over the same 8 complex columns q0 .. q0 + 7, one
// tile of real parts and one of imaginary parts. For A element p = 4 ks + t (k = t its real part, k = t + 4 its
// imaginary part) and column q = q0 + g, the real tile's B fragment is (Re c, -Im c) and the imaginary tile's (Im c,
// Re c), c = alpha C[p][q]: one 16-byte shared load feeds two mma (one sign flip). Per mma the warp reads
// 512 / TilePairs + 256 / TilesPerWarp bytes of fragments (A: 1 KB per 16-row tile and k-step, C: 512 B per pair). The
// rows in KBLA_TSMM_BULK_ZC take TilePairs = 1, TilesPerWarp = 3 (597 bytes) for 8 compute warps: fewer warps with
// fewer bytes per mma (TilePairs = 2: 4 warps, 384 bytes) could not keep the tensor pipe busy (see
// tall_skinny_params.hpp).
// - warp 0 (loader): one cp.async.bulk per column (column-major) or per row (row-major) of a chunk of R rows, counted
//   on the stage's mbarrier by bytes; warp 1 (storer): one cp.async.bulk per output column or row; warps 2.. compute.
//   As in update_bulk.cuh they meet only at mbarriers; every thread arrives for its own accesses.
// - Strides (doubles) keep the 16-byte accesses of each quarter-warp on distinct banks: stage column stride 2 R + 4
//   (32 mod 128 bytes) or row stride 2 Columns + 8 (64 mod 128); output buffers 2 R + 2 / 2 Columns + 2 (16 mod 128),
//   since the output writes step two columns at a time.
// - Only whole chunks (K / R of them, grid-stride over one block per SM in runs of ChunksPerRun); the launcher hands
//   the last K mod R rows back to the other kernels. A chunk's rows are read completely before they are written and
//   belong to one block, so B == A (in place, same ld) is safe.
#pragma once
#include <cstdint>

#include "common/bulk_copy.cuh"    // mbarriers, cp.async.bulk
#include "tall_skinny_common.cuh"  // env switches, sm_count, current_device
#include "update_kernel.cuh"       // TsmmArgs
#include "inner_dmma.cuh"          // dmma16

namespace kbla {
namespace cuda {
namespace detail {

struct TsmmBulkCplxArgs {
  const double* A;  // interleaved re, im; lda, ldb, ldc in complex elements
  double* B;
  const double* C;
  std::int64_t lda, ldb, ldc;
  bool crow;            // C row-major
  std::int64_t chunks;  // whole chunks of R rows
  int M, N;
  double alpha, alpha_im;
};

// Columns complex columns (class width), ChunkRows (R) rows per chunk, Stages pipeline stages of A, TilePairs pairs of
// n-tiles (8 complex columns each) and TilesPerWarp 16-row tiles per compute warp, WarpRows warps along the rows of a
// chunk (R = 16 WarpRows TilesPerWarp), RowMajor: row-major A and B.
template <int Columns, int ChunkRows, int Stages, int TilePairs, int TilesPerWarp, int WarpRows, bool RowMajor>
struct TsmmBulkCplxShape {
  static constexpr int CG = Columns / (8 * TilePairs);  // column groups
  static constexpr int NCW = CG * WarpRows;             // compute warps
  static constexpr int BT = 32 * (NCW + 2);   // + loader + storer
  static constexpr int KS = Columns / 4;      // k-steps (4 complex elements of A each)
  // stage / output strides in doubles: per column (column-major) or per row (row-major)
  static constexpr int LDS = RowMajor ? 2 * Columns + 8 : 2 * ChunkRows + 4;
  static constexpr int LDO = RowMajor ? 2 * Columns + 2 : 2 * ChunkRows + 2;
  static constexpr int NS = RowMajor ? ChunkRows : Columns;  // strided lines per stage / output buffer
  static constexpr std::size_t stage_bytes = std::size_t(NS) * LDS * sizeof(double);
  static constexpr std::size_t out_bytes = std::size_t(NS) * LDO * sizeof(double);
  static constexpr std::size_t c_bytes = std::size_t(Columns) * Columns * 2 * sizeof(double);
  static constexpr std::size_t bars = 64;  // full[Stages], empty[Stages], out_full, out_free
  static constexpr std::size_t smem = bars + c_bytes + Stages * stage_bytes + out_bytes;
  static_assert(Columns % (8 * TilePairs) == 0 && ChunkRows == 16 * WarpRows * TilesPerWarp && ChunkRows % 8 == 0 &&
                    8 * (2 * Stages + 2) <= int(bars),
                "bad complex bulk TSMM shape");
};

template <int Columns, int ChunkRows, int Stages, int TilePairs, int TilesPerWarp, int WarpRows, int ChunksPerRun,
          bool RowMajor>
__global__ void __launch_bounds__(
    TsmmBulkCplxShape<Columns, ChunkRows, Stages, TilePairs, TilesPerWarp, WarpRows, RowMajor>::BT, 1)
    tsmm_bulk_cplx_kernel(const TsmmBulkCplxArgs p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Sh = TsmmBulkCplxShape<Columns, ChunkRows, Stages, TilePairs, TilesPerWarp, WarpRows, RowMajor>;
  constexpr int LDS = Sh::LDS, LDO = Sh::LDO;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const unsigned bar0 = smem_addr(smem_raw);
  double2* const cs = reinterpret_cast<double2*>(smem_raw + Sh::bars);  // alpha C: [KS][Columns][4] complex
  double* const stages = reinterpret_cast<double*>(smem_raw + Sh::bars + Sh::c_bytes);
  double* const out = stages + Stages * (Sh::stage_bytes / sizeof(double));
  auto full = [&](int s) { return bar0 + 8u * unsigned(s); };
  auto empty = [&](int s) { return bar0 + 8u * unsigned(Stages + s); };
  const unsigned out_full = bar0 + 8u * unsigned(2 * Stages), out_free = out_full + 8u;
  // element (row r, column c) of a stage / the output buffer, in doubles
  auto at_s = [](int r, int c) { return RowMajor ? r * LDS + 2 * c : c * LDS + 2 * r; };
  auto at_o = [](int r, int c) { return RowMajor ? r * LDO + 2 * c : c * LDO + 2 * r; };
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  if (tid == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbar_init(full(s), 1);             // the loader's expect_tx; the bytes complete it
      mbar_init(empty(s), 32 * Sh::NCW);
    }
    mbar_init(out_full, 32 * Sh::NCW);
    mbar_init(out_free, 32);
    fence_mbarrier_init();
  }
  // alpha C, zero past M and N; stage columns M .. up to the k-step block stay zero (0 * garbage could be NaN)
  for (int e = tid; e < Columns * Columns; e += blockDim.x) {  // consecutive threads along C's contiguous direction
    const int k = p.crow ? e / Columns : e % Columns, q = p.crow ? e % Columns : e / Columns;
    double2 v = make_double2(0.0, 0.0);
    if (k < p.M && q < p.N) {
      const std::int64_t i = p.crow ? std::int64_t(k) * p.ldc + q : k + std::int64_t(q) * p.ldc;
      const double cr = p.C[2 * i], ci = p.C[2 * i + 1];
      v = make_double2(p.alpha * cr - p.alpha_im * ci, p.alpha * ci + p.alpha_im * cr);
    }
    cs[((k >> 2) * Columns + q) * 4 + (k & 3)] = v;
  }
  const int Mp = (p.M + 3) / 4 * 4;
  for (int s = 0; s < Stages; ++s)
    for (int e = tid; e < (Mp - p.M) * ChunkRows; e += blockDim.x) {
      double* d = stages + s * (Sh::stage_bytes / sizeof(double)) + at_s(e % ChunkRows, p.M + e / ChunkRows);
      d[0] = d[1] = 0.0;
    }
  __syncthreads();

  const BulkRuns<ChunkRows, ChunksPerRun> chunks(p.chunks);  // this block's chunks
  const std::int64_t my = chunks.count();
  auto row0 = [&](std::int64_t i) { return chunks.row0(i); };

  if (warp == 0) {  // ---- loader ----
    const unsigned tx = unsigned(p.M) * ChunkRows * 16u;
    for (std::int64_t i = 0; i < my; ++i) {
      const int s = int(i % Stages);
      if (i >= Stages) mbar_wait(empty(s), unsigned((i / Stages - 1) & 1));
      const std::int64_t r0 = row0(i);
      double* const st = stages + s * (Sh::stage_bytes / sizeof(double));
      if (lane == 0) mbar_arrive_expect_tx(full(s), tx);
      __syncwarp();
      if constexpr (RowMajor) {
        for (int r = lane; r < ChunkRows; r += 32)
          bulk_to_shared(smem_addr(st + at_s(r, 0)), p.A + 2 * (r0 + r) * p.lda, unsigned(p.M) * 16u, full(s));
      } else {
        for (int c = lane; c < p.M; c += 32)
          bulk_to_shared(smem_addr(st + at_s(0, c)), p.A + 2 * (std::int64_t(c) * p.lda + r0), ChunkRows * 16u,
                         full(s));
      }
    }
  } else if (warp == 1) {  // ---- storer ----
    for (std::int64_t i = 0; i < my; ++i) {
      mbar_wait(out_full, unsigned(i & 1));
      const std::int64_t r0 = row0(i);
      if constexpr (RowMajor) {
        for (int r = lane; r < ChunkRows; r += 32)
          bulk_to_global(p.B + 2 * (r0 + r) * p.ldb, smem_addr(out + at_o(r, 0)), unsigned(p.N) * 16u);
      } else {
        for (int n = lane; n < p.N; n += 32)
          bulk_to_global(p.B + 2 * (std::int64_t(n) * p.ldb + r0), smem_addr(out + at_o(0, n)), ChunkRows * 16u);
      }
      bulk_commit();
      bulk_wait_read<0>();  // the buffer has been read by this lane's copies: give it back
      mbar_arrive(out_free);
    }
    bulk_wait<0>();
  } else {  // ---- compute ----
    const int cw = warp - 2, cg = cw % Sh::CG, rs = cw / Sh::CG;
    const int g = lane >> 2, t = lane & 3, q0 = 8 * TilePairs * cg;
    const int kmax = (p.M + 3) / 4;  // k-steps holding columns of A
    int np = 0;                      // pairs holding output columns
#pragma unroll
    for (int j = 0; j < TilePairs; ++j) np += q0 + 8 * j < p.N ? 1 : 0;
    for (std::int64_t i = 0; i < my; ++i) {
      const int s = int(i % Stages);
      mbar_wait(full(s), unsigned((i / Stages) & 1));
      const double* const st = stages + s * (Sh::stage_bytes / sizeof(double));
      double acc[TilesPerWarp][TilePairs][2][2]
                [2];  // [row tile][pair][re / im tile][rows g / g + 8][columns 2t / 2t + 1]
#pragma unroll
      for (int u = 0; u < TilesPerWarp; ++u)
#pragma unroll
        for (int j = 0; j < TilePairs; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            acc[u][j][h][0][0] = acc[u][j][h][0][1] = acc[u][j][h][1][0] = acc[u][j][h][1][1] = 0.0;
      if (np > 0) {
#pragma unroll 4
        for (int ks = 0; ks < kmax; ++ks) {
          double a[TilesPerWarp][4];
#pragma unroll
          for (int u = 0; u < TilesPerWarp; ++u) {  // element 4 ks + t of rows r, r + 8: (re, im) = (k = t, k = t + 4)
            const int r = 16 * (rs + u * WarpRows) + g;
            const double2 x = *reinterpret_cast<const double2*>(st + at_s(r, 4 * ks + t));
            const double2 y = *reinterpret_cast<const double2*>(st + at_s(r + 8, 4 * ks + t));
            a[u][0] = x.x, a[u][2] = x.y, a[u][1] = y.x, a[u][3] = y.y;
          }
#pragma unroll
          for (int j = 0; j < TilePairs; ++j) {
            if (j >= np) break;
            const double2 c = cs[(ks * Columns + q0 + 8 * j + g) * 4 + t];
#pragma unroll
            for (int u = 0; u < TilesPerWarp; ++u) {
              dmma16(acc[u][j][0][0], acc[u][j][0][1], a[u][0], a[u][1], a[u][2], a[u][3], c.x, -c.y);
              dmma16(acc[u][j][1][0], acc[u][j][1][1], a[u][0], a[u][1], a[u][2], a[u][3], c.y, c.x);
            }
          }
        }
      }
      mbar_arrive(empty(s));
      if (i >= 1) mbar_wait(out_free, unsigned((i - 1) & 1));
      if (np > 0) {
#pragma unroll
        for (int u = 0; u < TilesPerWarp; ++u)
#pragma unroll
          for (int j = 0; j < TilePairs; ++j) {
            if (j >= np) break;
            const int r = 16 * (rs + u * WarpRows) + g, q = q0 + 8 * j + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; ++h) {  // rows r, r + 8; columns q, q + 1 as (re tile, im tile)
              *reinterpret_cast<double2*>(out + at_o(r + 8 * h, q)) =
                  make_double2(acc[u][j][0][h][0], acc[u][j][1][h][0]);
              *reinterpret_cast<double2*>(out + at_o(r + 8 * h, q + 1)) =
                  make_double2(acc[u][j][0][h][1], acc[u][j][1][h][1]);
            }
          }
      }
      fence_proxy_async_shared();
      mbar_arrive(out_full);
    }
  }
#endif
}

// Complex double, beta == 0, M and N <= Columns, A and B both row-major (RowMajor) or both column-major: runs the whole
// chunks of R rows of `a` and leaves `a` holding the last K mod R rows (K = 0 when none are left) for the caller's
// other kernels; cudaErrorNotSupported (nothing run, `a` unchanged) when the device is older than sm_90, lacks the
// shared memory, or there is no whole chunk.
template <int Columns, int ChunkRows, int Stages, int TilePairs, int TilesPerWarp, int WarpRows, int ChunksPerRun,
          bool RowMajor>
cudaError_t launch_tsmm_bulk_cplx(TsmmArgs<double, true>& a, cudaStream_t stream) {
  using Sh = TsmmBulkCplxShape<Columns, ChunkRows, Stages, TilePairs, TilesPerWarp, WarpRows, RowMajor>;
  const std::int64_t chunks = a.K / ChunkRows;
  if (chunks < 1 || a.M > Columns || a.N > Columns) return cudaErrorNotSupported;
  static int ready[kMaxDevices] = {0};
  const cudaError_t ok = bulk_kernel_ready(
      tsmm_bulk_cplx_kernel<Columns, ChunkRows, Stages, TilePairs, TilesPerWarp, WarpRows, ChunksPerRun, RowMajor>,
      Sh::smem, ready);
  if (ok != cudaSuccess) return ok;
  TsmmBulkCplxArgs p{};
  p.A = reinterpret_cast<const double*>(a.A);
  p.B = reinterpret_cast<double*>(a.B);
  p.C = reinterpret_cast<const double*>(a.C);
  p.lda = RowMajor ? a.ask : a.asm_;
  p.ldb = RowMajor ? a.bsk : a.bsn;
  p.ldc = a.ldc;
  p.crow = a.crow;
  p.chunks = chunks;
  p.M = a.M;
  p.N = a.N;
  p.alpha = a.alpha.re;
  p.alpha_im = a.alpha.im;
  const std::int64_t gx = std::min<std::int64_t>((chunks + ChunksPerRun - 1) / ChunksPerRun, sm_count());
  tsmm_bulk_cplx_kernel<Columns, ChunkRows, Stages, TilePairs, TilesPerWarp, WarpRows, ChunksPerRun, RowMajor>
      <<<unsigned(gx), Sh::BT, Sh::smem, stream>>>(p);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const std::int64_t done = chunks * ChunkRows;
  a.A += done * a.ask;
  a.B += done * a.bsk;
  a.K -= done;
  return cudaSuccess;
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
