// Whether a kernel choice may be measured on the running device, or comes from the performance model only.
// Kept apart from the cache and the policy so that the public options (kbla_options.hpp) and the raw CUDA API
// (src/cuda) can name it without pulling in file handling.
#pragma once

namespace kbla {
namespace tuning {

enum class TuningMode {
  model_only,  // the performance model decides; nothing is timed (reproducible runs)
  measure,     // the first call of a class times the candidates; cached choices are used from then on
};

}  // namespace tuning
}  // namespace kbla
