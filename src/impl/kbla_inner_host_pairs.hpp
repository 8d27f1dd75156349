// Host kernel of the portable kbla::inner for complex operands whose columns are contiguous (LayoutLeft and
// unit-stride subviews), read in place. A column of complex values is a run of interleaved reals
// (re, im, re, im, ...); for columns a of A and b of B, summed over the rows,
//   same  = a[l] * b[l]      (lane l even: ar br, odd: ai bi)
//   cross = a[l ^ 1] * b[l]  (lane l even: ai br, odd: ar bi)
// and conj(a) b = (ar br + ai bi) + i (ar bi - ai br), a b = (ar br - ai bi) + i (ar bi + ai br). Both sums
// vectorise along the interleaved run (the partner a[l ^ 1] is a swap within a vector): no packing into planes,
// which at narrow widths cost as much as the product (measured in docs/portable.md). The swap is of A's values, the
// tile's fewer columns (2 against 4 of B): complex width 8 ran 12 % faster than with B's swapped (docs/portable.md).
#pragma once

#include <impl/kbla_portable_tiles.hpp>

#include <cstdint>

namespace kbla {
namespace Impl {

// Sums of one entry of C, kept apart until the end so that conj and non-conj are both one final combination.
struct PairSums {
  static constexpr int count = 4;  // same over even lanes, same over odd lanes, cross even, cross odd
  template <class Real>
  static void finish(const Real* sums, bool conjA, Real& re, Real& im) {
    re = conjA ? sums[0] + sums[1] : sums[0] - sums[1];
    im = conjA ? sums[3] - sums[2] : sums[3] + sums[2];
  }
};

// out[(i * ldo + j) * PairSums::count + q] += the four sums of columns i < TM of a and j < TN of b over `reals`
// interleaved reals (a multiple of Lanes; Lanes even, so lane parity is the part).
template <class Real, int TM, int TN, int Lanes>
inline void inner_pairs_tile(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, std::int64_t reals,
                             Real* out, int ldo) {
  static_assert(Lanes % 2 == 0, "lanes hold whole complex values");
  Real same[TM][TN][Lanes] = {};
  Real cross[TM][TN][Lanes] = {};
  // Loads into local arrays first, as inner_host_tile (kbla_inner_portable_host.hpp) says why: indexing A and B
  // in the multiply-add loop, GCC 12 with AVX-512 read a column past the tile's last one.
  for (std::int64_t k = 0; k < reals; k += Lanes) {
    Real av[TM][Lanes], bv[TN][Lanes];
    for (int i = 0; i < TM; ++i)
      for (int l = 0; l < Lanes; ++l) av[i][l] = a[i * lda + k + l];
    for (int j = 0; j < TN; ++j)
      for (int l = 0; l < Lanes; ++l) bv[j][l] = b[j * ldb + k + l];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j)
        for (int l = 0; l < Lanes; ++l) {
          same[i][j][l] += av[i][l] * bv[j][l];
          cross[i][j][l] += av[i][l ^ 1] * bv[j][l];
        }
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      Real s[PairSums::count] = {};
      for (int l = 0; l < Lanes; l += 2) {
        s[0] += same[i][j][l];
        s[1] += same[i][j][l + 1];
        s[2] += cross[i][j][l];
        s[3] += cross[i][j][l + 1];
      }
      Real* o = out + std::size_t(i * ldo + j) * PairSums::count;
      for (int q = 0; q < PairSums::count; ++q) o[q] += s[q];
    }
}

// The four sums of every entry of an M x N C (out as in inner_pairs_tile, ldo = N) over `rows` complex rows of
// columns a (lda reals apart) and b (ldb apart): tiles of at most 2 x 4 entries (16 vector accumulators), the
// rows that do not fill a vector one at a time.
template <class Real, int Lanes>
inline void inner_pairs_block(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, int M,
                              int N, Real* out) {
  constexpr int max_tm = 2, max_tn = 4;
  const std::int64_t reals = 2 * std::int64_t(rows);
  const std::int64_t vector_reals = reals / Lanes * Lanes;
  for (int i0 = 0; i0 < M;) {
    const int tm = tile_extent(M - i0, max_tm);
    for (int j0 = 0; j0 < N;) {
      const int tn = tile_extent(N - j0, max_tn);
      host_with_extent<max_tm>(tm, [&](auto TM) {
        host_with_extent<max_tn>(tn, [&](auto TN) {
          inner_pairs_tile<Real, decltype(TM)::value, decltype(TN)::value, Lanes>(
              a + i0 * lda, lda, b + j0 * ldb, ldb, vector_reals, out + std::size_t(i0 * N + j0) * PairSums::count,
              N);
        });
      });
      j0 += tn;
    }
    i0 += tm;
  }
  for (std::int64_t k = vector_reals; k < reals; k += 2)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const Real ar = a[i * lda + k], ai = a[i * lda + k + 1];
        const Real br = b[j * ldb + k], bi = b[j * ldb + k + 1];
        Real* o = out + std::size_t(i * N + j) * PairSums::count;
        o[0] += ar * br;
        o[1] += ai * bi;
        o[2] += ai * br;
        o[3] += ar * bi;
      }
}

}  // namespace Impl
}  // namespace kbla
