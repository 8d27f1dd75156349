// The reducer the solvers take for sums across processes, and its single-process form. No MPI in this file:
// kbla::ortho and kbla::eigen are written against this interface, and the MPI implementation
// (kbla::mpi::Reducer, <kbla_mpi.hpp>) is compiled only where the application includes it.
//
// A reducer sums small arrays (the M x N results of block inner products) over all processes, in place:
//   static constexpr bool distributed;                  false: nothing to sum, the calls below do nothing
//   void sum_device(const ExecSpace& exec, Scalar* data, std::size_t count);
//        data lives in ExecSpace's memory; the sum is seen by later work on exec and by the host after a fence
//   void sum_host(Scalar* data, std::size_t count);      data in host memory
//   RowRange row_range(std::int64_t local_rows);         this process's first row and the global row count
//   ReductionStats stats();                               sums done so far and the time they took
// Every process must make the same sequence of calls with the same counts (they are collective), and every
// process must get bitwise the same sums, so that decisions taken from them (ranks, convergence) agree.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kbla {

// Where this process's rows sit in the global, row-distributed block vectors.
struct RowRange {
  std::int64_t offset = 0;  // global index of this process's first row
  std::int64_t global = 0;  // rows over all processes
};

struct ReductionStats {
  long allreduces = 0;   // collective sums (one per sum_device / sum_host call)
  double seconds = 0;    // wall time inside those calls (fences, copies and waiting for other processes included)
  double bytes = 0;      // payload summed (per process)
};

// One process: the block vectors are whole here, so every sum is already complete.
struct LocalReducer {
  static constexpr bool distributed = false;
  template <class ExecSpace, class Scalar>
  void sum_device(const ExecSpace&, Scalar*, std::size_t) const {}
  template <class Scalar>
  void sum_host(Scalar*, std::size_t) const {}
  RowRange row_range(std::int64_t local_rows) const { return RowRange{0, local_rows}; }
  ReductionStats stats() const { return ReductionStats{}; }
  int rank() const { return 0; }
  int size() const { return 1; }
};

}  // namespace kbla
