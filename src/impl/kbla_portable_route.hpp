// The portable path's route: for a class of calls (kbla_portable_route_keys.hpp), run the portable kernel
// (src/impl) or KokkosBlas::gemm, whichever measured faster on this device (the portable path is never
// slower than KokkosBlas::gemm on the same shape). Which one wins depends on the backend, the device and the BLAS library
// behind Kokkos Kernels (its own kernels, cuBLAS, a host BLAS), so nothing is predicted from the shape.
//
// Order: deterministic calls always take the portable kernel (their bits never depend on a measurement or a cache
// file); then a choice recorded for this device and class (in memory, and in the choice-cache file of
// TuningOptions::cache_path or KBLA_TUNING_CACHE, next to the CUDA selection's records); then, in
// TuningMode::model_only or inside a host parallel region (where timing would be meaningless and fences would
// serialise the threads), the portable kernel; else (TuningMode::measure) both run on scratch Views of the class and
// the faster is recorded. Later calls of a class find the decision in a per-process memo keyed by numbers.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_portable_route_keys.hpp>
#include <impl/kbla_portable_route_stats.hpp>
#include <tuning/kbla_decision_memo.hpp>
#include <tuning/kbla_kernel_choice.hpp>
#include <tuning/kbla_tuning_environment.hpp>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace kbla {
namespace Impl {

enum class PortableRouteKernel { portable, kokkosblas };

// The names in the cache file.
inline const char* route_kernel_name(PortableRouteKernel kernel) {
  return kernel == PortableRouteKernel::kokkosblas ? "kokkosblas" : "portable";
}

// Whether the calling thread runs inside an OpenMP parallel region (the OpenMP backend's threads among them).
inline bool inside_host_parallel_region() {
#if defined(_OPENMP)
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

// The kernel for a call of `call_class` on `device`.
//   time_seconds(kernel, give_up_after): seconds per call of `kernel` on scratch Views of the class (never the
//     caller's), giving up after one call longer than give_up_after when that is > 0; negative if it cannot run.
template <class TimeSeconds>
PortableRouteKernel choose_portable_route(const std::string& device, const std::string& call_class,
                                          const TuningOptions& tuning, bool deterministic,
                                          const TimeSeconds& time_seconds) {
  PortableRouteKernel kernel = PortableRouteKernel::portable;
  if (!deterministic) {
    tuning::ChoiceCache& cache = tuning::process_choice_cache(tuning::choice_cache_path(tuning.cache_path));
    const tuning::TuningMode mode =
        inside_host_parallel_region() ? tuning::TuningMode::model_only : tuning.mode;
    bool measured = false;
    double portable_seconds = -1;
    const auto start = std::chrono::steady_clock::now();
    static const std::vector<std::string> candidates{route_kernel_name(PortableRouteKernel::portable),
                                                     route_kernel_name(PortableRouteKernel::kokkosblas)};
    const std::string name = tuning::choose_kernel(
        cache, mode, device, call_class, candidates, route_kernel_name(PortableRouteKernel::portable), [&](const std::string& candidate) -> double {
          measured = true;
          if (candidate == route_kernel_name(PortableRouteKernel::portable)) {
            portable_seconds = time_seconds(PortableRouteKernel::portable, 0.0);
            return portable_seconds;
          }
          // A gemm whose first call already takes four times the portable kernel's is not repeated.
          return time_seconds(PortableRouteKernel::kokkosblas, portable_seconds > 0 ? 4 * portable_seconds : 0.0);
        });
    if (measured)
      count_portable_route_measurement(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (name == route_kernel_name(PortableRouteKernel::kokkosblas)) kernel = PortableRouteKernel::kokkosblas;
  }
  count_portable_route_call(kernel == PortableRouteKernel::kokkosblas);
  return kernel;
}

// A route class beyond the View types (fixed per instantiation): half octaves of K, M, N, beta = 0, the device, and
// the tuning options that could give another answer (cache path, mode).
using RouteDecisionKey = std::tuple<int, int, int, bool, int, std::string, int>;
using RouteDecisions = tuning::DecisionMemo<RouteDecisionKey, PortableRouteKernel>;

// choose_portable_route for the callers' classes, with the decisions of this process in `memo` (one per
// instantiation): later calls of a class skip the text keys. make_class() gives the class's text for the cache.
// Only decisions that are final go in: measured (or read from the cache) outside a host parallel region.
template <class ExecSpace, class MakeClass, class TimeSeconds>
PortableRouteKernel choose_portable_route(RouteDecisions& memo, const ExecSpace& exec, std::int64_t K, int M, int N,
                                          bool beta_zero, const TuningOptions& tuning, bool deterministic,
                                          const MakeClass& make_class, const TimeSeconds& time_seconds) {
  const bool final_decision =
      !deterministic && tuning.mode == tuning::TuningMode::measure && !inside_host_parallel_region();
  const RouteDecisionKey key{route_row_bucket(K), M, N, beta_zero, route_device_number(exec), tuning.cache_path,
                             static_cast<int>(tuning.mode)};
  PortableRouteKernel kernel = PortableRouteKernel::portable;
  if (final_decision && memo.find(key, kernel)) {
    count_portable_route_call(kernel == PortableRouteKernel::kokkosblas);
    return kernel;
  }
  kernel = choose_portable_route(route_device_key(exec), make_class(), tuning, deterministic, time_seconds);
  if (final_decision) memo.record(key, kernel);
  return kernel;
}

}  // namespace Impl
}  // namespace kbla
