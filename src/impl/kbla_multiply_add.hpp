// acc += a * b for the portable device kernels, complex values as four fused multiply-adds.
//
// Kokkos::complex's operator* forms the product first (re: a.re b.re - a.im b.im, im: a.re b.im + a.im b.re, a
// multiply and a fused multiply-add each) and += then adds it: six floating-point instructions per complex
// multiply-add, where adding each of the four real products into the running sum takes four fused ones. On an H200
// (CUDA kernels off, % of the copy bandwidth) the four-instruction form took complex update of row-major B from 72
// to 79 % at width 16 and from 43 to 49 % at 32, column-major B of 8 columns from 67 to 72 %.
#pragma once

#include <Kokkos_Core.hpp>

namespace kbla {
namespace Impl {

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void multiply_add(Scalar& acc, const Scalar& a, const Scalar& b) {
  acc += a * b;
}

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void multiply_add(Kokkos::complex<Real>& acc, const Kokkos::complex<Real>& a,
                                              const Kokkos::complex<Real>& b) {
  Real re = acc.real(), im = acc.imag();
  re += a.real() * b.real();
  re -= a.imag() * b.imag();
  im += a.real() * b.imag();
  im += a.imag() * b.real();
  acc = Kokkos::complex<Real>(re, im);
}

// a, or its conjugate when im_sign is -1: one multiply per value, where `flag ? conj(a) : a` on a run-time flag
// compiled to a negation and two selects (SASS of the inner direct kernel, complex).
template <class Scalar, class Real>
KOKKOS_FORCEINLINE_FUNCTION Scalar conj_by_sign(const Scalar& a, const Real& /*im_sign*/) {
  return a;
}

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<Real> conj_by_sign(const Kokkos::complex<Real>& a, const Real& im_sign) {
  return Kokkos::complex<Real>(a.real(), im_sign * a.imag());
}

}  // namespace Impl
}  // namespace kbla
