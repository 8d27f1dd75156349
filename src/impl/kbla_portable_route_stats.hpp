// What the portable path's route (kbla_portable_route.hpp) has done in this process: how many classes of calls it
// timed, how long that took, and how many calls went to each kernel. For tests (a second call of a class must not
// measure again) and for the benchmark's report of the tuning cost.
#pragma once

#include <mutex>

namespace kbla {

struct PortableRouteStats {
  long long classes_measured = 0;  // classes whose two candidates were timed on scratch Views
  double seconds_measuring = 0;    // host wall time spent in those measurements (allocation, fill, runs, fences)
  long long portable_chosen = 0;   // calls sent to the portable kernel (src/impl)
  long long kokkosblas_chosen = 0; // calls sent to KokkosBlas::gemm
};

namespace Impl {

inline std::mutex& portable_route_stats_mutex() {
  static std::mutex mutex;
  return mutex;
}

inline PortableRouteStats& portable_route_stats_storage() {
  static PortableRouteStats stats;
  return stats;
}

inline void count_portable_route_measurement(double seconds) {
  std::lock_guard<std::mutex> guard(portable_route_stats_mutex());
  ++portable_route_stats_storage().classes_measured;
  portable_route_stats_storage().seconds_measuring += seconds;
}

inline void count_portable_route_call(bool to_kokkosblas) {
  std::lock_guard<std::mutex> guard(portable_route_stats_mutex());
  ++(to_kokkosblas ? portable_route_stats_storage().kokkosblas_chosen : portable_route_stats_storage().portable_chosen);
}

}  // namespace Impl

// A snapshot of the counters (all execution spaces, all threads of the process).
inline PortableRouteStats portable_route_stats() {
  std::lock_guard<std::mutex> guard(Impl::portable_route_stats_mutex());
  return Impl::portable_route_stats_storage();
}

}  // namespace kbla
