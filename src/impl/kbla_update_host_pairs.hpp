// Host kernel of the portable kbla::update for complex A and B whose columns are contiguous (LayoutLeft and
// unit-stride subviews), read and written in place. A column of complex values is a run of interleaved reals
// (re, im, re, im, ...); with c = cr + i ci an entry of alpha C, a column of A contributes to lane l of a column
// of B
//   a[l] * cr + s[l] * ci,  s = (-ai, ar, -ai, ar, ...)      (re: ar cr - ai ci, im: ai cr + ar ci);
// the sums of a * cr and a * ci vectorise along the run as plain multiply-adds, and the swap and sign of the
// second are applied once per tile (or, with the vector tiles, once per column of a). No packing into planes, which at narrow widths cost as much as the product
// (measured in docs/portable.md).
#pragma once

#include <impl/kbla_host_row_kernels.hpp>
#include <impl/kbla_host_vectors.hpp>
#include <impl/kbla_portable_tiles.hpp>

#include <cstdint>

namespace kbla {
namespace Impl {

// alpha C's real and imaginary parts, entry (i, j) at index i * ldc + j.
template <class Real>
struct PairFactors {
  const Real* re;    // cr
  const Real* swap;  // ci: multiplies s, the swapped and signed run
  int ldc;
};

// o[j * ldo + l] = sum over i < M of the pair product of column i of a and entry (i, j) (+ beta * o, complex
// beta = beta_re + i beta_im, unless beta_zero) for columns j < TN over `reals` interleaved reals (a multiple of
// Rows; Rows even).
// GCC's loop vectoriser turned the column loop into vectors gathered across columns (half the speed at widths 4-8
// on the host of docs/portable.md); the vectorisation along the rows (SLP) stays.
template <class Real, int TN, int Rows>
KBLA_HOST_ROWS_NO_LOOP_VECTORIZE inline void update_pairs_tile(const Real* a, std::int64_t lda, std::int64_t reals,
                                                               int M, PairFactors<Real> c, Real* o, std::int64_t ldo,
                                                               Real beta_re, Real beta_im, bool beta_zero) {
  static_assert(Rows % 2 == 0, "a tile holds whole complex values");
  for (std::int64_t k = 0; k < reals; k += Rows) {
    // a * cr and a * ci summed apart (plain broadcast multiply-adds); the swap and sign once per tile, at the end:
    // the sum of s * ci is the swapped, signed sum of a * ci.
    Real by_re[TN][Rows] = {}, by_im[TN][Rows] = {};
    for (int i = 0; i < M; ++i) {
      Real av[Rows];
      for (int l = 0; l < Rows; ++l) av[l] = a[i * lda + k + l];
      for (int j = 0; j < TN; ++j) {
        const Real cr = c.re[i * c.ldc + j], ci = c.swap[i * c.ldc + j];
        for (int l = 0; l < Rows; ++l) {
          by_re[j][l] += av[l] * cr;
          by_im[j][l] += av[l] * ci;
        }
      }
    }
    for (int j = 0; j < TN; ++j) {
      Real sum[Rows];
      for (int l = 0; l < Rows; l += 2) {
        sum[l] = by_re[j][l] - by_im[j][l + 1];
        sum[l + 1] = by_re[j][l + 1] + by_im[j][l];
      }
      Real* oj = o + j * ldo + k;
      if (beta_zero) {
        for (int l = 0; l < Rows; ++l) oj[l] = sum[l];
      } else {
        for (int l = 0; l < Rows; l += 2) {
          const Real re = oj[l], im = oj[l + 1];
          oj[l] = sum[l] + (beta_re * re - beta_im * im);
          oj[l + 1] = sum[l + 1] + (beta_re * im + beta_im * re);
        }
      }
    }
  }
}

#if KBLA_HOST_VECTORS
// As update_pairs_tile with one vector of rows per tile, TN <= 8 columns (kbla_host_vectors.hpp says why vectors):
// with s = swap(a) * (-1, 1, ...) formed once per column of a, each output run is one sum of a * cr + s * ci,
// TN vector sums in registers and a plain store at the end. On the host of docs/portable.md (complex double,
// width 8, two threads, operands out of cache, alternating runs) 30-32 GB/s against 27 for update_pairs_tile;
// its two sums per column, combined per tile, compiled to scalar code.
template <class Real, int TN>
KBLA_HOST_ROWS_NO_LOOP_VECTORIZE inline void update_pairs_vector_tile(const Real* a, std::int64_t lda,
                                                                      std::int64_t reals, int M, PairFactors<Real> c,
                                                                      Real* o, std::int64_t ldo, Real beta_re,
                                                                      Real beta_im, bool beta_zero) {
  using Vec = HostVector<Real>;
  using V = typename Vec::type;
  V sign;
  for (int l = 0; l < Vec::width; ++l) sign[l] = l % 2 ? Real(1) : Real(-1);
  for (std::int64_t k = 0; k < reals; k += Vec::width) {
    V acc[TN];
    for (int j = 0; j < TN; ++j) acc[j] = V{};
    for (int i = 0; i < M; ++i) {
      const V av = Vec::load(a + i * lda + k);
      const V sv = Vec::swap_pairs(av) * sign;
      for (int j = 0; j < TN; ++j) {
        // Two statements: two multiply-adds (one expression would be a product, a multiply-add and an add).
        acc[j] += av * c.re[i * c.ldc + j];
        acc[j] += sv * c.swap[i * c.ldc + j];
      }
    }
    for (int j = 0; j < TN; ++j) {
      Real* oj = o + j * ldo + k;
      if (!beta_zero) {
        const V ov = Vec::load(oj);
        acc[j] += beta_re * ov;
        acc[j] += beta_im * (Vec::swap_pairs(ov) * sign);
      }
      Vec::store(oj, acc[j]);
    }
  }
}

// Widest tile of update_pairs_block: 8 columns by one vector of rows.
constexpr int update_pairs_max_columns = 8;
#else
// Widest tile of update_pairs_block: 2 x 4 x Rows sums, sixteen 32-byte accumulators at Rows of two vectors.
constexpr int update_pairs_max_columns = 4;
#endif

// Whether b may be a itself (update_in_place): only when one tile covers every column, so that each group of
// rows is read whole before any of it is written.
inline bool update_pairs_in_place_ok(int N) {
  return tile_extent(N, update_pairs_max_columns) == N;
}

// Columns j < N of b (ldb reals apart) over `rows` complex rows, from columns of a (lda apart): tiles of up to
// update_pairs_max_columns columns by Rows reals (one vector with the vector tiles), the rows that do not fill a
// tile one at a time. b overlaps a only as
// update_pairs_in_place_ok allows.
template <class Real, int Rows>
KBLA_HOST_ROWS_NO_LOOP_VECTORIZE inline void update_pairs_block(const Real* a, std::int64_t lda, int rows, int M, int N,
                                                                PairFactors<Real> c, Real* b, std::int64_t ldb,
                                                                Real beta_re, Real beta_im, bool beta_zero) {
  constexpr int max_tn = update_pairs_max_columns;
#if KBLA_HOST_VECTORS
  constexpr int step = HostVector<Real>::width;
#else
  constexpr int step = Rows;
#endif
  const std::int64_t reals = 2 * std::int64_t(rows);
  const std::int64_t tile_reals = reals / step * step;
  for (int j0 = 0; j0 < N;) {
    const int tn = tile_extent(N - j0, max_tn);
    const PairFactors<Real> cj{c.re + j0, c.swap + j0, c.ldc};
    host_with_extent<max_tn>(tn, [&](auto TN) {
#if KBLA_HOST_VECTORS
      update_pairs_vector_tile<Real, decltype(TN)::value>(a, lda, tile_reals, M, cj, b + j0 * ldb, ldb, beta_re,
                                                          beta_im, beta_zero);
#else
      update_pairs_tile<Real, decltype(TN)::value, Rows>(a, lda, tile_reals, M, cj, b + j0 * ldb, ldb, beta_re,
                                                         beta_im, beta_zero);
#endif
    });
    j0 += tn;
  }
  // The last rows one at a time, each row's outputs computed before any is stored (in place, a store would
  // overwrite a value of A that the next column still reads).
  constexpr int max_columns = 16;  // M + N <= 16 (UpdateHostBlocks::max_direct_columns)
  for (std::int64_t k = tile_reals; k < reals; k += 2) {
    Real re[max_columns], im[max_columns];
    for (int j = 0; j < N; ++j) {
      re[j] = Real(0);
      im[j] = Real(0);
      for (int i = 0; i < M; ++i) {
        const Real ar = a[i * lda + k], ai = a[i * lda + k + 1];
        const Real cr = c.re[i * c.ldc + j], ci = c.swap[i * c.ldc + j];
        re[j] += ar * cr - ai * ci;
        im[j] += ai * cr + ar * ci;
      }
    }
    for (int j = 0; j < N; ++j) {
      Real* bj = b + j * ldb + k;
      if (!beta_zero) {
        const Real br = bj[0], bi = bj[1];
        re[j] += beta_re * br - beta_im * bi;
        im[j] += beta_re * bi + beta_im * br;
      }
      bj[0] = re[j];
      bj[1] = im[j];
    }
  }
}

}  // namespace Impl
}  // namespace kbla
