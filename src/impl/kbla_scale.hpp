// C = beta * C with BLAS semantics: beta == 0 writes zeros without reading C (NaN or garbage there must not
// spread). Used for the K = 0 case and as the first step of the atomic combine in kbla::inner.
//
// Named functors rather than KOKKOS_LAMBDA: this header is instantiated with the same View types in many
// translation units of one program, and with Kokkos 4.6 on CUDA 13 a binary whose extended host-device lambda of
// that kind was instantiated in several of them called a null function pointer in parallel_for.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

template <class CView>
struct ZeroMatrix {
  CView C;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    C(i, j) = kbla::Impl::ArithTraits<typename CView::non_const_value_type>::zero();
  }
};

template <class CView>
struct ScaleMatrix {
  CView C;
  typename CView::non_const_value_type beta;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const { C(i, j) *= beta; }
};

template <class ExecSpace, class CView>
void scale_matrix(const ExecSpace& exec, typename CView::const_value_type& beta, const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  const Scalar b = beta;
  if (b == ATS::one() || C.size() == 0) return;
  // The iteration follows C's layout: with the host spaces' default (the right index fastest) a column-major C
  // was walked a whole column apart per element, and zeroing an 8192 x 8192 C before a host gemm took longer than
  // the gemm (Serial: 0.5 s of kbla::gemm's 0.7 s).
  using Layout = typename CView::array_layout;
  constexpr Kokkos::Iterate order = std::is_same<Layout, Kokkos::LayoutLeft>::value    ? Kokkos::Iterate::Left
                                    : std::is_same<Layout, Kokkos::LayoutRight>::value ? Kokkos::Iterate::Right
                                                                                       : Kokkos::Iterate::Default;
  using Policy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2, order, order>, Kokkos::IndexType<std::int64_t>>;
  const Policy policy(exec, {0, 0}, {static_cast<std::int64_t>(C.extent(0)), static_cast<std::int64_t>(C.extent(1))});
  if (b == ATS::zero())
    Kokkos::parallel_for("kbla::scale(beta=0)", policy, ZeroMatrix<CView>{C});
  else
    Kokkos::parallel_for("kbla::scale", policy, ScaleMatrix<CView>{C, b});
}

}  // namespace Impl
}  // namespace kbla
