// KokkosBlas::gemm as the portable route calls it, and on which View types it may.
//
// Kokkos Kernels 4.1 and later take the execution space instance; older ones run on the Views' default instance
// (blas_gemm: fences around the call, C zeroed first for beta = 0), so the route offers them only when the call's
// execution space is the Views' own.
#pragma once

#include <impl/kbla_blas_gemm.hpp>
#include <impl/kbla_portable_route_keys.hpp>
#include <impl/kbla_portable_tiles.hpp>

#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kbla {
namespace Impl {

// On a host execution space KokkosBlas::gemm is a candidate only when Kokkos Kernels has a host BLAS behind it.
// Its own host gemm ran 2-100x slower than the portable kernels on the host measured, except at update width 1
// (a gemv there, up to 1.2x faster; docs/portable.md), while its instantiation for every View type the route sees
// nearly doubled the compile time of a test file against Kokkos Kernels 4.6 without a BLAS TPL (377 s against
// 205 s on a loaded 2-core machine). On device spaces it is always offered (a vendor BLAS TPL or not).
#if defined(KOKKOSKERNELS_ENABLE_TPL_BLAS) || defined(KOKKOSKERNELS_ENABLE_TPL_MKL) || \
    defined(KOKKOSKERNELS_ENABLE_TPL_ARMPL)
#define KBLA_ROUTE_GEMM_HOST_BLAS 1
#else
#define KBLA_ROUTE_GEMM_HOST_BLAS 0
#endif

// Whether the route may offer KokkosBlas::gemm: a scalar type of BLAS (S, D, C, Z), LayoutLeft or LayoutRight
// operands (no strided Views: the scratch operands of a measurement must have the caller's layouts), Views the
// execution space can access (otherwise the call throws before any kernel runs, and instantiating gemm for them
// would fail Kokkos Kernels' static assertions), an execution space Kokkos Kernels can be given, and on a host
// space a BLAS TPL (above).
template <class ExecSpace, class View1, class View2, class View3>
struct route_kokkosblas_gemm_avail {
  using Scalar = typename View3::non_const_value_type;
  template <class View>
  static constexpr bool runs_on_its_space() {
    return std::is_same<ExecSpace, typename View::execution_space>::value;
  }
  template <class View>
  static constexpr bool accessible() {
    return Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;
  }
  static constexpr bool value =
      (KBLA_ROUTE_GEMM_HOST_BLAS || !runs_on_host<ExecSpace>::value) && accessible<View1>() &&
      accessible<View2>() && accessible<View3>() && route_scalar_letter<Scalar>::value != nullptr &&
      route_layout_letter<typename View1::array_layout>::value != nullptr &&
      route_layout_letter<typename View2::array_layout>::value != nullptr &&
      route_layout_letter<typename View3::array_layout>::value != nullptr &&
      (KBLA_KOKKOSBLAS_GEMM_TAKES_INSTANCE ||
       (runs_on_its_space<View1>() && runs_on_its_space<View2>() && runs_on_its_space<View3>()));
};

template <class ExecSpace, class AView, class BView, class CView>
void route_kokkosblas_gemm(const ExecSpace& exec, char tA, char tB, typename CView::const_value_type& alpha,
                           const AView& A, const BView& B, typename CView::const_value_type& beta, const CView& C) {
  blas_gemm(exec, tA, tB, alpha, A, B, beta, C);
}

}  // namespace Impl
}  // namespace kbla
