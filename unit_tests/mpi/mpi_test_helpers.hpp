// Helpers of the MPI tests: the world communicator, row splits of a global block over the ranks (even, uneven, a
// rank with zero rows) and this rank's rows of a host matrix. The global matrices come from the solver tests'
// host helpers, built identically on every rank from the same seed.
#pragma once

#include "../solvers/solver_test_helpers.hpp"

#include <kbla_mpi.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace kbla_test {

inline MPI_Comm world() { return MPI_COMM_WORLD; }
inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(world(), &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(world(), &s);
  return s;
}
// Reducer options with the collective argument check on.
inline kbla::mpi::ReducerOptions checked() {
  kbla::mpi::ReducerOptions o;
  o.check_shapes = true;
  return o;
}

enum class Split {
  even,       // K / P each, the remainder one row each to the first ranks
  uneven,     // rank q gets a share proportional to q + 1
  zero_first  // rank 0 holds no rows (with more than one rank), the others split evenly
};
inline const char* split_name(Split s) {
  return s == Split::even ? "even split" : s == Split::uneven ? "uneven split" : "rank 0 without rows";
}

struct RowSlice {
  int offset = 0;
  int count = 0;
};

inline RowSlice slice(Split split, int K, int rank = world_rank(), int size = world_size()) {
  std::vector<int> counts(std::size_t(size), 0);
  if (split == Split::even) {
    for (int q = 0; q < size; ++q) counts[q] = K / size + (q < K % size ? 1 : 0);
  } else if (split == Split::uneven) {
    const long total_weight = long(size) * (size + 1) / 2;
    int given = 0;
    for (int q = 0; q < size; ++q) given += counts[q] = int(long(K) * (q + 1) / total_weight);
    counts[size - 1] += K - given;
  } else {
    const int first = size > 1 ? 1 : 0, n = size - first;
    for (int q = first; q < size; ++q) counts[q] = K / n + (q - first < K % n ? 1 : 0);
  }
  RowSlice r;
  for (int q = 0; q < rank; ++q) r.offset += counts[q];
  r.count = counts[rank];
  return r;
}

template <class T>
HostMatrix<T> rows_of(const HostMatrix<T>& A, const RowSlice& rows) {
  HostMatrix<T> B(rows.count, A.cols());
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < rows.count; ++i) B(i, j) = A(rows.offset + i, j);
  return B;
}

}  // namespace kbla_test
