// Picking one kernel among candidates for a call class: from the cache when a choice is recorded, else by the
// performance model (tuning off, or nothing measurable), else by timing each candidate once on the running device
// and recording the fastest. The caller supplies the candidates (kernel names), the model's pick and a timer; this
// file holds only the policy, so it is the same for the tall & skinny products and for Strassen, and testable on
// the host. Host C++ only.
#pragma once

#include <tuning/kbla_choice_cache.hpp>
#include <tuning/kbla_tuning_mode.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kbla {
namespace tuning {

// One cache per file path per process (the empty path: one in-memory cache), shared by every call.
inline ChoiceCache& process_choice_cache(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<ChoiceCache>> caches;
  std::lock_guard<std::mutex> guard(mutex);
  std::unique_ptr<ChoiceCache>& cache = caches[path];
  if (!cache) cache.reset(new ChoiceCache(path));
  return *cache;
}

// Two candidates whose first timings are within this factor are timed again, A B B A.
constexpr double kCloseRace = 1.5;

// The kernel to run for `call_class` on `device`.
//   candidates: kernel names the call can run for this class (at least one; model_pick among them);
//   time_seconds(name): the measured time of one call of `name` on scratch buffers of the class, or a negative
//     value when that candidate cannot run here (it is then skipped); only called in TuningMode::measure.
// A cached choice that is no longer a candidate (the library changed its kernels) is measured again.
template <class TimeSeconds>
std::string choose_kernel(ChoiceCache& cache, TuningMode mode, const std::string& device,
                          const std::string& call_class, const std::vector<std::string>& candidates,
                          const std::string& model_pick, TimeSeconds&& time_seconds) {
  Choice cached;
  if (cache.find(device, call_class, cached) &&
      std::find(candidates.begin(), candidates.end(), cached.kernel) != candidates.end())
    return cached.kernel;
  if (mode == TuningMode::model_only || candidates.size() < 2) return model_pick;
  std::vector<Choice> timed;
  for (const std::string& name : candidates) {
    const double t = time_seconds(name);
    if (t >= 0) timed.push_back(Choice{name, t});
  }
  if (timed.empty()) return model_pick;  // nothing could be timed: do not record a guess
  std::sort(timed.begin(), timed.end(), [](const Choice& a, const Choice& b) { return a.seconds < b.seconds; });
  // A close race is decided by four more timings in the order A B B A, on the mean of each candidate's two: a
  // candidate timed right after another can inherit its clock and power state (on an H200 the candidate timed first
  // was measured up to 15 % faster than the same call in a benchmark, the one timed second up to 15 % slower), and
  // the clocks drift while large products are timed back to back (FP64 8192^3 on an H200: the classical product,
  // timed first, kept a lead that Winograd, 9 % faster in the benchmark, could not beat). A B B A cancels a drift
  // that is linear in time; the first pass only says which two race.
  if (timed.size() > 1 && timed[1].seconds <= kCloseRace * timed[0].seconds) {
    double sum[2] = {0, 0};
    bool all_ran = true;
    for (int i : {0, 1, 1, 0}) {
      const double t = time_seconds(timed[i].kernel);
      all_ran = all_ran && t >= 0;
      sum[i] += t;
    }
    if (all_ran) {
      timed[0].seconds = sum[0] / 2;
      timed[1].seconds = sum[1] / 2;
      if (timed[1].seconds < timed[0].seconds) std::swap(timed[0], timed[1]);
    }
  }
  cache.record(device, call_class, timed[0]);
  return timed[0].kernel;
}

}  // namespace tuning
}  // namespace kbla
