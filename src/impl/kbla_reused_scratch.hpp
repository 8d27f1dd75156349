// Device memory that a call needs only between its own kernels (the partial sums of the portable device inner),
// kept from one call to the next instead of allocated and freed by every call. On Cuda a free waits for the whole
// device and an allocation costs tens of microseconds: an H200 ran a 280 us inner call (double, width 8) in 400 us
// with the allocation and free of its partial sums. The CUDA kernels keep their workspace the same way
// (src/cuda/tall_skinny: one buffer per stream).
//
// One buffer per (memory space, execution space instance, host thread), grown on demand and never shrunk, freed
// at Kokkos::finalize. Calls on one instance run in order on it, so a buffer is never used by two calls at once;
// the host thread is part of the key because two host threads may enqueue calls on one instance at the same
// time. Backends whose instances have no identity (impl_instance_id) get a fresh allocation per call.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kbla {
namespace Impl {

template <class ExecSpace, class = void>
struct has_instance_id : std::false_type {};
template <class ExecSpace>
struct has_instance_id<ExecSpace, decltype(void(std::declval<const ExecSpace&>().impl_instance_id()))>
    : std::true_type {};

template <class ExecSpace>
class ReusedScratch {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using Buffer = Kokkos::View<char*, memory_space>;

  // At least `bytes` bytes of memory_space for work on `exec`; valid until the next call with the same
  // instance from the same host thread.
  static Buffer bytes(const ExecSpace& exec, std::size_t bytes) {
    if constexpr (!has_instance_id<ExecSpace>::value) {
      return Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::scratch"), bytes);
    } else {
      const Key key{std::uint64_t(exec.impl_instance_id()), std::this_thread::get_id()};
      std::lock_guard<std::mutex> lock(mutex());
      register_finalize_hook();
      Buffer& buffer = buffers()[key];
      if (buffer.extent(0) < bytes) {
        std::size_t grown = 2 * buffer.extent(0);
        if (grown < bytes) grown = bytes;
        if (grown < std::size_t(1) << 16) grown = std::size_t(1) << 16;
        // The old buffer's free waits for the kernels that may still read it (a device free synchronizes).
        buffer = Buffer();
        buffer = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::reused scratch"), grown);
      }
      return buffer;
    }
  }

  // Frees every buffer (the finalize hook; also for tests).
  static void release() {
    std::lock_guard<std::mutex> lock(mutex());
    buffers().clear();
  }

 private:
  using Key = std::pair<std::uint64_t, std::thread::id>;

  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<Key, Buffer>& buffers() {
    static auto* m = new std::map<Key, Buffer>();  // never destroyed: emptied by the finalize hook instead
    return *m;
  }
  // Views must be gone before Kokkos frees its memory spaces: the hook runs at the start of Kokkos::finalize.
  static void register_finalize_hook() {
    static bool registered = false;
    if (registered) return;
    registered = true;
    Kokkos::push_finalize_hook([] {
      std::lock_guard<std::mutex> lock(mutex());
      buffers().clear();
      registered = false;  // a later Kokkos::initialize starts over
    });
  }
};

}  // namespace Impl
}  // namespace kbla
