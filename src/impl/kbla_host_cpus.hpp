// How many host CPUs this process may run on: its affinity mask where the system reports one (Linux), else the
// hardware's count. kbla::eigen starts a second host thread only when there is a second CPU for it: an MPI rank bound
// to one core (`mpirun --bind-to core`) would otherwise share that core between the thread driving the device and
// the helper.
#pragma once

#if defined(__linux__)
#include <sched.h>
#endif

#include <thread>

namespace kbla {
namespace Impl {

inline int usable_host_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? int(n) : 1;
}

}  // namespace Impl
}  // namespace kbla
