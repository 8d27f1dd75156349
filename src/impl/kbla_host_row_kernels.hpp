// Host kernels of the portable kbla::inner / kbla::update that read row-major operands in place, without packing.
// At narrow widths a row of A (M scalars) and of B (N scalars) is a short contiguous run, so consecutive rows are
// one stream per operand: the kernels walk the rows, keep the tile of accumulators in registers and vectorise
// along a row (the compiler does, from the compile-time tile extents).
// Complex data are read as their interleaved real and imaginary parts: a row of M complex values is a row of 2 M
// reals, and the complex product is the real one of those rows (see InnerHostBlocks and UpdateHostBlocks for the
// two ways back to complex). These functions take reals only, so their instantiations are shared by every View
// type of a translation unit.
#pragma once

#include <impl/kbla_host_vectors.hpp>
#include <impl/kbla_portable_tiles.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

// Which calls take the row kernels, and why.
struct HostRowKernels {
  // Row runs of at most 16 reals (128 bytes, two cache lines: 16 floats, 8 doubles or complex floats, 4 complex
  // doubles) per operand. Packing such rows into column planes (the other host path) is a transpose per element
  // that the narrow products never pay back: on the 2-core AVX-512 host of docs/portable.md, in alternating runs,
  // the row kernels ran inner at 1.5-3x the packed path at 2 to 16 reals per row, and update at 1.3-2.5x (double
  // width 8 about even), real and complex. Wider rows keep the packed path (its register tiles are the ones built
  // for compute-bound widths; rows wider than 16 reals were not measured).
  static constexpr int max_row_reals = 16;

  // Rows a tile walks before the next tile re-reads them: the block of A and B stays in the L1 cache.
  static constexpr std::size_t block_bytes = 24 * 1024;

  // Tile extents: tn reals along a row of B (the vector direction), tm of A broadcast; 4 x 8 doubles are eight
  // 32-byte accumulators, what 16 vector registers hold beside the loaded operands.
  static constexpr int max_tm = 4, max_tn = 8;

  // Both operands' rows contiguous (unit stride along a row) and at most max_row_reals reals each.
  static bool apply(std::int64_t a_row_stride, std::int64_t b_row_stride, int a_row_reals, int b_row_reals) {
    return a_row_stride == 1 && b_row_stride == 1 && a_row_reals <= max_row_reals && b_row_reals <= max_row_reals;
  }

  template <class Real>
  static int block_rows(std::int64_t lda, std::int64_t ldb) {
    const std::int64_t rows = std::int64_t(block_bytes) / (std::int64_t(sizeof(Real)) * (lda + ldb));
    return static_cast<int>(rows < 16 ? 16 : rows);
  }
};

// out[i * ldo + j] += sum over rows k < rows of a[k * lda + i] * b[k * ldb + j] for i < TM, j < TN.
template <class Real, int TM, int TN>
inline void inner_rows_tile(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, Real* out,
                            int ldo) {
  Real acc[TM][TN] = {};
  for (int k = 0; k < rows; ++k) {
    const Real* ak = a + k * lda;
    const Real* bk = b + k * ldb;
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) acc[i][j] += ak[i] * bk[j];
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) out[i * ldo + j] += acc[i][j];
}

#if KBLA_HOST_VECTORS
// As inner_rows_tile for TN = Vectors whole vectors along a row of b: each value of a's row times the vectors of
// b's row, TM x Vectors vector sums (kbla_host_vectors.hpp says why not the scalar loop). At TM = 8, Vectors = 2
// (complex double width 8: rows of 16 reals) these are 16 sums, and a row costs 2 loads, 8 broadcasts from memory
// and 16 multiply-adds; on the host of docs/portable.md, one thread, data in L1, 51 GFlop/s against 28 for the
// scalar 4 x 8 tiles, whose loop spent a permute per multiply-add.
template <class Real, int TM, int Vectors>
inline void inner_rows_vector_tile(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows,
                                   Real* out, int ldo) {
  using Vec = HostVector<Real>;
  constexpr int width = Vec::width;
  typename Vec::type acc[TM][Vectors];
  for (int i = 0; i < TM; ++i)
    for (int v = 0; v < Vectors; ++v) acc[i][v] = typename Vec::type{};
  for (int k = 0; k < rows; ++k) {
    typename Vec::type bv[Vectors];
    for (int v = 0; v < Vectors; ++v) bv[v] = Vec::load(b + k * ldb + v * width);
    for (int i = 0; i < TM; ++i) {
      const Real x = a[k * lda + i];
      for (int v = 0; v < Vectors; ++v) acc[i][v] += x * bv[v];
    }
  }
  for (int i = 0; i < TM; ++i)
    for (int v = 0; v < Vectors; ++v) {
      Real* o = out + i * ldo + v * width;
      Vec::store(o, Vec::load(o) + acc[i][v]);
    }
}

// Rows of b of one or two whole vectors take the vector tiles, up to 8 columns of a at a time (16 sums).
template <class Real>
inline bool inner_rows_vectors(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, int Mr,
                               int Nr, Real* out) {
  constexpr int width = HostVector<Real>::width, max_tm = 8;
  if (Nr != width && Nr != 2 * width) return false;
  for (int i0 = 0; i0 < Mr;) {
    const int tm = tile_extent(Mr - i0, max_tm);
    host_with_extent<max_tm>(tm, [&](auto TM) {
      constexpr int tile_m = decltype(TM)::value;
      Real* const o = out + std::size_t(i0) * Nr;
      if (Nr == width) inner_rows_vector_tile<Real, tile_m, 1>(a + i0, lda, b, ldb, rows, o, Nr);
      else inner_rows_vector_tile<Real, tile_m, 2>(a + i0, lda, b, ldb, rows, o, Nr);
    });
    i0 += tm;
  }
  return true;
}
#endif

// G (Mr x Nr, row-major at out) += a^T b over `rows` rows (a: Mr reals per row, lda apart; b: Nr, ldb apart).
template <class Real>
inline void inner_rows_block_in_place(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows,
                                      int Mr, int Nr, Real* out) {
#if KBLA_HOST_VECTORS
  if (inner_rows_vectors(a, lda, b, ldb, rows, Mr, Nr, out)) return;
#endif
  constexpr int max_tm = HostRowKernels::max_tm, max_tn = HostRowKernels::max_tn;
  for (int i0 = 0; i0 < Mr;) {
    const int tm = tile_extent(Mr - i0, max_tm);
    for (int j0 = 0; j0 < Nr;) {
      const int tn = tile_extent(Nr - j0, max_tn);
      host_with_extent<max_tm>(tm, [&](auto TM) {
        host_with_extent<max_tn>(tn, [&](auto TN) {
          inner_rows_tile<Real, decltype(TM)::value, decltype(TN)::value>(a + i0, lda, b + j0, ldb, rows,
                                                                           out + std::size_t(i0) * Nr + j0, Nr);
        });
      });
      j0 += tn;
    }
    i0 += tm;
  }
}

// Compilers' switches to keep a function's loops scalar (GCC: neither loop nor straight-line vectorisation).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_LLVM_COMPILER) && !defined(__NVCC__) && \
    !defined(__CUDACC__)
#define KBLA_HOST_SCALAR_LOOPS __attribute__((optimize("no-tree-vectorize")))
#else
#define KBLA_HOST_SCALAR_LOOPS
#endif

// out (Mr x Nr, row-major) += a^T b over `rows` rows, element by element.
template <class Real>
KBLA_HOST_SCALAR_LOOPS inline void inner_rows_scalar(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb,
                                                     int rows, int Mr, int Nr, Real* out) {
  for (int k = 0; k < rows; ++k)
    for (int i = 0; i < Mr; ++i) {
      const Real x = a[k * lda + i];
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
      for (int j = 0; j < Nr; ++j) out[i * Nr + j] += x * b[k * ldb + j];
    }
}

// inner_rows_block_in_place, except that with `operands_end` (the block ends where A and B end) the last
// `scalar_tail_rows` rows are summed by scalar code. GCC 12 vectorises the tiles' loop across rows with loads wider
// than the runs it needs (8-byte pairs where a row has one float; for rows of 14 floats under AVX-512, loads that
// reached 5 rows past the last row of the loop): harmless inside the operands, a segmentation fault where A or B
// ends at a page boundary (found with guard pages after A and B, baseline x86-64 and AVX-512 builds). With the last
// rows left out of the vectorised loops, whatever those load lies inside the operands.
template <class Real>
inline void inner_rows_block(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, int Mr,
                             int Nr, Real* out, bool operands_end) {
  constexpr int scalar_tail_rows = 64;  // more than a vectorised loop's rows per iteration (16 floats, unrolled)
  const int tail = operands_end ? std::min(rows, scalar_tail_rows) : 0;
  inner_rows_block_in_place(a, lda, b, ldb, rows - tail, Mr, Nr, out);
  if (tail > 0)
    inner_rows_scalar(a + std::int64_t(rows - tail) * lda, lda, b + std::int64_t(rows - tail) * ldb, ldb, tail, Mr,
                      Nr, out);
}

// The rows of update are independent, and at narrow widths GCC's loop vectoriser turns the row loop into vectors
// across rows (interleaved loads and permutes, several times slower than the straight-line code that vectorises
// along a row). Functions that walk rows of update therefore keep it out; the vectorisation along a row (SLP) stays.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_LLVM_COMPILER) && !defined(__NVCC__) && \
    !defined(__CUDACC__)
#define KBLA_HOST_ROWS_NO_LOOP_VECTORIZE __attribute__((optimize("no-tree-loop-vectorize")))
#else
#define KBLA_HOST_ROWS_NO_LOOP_VECTORIZE
#endif

// o[j] = sum over p < Mr of a[p] * c[p * ldc + j] for TN columns j: one row, the sums in registers.
template <class Real, int TN>
inline void update_row_tile(const Real* a, int Mr, const Real* c, int ldc, Real* o) {
  Real acc[TN] = {};
  for (int p = 0; p < Mr; ++p) {
    const Real ap = a[p];
    for (int j = 0; j < TN; ++j) acc[j] += ap * c[p * ldc + j];
  }
  for (int j = 0; j < TN; ++j) o[j] = acc[j];
}

// As update_row_tile for two rows (a0 and a1) at once: two independent chains of multiply-adds per column, which
// the processor overlaps better than the one chain of a row (on the host of docs/portable.md, double row-major
// update at width 8, one thread, alternating runs: 5.8-6.8 GB/s against 4.8-5.6 for the one-row loop).
template <class Real, int TN>
inline void update_row_pair_tile(const Real* a0, const Real* a1, int Mr, const Real* c, int ldc, Real* o0, Real* o1) {
  Real acc0[TN] = {}, acc1[TN] = {};
  for (int p = 0; p < Mr; ++p) {
    const Real x0 = a0[p], x1 = a1[p];
    for (int j = 0; j < TN; ++j) {
      acc0[j] += x0 * c[p * ldc + j];
      acc1[j] += x1 * c[p * ldc + j];
    }
  }
  for (int j = 0; j < TN; ++j) {
    o0[j] = acc0[j];
    o1[j] = acc1[j];
  }
}

// b_k = o_k + beta * b_k for the Nr reals of one row; beta_zero never reads b. With Pairs, b holds interleaved
// complex values and beta is beta_re + i beta_im.
template <class Real, bool Pairs>
inline void store_row(const Real* o, Real* b, int Nr, Real beta_re, Real beta_im, bool beta_zero) {
  if (beta_zero) {
    for (int j = 0; j < Nr; ++j) b[j] = o[j];
  } else if constexpr (Pairs) {
    for (int j = 0; j + 1 < Nr; j += 2) {
      const Real re = b[j], im = b[j + 1];
      b[j] = o[j] + (beta_re * re - beta_im * im);
      b[j + 1] = o[j + 1] + (beta_re * im + beta_im * re);
    }
  } else {
    for (int j = 0; j < Nr; ++j) b[j] = o[j] + beta_re * b[j];
  }
}

// A whole row per tile (Nr = TN): the sums in registers from the reads of a row of a to the write of its row of b.
// Rows are independent chains of multiply-adds, which the processor overlaps. Mr stays a run-time loop (with both
// extents fixed GCC vectorised the row worse).
template <class Real, int TN, bool Pairs>
KBLA_HOST_ROWS_NO_LOOP_VECTORIZE inline void update_rows_exact(const Real* a, std::int64_t lda, int rows, int Mr,
                                                               const Real* c, Real* b, std::int64_t ldb,
                                                               Real beta_re, Real beta_im, bool beta_zero) {
  for (int k = 0; k < rows; ++k) {
    Real o[TN];
    update_row_tile<Real, TN>(a + k * lda, Mr, c, TN, o);
    store_row<Real, Pairs>(o, b + k * ldb, TN, beta_re, beta_im, beta_zero);
  }
}

// b[k * ldb + j] = sum over p of a[k * lda + p] * c[p * Nr + j] + beta * b[k * ldb + j] for k < rows, j < Nr
// (c: Mr x Nr, row-major; beta as in store_row). Each row is computed whole before it is written, so b may be a
// itself (update_in_place: the same rows of the same View).
template <class Real, bool Pairs>
KBLA_HOST_ROWS_NO_LOOP_VECTORIZE inline void update_rows_block(const Real* a, std::int64_t lda, int rows, int Mr,
                                                               int Nr, const Real* c, Real* b, std::int64_t ldb,
                                                               Real beta_re, Real beta_im, bool beta_zero) {
  constexpr int max_tn = HostRowKernels::max_tn;
  // Output rows of 1, 2 or 4 reals: one fixed-size tile per row and no buffer. (At 8, GCC 12 splits the fixed
  // row into vectors of unequal widths and the buffered loop below measured faster.)
  if (Nr <= 4 && tile_extent(Nr, 4) == Nr) {
    host_with_extent<4>(Nr, [&](auto TN) {
      update_rows_exact<Real, decltype(TN)::value, Pairs>(a, lda, rows, Mr, c, b, ldb, beta_re, beta_im, beta_zero);
    });
    return;
  }
  // Two rows at a time, both computed before either is stored (so b may still be a); an odd last row is computed
  // as both rows of the pair and stored once.
  for (int k = 0; k < rows; k += 2) {
    const bool pair = k + 1 < rows;
    Real o0[HostRowKernels::max_row_reals], o1[HostRowKernels::max_row_reals];
    const Real* a0 = a + k * lda;
    const Real* a1 = pair ? a0 + lda : a0;
    for (int j0 = 0; j0 < Nr;) {
      const int tn = tile_extent(Nr - j0, max_tn);
      host_with_extent<max_tn>(tn, [&](auto TN) {
        update_row_pair_tile<Real, decltype(TN)::value>(a0, a1, Mr, c + j0, Nr, o0 + j0, o1 + j0);
      });
      j0 += tn;
    }
    store_row<Real, Pairs>(o0, b + k * ldb, Nr, beta_re, beta_im, beta_zero);
    if (pair) store_row<Real, Pairs>(o1, b + (k + 1) * ldb, Nr, beta_re, beta_im, beta_zero);
  }
}

}  // namespace Impl
}  // namespace kbla
