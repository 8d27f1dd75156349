// The elementwise kernels of the portable Strassen / Winograd recursion (functors, so that they compile for
// every backend, CUDA included):
//   sum_operands:  W = a * op(X) + b * op(Y)   (operand sums; b == 0: Y is not read)
//   add_product:   C1 += s1 * P  [and C2 += s2 * P]   (a product added into one or two C quadrants)
// a, b, s are +-1 in the recursion, so the scalings are exact and these are plain additions / subtractions.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbla {
namespace Impl {

// op(X)(i, j) for op in {'N', 'T', 'C'}.
template <class View>
KOKKOS_INLINE_FUNCTION typename View::non_const_value_type op_entry(const View& X, char t, std::int64_t i,
                                                                     std::int64_t j) {
  using ATS = kbla::Impl::ArithTraits<typename View::non_const_value_type>;
  if (t == 'N') return X(i, j);
  return t == 'C' ? ATS::conj(X(j, i)) : X(j, i);
}

template <class WView, class XView>
struct SumOperands {
  using Scalar = typename WView::non_const_value_type;
  WView W;
  XView X, Y;
  char tX, tY;
  Scalar a, b;
  bool read_y;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const Scalar x = a * op_entry(X, tX, i, j);
    W(i, j) = read_y ? x + b * op_entry(Y, tY, i, j) : x;
  }
};

template <class CView, class PView>
struct AddProduct {
  using Scalar = typename CView::non_const_value_type;
  CView C1, C2;
  PView P;
  Scalar s1, s2;
  bool two;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const Scalar p = P(i, j);
    C1(i, j) += s1 * p;
    if (two) C2(i, j) += s2 * p;
  }
};

template <class ExecSpace>
Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>> matrix_policy(
    const ExecSpace& exec, std::int64_t rows, std::int64_t cols) {
  return Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(exec, {0, 0},
                                                                                             {rows, cols});
}

// W = a * op(X) + b * op(Y); W is rows x cols (op(X), op(Y) too). W may be X or Y itself (same entry in, out).
template <class ExecSpace, class WView, class XView>
void sum_operands(const ExecSpace& exec, const WView& W, typename WView::const_value_type& a, const XView& X,
                  char tX, typename WView::const_value_type& b, const XView& Y, char tY) {
  using ATS = kbla::Impl::ArithTraits<typename WView::non_const_value_type>;
  const SumOperands<WView, XView> f{W, X, Y, tX, tY, a, b, !(b == ATS::zero())};
  Kokkos::parallel_for("kbla::strassen::sum_operands", matrix_policy(exec, W.extent(0), W.extent(1)), f);
}

// C1 += s1 * P, and C2 += s2 * P when C2 has entries (pass an empty View for one target).
template <class ExecSpace, class CView, class PView>
void add_product(const ExecSpace& exec, const CView& C1, typename CView::const_value_type& s1, const CView& C2,
                 typename CView::const_value_type& s2, const PView& P) {
  const AddProduct<CView, PView> f{C1, C2, P, s1, s2, C2.size() != 0};
  Kokkos::parallel_for("kbla::strassen::add_product", matrix_policy(exec, P.extent(0), P.extent(1)), f);
}

}  // namespace Impl
}  // namespace kbla
