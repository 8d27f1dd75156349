// How the portable route times a candidate on scratch Views: how many rows the scratch operands get, and seconds
// per call (a warm-up, then the median of three fenced calls, eleven for short ones).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>

namespace kbla {
namespace Impl {

// Rows of the scratch operands: the caller's K, but the two tall operands (K x M and K x N) take at most 1 GB on a
// device and 64 MB on a host space (Kokkos Kernels' own gemm runs far below the bandwidth at narrow widths there; a
// larger measurement would cost seconds). On a device a smaller stand-in is another regime: the CUDA selection,
// measuring 256 MB stand-ins of 4-8 GB operands, picked the slower candidate for some classes on an H200, as a
// vendor gemm changes its kernel and its split of K with the row count. 1 GB holds a block Krylov solver's bases
// (10^6 rows x 96 columns of double: 0.8 GB) whole and stays far below any current GPU's memory.
inline std::int64_t route_scratch_rows(std::int64_t rows, int M, int N, std::size_t value_bytes, bool on_host) {
  const double cap_bytes = on_host ? 64e6 : 1e9;
  const double bytes_per_row = double(M + N) * double(value_bytes);
  const std::int64_t cap_rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(cap_bytes / bytes_per_row));
  return std::min(rows, cap_rows);
}

// Calls shorter than this get kRouteShortCallSamples timings instead of three: a fenced call of a few tens of
// microseconds varies by several per cent from one timing to the next (launch and synchronisation latency), as
// much as the candidates of such a class differ.
constexpr double kRouteShortCallSeconds = 200e-6;
constexpr int kRouteShortCallSamples = 11;

// Seconds per call of `call` on `exec`: one warm-up call, then the median of three (of eleven for short calls), each
// fenced. When the first timed call is already longer than give_up_after (when > 0), it is returned as it is: that
// candidate lost, no need to repeat it. The warm-up itself never decides: it carries one-time costs (the first
// KokkosBlas::gemm on Cuda creates the cuBLAS handle and loads kernels), which made the route keep the portable
// kernel at 4 % of the bandwidth where gemm ran at 83 % on an H200. A call that throws gives -1 (the candidate
// cannot run here).
template <class ExecSpace, class Call>
double route_seconds_per_call(const ExecSpace& exec, const Call& call, double give_up_after) {
  try {
    exec.fence();
    call();
    exec.fence();
    double seconds[kRouteShortCallSamples];
    int samples = 3;
    Kokkos::Timer timer;
    for (int i = 0; i < samples; ++i) {
      timer.reset();
      call();
      exec.fence();
      seconds[i] = timer.seconds();
      if (i == 0 && give_up_after > 0 && seconds[0] > give_up_after) return seconds[0];
      if (i == 0 && seconds[0] < kRouteShortCallSeconds) samples = kRouteShortCallSamples;
    }
    std::sort(seconds, seconds + samples);
    return seconds[samples / 2];
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace Impl
}  // namespace kbla
