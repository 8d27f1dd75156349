// C = beta * C with BLAS semantics: beta == 0 writes zeros without reading C (NaN or garbage there must not
// spread). Used for the K = 0 case and as the first step of the atomic combine in kbla::inner.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class CView>
void scale_matrix(const ExecSpace& exec, typename CView::const_value_type& beta, const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  const Scalar b = beta;
  if (b == ATS::one() || C.size() == 0) return;
  using Policy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  const Policy policy(exec, {0, 0}, {static_cast<std::int64_t>(C.extent(0)), static_cast<std::int64_t>(C.extent(1))});
  if (b == ATS::zero()) {
    Kokkos::parallel_for("kbla::scale(beta=0)", policy,
                         KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C(i, j) = ATS::zero(); });
  } else {
    Kokkos::parallel_for("kbla::scale", policy, KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C(i, j) *= b; });
  }
}

}  // namespace Impl
}  // namespace kbla
