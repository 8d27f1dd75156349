// Reproducible random block vectors (and zero fill) on any execution space: a counter-based hash (splitmix64) of (seed,
// row, column), uniform in [-1, 1) (both parts for complex). The same seed gives the same block on every backend.
#pragma once

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbla {
namespace Impl {

KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

KOKKOS_INLINE_FUNCTION double uniform_pm1(std::uint64_t h) {
  return double(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <class Value>
struct RandomValue {
  KOKKOS_INLINE_FUNCTION static Value get(std::uint64_t key) { return Value(uniform_pm1(splitmix64(key))); }
};
template <class Real>
struct RandomValue<Kokkos::complex<Real>> {
  KOKKOS_INLINE_FUNCTION static Kokkos::complex<Real> get(std::uint64_t key) {
    return Kokkos::complex<Real>(Real(uniform_pm1(splitmix64(key))),
                                 Real(uniform_pm1(splitmix64(key ^ 0x5851f42d4c957f2dULL))));
  }
};

}  // namespace Impl

// X(i, j) <- uniform random in [-1, 1) (real and imaginary parts), a pure function of (seed, i, j).
template <class ExecSpace, class XView>
void fill_random(const ExecSpace& exec, const XView& X, std::uint64_t seed) {
  using Scalar = typename XView::non_const_value_type;
  const std::int64_t rows = X.extent(0), cols = X.extent(1);
  if (rows == 0 || cols == 0) return;
  const std::uint64_t s = Impl::splitmix64(seed);
  Kokkos::parallel_for(
      "kbla::fill_random", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::uint64_t key = s ^ Impl::splitmix64(std::uint64_t(i) * 0x100000001b3ULL + std::uint64_t(j));
          X(i, j) = Impl::RandomValue<Scalar>::get(key);
        }
      });
}

// X <- 0 for any layout (deep_copy of a scalar does not take LayoutStride Views on every Kokkos version).
template <class ExecSpace, class XView>
void fill_zero(const ExecSpace& exec, const XView& X) {
  using Scalar = typename XView::non_const_value_type;
  const std::int64_t rows = X.extent(0), cols = X.extent(1);
  if (rows == 0 || cols == 0) return;
  Kokkos::parallel_for(
      "kbla::fill_zero", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) X(i, j) = Scalar(0);
      });
}

}  // namespace kbla
