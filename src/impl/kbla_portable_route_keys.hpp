// The two halves of a choice-cache record of the portable route (kbla_portable_route.hpp): the device (execution
// space, its hardware as far as Kokkos names it, Kokkos Kernels' version and BLAS TPLs, this library's version: an
// upgrade of any of them measures afresh) and the class of the call (op, scalar, layouts, M x N, row-count bucket,
// beta = 0). Classes start with "portable-route " so that they never collide with the CUDA selection's records in a
// shared cache file.
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

namespace kbla {
namespace Impl {

// The BLAS letter of the scalar types the route serves (nullptr: not served, the portable kernel always runs).
template <class Scalar>
struct route_scalar_letter {
  static constexpr const char* value = nullptr;
};
template <>
struct route_scalar_letter<float> {
  static constexpr const char* value = "S";
};
template <>
struct route_scalar_letter<double> {
  static constexpr const char* value = "D";
};
template <>
struct route_scalar_letter<Kokkos::complex<float>> {
  static constexpr const char* value = "C";
};
template <>
struct route_scalar_letter<Kokkos::complex<double>> {
  static constexpr const char* value = "Z";
};

// The layouts the route serves (LayoutStride: the portable kernel always runs).
template <class Layout>
struct route_layout_letter {
  static constexpr const char* value = nullptr;
};
template <>
struct route_layout_letter<Kokkos::LayoutLeft> {
  static constexpr const char* value = "L";
};
template <>
struct route_layout_letter<Kokkos::LayoutRight> {
  static constexpr const char* value = "R";
};

// What KokkosBlas::gemm is in this build: the version and the BLAS libraries it may hand a product to.
// Built once: it is part of every routed call's device key.
inline const std::string& kokkos_kernels_description() {
  static const std::string description = [] {
  std::string s = "Kokkos Kernels ";
#if defined(KOKKOSKERNELS_VERSION)
  s += std::to_string(KOKKOSKERNELS_VERSION);
#else
  s += "3.x";  // the version macro came with 3.7
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
  s += " +BLAS";
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_MKL)
  s += " +MKL";
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_ARMPL)
  s += " +ArmPL";
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  s += " +cuBLAS";
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_ROCBLAS)
  s += " +rocBLAS";
#endif
  return s;
  }();
  return description;
}

// The GPU's name and multiprocessor count where Kokkos runs on CUDA (queried once per device: the query is slow);
// empty for other spaces, whose name and concurrency identify them as far as Kokkos can tell.
template <class ExecSpace>
std::string route_hardware_name(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    static std::mutex mutex;
    static std::map<int, std::string> names;
    const int device = exec.cuda_device();
    std::lock_guard<std::mutex> guard(mutex);
    auto it = names.find(device);
    if (it == names.end()) {
      cudaDeviceProp prop;
      const std::string name = cudaGetDeviceProperties(&prop, device) == cudaSuccess
                                   ? std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs"
                                   : "CUDA device " + std::to_string(device);
      it = names.emplace(device, name).first;
    }
    return " " + it->second;
  }
#endif
  (void)exec;
  return std::string();
}

// The device an execution space instance runs on, as a number (CUDA: its device; other spaces: 0), for the
// decision memos (tuning/kbla_decision_memo.hpp).
template <class ExecSpace>
int route_device_number(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) return exec.cuda_device();
#endif
  (void)exec;
  return 0;
}

// `purpose` names the choices the key is for (the portable route, GemmAlgorithm::automatic), so their records in a
// shared cache file never collide.
template <class ExecSpace>
std::string route_device_key(const ExecSpace& exec, const char* purpose = "portable route") {
  return std::string(purpose) + "; " + ExecSpace::name() + route_hardware_name(exec) + ", concurrency " +
         std::to_string(exec.concurrency()) + "; " + kokkos_kernels_description() + "; KokkosBlockLA " +
         std::to_string(KBLA_VERSION_MAJOR) + "." + std::to_string(KBLA_VERSION_MINOR) + "." +
         std::to_string(KBLA_VERSION_PATCH);
}

// Half octaves of the row count, floor(2 log2 K), as the CUDA selection's classes: fixed costs (a reduction, a
// launch) and the libraries' own kernel choices change inside an octave.
inline int route_row_bucket(std::int64_t rows) {
  return rows < 1 ? 0 : static_cast<int>(std::floor(2 * std::log2(static_cast<double>(rows))));
}

// A count's half-octave bucket as text, e.g. "2^24.5".
inline std::string half_octaves(std::int64_t x) {
  const int bucket = route_row_bucket(x);
  return "2^" + std::to_string(bucket / 2) + (bucket % 2 ? ".5" : "");
}

// e.g. "portable-route inner D AL BL CL 8x8 rows 2^24.5 beta=0". `layouts` names each operand and its layout.
inline std::string route_call_class(const char* op, const char* scalar, const std::string& layouts, int M, int N,
                                    std::int64_t rows, bool beta_zero) {
  return std::string("portable-route ") + op + " " + scalar + " " + layouts + " " + std::to_string(M) + "x" +
         std::to_string(N) + " rows " + half_octaves(rows) + (beta_zero ? " beta=0" : " beta!=0");
}

}  // namespace Impl
}  // namespace kbla
