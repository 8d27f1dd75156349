// Row loop of the SIMT TSMTTSM kernel (kbla::inner, C = alpha * A^H * B + beta * C; inner_kernel.cuh) fed by
// warp-private cp.async rings: each warp streams 32-row chunks of A and B through its own shared-memory stages, with
// no block-wide barrier in the loop. launch_tsmttsm_square takes it for double with one thread per row (row-major
// widths 4-8, column-major 3, 5 and 8) when the operands are larger than the L2. No Kokkos in here.

// Why: with one thread per row and the next row in registers (leap-frogging), the narrow kernels keep only ~64 bytes
// per thread in flight, and their registers (D 4 x 4: 98) cap them at 2 blocks of 256 threads per SM: ~32 KB per SM,
// less than the memory system needs near its peak. Here each warp streams 32-row chunks of A and B through Stages
// pipeline stages of its own shared memory by cp.async, so Stages - 1 chunks per warp are in flight without holding
// registers, and no block-wide barrier sits in the loop (a warp only waits for its own copies). One block of 8 warps
// per SM.
//
// Lane l copies 16-byte pieces l, l + 32, ... of the chunk (coalesced), then reads row l from shared memory. A chunk
// of a row-major operand is one contiguous run (ld == width); of a column-major one, one 32-element run per column
// (ld * sizeof(E) a multiple of 16). Rows past K are zero in shared memory, so the FMAs need no row test.
#pragma once
#include <cstdint>

#include "tall_skinny_common.cuh"

namespace kbla {
namespace cuda {
namespace detail {

// Stage layout of one warp: A's chunk (room for ThreadTileM columns), then B's (ThreadTileN columns), in 16-byte
// pieces.
template <class Element, int ThreadTileM, int ThreadTileN>
struct TsmttsmRingStage {
  static constexpr int PA = 32 * ThreadTileM * int(sizeof(Element)) / 16,
                       PB = 32 * ThreadTileN * int(sizeof(Element)) / 16;
  static constexpr int PIECES = PA + PB;
  static constexpr int BYTES = 16 * PIECES;
};

// One operand's chunk c (rows 32 c .. 32 c + 31, Width columns) into the stage region `dst`, by the 32 lanes of a warp.
// Whole chunks take compile-time piece counts and one address per lane and column step (the loop is issue-bound at
// one block of 8 warps per SM: run-time widths and per-piece bounds issued ~2x the instructions and fell well short
// of the DRAM peak). The last, partial chunk checks each piece
// (cp_async_pair: the last piece of an odd run of doubles by 8 bytes, pieces past the end zero).
template <class Element, int Width, bool ColumnMajor>
__device__ __forceinline__ void ring_copy_chunk(uint4* dst, const Element* base, std::int64_t c, std::int64_t K,
                                                std::int64_t ld, int lane) {
  constexpr int EB = int(sizeof(Element));
  const bool whole = (c + 1) * 32 <= K;
  if constexpr (!ColumnMajor) {  // one run of 32 W elements starting at row 32 c (ld == W)
    constexpr int P = 2 * Width * EB;  // 32 W EB / 16 pieces
    const char* src = reinterpret_cast<const char*>(base + c * 32 * Width);
    if (whole) {
#pragma unroll
      for (int t = 0; t < (P + 31) / 32; ++t) {
        const int q = lane + 32 * t;
        if (P % 32 == 0 || q < P) cp_async16(dst + q, src + 16 * q, 16);
      }
      return;
    }
    const std::int64_t left = (K - c * 32) * Width * EB;  // bytes from the chunk start to the end of the operand
    for (int q = lane; q < P; q += 32) {
      const std::int64_t rest = left - 16 * std::int64_t(q);
      cp_async_pair(dst + q, rest > 0 ? src + 16 * q : src, rest >= 16 ? 16 : rest > 0 ? 8 : 0);
    }
  } else {  // W runs of 32 elements, column j at base + j ld + 32 c
    constexpr int PC = 2 * EB;  // pieces per column (32 EB / 16)
    constexpr int EP = 16 / EB;  // elements per piece
    constexpr int CPW = 32 / PC;  // columns a warp covers per step (D 2, Z 1)
    const int j0 = lane / PC, t0 = lane % PC;
    const Element* src = base + j0 * ld + c * 32 + t0 * EP;
    if (whole) {
#pragma unroll
      for (int t = 0; t < (Width + CPW - 1) / CPW; ++t) {
        if (Width % CPW == 0 || j0 + CPW * t < Width) cp_async16(dst + lane + 32 * t, src + CPW * t * ld, 16);
      }
      return;
    }
    const std::int64_t left = (K - c * 32 - t0 * EP) * EB;  // bytes left in a column from this lane's piece on
#pragma unroll
    for (int t = 0; t < (Width + CPW - 1) / CPW; ++t) {
      if (Width % CPW != 0 && j0 + CPW * t >= Width) continue;
      cp_async_pair(dst + lane + 32 * t, left > 0 ? src + CPW * t * ld : base, left >= 16 ? 16 : left > 0 ? 8 : 0);
    }
  }
}

// Row `lane` of a stage region into v (Width elements): row-major rows are Width consecutive elements, column-major
// columns 32 elements apart. 16-byte loads where a row is a whole number of 16-byte pieces.
template <class Element, int Width, bool ColumnMajor>
__device__ __forceinline__ void ring_read_row(const uint4* region, int lane, Element (&v)[Width]) {
  const Element* s = reinterpret_cast<const Element*>(region);
  if constexpr (ColumnMajor) {
#pragma unroll
    for (int i = 0; i < Width; ++i) v[i] = s[i * 32 + lane];
  } else if constexpr ((Width * sizeof(Element)) % 16 == 0) {
    constexpr int PR = int(Width * sizeof(Element) / 16);  // pieces per row
    constexpr int EP = int(16 / sizeof(Element));
#pragma unroll
    for (int t = 0; t < PR; ++t) {
      const uint4 u = region[lane * PR + t];
      const Element* e = reinterpret_cast<const Element*>(&u);
#pragma unroll
      for (int q = 0; q < EP; ++q) v[t * EP + q] = e[q];
    }
  } else {
#pragma unroll
    for (int i = 0; i < Width; ++i) v[i] = s[lane * Width + i];
  }
}

// acc[i][j] += conj(A(k, i)) * B(k, j) over the rows k of the warp chunks gw, gw + nw, gw + 2 nw, ... (A: K x
// ThreadTileM, B: K x ThreadTileN, exactly). `ring`: this warp's Stages pipeline stages. fma: the kernel's
// acc += conj(a) * b.
template <class Element, int ThreadTileM, int ThreadTileN, bool ColumnMajor, int Stages, class MultiplyAdd>
__device__ __forceinline__ void tsmttsm_ring_rows(Element (&acc)[ThreadTileM][ThreadTileN], uint4* ring,
                                                  const Element* A, const Element* B, std::int64_t K, std::int64_t lda,
                                                  std::int64_t ldb, std::int64_t gw, std::int64_t nw, int lane,
                                                  MultiplyAdd&& fma) {
  using St = TsmttsmRingStage<Element, ThreadTileM, ThreadTileN>;
  static_assert(Stages >= 2, "at least two stages");
  const std::int64_t nchunks = (K + 31) / 32;
  auto issue = [&](std::int64_t c, int s) {
    if (c < nchunks) {
      uint4* d = ring + s * St::PIECES;
      ring_copy_chunk<Element, ThreadTileM, ColumnMajor>(d, A, c, K, lda, lane);
      ring_copy_chunk<Element, ThreadTileN, ColumnMajor>(d + St::PA, B, c, K, ldb, lane);
    }
    cp_async_commit();  // empty groups too: the wait below counts groups
  };
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) issue(gw + s * nw, s);
  int s = 0;
  for (std::int64_t c = gw; c < nchunks; c += nw) {
    issue(c + (Stages - 1) * nw, s == 0 ? Stages - 1 : s - 1);  // into the stage read in the previous step
    cp_async_wait<Stages - 1>();                              // chunk c has landed (this lane's copies)
    __syncwarp();                                         // ... and the other lanes'
    Element a[ThreadTileM], b[ThreadTileN];
    ring_read_row<Element, ThreadTileM, ColumnMajor>(ring + s * St::PIECES, lane, a);
    ring_read_row<Element, ThreadTileN, ColumnMajor>(ring + s * St::PIECES + St::PA, lane, b);
#pragma unroll
    for (int i = 0; i < ThreadTileM; ++i)
#pragma unroll
      for (int j = 0; j < ThreadTileN; ++j) fma(acc[i][j], a[i], b[j]);
    __syncwarp();  // every lane has read stage s before it is refilled
    s = s + 1 == Stages ? 0 : s + 1;
  }
  cp_async_wait<0>();
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
