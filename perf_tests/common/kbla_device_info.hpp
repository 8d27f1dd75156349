// The device facts the perf programs' JSON records: the GPU's name, its maximum clocks and the memory's specified
// peak bandwidth (on a Kokkos with CUDA, with or without the library's CUDA kernels; elsewhere the execution
// space's name, clocks unknown).
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace kbla_perf {

struct DeviceInfo {
  std::string name;
  double sm_clock_MHz = 0, memory_clock_MHz = 0, spec_bandwidth_GBs = 0;  // 0: not known on this backend
};

inline DeviceInfo device_info() {
  DeviceInfo info;
  info.name = Kokkos::DefaultExecutionSpace::name();
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
    int device = 0, sm_kHz = 0, mem_kHz = 0, bus_bits = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      info.name = prop.name;
      cudaDeviceGetAttribute(&sm_kHz, cudaDevAttrClockRate, device);
      cudaDeviceGetAttribute(&mem_kHz, cudaDevAttrMemoryClockRate, device);
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
      info.sm_clock_MHz = sm_kHz * 1e-3;
      info.memory_clock_MHz = mem_kHz * 1e-3;
      info.spec_bandwidth_GBs = 2.0 * mem_kHz * 1e3 * (bus_bits / 8.0) * 1e-9;  // double data rate
    }
  }
#endif
  return info;
}

}  // namespace kbla_perf
