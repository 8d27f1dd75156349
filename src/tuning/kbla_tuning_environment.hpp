// The one environment variable the library reads: KBLA_TUNING_CACHE, the path of the kernel choice cache file
// (docs/tall_skinny.md, "How a kernel is chosen"). It is read here and nowhere else, once per process, and only
// when the call's options name no cache file. Unset or empty: choices live in memory for the process.
#pragma once

#include <cstdlib>
#include <string>

namespace kbla {
namespace tuning {

inline const std::string& choice_cache_path_from_environment() {
  static const std::string path = [] {
    const char* value = std::getenv("KBLA_TUNING_CACHE");
    return std::string(value ? value : "");
  }();
  return path;
}

// The cache file a call uses: the path from its options, else the environment's, else none (memory only).
inline std::string choice_cache_path(const std::string& from_options) {
  return from_options.empty() ? choice_cache_path_from_environment() : from_options;
}

}  // namespace tuning
}  // namespace kbla
