// GoogleTest main for the MPI tests: MPI and Kokkos around the run. Only rank 0 prints GoogleTest's report; a
// failure on any rank makes every rank exit non-zero, and rank 0 names the ranks that failed.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {
// Ranks other than 0: only the failures, with the rank in front.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::printf("[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                  r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  Kokkos::initialize(argc, argv);
  int failed = 0;
  { failed = RUN_ALL_TESTS() != 0 ? 1 : 0; }
  Kokkos::finalize();
  std::vector<int> all(std::size_t(size), 0);
  MPI_Gather(&failed, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any)
    for (int q = 0; q < size; ++q)
      if (all[std::size_t(q)]) std::printf("kbla_mpi_tests: failures on rank %d of %d\n", q, size);
  MPI_Finalize();
  return any;
}
