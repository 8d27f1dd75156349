// Choosing the communication routes: ReduceMethod::measured keeps a route that this build and MPI offer, the same
// on every rank (the slowest rank's times decide), and sums as the host-staged route does; the device each rank
// takes and the properties the halo choice reads.
#include "mpi_test_helpers.hpp"

#include <kbla_eigen.hpp>
#include <kbla_mpi.hpp>
#include <mpi/kbla_mpi_fastest.hpp>
#include <mpi/kbla_mpi_laplacian.hpp>
#include <mpi/kbla_mpi_node.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kbla_test;

namespace {

// Every rank holds the same value (bitwise: min and max over the ranks agree).
bool same_on_every_rank(double x) {
  double lo = x, hi = x;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, world());
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, world());
  return lo == hi;
}

kbla::mpi::ReducerOptions measured(int block_size = 4, int basis_blocks = 6) {
  kbla::mpi::ReducerOptions o;
  o.method = kbla::mpi::ReduceMethod::measured;
  o.measure_block_size = block_size;
  o.measure_basis_blocks = basis_blocks;
  o.measure_repetitions = 3;
  return o;
}

// Whether no two ranks use the same GPU, from the GPU numbers (ctest starts every rank on one host, where the
// ranks see the same GPUs); false without GPUs.
bool ranks_on_distinct_gpus() {
  const int mine = kbla::mpi::current_gpu();
  std::vector<int> all(static_cast<std::size_t>(world_size()), -1);
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, world());
  std::vector<int> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  return sorted.front() >= 0 && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

// The routes ReduceMethod::measured may time here, in its order.
std::vector<kbla::mpi::ReduceMethod> offered_routes() {
  constexpr bool device_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  std::vector<kbla::mpi::ReduceMethod> r = {kbla::mpi::ReduceMethod::host_staged};
  if (device_memory && kbla::mpi::mpi_is_cuda_aware()) r.push_back(kbla::mpi::ReduceMethod::device_direct);
  if (device_memory && kbla::mpi::nccl_available() && ranks_on_distinct_gpus())
    r.push_back(kbla::mpi::ReduceMethod::nccl);
  return r;
}

}  // namespace

// Each rank would pick another route from its own times; the slowest rank's times give every rank the same one.
TEST(MpiRouteChoice, TheSlowestRankDecidesForEveryRank) {
  const int rank = world_rank(), size = world_size();
  // route 0 is slow on rank 0 only, route 2 fast on the last rank only, route 1 the same everywhere
  std::vector<double> t = {rank == 0 ? 5.0 : 1.0, 2.0, rank == size - 1 ? 1.0 : 3.0};
  const std::size_t own = kbla::mpi::index_of_fastest(t);
  kbla::mpi::slowest_over_ranks(world(), t);
  const double want0 = 5.0, want2 = size == 1 ? 1.0 : 3.0;
  EXPECT_EQ(t[0], want0);
  EXPECT_EQ(t[1], 2.0);
  EXPECT_EQ(t[2], want2);
  const std::size_t chosen = kbla::mpi::index_of_fastest(t);
  EXPECT_EQ(chosen, size == 1 ? 2u : 1u);
  EXPECT_TRUE(same_on_every_rank(double(chosen)));
  if (size > 1 && rank == size - 1) EXPECT_NE(own, chosen);  // the last rank alone would have taken route 0
}

TEST(MpiRouteChoice, TiesGoToTheEarlierRouteAndNoRoutesIsAnError) {
  EXPECT_EQ(kbla::mpi::index_of_fastest({2.0, 1.0, 1.0}), 1u);
  EXPECT_EQ(kbla::mpi::index_of_fastest({1.0}), 0u);
  EXPECT_THROW(kbla::mpi::index_of_fastest({}), std::invalid_argument);
}

TEST(MpiRouteChoice, MeasuredPicksAnOfferedRouteTheSameOnEveryRank) {
  const kbla::mpi::Reducer reducer(world(), measured());
  const std::vector<kbla::mpi::ReduceMethod> offered = offered_routes();
  const auto& timed = reducer.measured_routes();
  ASSERT_EQ(timed.size(), offered.size());
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < timed.size(); ++i) {
    EXPECT_EQ(timed[i].method, offered[i]) << i;
    EXPECT_GT(timed[i].gram_seconds, 0.0) << kbla::mpi::name(timed[i].method);
    EXPECT_GT(timed[i].coefficients_seconds, 0.0) << kbla::mpi::name(timed[i].method);
    EXPECT_TRUE(std::isfinite(timed[i].total()));
    EXPECT_TRUE(same_on_every_rank(timed[i].gram_seconds));
    EXPECT_TRUE(same_on_every_rank(timed[i].coefficients_seconds));
    best = std::min(best, timed[i].total());
  }
  const auto chosen = std::find_if(timed.begin(), timed.end(),
                                   [&](const kbla::mpi::RouteTiming& t) { return t.method == reducer.method(); });
  ASSERT_NE(chosen, timed.end()) << "the chosen route " << kbla::mpi::name(reducer.method()) << " was not timed";
  EXPECT_EQ(chosen->total(), best);
  EXPECT_NE(reducer.method(), kbla::mpi::ReduceMethod::measured);
  EXPECT_TRUE(same_on_every_rank(double(int(reducer.method()))));
  EXPECT_EQ(reducer.stats().allreduces, 0);  // the timings are not counted as the application's sums
  // The other methods time nothing.
  EXPECT_TRUE(kbla::mpi::Reducer(world()).measured_routes().empty());
}

TEST(MpiRouteChoice, MeasuredSumsAsHostStaged) {
  const int K = 301, M = 6, N = 4;
  const RowSlice rows = slice(Split::uneven, K);
  const HostMatrix<double> A = random_matrix<double>(K, M, 41), B = random_matrix<double>(K, N, 42);
  const DeviceBlock<double> Al = to_device(rows_of(A, rows)), Bl = to_device(rows_of(B, rows));
  DeviceBlock<double> C_measured("C", M, N), C_host("C", M, N);
  kbla::mpi::inner(Exec(), kbla::mpi::Reducer(world(), measured()), 1.0, Al, Bl, 0.0, C_measured);
  kbla::mpi::inner(Exec(), kbla::mpi::Reducer(world()), 1.0, Al, Bl, 0.0, C_host);
  const HostMatrix<double> a = to_host(C_measured), b = to_host(C_host);
  double scale = 0, diff = 0;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      scale = std::max(scale, std::abs(b(i, j)));
      diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
    }
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(diff, 1e-14 * scale * std::sqrt(double(K)));
}

// The eigen-solver under the measured route: the host-staged run's eigenvalues, residuals and path.
TEST(MpiRouteChoice, EigenUnderTheMeasuredRouteAsUnderHostStaged) {
  const int nx = 7, ny = 6, nz = 9;
  const RowSlice planes = slice(Split::uneven, nz);
  const kbla::mpi::Laplacian3D<Exec> op(world(), nx, ny, nz, kbla::mpi::PlaneRange{planes.offset, planes.count});
  kbla::EigenOptions opt;
  opt.nev = 6;
  opt.block_size = 3;
  opt.tol = 1e-10;
  const auto host = kbla::eigen<double>(Exec(), op, op.local_rows(), opt, kbla::mpi::Reducer(world()));
  const auto timed = kbla::eigen<double>(Exec(), op, op.local_rows(), opt,
                                         kbla::mpi::Reducer(world(), measured(opt.block_size, 12)));
  ASSERT_TRUE(host.converged);
  ASSERT_TRUE(timed.converged);
  ASSERT_EQ(timed.eigenvalues.size(), host.eigenvalues.size());
  for (std::size_t i = 0; i < host.eigenvalues.size(); ++i) {
    EXPECT_LE(std::abs(timed.eigenvalues[i] - host.eigenvalues[i]), 1e-12 * std::abs(host.eigenvalues[i])) << i;
    EXPECT_LE(timed.residuals[i], 1.5e-10) << i;
  }
  EXPECT_EQ(timed.iterations, host.iterations);
}

TEST(MpiRouteChoice, MeasuredRejectsEmptyPayloadsOnEveryRank) {
  for (const int bad : {0, -2}) {
    kbla::mpi::ReducerOptions o = measured();
    o.measure_block_size = bad;
    try {
      kbla::mpi::Reducer reducer(world(), o);
      ADD_FAILURE() << "no exception for measure_block_size = " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("measure_block_size"), std::string::npos) << e.what();
    }
  }
  kbla::mpi::ReducerOptions o = measured();
  o.measure_repetitions = 0;
  EXPECT_THROW(kbla::mpi::Reducer(world(), o), std::invalid_argument);
}

// Ranks share the node's GPUs round-robin; without GPUs the node-local rank, as before.
TEST(MpiNode, DeviceIdIsTheNodeLocalRankModuloTheGpus) {
  const int local = kbla::mpi::node_local_rank(world()), gpus = kbla::mpi::visible_gpus();
  const int device = kbla::mpi::node_device_id(world());
  EXPECT_GE(local, 0);
  EXPECT_LT(local, world_size());
  if (gpus > 0) {
    EXPECT_EQ(device, local % gpus);
    EXPECT_LT(device, gpus);
  } else {
    EXPECT_EQ(device, local);
  }
  // ctest starts every rank on this host
  EXPECT_TRUE(kbla::mpi::all_ranks_on_one_node(world()));
  const bool reach = kbla::mpi::gpus_reach_each_other(world());
  EXPECT_TRUE(same_on_every_rank(reach ? 1.0 : 0.0));
  if (!kbla::mpi::Laplacian3D<Exec>::ipc_possible()) EXPECT_FALSE(reach);
}

// NCCL cannot hold two ranks of one GPU in a communicator (its set-up fails or waits forever): with more ranks
// than GPUs (ctest's 3 and 4 ranks on a machine with two) the measured route leaves it out (offered_routes above)
// and asking for it throws on every rank; with a GPU per rank it works.
TEST(MpiNode, EveryRankHasItsOwnGpuMeansNoSharedGpu) {
  const bool own = kbla::mpi::every_rank_has_its_own_gpu(world());
  EXPECT_TRUE(same_on_every_rank(own ? 1.0 : 0.0));
  EXPECT_EQ(own, ranks_on_distinct_gpus());
  if (kbla::mpi::visible_gpus() == 0) EXPECT_FALSE(own);
}

TEST(MpiRouteChoice, NcclNeedsAGpuPerRank) {
  if (!kbla::mpi::nccl_available()) GTEST_SKIP() << "a build without NCCL";
  kbla::mpi::ReducerOptions o;
  o.method = kbla::mpi::ReduceMethod::nccl;
  if (ranks_on_distinct_gpus()) {
    const kbla::mpi::Reducer reducer(world(), o);
    EXPECT_EQ(reducer.method(), kbla::mpi::ReduceMethod::nccl);
    return;
  }
  try {
    kbla::mpi::Reducer reducer(world(), o);
    ADD_FAILURE() << "no exception with ranks sharing a GPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a GPU of its own"), std::string::npos) << e.what();
  }
}
