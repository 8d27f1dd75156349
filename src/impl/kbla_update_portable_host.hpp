// Portable kbla::update on host execution spaces: one team (of one thread) per hardware thread, each streaming a
// contiguous chunk of rows in blocks that stay in cache. A block of A is packed into column planes (real and
// imaginary parts apart), the block of the result is computed in register tiles of two vectors of consecutive
// rows by tn columns (compile-time extents; the compiler vectorises along the rows), and written to B with beta.
// Complex data are a real product of twice the width: with A = Ar + i Ai and C = Cr + i Ci,
//   [Br Bi] = [Ar Ai] * [[Cr, Ci], [-Ci, Cr]],
// the same 4 M N real multiply-adds per row as complex arithmetic, through the one real kernel.
// Rows never cross blocks or teams and a block of A is packed before the same rows of B are written, so B may be
// the very same View as A (update_in_place).
#pragma once

#include <impl/kbla_host_row_kernels.hpp>
#include <impl/kbla_portable_tiles.hpp>
#include <impl/kbla_update_host_pairs.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace kbla {
namespace Impl {

// o[j * ldo + k] = sum_{i < M} a[i * lda + k] * c[i * ldc + j] (+ beta * o[j * ldo + k] unless beta_zero) for
// j < TN over rows [0, rows) (a multiple of Rows). Real only: a complex product is the real one of twice the width
// (see UpdateHostBlocks).
template <class Real, int TN, int Rows>
inline void update_host_tile(const Real* a, std::int64_t lda, int rows, int M, const Real* c, int ldc, Real* o,
                             std::int64_t ldo, Real beta, bool beta_zero) {
  for (int k = 0; k < rows; k += Rows) {
    Real acc[TN][Rows] = {};
    for (int i = 0; i < M; ++i) {
      // The rows of column i first, so that the compiler keeps them in vector registers across the columns.
      Real av[Rows];
      for (int l = 0; l < Rows; ++l) av[l] = a[i * lda + k + l];
      for (int j = 0; j < TN; ++j) {
        const Real cv = c[i * ldc + j];
        for (int l = 0; l < Rows; ++l) acc[j][l] += av[l] * cv;
      }
    }
    if (beta_zero) {
      for (int j = 0; j < TN; ++j)
        for (int l = 0; l < Rows; ++l) o[j * ldo + k + l] = acc[j][l];
    } else {
      for (int j = 0; j < TN; ++j)
        for (int l = 0; l < Rows; ++l) o[j * ldo + k + l] = acc[j][l] + beta * o[j * ldo + k + l];
    }
  }
}

template <class ExecSpace, class AView, class CView, class BView>
struct UpdateHostBlocks {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Planes = ScalarPlanes<Scalar>;
  using Real = typename Planes::real_type;
  static constexpr bool complex = Planes::planes == 2;
  // Two 32-byte vectors of rows per tile by up to 8 columns: sixteen vector accumulators.
  static constexpr int tile_rows = 2 * (32 / sizeof(Real) < 1 ? 1 : int(32 / sizeof(Real)));
  static constexpr int max_tn = 8;
  static constexpr std::size_t block_bytes = 96 * 1024;

  // Operands read and written in place stream one column each; beyond 16 concurrent streams (what hardware
  // prefetchers follow) packing, which reads one column run at a time, is faster.
  static constexpr int max_direct_columns = 16;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  static int block_rows(int M, int N) {
    const std::size_t row_bytes = std::size_t(M + N) * sizeof(Scalar);
    const int rows = static_cast<int>(std::max<std::size_t>(tile_rows, block_bytes / row_bytes));
    return std::min(1024, rows / tile_rows * tile_rows);
  }

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const int ld = block_rows(M, N);
    const std::int64_t blocks = (K + ld - 1) / ld;
    const int teams = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(exec.concurrency(), blocks)));
    const std::int64_t blocks_per_team = (blocks + teams - 1) / teams;
    const std::size_t pack_reals = std::size_t(Planes::planes) * (M + N) * ld;
    const int Mr = Planes::planes * M, Nr = Planes::planes * N;  // the real product's extents
    const std::size_t c_reals = std::size_t(Mr) * Nr;
    const std::size_t scratch = (pack_reals + c_reals) * sizeof(Real) + 64;
    const bool beta_zero = beta == ATS::zero();
    const bool b_rows_fast = B.stride(0) <= B.stride(1);
    const bool same_view = static_cast<const void*>(A.data()) == static_cast<const void*>(B.data());
    const bool columns_in_place = M + N <= max_direct_columns && A.stride(0) == 1 && B.stride(0) == 1;
    const bool direct = !same_view && columns_in_place;
    if constexpr (complex) {
      // Complex columns read and written in place as interleaved reals (kbla_update_host_pairs.hpp); B may be A
      // when one tile holds all its columns.
      if (columns_in_place && (!same_view || update_pairs_in_place_ok(N))) {
        run_pairs(exec, alpha, A, C, beta, B);
        return;
      }
    }
    // Narrow row-major operands: the row kernels read and write them in place (kbla_host_row_kernels.hpp says
    // when and why).
    if (!direct && HostRowKernels::apply(A.stride(1), B.stride(1), Mr, Nr)) {
      run_rows(exec, alpha, A, C, beta, B);
      return;
    }
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::update(portable host blocks)", policy, [=](const Member& team) {
          Real* const a = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          Real* const o = a + std::size_t(Planes::planes) * M * ld;
          Real* const c = a + pack_reals;  // alpha * C as the real Mr x Nr matrix above, row-major
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              const Scalar v = alpha * C(i, j);
              c[i * Nr + j] = Planes::re(v);
              if (complex) {
                c[i * Nr + N + j] = Planes::im(v);
                c[(M + i) * Nr + j] = -Planes::im(v);
                c[(M + i) * Nr + N + j] = Planes::re(v);
              }
            }
          const std::int64_t k_begin = team.league_rank() * blocks_per_team * ld;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + blocks_per_team * ld);
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            // Real A and B with unit stride down the columns (and not the same View) are read and written in
            // place, all but the last rows that do not fill a tile; everything else goes through packed planes.
            const int in_place = !complex && direct ? rows / tile_rows * tile_rows : 0;
            if constexpr (!complex) {
              if (in_place > 0)
                compute_block(&A(k0, 0), A.stride(1), in_place, Mr, Nr, c, &B(k0, 0), B.stride(1), beta, beta_zero);
            }
            if (rows == in_place) continue;
            const int packed = rows - in_place, padded = (packed + tile_rows - 1) / tile_rows * tile_rows;
            const std::int64_t kp = k0 + in_place;
            pack_rows(A, kp, packed, padded, false, a);
            compute_block(a, padded, padded, Mr, Nr, c, o, padded, Real(0), true);
            const Real* o_re = o;
            const Real* o_im = o + std::size_t(N) * padded;
            if (b_rows_fast) {
              for (int j = 0; j < N; ++j)
                for (int r = 0; r < packed; ++r)
                  store(B, kp + r, j, o_re, o_im, std::size_t(j) * padded + r, beta, beta_zero);
            } else {
              for (int r = 0; r < packed; ++r)
                for (int j = 0; j < N; ++j)
                  store(B, kp + r, j, o_re, o_im, std::size_t(j) * padded + r, beta, beta_zero);
            }
          }
        });
  }

  // As run, for complex A and B whose columns are contiguous (B may be A where update_pairs_in_place_ok says so):
  // kbla_update_host_pairs.hpp.
  static void run_pairs(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C,
                        const Scalar& beta, const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const std::int64_t lda = 2 * std::int64_t(A.stride(1)), ldb = 2 * std::int64_t(B.stride(1));
    const int ld = block_rows(M, N);
    const std::int64_t blocks = (K + ld - 1) / ld;
    const int teams = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(exec.concurrency(), blocks)));
    const std::int64_t rows_per_team = (blocks + teams - 1) / teams * ld;
    const std::size_t scratch = 2 * std::size_t(M) * N * sizeof(Real) + 64;
    const bool beta_zero = beta == ATS::zero();
    const Real beta_re = Planes::re(beta), beta_im = Planes::im(beta);
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::update(portable host complex columns)", policy, [=](const Member& team) {
          Real* const c_re = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          Real* const c_swap = c_re + std::size_t(M) * N;
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              const Scalar v = alpha * C(i, j);
              c_re[i * N + j] = Planes::re(v);
              c_swap[i * N + j] = Planes::im(v);
            }
          const PairFactors<Real> c{c_re, c_swap, N};
          const Real* const a = reinterpret_cast<const Real*>(A.data());
          Real* const b = reinterpret_cast<Real*>(B.data());
          const std::int64_t k_begin = team.league_rank() * rows_per_team;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + rows_per_team);
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            update_pairs_block<Real, tile_rows>(a + 2 * k0, lda, rows, M, N, c, b + 2 * k0, ldb, beta_re, beta_im,
                                                beta_zero);
          }
        });
  }

  // As run, for operands whose rows are contiguous: rows of reals (complex values as their interleaved parts) times
  // the real form of alpha C, [[Cr, Ci], [-Ci, Cr]] per entry, written to B row by row with beta.
  static void run_rows(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                       const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const int Mr = Planes::planes * M, Nr = Planes::planes * N;
    const std::int64_t lda = Planes::planes * A.stride(0), ldb = Planes::planes * B.stride(0);
    const int ld = HostRowKernels::block_rows<Real>(lda, ldb);
    const std::int64_t blocks = (K + ld - 1) / ld;
    const int teams = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(exec.concurrency(), blocks)));
    const std::int64_t rows_per_team = (blocks + teams - 1) / teams * ld;
    const std::size_t scratch = std::size_t(Mr) * Nr * sizeof(Real) + 64;
    const bool beta_zero = beta == ATS::zero();
    const Real beta_re = Planes::re(beta), beta_im = Planes::im(beta);
    const Policy policy = Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for(
        "kbla::update(portable host rows)", policy, [=](const Member& team) {
          Real* const c = static_cast<Real*>(team.team_scratch(1).get_shmem(scratch - 64));
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              const Scalar v = alpha * C(i, j);
              if constexpr (complex) {
                Real* ci = c + std::size_t(2 * i) * Nr + 2 * j;  // rows 2 i (ar) and 2 i + 1 (ai) of the real form
                ci[0] = Planes::re(v);
                ci[1] = Planes::im(v);
                ci[Nr] = -Planes::im(v);
                ci[Nr + 1] = Planes::re(v);
              } else {
                c[i * Nr + j] = v;
              }
            }
          const Real* const a = reinterpret_cast<const Real*>(A.data());
          Real* const b = reinterpret_cast<Real*>(B.data());
          const std::int64_t k_begin = team.league_rank() * rows_per_team;
          const std::int64_t k_end = std::min<std::int64_t>(K, k_begin + rows_per_team);
          for (std::int64_t k0 = k_begin; k0 < k_end; k0 += ld) {
            const int rows = static_cast<int>(std::min<std::int64_t>(ld, k_end - k0));
            update_rows_block<Real, complex>(a + k0 * lda, lda, rows, Mr, Nr, c, b + k0 * ldb, ldb, beta_re, beta_im,
                                             beta_zero);
          }
        });
  }

  // B(k, j) = o + beta * B(k, j); beta = 0 never reads B.
  static inline void store(const BView& B, std::int64_t k, int j, const Real* o_re, const Real* o_im,
                           std::size_t e, const Scalar& beta, bool beta_zero) {
    const Scalar v = Planes::make(o_re[e], complex ? o_im[e] : Real(0));
    B(k, j) = beta_zero ? v : v + beta * B(k, j);
  }

  // o (Nr column planes, ldo apart) = a (Mr column planes, lda apart) * c (Mr x Nr, row-major) over `rows` rows,
  // tile by tile of columns; beta as in update_host_tile.
  static void compute_block(const Real* a, std::int64_t lda, int rows, int Mr, int Nr, const Real* c, Real* o,
                            std::int64_t ldo, Real beta, bool beta_zero) {
    for (int j0 = 0; j0 < Nr;) {
      const int tn = tile_extent(Nr - j0, max_tn);
      host_with_extent<max_tn>(tn, [&](auto TN) {
        update_host_tile<Real, decltype(TN)::value, tile_rows>(a, lda, rows, Mr, c + j0, Nr, o + j0 * ldo, ldo, beta,
                                                               beta_zero);
      });
      j0 += tn;
    }
  }
};

}  // namespace Impl
}  // namespace kbla
