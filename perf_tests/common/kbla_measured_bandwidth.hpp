// The measured memory bandwidth behind every "% of bandwidth" / "% of roofline" figure of the perf programs
// (kbla_driver, kbla_eigen_driver, kbla_bench_tall_skinny): one probe, so that their numbers agree.
// read: a read-only sum (what inner products need); copy: y = x, counted as read + write (what updates need).
// On NVIDIA GPUs the raw CUDA probe (kbla_cuda_stream_probe.cuh) keeps the fastest of its forms; elsewhere a
// Kokkos form of the same sum and copy runs on the default execution space.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include "kbla_cuda_stream_probe.cuh"
#define KBLA_PERF_CUDA_PROBE 1
#endif

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
  double read_GBs = 0, copy_GBs = 0;
  std::string read_form, copy_form;  // which form of the probe gave each rate
};

// Two buffers of n doubles each (n a multiple of 1024), median of reps runs per form.
inline Bandwidth measure_bandwidth(std::int64_t n, int reps) {
  using Exec = Kokkos::DefaultExecutionSpace;
#ifdef KBLA_PERF_CUDA_PROBE
  if (std::is_same<Exec, Kokkos::Cuda>::value) {
    cuda_probe::Rate read, copy;
    cuda_probe::measure(static_cast<std::size_t>(n), std::max(reps, 20), read, copy);
    return {read.GBs, copy.GBs, read.form, copy.form};
  }
#endif
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
      // flight per thread, so the reduction's own cost is spread over many loads.
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
  return {bytes / t_read * 1e-9, 2 * bytes / t_copy * 1e-9, "Kokkos parallel_reduce", "Kokkos::deep_copy"};
}

}  // namespace kbla_perf
