// Portable kbla::inner on host execution spaces: one team (of one thread) per hardware thread, each streaming a
// contiguous chunk of rows. The chunk is read in blocks that stay in cache: a block of A and one of B are packed
// into column planes (real and imaginary parts apart, conj applied, rows padded to the lane count), then every
// tile of C (tm x tn entries, compile-time extents, `lanes` consecutive rows at a time so that the compiler can
// vectorise along the unit-stride planes) is accumulated in registers and added to the team's partial C.
// Complex data are a real product of twice the width: with A' = conj(A) = Ar + i Ai' and B = Br + i Bi,
//   G = [Ar Ai']^T [Br Bi] = [[Ar'Br, Ar'Bi], [Ai''Br, Ai''Bi]],  C = (G11 - G22) + i (G12 + G21),
// the same 4 M N real multiply-adds per row as complex arithmetic, through the one real kernel.
// The partials are summed in team order afterwards (kbla_inner_impl.hpp): no atomics, bitwise reproducible.
#pragma once

#include <impl/kbla_host_row_kernels.hpp>
#include <impl/kbla_inner_host_pairs.hpp>
#include <impl/kbla_portable_tiles.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

// Rows summed side by side per entry of a tile: 64 bytes of reals (8 doubles, 16 floats), one AVX-512 register per
// column run. With 32-byte runs, GCC 12 at -march=native on an AMD EPYC (AVX-512) assembled two columns' runs into
// one register (for the last column of a tile, reading past the end of A: the loads into local arrays in the tiles
// below avoid that) and the tiles ran at 4-7 GFlop/s per core in a micro-benchmark; with 64-byte runs 29 (real 4 x 4
// tile) and 41 (complex 2 x 4 pairs). Compiled for AVX2 (-march=haswell) on the same CPU: 10 -> 16 and 10 -> 21;
// for SSE2 alone (no -march): 9 and 11 either way.
template <class Real>
struct HostLanes {
  static constexpr int value = 64 / sizeof(Real) < 1 ? 1 : int(64 / sizeof(Real));
};

// out[i * ldo + j] += sum over rows [0, rows) of a[i * lda + k] * b[j * ldb + k] (rows a multiple of Lanes; the
// zero padding of pack_rows makes the tail harmless). Real only: a complex product is a real one of twice the
// width (see InnerHostBlocks).
template <class Real, int TM, int TN, int Lanes>
inline void inner_host_tile(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, Real* out,
                            int ldo) {
  Real acc[TM][TN][Lanes] = {};
  // The rows' values are loaded into local arrays first. Indexing A and B inside the multiply-add loop, GCC 12 with
  // AVX-512 (-march=native on an AMD EPYC) merged the loads of two columns into one 64-byte register and read a
  // column past the tile's last one: beyond the end of A, a segmentation fault (double width 4, column-major).
  for (int k = 0; k < rows; k += Lanes) {
    Real av[TM][Lanes], bv[TN][Lanes];
    for (int i = 0; i < TM; ++i)
      for (int l = 0; l < Lanes; ++l) av[i][l] = a[i * lda + k + l];
    for (int j = 0; j < TN; ++j)
      for (int l = 0; l < Lanes; ++l) bv[j][l] = b[j * ldb + k + l];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j)
        for (int l = 0; l < Lanes; ++l) acc[i][j][l] += av[i][l] * bv[j][l];
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      Real s = Real(0);
      for (int l = 0; l < Lanes; ++l) s += acc[i][j][l];
      out[i * ldo + j] += s;
    }
}

template <class ExecSpace, class AView, class BView, class PartialView>
struct InnerHostBlocks {
  using Scalar = typename PartialView::non_const_value_type;
  using Planes = ScalarPlanes<Scalar>;
  using Real = typename Planes::real_type;
  static constexpr bool complex = Planes::planes == 2;
  static constexpr int lanes = HostLanes<Real>::value;
  // Tiles up to 4 x 4: the accumulators (tm * tn * lanes reals) fill sixteen 64-byte registers.
  static constexpr int max_tm = 4, max_tn = 4;
  // Bytes of A and B per block: within a core's L2 cache (256 KiB and more on current CPUs), where the tiles
  // re-read them; long enough that each tile's final sum over its lanes is paid for by many rows.
  static constexpr std::size_t block_bytes = 192 * 1024;

  // Operands read in place stream one column each; beyond 16 concurrent streams (what hardware prefetchers
  // follow) packing, which reads one column run at a time, is faster.
  static constexpr int max_direct_columns = 16;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  static int block_rows(int M, int N) {
    const std::size_t row_bytes = std::size_t(M + N) * sizeof(Scalar);
    const int rows = static_cast<int>(std::max<std::size_t>(lanes, block_bytes / row_bytes));
    return std::min(1024, rows / lanes * lanes);
  }

  // partial(t, i, j) = sum over team t's rows of op(A(k, i)) * B(k, j); partial has `teams` slices.
  static void run(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                  std::int64_t rows_per_team) {
    const std::int64_t K = A.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const int teams = static_cast<int>(partial.extent(0));
    const int ld = block_rows(M, N);
    const std::size_t pack_reals = std::size_t(Planes::planes) * (M + N) * ld;
    const int Mr = Planes::planes * M, Nr = Planes::planes * N;  // the real product's extents
    const std::size_t out_reals = std::size_t(Mr) * Nr;
    const std::size_t scratch = (pack_reals + out_reals) * sizeof(Real) + 64;
    const bool direct = M + N <= max_direct_columns && A.stride(0) == 1 && B.stride(0) == 1;
    if constexpr (complex) {
      // Complex columns read in place as interleaved reals (kbla_inner_host_pairs.hpp).
      if (direct) {
        run_pairs(exec, conjA, A, B, partial, rows_per_team);
        return;
      }
    }
    // Narrow row-major operands: the row kernels read them in place (kbla_host_row_kernels.hpp says when and why).
    if (!direct && HostRowKernels::apply(A.stride(1), B.stride(1), Mr, Nr)) {
      run_rows(exec, conjA, A, B, partial, rows_per_team);
      return;
    }
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::inner(portable host blocks)", policy, [=](const Member& team) {
          Real* const buf = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          Real* const a = buf;
          Real* const b = buf + std::size_t(Planes::planes) * M * ld;
          Real* const out = buf + pack_reals;  // G, Mr x Nr row-major
          for (std::size_t e = 0; e < out_reals; ++e) out[e] = Real(0);
          const std::int64_t t = team.league_rank();
          const std::int64_t k_begin = t * rows_per_team;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + rows_per_team);
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            // Real operands with unit stride down the columns are read in place, all but the last rows that
            // do not fill a vector of lanes; everything else goes through the packed planes.
            const int in_place = !complex && direct ? rows / lanes * lanes : 0;
            if constexpr (!complex) {
              if (in_place > 0)
                accumulate_block(&A(k0, 0), A.stride(1), &B(k0, 0), B.stride(1), in_place, Mr, Nr, out);
            }
            if (rows > in_place) {
              const int packed = rows - in_place, padded = (packed + lanes - 1) / lanes * lanes;
              pack_rows(A, k0 + in_place, packed, padded, conjA, a);
              pack_rows(B, k0 + in_place, packed, padded, false, b);
              accumulate_block(a, padded, b, padded, padded, Mr, Nr, out);
            }
          }
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
              partial(t, i, j) =
                  complex ? Planes::make(out[i * Nr + j] - out[(M + i) * Nr + N + j],
                                         out[i * Nr + N + j] + out[(M + i) * Nr + j])
                          : Planes::make(out[i * Nr + j], Real(0));
        });
  }

  // As run, for complex operands whose columns are contiguous: the four sums of kbla_inner_host_pairs.hpp per entry.
  static void run_pairs(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                        std::int64_t rows_per_team) {
    const std::int64_t K = A.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const std::int64_t lda = 2 * std::int64_t(A.stride(1)), ldb = 2 * std::int64_t(B.stride(1));
    const int ld = block_rows(M, N);
    const int teams = static_cast<int>(partial.extent(0));
    const std::size_t sums = std::size_t(M) * N * PairSums::count;
    const std::size_t scratch = sums * sizeof(Real) + 64;
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::inner(portable host complex columns)", policy, [=](const Member& team) {
          Real* const out = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          for (std::size_t e = 0; e < sums; ++e) out[e] = Real(0);
          const std::int64_t t = team.league_rank();
          const std::int64_t k_begin = t * rows_per_team;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + rows_per_team);
          const Real* const a = reinterpret_cast<const Real*>(A.data());
          const Real* const b = reinterpret_cast<const Real*>(B.data());
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            inner_pairs_block<Real, lanes>(a + 2 * k0, lda, b + 2 * k0, ldb, rows, M, N, out);
          }
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              Real re, im;
              PairSums::finish(out + std::size_t(i * N + j) * PairSums::count, conjA, re, im);
              partial(t, i, j) = Planes::make(re, im);
            }
        });
  }

  // As run, for operands whose rows are contiguous: G = a^T b over the rows as reals (complex values as their
  // interleaved parts, so G's index 2 i + p is part p of column i), then C from G as in run.
  static void run_rows(const ExecSpace& exec, bool conjA, const AView& A, const BView& B, const PartialView& partial,
                       std::int64_t rows_per_team) {
    const std::int64_t K = A.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const int Mr = Planes::planes * M, Nr = Planes::planes * N;
    const std::int64_t lda = Planes::planes * A.stride(0), ldb = Planes::planes * B.stride(0);
    const int ld = HostRowKernels::block_rows<Real>(lda, ldb);
    const int teams = static_cast<int>(partial.extent(0));
    const std::size_t scratch = std::size_t(Mr) * Nr * sizeof(Real) + 64;
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::inner(portable host rows)", policy, [=](const Member& team) {
          Real* const out = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          for (int e = 0; e < Mr * Nr; ++e) out[e] = Real(0);
          const std::int64_t t = team.league_rank();
          const std::int64_t k_begin = t * rows_per_team;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + rows_per_team);
          const Real* const a = reinterpret_cast<const Real*>(A.data());
          const Real* const b = reinterpret_cast<const Real*>(B.data());
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            inner_rows_block(a + k0 * lda, lda, b + k0 * ldb, ldb, rows, Mr, Nr, out, k0 + rows == K);
          }
          // conj(a) b = (ar br + ai bi) + i (ar bi - ai br); a b = (ar br - ai bi) + i (ar bi + ai br).
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              if constexpr (complex) {
                const Real* g = out + std::size_t(2 * i) * Nr + 2 * j;  // g[0] = ar br, g[1] = ar bi
                const Real* h = g + Nr;                                   // h[0] = ai br, h[1] = ai bi
                const Real sign = conjA ? Real(1) : Real(-1);
                partial(t, i, j) = Planes::make(g[0] + sign * h[1], g[1] - sign * h[0]);
              } else {
                partial(t, i, j) = Planes::make(out[i * Nr + j], Real(0));
              }
            }
        });
  }

  // Every tile of G (Mr x Nr, row-major at out) over `rows` rows of column planes (a: lda apart, b: ldb apart).
  static void accumulate_block(const Real* a, std::int64_t lda, const Real* b, std::int64_t ldb, int rows, int Mr,
                               int Nr, Real* out) {
    for (int i0 = 0; i0 < Mr;) {
      const int tm = tile_extent(Mr - i0, max_tm);
      for (int j0 = 0; j0 < Nr;) {
        const int tn = tile_extent(Nr - j0, max_tn);
        host_with_extent<max_tm>(tm, [&](auto TM) {
          host_with_extent<max_tn>(tn, [&](auto TN) {
            inner_host_tile<Real, decltype(TM)::value, decltype(TN)::value, lanes>(
                a + i0 * lda, lda, b + j0 * ldb, ldb, rows, out + std::size_t(i0) * Nr + j0, Nr);
          });
        });
        j0 += tn;
      }
      i0 += tm;
    }
  }
};

}  // namespace Impl
}  // namespace kbla
