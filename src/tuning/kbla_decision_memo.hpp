// Decisions a measured choice (tuning/kbla_kernel_choice.hpp) has already made in this process, keyed by numbers.
// The choice cache keys its records by text (device and call class); building those strings and looking them up
// took about 1 us per call on the development host, a fifth of a small product (a 512^3 FP64 gemm on an H200, a
// block of a few thousand rows on a CPU). The callers keep one memo per template instantiation (View types and
// execution space fixed) and key it by what else makes the class; a decision goes in only once it is final.
// Each thread also keeps the last decision it found in a memo: a call of the same class as its thread's previous
// one, the usual case, takes neither the lock nor the lookup (small products are bound by the host's cost per
// call); any record makes those stale.
#pragma once

#include <atomic>
#include <map>
#include <mutex>

namespace kbla {
namespace tuning {

template <class Key, class Value>
class DecisionMemo {
 public:
  bool find(const Key& key, Value& value) const {
    struct Last {
      unsigned long long memo = 0, version = 0;  // which memo, and its version when the decision was found
      Key key;
      Value value;
    };
    static thread_local Last last;  // per instantiation of the memo's types
    const unsigned long long version = version_.load(std::memory_order_acquire);
    if (last.memo == id_ && last.version == version && last.key == key) {
      value = last.value;
      return true;
    }
    {
      std::lock_guard<std::mutex> guard(mutex_);
      const auto it = decisions_.find(key);
      if (it == decisions_.end()) return false;
      value = it->second;
    }
    last.memo = id_;
    last.version = version;
    last.key = key;
    last.value = value;
    return true;
  }
  void record(const Key& key, const Value& value) {
    std::lock_guard<std::mutex> guard(mutex_);
    decisions_[key] = value;
    version_.fetch_add(1, std::memory_order_release);  // the threads' last decisions of this memo are stale
  }

 private:
  static unsigned long long next_id() {
    static std::atomic<unsigned long long> ids{0};
    return ++ids;
  }
  const unsigned long long id_ = next_id();  // never 0, never reused (a memo at a freed one's address is another)
  std::atomic<unsigned long long> version_{0};
  mutable std::mutex mutex_;
  std::map<Key, Value> decisions_;
};

}  // namespace tuning
}  // namespace kbla
