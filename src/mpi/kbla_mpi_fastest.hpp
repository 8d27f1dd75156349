// Choosing a communication route by timing: each rank times the candidates, the slowest rank's time counts for
// each (a collective step is as slow as its slowest rank), and every rank then picks the same route because it
// decides from the same numbers.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace kbla {
namespace mpi {

// Replaces each entry by its maximum over the ranks (MPI_Allreduce MAX, in place). Collective: every rank passes
// the same number of entries.
inline void slowest_over_ranks(MPI_Comm comm, std::vector<double>& seconds) {
  if (seconds.empty()) return;
  const int code = MPI_Allreduce(MPI_IN_PLACE, seconds.data(), int(seconds.size()), MPI_DOUBLE, MPI_MAX, comm);
  if (code != MPI_SUCCESS) throw std::runtime_error("kbla::mpi::slowest_over_ranks: MPI_Allreduce failed");
}

// The index of the smallest entry; a tie goes to the earlier entry (the routes are listed simplest first).
inline std::size_t index_of_fastest(const std::vector<double>& seconds) {
  if (seconds.empty()) throw std::invalid_argument("kbla::mpi::index_of_fastest: no routes to choose from (0 times)");
  std::size_t best = 0;
  for (std::size_t i = 1; i < seconds.size(); ++i)
    if (seconds[i] < seconds[best]) best = i;
  return best;
}

// The median of `repetitions` timings of call(); each starts after a barrier, so that the ranks start together
// and a timing is the collective step's time rather than the wait for a late rank.
template <class Call>
double median_seconds(MPI_Comm comm, int repetitions, const Call& call) {
  std::vector<double> t;
  for (int r = 0; r < std::max(1, repetitions); ++r) {
    MPI_Barrier(comm);
    Kokkos::Timer timer;
    call();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

}  // namespace mpi
}  // namespace kbla
