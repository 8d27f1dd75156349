// Decisions a measured choice (tuning/kbla_kernel_choice.hpp) has already made in this process, keyed by numbers.
// The choice cache keys its records by text (device and call class); building those strings and looking them up
// took about 1 us per call on the development host, a fifth of a small product (a 512^3 FP64 gemm on an H200, a
// block of a few thousand rows on a CPU). The callers keep one memo per template instantiation (View types and
// execution space fixed) and key it by what else makes the class; a decision goes in only once it is final.
#pragma once

#include <map>
#include <mutex>

namespace kbla {
namespace tuning {

template <class Key, class Value>
class DecisionMemo {
 public:
  bool find(const Key& key, Value& value) const {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto it = decisions_.find(key);
    if (it == decisions_.end()) return false;
    value = it->second;
    return true;
  }
  void record(const Key& key, const Value& value) {
    std::lock_guard<std::mutex> guard(mutex_);
    decisions_[key] = value;
  }

 private:
  mutable std::mutex mutex_;
  std::map<Key, Value> decisions_;
};

}  // namespace tuning
}  // namespace kbla
