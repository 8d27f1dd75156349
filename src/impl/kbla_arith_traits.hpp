// kbla::Impl::ArithTraits<T>: Kokkos Kernels' scalar traits (zero, one, conj, real, imag, mag_type, ...) under
// one name for every Kokkos Kernels the library builds against. Kokkos Kernels 4.1 moved the traits from
// Kokkos::Details::ArithTraits to Kokkos::ArithTraits and left the old name as a deprecated alias that is due to
// disappear; Debian's 3.4 has only the old name and defines no KOKKOSKERNELS_VERSION (the macro came later, and
// every release without it has the old name only).
#pragma once

#include <KokkosKernels_config.h>
#include <Kokkos_ArithTraits.hpp>

namespace kbla {
namespace Impl {

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40100
template <class Value>
using ArithTraits = ::Kokkos::ArithTraits<Value>;
#else
template <class Value>
using ArithTraits = ::Kokkos::Details::ArithTraits<Value>;
#endif

}  // namespace Impl
}  // namespace kbla
