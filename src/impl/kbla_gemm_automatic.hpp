// GemmAlgorithm::automatic: for a shape of product on a device, the fastest of the classical product and the
// Strassen-type algorithms the library has (strassen, strassen2, strassen_conventional and winograd with 1 and 2
// levels each), measured once; candidates that run the same code (on the portable path strassen_conventional is
// the strassen / strassen2 recursion) are timed once.
// Where Strassen pays depends on the device (peak rate against bandwidth), the precision, the shape and the vendor
// GEMM it competes with, so nothing is predicted from the shape: a Strassen request that names no variant is
// never slower than classical (to the measurement), and gets the fastest variant above the crossover.
//
// Order, as the other measured choices (tuning/kbla_kernel_choice.hpp): GemmOptions::deterministic takes the
// classical product (its bits never depend on a measurement); then a choice recorded for this device and class
// (in memory, and in the choice-cache file of GemmOptions::tuning.cache_path or KBLA_TUNING_CACHE); then, in
// TuningMode::model_only or inside a host parallel region, the classical product; else every candidate runs on
// the caller's A and B (read only) into a scratch C of the call's shape, and the fastest is recorded.
//
// Class: scalar, op(A) / op(B), the three layouts, m, n and k themselves, beta = 0 or not. Not size ranges: which
// variant wins, and whether any beats classical, changes between nearby sizes with how the leaves fill the device's
// waves (docs/performance.md: a rank-k product whose choice, measured 25 % smaller, lost to classical), so a choice
// holds for the shape it was measured on. The first call of a class costs about 4 products per candidate (a
// warm-up, then the median of three; a candidate whose first timed product is 1.5x the best so far is not
// repeated), and m x n scratch values; a Strassen type is chosen only when it is more than 3 % faster than
// classical; a scratch C that cannot be allocated times nothing and runs the classical product. Later calls of a
// class find the decision in a per-process table keyed by numbers (tuning/kbla_decision_memo.hpp) instead of the
// choice cache's text keys.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_portable_route.hpp>
#include <impl/kbla_portable_route_keys.hpp>
#include <impl/kbla_portable_route_timing.hpp>
#include <impl/kbla_strassen_impl.hpp>
#include <tuning/kbla_decision_memo.hpp>
#include <tuning/kbla_kernel_choice.hpp>
#include <tuning/kbla_tuning_environment.hpp>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kbla {

// What GemmAlgorithm::automatic has done in this process (all execution spaces and threads): for tests and the
// benchmark's report of the tuning cost.
struct AutomaticGemmStats {
  long long classes_measured = 0;  // classes whose candidates were timed
  double seconds_measuring = 0;    // host wall time of those measurements
  long long classical_chosen = 0;  // calls per algorithm run
  long long strassen_chosen = 0;
  long long strassen2_chosen = 0;
  long long strassen_conventional_chosen = 0;   // 1 level
  long long strassen_conventional2_chosen = 0;  // 2 levels
  long long winograd_chosen = 0;   // 1 level
  long long winograd2_chosen = 0;  // 2 levels
};

namespace Impl {

enum class AutomaticGemmCandidate {
  classical,
  strassen,
  strassen2,
  strassen_conventional,
  strassen_conventional2,
  winograd,
  winograd2
};

// The names in the cache file.
inline const char* automatic_gemm_name(AutomaticGemmCandidate c) {
  switch (c) {
    case AutomaticGemmCandidate::strassen: return "strassen";
    case AutomaticGemmCandidate::strassen2: return "strassen2";
    case AutomaticGemmCandidate::strassen_conventional: return "strassen_conventional";
    case AutomaticGemmCandidate::strassen_conventional2: return "strassen_conventional2";
    case AutomaticGemmCandidate::winograd: return "winograd";
    case AutomaticGemmCandidate::winograd2: return "winograd2";
    default: return "classical";
  }
}

inline const std::vector<AutomaticGemmCandidate>& automatic_gemm_candidates() {
  static const std::vector<AutomaticGemmCandidate> all{
      AutomaticGemmCandidate::classical,
      AutomaticGemmCandidate::strassen,
      AutomaticGemmCandidate::strassen2,
      AutomaticGemmCandidate::strassen_conventional,
      AutomaticGemmCandidate::strassen_conventional2,
      AutomaticGemmCandidate::winograd,
      AutomaticGemmCandidate::winograd2};
  return all;
}

// The options that run candidate c (the caller's threshold, workspace and routing kept).
inline GemmOptions automatic_gemm_options(const GemmOptions& options, AutomaticGemmCandidate c) {
  GemmOptions o = options;
  switch (c) {
    case AutomaticGemmCandidate::strassen: o.algorithm = GemmAlgorithm::strassen; break;
    case AutomaticGemmCandidate::strassen2: o.algorithm = GemmAlgorithm::strassen2; break;
    case AutomaticGemmCandidate::strassen_conventional:
      o.algorithm = GemmAlgorithm::strassen_conventional;
      o.levels = 1;
      break;
    case AutomaticGemmCandidate::strassen_conventional2:
      o.algorithm = GemmAlgorithm::strassen_conventional;
      o.levels = 2;
      break;
    case AutomaticGemmCandidate::winograd: o.algorithm = GemmAlgorithm::winograd; o.levels = 1; break;
    case AutomaticGemmCandidate::winograd2: o.algorithm = GemmAlgorithm::winograd; o.levels = 2; break;
    default: o.algorithm = GemmAlgorithm::classical; break;
  }
  return o;
}

inline std::mutex& automatic_gemm_stats_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The measurement counters (classes_measured, seconds_measuring), under automatic_gemm_stats_mutex().
inline AutomaticGemmStats& automatic_gemm_stats_storage() {
  static AutomaticGemmStats stats;
  return stats;
}

// Calls per candidate, indexed by AutomaticGemmCandidate: atomics, so that a call takes no lock to be counted (the
// automatic call of a small product is bound by the host's cost per call).
inline std::atomic<long long>* automatic_gemm_call_counters() {
  static std::atomic<long long> counters[int(AutomaticGemmCandidate::winograd2) + 1] = {};
  return counters;
}

inline void count_automatic_gemm_call(AutomaticGemmCandidate c) {
  automatic_gemm_call_counters()[int(c)].fetch_add(1, std::memory_order_relaxed);
}

inline void count_automatic_gemm_measurement(double seconds) {
  std::lock_guard<std::mutex> guard(automatic_gemm_stats_mutex());
  ++automatic_gemm_stats_storage().classes_measured;
  automatic_gemm_stats_storage().seconds_measuring += seconds;
}

template <class View>
const char* automatic_gemm_layout_letter() {
  const char* letter = route_layout_letter<typename View::array_layout>::value;
  return letter ? letter : "S";
}

// e.g. "kbla::gemm automatic D NT AL BR CL m 8192 n 8192 k 6144 beta=0" (the call: the classical candidate of
// kbla::gemm routes tall & skinny shapes, that of kbla::strassen_gemm is one KokkosBlas::gemm).
template <class AView, class BView, class CView>
std::string automatic_gemm_class(const char* call, char tA, char tB, std::int64_t m, std::int64_t n, std::int64_t k,
                                 bool beta_zero) {
  using Scalar = typename CView::non_const_value_type;
  const char* letter = route_scalar_letter<Scalar>::value;
  const std::string scalar = letter ? letter : "bytes" + std::to_string(sizeof(Scalar));
  return std::string(call) + " automatic " + scalar + " " + tA + tB + " A" + automatic_gemm_layout_letter<AView>() + " B" +
         automatic_gemm_layout_letter<BView>() + " C" + automatic_gemm_layout_letter<CView>() + " m " +
         std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(k) + (beta_zero ? " beta=0" : " beta!=0");
}

// What a Strassen-type candidate would run for the call: the code (Strassen<...>::implementation) and the levels it
// recurses (Strassen<...>::levels_run).
struct StrassenRun {
  int implementation = 0;
  int levels = 0;
};

// A Strassen-type candidate's time is compared with classical's after this factor (see choose_automatic_gemm).
constexpr double kAutomaticGemmStrassenMargin = 1.03;

// The decisions already made in this process for one instantiation (execution space, scalar and layouts fixed by
// the types), keyed by what else makes the class: the call, the ops, m, n and k, beta = 0,
// the device, and the tuning options that could give another answer (cache path, mode).
using AutomaticGemmKey =
    std::tuple<std::string_view, char, char, std::int64_t, std::int64_t, std::int64_t, bool, int, std::string, int>;

// The candidate for this call. run(options, C_like) runs the product with those options into a View of C's shape
// (the caller's C or the scratch one), on exec, without fencing; what_runs(options) is its StrassenRun.
template <class ExecSpace, class AView, class BView, class CView, class Run, class WhatRuns>
AutomaticGemmCandidate choose_automatic_gemm(const ExecSpace& exec, const char* call, char tA, char tB, std::int64_t m,
                                             std::int64_t n, std::int64_t k, bool beta_zero,
                                             const GemmOptions& options, const Run& run, const WhatRuns& what_runs) {
  AutomaticGemmCandidate chosen = AutomaticGemmCandidate::classical;
  const bool in_parallel_region = inside_host_parallel_region();
  static tuning::DecisionMemo<AutomaticGemmKey, AutomaticGemmCandidate> decisions;  // one per instantiation
  const AutomaticGemmKey key{std::string_view(call), tA, tB, m, n, k, beta_zero, route_device_number(exec),
                             options.tuning.cache_path, static_cast<int>(options.tuning.mode)};
  if (!options.deterministic && !in_parallel_region && decisions.find(key, chosen)) {
    count_automatic_gemm_call(chosen);
    return chosen;
  }
  if (!options.deterministic) {
    using Scalar = typename CView::non_const_value_type;
    using ScratchLayout = std::conditional_t<std::is_same<typename CView::array_layout, Kokkos::LayoutRight>::value,
                                             Kokkos::LayoutRight, Kokkos::LayoutLeft>;  // C's, strided as Left
    using Scratch = Kokkos::View<Scalar**, ScratchLayout, typename CView::memory_space>;
    tuning::ChoiceCache& cache = tuning::process_choice_cache(tuning::choice_cache_path(options.tuning.cache_path));
    const tuning::TuningMode mode = in_parallel_region ? tuning::TuningMode::model_only : options.tuning.mode;
    // A Strassen type that would not recurse as deep as its name says at this shape (below its threshold) is the
    // classical product, or the one-level variant, plus the Strassen path's own costs: not a candidate. Timing such
    // twins against each other only measured noise (on an H200 Winograd below its threshold won ties at 512-4096
    // and left those calls slower than classical). Likewise a candidate that runs the same code and levels as an
    // earlier one (strassen_conventional on the portable path).
    std::vector<std::string> names;
    std::vector<StrassenRun> runs;
    for (const AutomaticGemmCandidate c : automatic_gemm_candidates()) {
      const GemmOptions o = automatic_gemm_options(options, c);
      if (c == AutomaticGemmCandidate::classical) {
        names.push_back(automatic_gemm_name(c));
        continue;
      }
      const StrassenRun r = what_runs(o);
      if (r.levels < nominal_strassen_levels(o)) continue;
      bool twin = false;
      for (const StrassenRun& earlier : runs)
        twin = twin || (earlier.implementation == r.implementation && earlier.levels == r.levels);
      if (twin) continue;
      runs.push_back(r);
      names.push_back(automatic_gemm_name(c));
    }
    Scratch scratch;
    bool measured = false, scratch_failed = false;
    double best = -1;
    const auto start = std::chrono::steady_clock::now();
    const std::string name = tuning::choose_kernel(
        cache, mode, route_device_key(exec, "gemm automatic"), automatic_gemm_class<AView, BView, CView>(call, tA, tB, m, n, k, beta_zero),
        names, automatic_gemm_name(AutomaticGemmCandidate::classical), [&](const std::string& candidate) -> double {
          measured = true;
          if (scratch_failed) return -1;
          if (scratch.data() == nullptr) {
            try {
              scratch = Scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::gemm automatic scratch C"), m, n);
              Kokkos::deep_copy(exec, scratch, Scalar(0));  // beta != 0 reads it
            } catch (const std::exception&) {
              scratch_failed = true;
              return -1;
            }
          }
          AutomaticGemmCandidate c = AutomaticGemmCandidate::classical;
          for (const AutomaticGemmCandidate x : automatic_gemm_candidates())
            if (candidate == automatic_gemm_name(x)) c = x;
          const GemmOptions o = automatic_gemm_options(options, c);
          double t = route_seconds_per_call(exec, [&] { run(o, scratch); }, best > 0 ? 1.5 * best : 0.0);
          // A Strassen type must beat classical by more than the margin: its error bound is larger, and below its
          // recursion threshold it is the classical product plus the Strassen path's own costs (a tie there went
          // either way and left the calls a few microseconds slower).
          if (t >= 0 && c != AutomaticGemmCandidate::classical) t *= kAutomaticGemmStrassenMargin;
          if (t >= 0 && (best < 0 || t < best)) best = t;
          return t;
        });
    if (measured)
      count_automatic_gemm_measurement(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    for (const AutomaticGemmCandidate c : automatic_gemm_candidates())
      if (name == automatic_gemm_name(c)) chosen = c;
    // Final decisions only: measured or read from the cache (model_only takes a record another call may still make;
    // a scratch C that could not be allocated measured nothing).
    if (mode == tuning::TuningMode::measure && !scratch_failed) decisions.record(key, chosen);
  }
  count_automatic_gemm_call(chosen);
  return chosen;
}

}  // namespace Impl

// A snapshot of the counters.
inline AutomaticGemmStats automatic_gemm_stats() {
  AutomaticGemmStats s;
  {
    std::lock_guard<std::mutex> guard(Impl::automatic_gemm_stats_mutex());
    s = Impl::automatic_gemm_stats_storage();
  }
  using Candidate = Impl::AutomaticGemmCandidate;
  const auto calls = [](Candidate c) { return Impl::automatic_gemm_call_counters()[int(c)].load(); };
  s.classical_chosen = calls(Candidate::classical);
  s.strassen_chosen = calls(Candidate::strassen);
  s.strassen2_chosen = calls(Candidate::strassen2);
  s.strassen_conventional_chosen = calls(Candidate::strassen_conventional);
  s.strassen_conventional2_chosen = calls(Candidate::strassen_conventional2);
  s.winograd_chosen = calls(Candidate::winograd);
  s.winograd2_chosen = calls(Candidate::winograd2);
  return s;
}

}  // namespace kbla
