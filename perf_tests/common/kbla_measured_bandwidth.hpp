// Measured memory bandwidth for the perf programs' "% of roofline" figures: a STREAM-like read-only sum (what
// inner-product kernels need) and a copy y = x (read + write, what update kernels need), median of reps runs.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace kbla_perf {

template <class F>
double median_seconds(int reps, F&& run) {
  run();  // warm-up
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    Kokkos::Timer timer;
    run();
    Kokkos::fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Bandwidth {
  double read_GBs, copy_GBs;
};

// n doubles per buffer (two buffers); n a multiple of 1024.
inline Bandwidth measure_bandwidth(std::int64_t n, int reps) {
  using Exec = Kokkos::DefaultExecutionSpace;
  Kokkos::View<double*> x("x", n), y("y", n);
  Kokkos::parallel_for("fill", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(std::int64_t i) { x(i) = 1e-9 * i; });
  const double bytes = double(n) * sizeof(double);
  double sink = 0;
  constexpr bool host = std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  const double t_read = median_seconds(reps, [&] {
    if (host) {
      // Blocks of 1024 summed into local accumulators: the reduction reference is written once per block, so
      // the loads are not serialised behind it.
      Kokkos::parallel_reduce(
          "read", Kokkos::RangePolicy<Exec>(0, n / 1024),
          KOKKOS_LAMBDA(std::int64_t b, double& s) {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (std::int64_t i = 1024 * b; i < 1024 * b + 1024; i += 4) {
              s0 += x(i);
              s1 += x(i + 1);
              s2 += x(i + 2);
              s3 += x(i + 3);
            }
            s += (s0 + s1) + (s2 + s3);
          },
          sink);
    } else {
      // GPUs: index i sums x(i), x(i + n/16), ... x(i + 15 n/16): each warp's loads stay coalesced and 16 are in
      // flight per thread. One element per index (the obvious form) spends most of its time in Kokkos' reduction
      // and measured 1.19 TB/s on an H100 whose copy ran at 2.95 TB/s.
      const std::int64_t stride = n / 16;
      Kokkos::parallel_reduce(
          "read", Kokkos::RangePolicy<Exec>(0, stride),
          KOKKOS_LAMBDA(std::int64_t i, double& s) {
            double a = 0;
            for (int j = 0; j < 16; ++j) a += x(i + j * stride);
            s += a;
          },
          sink);
    }
  });
  const double t_copy = median_seconds(reps, [&] { Kokkos::deep_copy(y, x); });
  if (sink < 0) std::printf("(impossible)\n");
  return {bytes / t_read * 1e-9, 2 * bytes / t_copy * 1e-9};
}

}  // namespace kbla_perf
