// The View types the portable route works on: every routed call, and its scratch operands, use one unmanaged View
// type per (scalar, layout, device), so that the portable kernels and KokkosBlas::gemm are instantiated once for
// the caller's Views and the measurement alike.
#pragma once

#include <solvers/kbla_random.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <tuple>

namespace kbla {
namespace Impl {

template <class View, class Value>
using route_view_t = Kokkos::View<Value**, typename View::array_layout, typename View::device_type,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// The owning View type of a scratch operand for `View`.
template <class View>
using ScratchOf =
    Kokkos::View<typename View::non_const_value_type**, typename View::array_layout, typename View::device_type>;

// A scratch operand of `View`'s layout and device, filled with uniform random values in [-1, 1) whose every mantissa
// bit varies (kbla::fill_random): a product bound by its arithmetic units under a power limit runs faster on
// repeated or short values than on the caller's data (the CUDA selection, with 16-bit values, took a kernel on an
// H200 that was 6-10 % slower on random operands).
template <class View, class ExecSpace>
ScratchOf<View> route_scratch(const ExecSpace& exec, const char* label, std::int64_t rows, std::int64_t cols) {
  using Scalar = typename View::non_const_value_type;
  Kokkos::View<Scalar**, typename View::array_layout, typename View::device_type> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
  fill_random(exec, v, 0x6b626c61726f7574ULL);
  return v;
}

// The scratch operands of one measurement, made when the first candidate is timed and kept for the second (both
// candidates then run on the same memory, and it is allocated and filled once). An allocation that fails leaves
// none: the candidates cannot be timed, the model's pick is used and the caller's call goes on.
template <class Operands>
class RouteScratch {
 public:
  template <class Make>
  const Operands* get(const Make& make) {
    if (!tried_) {
      tried_ = true;
      try {
        operands_.emplace(make());
      } catch (const std::exception&) {
      }
    }
    return operands_ ? &*operands_ : nullptr;
  }

 private:
  bool tried_ = false;
  std::optional<Operands> operands_;
};

}  // namespace Impl
}  // namespace kbla
