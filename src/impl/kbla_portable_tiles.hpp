// Shared pieces of the portable kbla::inner / kbla::update kernels: width classes (compile-time tile sizes chosen
// from the run-time width), the real view of a scalar (complex values are processed as separate real and
// imaginary planes so that the host loops vectorise without complex shuffles), and host packing of row blocks.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

// Whether an execution space runs on the host: it can read HostSpace memory (Serial, OpenMP, Threads, HPX).
template <class ExecSpace>
struct runs_on_host {
  static constexpr bool value = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
};

// Real and imaginary parts of a scalar as the packed planes hold them.
template <class Scalar>
struct ScalarPlanes {
  using real_type = Scalar;
  static constexpr int planes = 1;
  KOKKOS_INLINE_FUNCTION static real_type re(const Scalar& s) { return s; }
  KOKKOS_INLINE_FUNCTION static real_type im(const Scalar&) { return real_type(0); }
  KOKKOS_INLINE_FUNCTION static Scalar make(real_type re, real_type) { return re; }
};

template <class Real>
struct ScalarPlanes<Kokkos::complex<Real>> {
  using real_type = Real;
  static constexpr int planes = 2;
  KOKKOS_INLINE_FUNCTION static real_type re(const Kokkos::complex<Real>& s) { return s.real(); }
  KOKKOS_INLINE_FUNCTION static real_type im(const Kokkos::complex<Real>& s) { return s.imag(); }
  KOKKOS_INLINE_FUNCTION static Kokkos::complex<Real> make(real_type re, real_type im) {
    return Kokkos::complex<Real>(re, im);
  }
};

// Width class: the largest tile extent from {1, 2, 4, 8} (capped at max_extent) that fits the remaining columns.
// Covering a width w by such runs (13 = 8 + 4 + 1) keeps every tile a compile-time size.
KOKKOS_INLINE_FUNCTION int tile_extent(int remaining, int max_extent) {
  int t = max_extent;
  while (t > remaining) t /= 2;
  return t;
}

// Calls f(std::integral_constant<int, Extent>) for the run-time extent (1, 2, 4 or 8, at most MaxExtent); only
// extents up to MaxExtent are instantiated. with_extent is for kernels that also run on devices; host-only code
// (whose lambdas are not device functions) uses host_with_extent.
template <int MaxExtent, class Body>
KOKKOS_INLINE_FUNCTION void with_extent(int extent, Body&& f) {
  if (MaxExtent >= 8 && extent == 8) f(std::integral_constant<int, (MaxExtent >= 8 ? 8 : 1)>());
  else if (MaxExtent >= 4 && extent == 4) f(std::integral_constant<int, (MaxExtent >= 4 ? 4 : 1)>());
  else if (MaxExtent >= 2 && extent == 2) f(std::integral_constant<int, (MaxExtent >= 2 ? 2 : 1)>());
  else f(std::integral_constant<int, 1>());
}

template <int MaxExtent, class Body>
inline void host_with_extent(int extent, Body&& f) {
  if (MaxExtent >= 8 && extent == 8) f(std::integral_constant<int, (MaxExtent >= 8 ? 8 : 1)>());
  else if (MaxExtent >= 4 && extent == 4) f(std::integral_constant<int, (MaxExtent >= 4 ? 4 : 1)>());
  else if (MaxExtent >= 2 && extent == 2) f(std::integral_constant<int, (MaxExtent >= 2 ? 2 : 1)>());
  else f(std::integral_constant<int, 1>());
}

// Host: copies rows [k0, k0 + rows) of View V (rows x cols) into `planes` column planes of `ld` reals each
// (plane p, column c at dst + (p * cols + c) * ld), conjugating when asked, and zeroes rows [rows, ld).
// The loop runs along V's smaller stride so that the reads are unit-stride for Left, Right and Stride Views.
template <class View>
inline void pack_rows(const View& V, std::int64_t k0, int rows, int ld, bool conjugate,
                      typename ScalarPlanes<typename View::non_const_value_type>::real_type* dst) {
  using Planes = ScalarPlanes<typename View::non_const_value_type>;
  using Real = typename Planes::real_type;
  const int cols = static_cast<int>(V.extent(1));
  Real* re = dst;
  Real* im = dst + std::int64_t(cols) * ld;
  const Real sign = conjugate ? Real(-1) : Real(1);
  if (V.stride(0) <= V.stride(1)) {
    for (int c = 0; c < cols; ++c) {
      Real* rc = re + std::int64_t(c) * ld;
      for (int r = 0; r < rows; ++r) rc[r] = Planes::re(V(k0 + r, c));
      if (Planes::planes == 2) {
        Real* ic = im + std::int64_t(c) * ld;
        for (int r = 0; r < rows; ++r) ic[r] = sign * Planes::im(V(k0 + r, c));
      }
    }
  } else {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const auto v = V(k0 + r, c);
        re[std::int64_t(c) * ld + r] = Planes::re(v);
        if (Planes::planes == 2) im[std::int64_t(c) * ld + r] = sign * Planes::im(v);
      }
  }
  for (int p = 0; p < Planes::planes; ++p)
    for (int c = 0; c < cols; ++c)
      for (int r = rows; r < ld; ++r) dst[(std::int64_t(p) * cols + c) * ld + r] = Real(0);
}

}  // namespace Impl
}  // namespace kbla
