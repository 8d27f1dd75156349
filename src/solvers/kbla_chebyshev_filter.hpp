// Chebyshev acceleration for kbla::eigen (EigenOptions::chebyshev_degree): the polynomial filter p(A) = T_d(L(A))
// and the operator that applies it to a block with the three-term recurrence.
//
// L(x) = sign (x - center) / half_width maps the unwanted part of the spectrum, [center - half_width,
// center + half_width], to [-1, 1], and the wanted side (above it for the largest eigenvalues, sign = +1; below it for
// the smallest, sign = -1) to (1, inf), where T_d grows fast and monotonically. So p(A) has A's eigenvectors, its
// largest eigenvalues are the images of A's wanted ones, in the same order and with the same multiplicities, and
// their gaps relative to the spread of p(A)'s spectrum are about d^2 times A's: block Lanczos on p(A) needs far fewer
// block steps (each with d applications of A) than on A. The degree is odd, so eigenvalues beyond the interval's far
// end (if the estimate of that end fell short) go to p <= -1, never among the largest.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace kbla {
namespace Impl {

// Whether the operator offers op.apply_combined(X, Y, alpha, beta, Z, gamma): Y = alpha A X + beta X + gamma Z in one
// pass (Z may be Y), as CrsRowwiseOperator does; otherwise each step is op(X, Y) and a separate combining pass.
template <class Operator, class Block, class = void>
struct HasCombinedApply : std::false_type {};
template <class Operator, class Block>
struct HasCombinedApply<Operator, Block,
                        std::void_t<decltype(std::declval<const Operator&>().apply_combined(
                            std::declval<const Block&>(), std::declval<const Block&>(), 0.0, 0.0,
                            std::declval<const Block&>(), 0.0))>> : std::true_type {};

struct ChebyshevPolynomial {
  int degree = 0;
  double center = 0, half_width = 1, sign = 1;

  double scaled(double x) const { return sign * (x - center) / half_width; }
  double value(double x) const {
    const double y = scaled(x), d = degree;
    if (y > 1) return std::cosh(d * std::acosh(y));
    if (y < -1) return (degree % 2 ? -1.0 : 1.0) * std::cosh(d * std::acosh(-y));
    return std::cos(d * std::acos(y));
  }
  // The point on the wanted side that p maps to mu (> 1).
  double preimage(double mu) const { return center + sign * half_width * std::cosh(std::acosh(mu) / degree); }

  // For a unit vector x and mu > 1, lambda = preimage(mu): ||A x - lambda x|| <= factor * ||p(A) x - mu x||.
  // Per eigen-component of x: on the wanted side p changes by at least p'(edge) = d^2 / half_width per unit of the
  // eigenvalue; inside the interval |p| <= 1, so p is at least mu - 1 from mu while the eigenvalue is at most
  // |lambda - center| + half_width from lambda; beyond the far end (p <= -1, odd d) the ratio lies between those two.
  double residual_factor(double mu) const {
    if (!(mu > 1)) return std::numeric_limits<double>::infinity();
    const double lambda = preimage(mu), d = degree;
    return std::max(half_width / (d * d), (std::abs(lambda - center) + half_width) / (mu - 1));
  }
  // The bound on ||A x - lambda x|| / |lambda| for a Ritz pair (mu, x) of p(A) with Krylov-Schur residual norm r
  // (||p(A) x - mu x||); |lambda| is kept from 0 by sqrt(eps) times the interval's larger end, as the plain solver
  // keeps theta from 0.
  double relative_residual(double mu, double r) const {
    if (!(mu > 1)) return std::numeric_limits<double>::infinity();
    const double scale = std::max(std::abs(center - half_width), std::abs(center + half_width));
    const double floor = std::sqrt(std::numeric_limits<double>::epsilon()) * scale;
    return residual_factor(mu) * r / std::max(std::abs(preimage(mu)), floor);
  }
};

// Y = p(A) X for the operator op (Y = A X) of kbla::eigen: Y_0 = X, Y_1 = L(A) X,
// Y_{j+1} = 2 L(A) Y_j - Y_{j-1}, with L(A) = alpha A + beta I. Three work blocks, allocated at the first call.
template <class Scalar, class ExecSpace, class Operator>
struct ChebyshevOperator {
  using Block = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;
  ExecSpace exec;
  Operator op;
  ChebyshevPolynomial poly;
  mutable Block product, older, newer;  // A Y_j (operators without apply_combined), the recurrence's terms
  mutable long applications = 0;        // vectors A was applied to
  mutable long calls = 0;

  // out = a * AY + b * Y - c * Yold, row by row (thread i walks row i's columns: coalesced on GPUs).
  static void combine(const ExecSpace& exec, const Block& out, const Block& AY, const Block& Y, const Block& Yold,
                      double a, double b, double c) {
    const int cols = int(out.extent(1));
    const Scalar sa(a), sb(b), sc(c);
    Kokkos::parallel_for(
        "kbla::eigen Chebyshev step",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(out.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) {
          for (int j = 0; j < cols; ++j) {
            Scalar v = sa * AY(i, j) + sb * Y(i, j);
            if (c != 0) v -= sc * Yold(i, j);
            out(i, j) = v;
          }
        });
  }

  void operator()(const Block& X, const Block& Y) const {
    const std::int64_t rows = X.extent(0);
    const int cols = int(X.extent(1));
    constexpr bool combined = HasCombinedApply<Operator, Block>::value;
    if (newer.extent(0) != std::size_t(rows) || newer.extent(1) < std::size_t(cols)) {
      const auto alloc = [&](const char* label) {
        return Block(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows,
                     std::max<std::int64_t>(cols, 1));
      };
      if (!combined) product = alloc("kbla::eigen Chebyshev A Y");
      older = alloc("kbla::eigen Chebyshev Y_j-1");
      newer = alloc("kbla::eigen Chebyshev Y_j");
    }
    const auto part = [&](const Block& b) { return Block(Kokkos::subview(b, Kokkos::ALL(), std::make_pair(0, cols))); };
    const Block Z = combined ? Block() : part(product);
    const Block spare = part(older);
    Block before = X, cur = part(newer);  // Y_{j-1} (X itself is only read), Y_j
    const double alpha = poly.sign / poly.half_width, beta = -poly.sign * poly.center / poly.half_width;
    // out = a A Y + b Y - c Yold: one pass with an operator that combines, else A Y into Z and a combining pass
    const auto step = [&](const Block& out, const Block& Yj, const Block& Yold, double a, double b, double c) {
      if constexpr (HasCombinedApply<Operator, Block>::value) {
        op.apply_combined(Yj, out, a, b, Yold, -c);
      } else {
        op(Yj, Z);
        combine(exec, out, Z, Yj, Yold, a, b, c);
      }
    };
    step(cur, X, X, alpha, beta, 0);
    for (int j = 1; j < poly.degree; ++j) {
      // Y_{j+1} overwrites Y_{j-1} element by element (each entry read before it is written), the spare block
      // while Y_{j-1} is X, and the caller's Y at the end.
      const Block out = (j + 1 == poly.degree) ? Y : (j == 1 ? spare : before);
      step(out, cur, before, 2 * alpha, 2 * beta, 1);
      before = cur;
      cur = out;
    }
    applications += long(poly.degree) * cols;
    calls += poly.degree;
  }
};

}  // namespace Impl
}  // namespace kbla
