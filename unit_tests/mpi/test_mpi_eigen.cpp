// Distributed kbla::eigen against the single-process run: the 3D Laplacian split by z-planes (halo exchange;
// even, uneven and a rank without planes) and a diagonal operator (row splits with a rank without rows, the dense
// fallback of tiny problems). The distributed run must give the single-process eigenvalues and residuals within
// 1e-12 and the analytic eigenvalues within 1e-10.
#include "mpi_test_helpers.hpp"

#include <kbla_eigen.hpp>
#include <kbla_mpi.hpp>
#include <mpi/kbla_mpi_laplacian.hpp>
#include <solvers/kbla_laplacian.hpp>

using namespace kbla_test;

namespace kbla_mpi_test {  // named: nvcc refuses device code in anonymous namespaces' classes

struct DiagonalOperator {
  Kokkos::View<double*, Mem> d;  // this rank's diagonal entries
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    const auto dd = d;
    const int cols = int(X.extent(1));
    Kokkos::parallel_for(
        "DiagonalOperator", Kokkos::RangePolicy<Exec>(0, X.extent(0)), KOKKOS_LAMBDA(const std::int64_t i) {
          for (int j = 0; j < cols; ++j) Y(i, j) = dd(i) * X(i, j);
        });
  }
};

}  // namespace kbla_mpi_test

namespace {

using kbla_mpi_test::DiagonalOperator;
using Result = kbla::EigenResult<double, Mem>;

// simple_spectrum: the wanted eigenvalues are simple, so each eigenvector (and its residual) is determined; a
// multiple eigenvalue's eigenvectors are any basis of its eigenspace, which rounding picks, so there only the
// eigenvalues are compared and the residuals held to the tolerance.
void compare_runs(const Result& single, const Result& dist, const std::string& what, bool simple_spectrum = true) {
  ASSERT_EQ(dist.eigenvalues.size(), single.eigenvalues.size()) << what;
  EXPECT_TRUE(dist.converged) << what;
  EXPECT_EQ(dist.dense, single.dense) << what;
  for (std::size_t i = 0; i < single.eigenvalues.size(); ++i) {
    EXPECT_LE(std::abs(dist.eigenvalues[i] - single.eigenvalues[i]), 1e-12 * std::abs(single.eigenvalues[i]))
        << what << ": eigenvalue " << i;
    if (simple_spectrum)
      EXPECT_LE(std::abs(dist.residuals[i] - single.residuals[i]), 1e-12)
          << what << ": residual " << i << " distributed " << dist.residuals[i] << " single " << single.residuals[i];
    else
      EXPECT_LE(dist.residuals[i], 1.5e-10) << what << ": residual " << i;
  }
  // The same path: the decisions are taken from summed numbers that differ only by rounding.
  EXPECT_EQ(dist.iterations, single.iterations) << what;
  EXPECT_EQ(dist.restarts, single.restarts) << what;
  // Orthonormal eigenvectors over all ranks.
  const HostMatrix<double> X = to_host(dist.eigenvectors);
  HostMatrix<double> G = kbla::dense::multiply(X, X, true);
  MPI_Allreduce(MPI_IN_PLACE, G.data(), G.rows() * G.cols(), MPI_DOUBLE, MPI_SUM, world());
  for (int i = 0; i < G.rows(); ++i) G(i, i) -= 1;
  EXPECT_LE(frobenius(G), 1e-12) << what;
}

kbla::EigenOptions options(int k, int s) {
  kbla::EigenOptions o;
  o.nev = k;
  o.block_size = s;
  o.tol = 1e-10;
  return o;
}

// Planes of rank q: even, proportional to q + 1, or none on rank 0.
kbla::mpi::PlaneRange planes_for(Split split, int nz) {
  const RowSlice r = slice(split, nz);
  return kbla::mpi::PlaneRange{r.offset, r.count};
}

void laplacian_case(int nx, int ny, int nz, Split split, int k, int s, kbla::EigenWhich which,
                    bool simple_spectrum = true) {
  kbla::EigenOptions opt = options(k, s);
  opt.which = which;
  kbla::mpi::Laplacian3D<Exec> whole(MPI_COMM_SELF, nx, ny, nz, kbla::mpi::PlaneRange{0, nz});
  const Result single = kbla::eigen<double>(Exec(), whole, whole.local_rows(), opt);

  kbla::mpi::Laplacian3D<Exec> op(world(), nx, ny, nz, planes_for(split, nz));
  kbla::mpi::Reducer reducer(world());
  const Result dist = kbla::eigen<double>(Exec(), op, op.local_rows(), opt, reducer);
  compare_runs(single, dist, split_name(split), simple_spectrum);
  EXPECT_EQ(dist.eigenvectors.extent(0), std::size_t(op.local_rows()));
  EXPECT_GT(dist.timings.allreduces, 0);
  EXPECT_EQ(dist.timings.allreduces, reducer.stats().allreduces);
  if (world_size() > 1 && op.local_rows() > 0 && op.local_rows() < op.global_rows())
    EXPECT_GT(op.halo_stats().exchanges, 0);

  std::vector<double> exact = kbla::laplacian_3d_eigenvalues(nx, ny, nz);
  if (which == kbla::EigenWhich::largest) std::reverse(exact.begin(), exact.end());
  for (int i = 0; i < k; ++i)
    EXPECT_LE(std::abs(dist.eigenvalues[i] - exact[i]), 1e-10 * std::abs(exact[i])) << "eigenvalue " << i;
}

}  // namespace

// Grids whose axes n + 1 share no factor have simple eigenvalues; 6 x 6 x 9 has double ones (x <-> y).
TEST(MpiEigen, LaplacianEvenPlanes) { laplacian_case(8, 7, 10, Split::even, 6, 4, kbla::EigenWhich::largest); }
TEST(MpiEigen, LaplacianUnevenPlanesSmallest) {
  laplacian_case(6, 10, 12, Split::uneven, 5, 4, kbla::EigenWhich::smallest);
}
TEST(MpiEigen, LaplacianDoubleEigenvalues) {
  laplacian_case(6, 6, 9, Split::uneven, 5, 4, kbla::EigenWhich::smallest, false);
}
TEST(MpiEigen, LaplacianRankWithoutPlanes) {
  laplacian_case(7, 6, 8, Split::zero_first, 6, 4, kbla::EigenWhich::largest);
}

TEST(MpiEigen, DiagonalRankWithoutRowsAndDenseFallback) {
  for (const int n : {400, 10}) {  // 10 rows: too small for the Krylov basis, solved densely
    for (const Split split : {Split::uneven, Split::zero_first}) {
      const RowSlice rows = slice(split, n);
      auto diag = [&](int offset, int count) {
        Kokkos::View<double*, Mem> d("d", count);
        auto h = Kokkos::create_mirror_view(d);
        for (int i = 0; i < count; ++i) h(i) = 1.0 + 0.5 * (offset + i) + 0.01 * std::sin(offset + i);
        Kokkos::deep_copy(d, h);
        return d;
      };
      const kbla::EigenOptions opt = options(3, 4);
      const Result single = kbla::eigen<double>(Exec(), DiagonalOperator{diag(0, n)}, n, opt);
      kbla::mpi::Reducer reducer(world());
      const Result dist =
          kbla::eigen<double>(Exec(), DiagonalOperator{diag(rows.offset, rows.count)}, rows.count, opt, reducer);
      compare_runs(single, dist, std::string(split_name(split)) + ", n = " + std::to_string(n));
      EXPECT_EQ(dist.dense, n == 10);
    }
  }
}

TEST(MpiEigen, PlanesThatDoNotTileTheGridThrowEverywhere) {
  // Every rank claims plane 0: the ranks' ranges overlap (or, on one rank, do not cover nz = 4).
  EXPECT_THROW(kbla::mpi::Laplacian3D<Exec>(world(), 3, 3, 4, kbla::mpi::PlaneRange{0, 1}), std::invalid_argument);
  EXPECT_EQ(kbla::mpi::even_planes(10, 4, 0).count, 3);
  EXPECT_EQ(kbla::mpi::even_planes(10, 4, 3).first, 8);
}
