// Argument checks shared by the public calls. Every check runs before anything is written, and every
// failure is a std::invalid_argument whose message names the call, the argument and the sizes.
#pragma once

#include <impl/kbla_overlap.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kbla {
namespace Impl {

template <class View>
std::string shape_of(const View& v) {
  std::ostringstream os;
  os << v.extent(0) << " x " << v.extent(1);
  return os.str();
}

[[noreturn]] inline void throw_invalid(const std::string& message) { throw std::invalid_argument(message); }

template <class View>
void require_rank2_view() {
  static_assert(Kokkos::is_view<View>::value, "kbla: arguments must be Kokkos::View");
  static_assert(static_cast<int>(View::rank) == 2, "kbla: matrix arguments must be rank-2 Views");
}

// The call's execution space must be able to read and write the View's memory.
template <class ExecSpace, class View>
void require_accessible(const char* call, const char* name, const View& v) {
  constexpr bool ok =
      Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;
  if (!ok) {
    std::ostringstream os;
    os << call << ": " << name << " (" << shape_of(v) << ", label '" << v.label() << "') lives in memory space "
       << View::memory_space::name() << ", which execution space " << ExecSpace::name() << " cannot access";
    throw_invalid(os.str());
  }
}

template <class View>
void require_extents(const char* call, const char* name, const View& v, std::int64_t rows, std::int64_t cols,
                     const std::string& why) {
  if (static_cast<std::int64_t>(v.extent(0)) != rows || static_cast<std::int64_t>(v.extent(1)) != cols) {
    std::ostringstream os;
    os << call << ": " << name << " is " << shape_of(v) << " but must be " << rows << " x " << cols << " (" << why
       << ")";
    throw_invalid(os.str());
  }
}

// Whether two rank-2 Views share an element (exact for strided Views of one allocation: impl/kbla_overlap.hpp).
template <class V1, class V2>
bool overlap(const V1& a, const V2& b) {
  return footprints_overlap(footprint_of(a), footprint_of(b));
}

template <class Out, class In>
void require_no_overlap(const char* call, const char* out_name, const Out& out, const char* in_name, const In& in) {
  if (overlap(out, in)) {
    std::ostringstream os;
    os << call << ": output " << out_name << " (" << shape_of(out) << ") overlaps input " << in_name << " ("
       << shape_of(in) << "); the result would depend on the order of writes";
    throw_invalid(os.str());
  }
}

// Same memory, same shape and same strides: the one kind of aliasing update's in-place form allows.
template <class V1, class V2>
bool same_view(const V1& a, const V2& b) {
  if (static_cast<const void*>(a.data()) != static_cast<const void*>(b.data())) return false;
  if (a.extent(0) != b.extent(0) || a.extent(1) != b.extent(1)) return false;
  return a.stride(0) == b.stride(0) && a.stride(1) == b.stride(1);
}

inline char normalized_trans(const char* call, const char* name, const char trans[]) {
  const char t = trans == nullptr ? '\0' : trans[0];
  switch (t) {
    case 'N': case 'n': return 'N';
    case 'T': case 't': return 'T';
    case 'C': case 'c': return 'C';
    default: break;
  }
  std::ostringstream os;
  os << call << ": " << name << " is '" << (trans == nullptr ? std::string("(null)") : std::string(trans))
     << "' but must start with N, T or C (no transpose, transpose, conjugate transpose)";
  throw_invalid(os.str());
}

}  // namespace Impl
}  // namespace kbla
