// KokkosBlas::gemm on a given execution space instance, with BLAS beta = 0 semantics (C is never read).
//
// Kokkos Kernels 4.1 and later take the instance, and their gemm paths (the vendor BLAS, the team kernel, the
// dot-based and gemv-based forms) never read C when beta = 0: the call goes straight through, asynchronous on
// `exec` like every other kbla call.
// Older ones (Debian's 3.4) take no instance and run on the default one: the call is ordered after work already
// queued on `exec` and finished before later work on `exec` (fences; no-ops for the default instance), and C is
// zeroed first for beta = 0, so that NaN there cannot spread through their beta * C. Calls whose execution space
// cannot reach the Views take that form too: they are compiled (the instance overload would not compile) but never
// run (kbla::gemm's argument checks throw first).
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_scale.hpp>

#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40100
#define KBLA_KOKKOSBLAS_GEMM_TAKES_INSTANCE 1
#else
#define KBLA_KOKKOSBLAS_GEMM_TAKES_INSTANCE 0
#endif

namespace kbla {
namespace Impl {

// Whether exec can reach all three Views (Kokkos Kernels' instance overload asserts it at compile time).
template <class ExecSpace, class AViewType, class BViewType, class CViewType>
constexpr bool blas_gemm_views_accessible() {
  return Kokkos::SpaceAccessibility<ExecSpace, typename AViewType::memory_space>::accessible &&
         Kokkos::SpaceAccessibility<ExecSpace, typename BViewType::memory_space>::accessible &&
         Kokkos::SpaceAccessibility<ExecSpace, typename CViewType::memory_space>::accessible;
}

template <class ExecSpace, class AViewType, class BViewType, class CViewType>
void blas_gemm(const ExecSpace& exec, char tA, char tB, typename CViewType::const_value_type& alpha,
               const AViewType& A, const BViewType& B, typename CViewType::const_value_type& beta,
               const CViewType& C) {
  const char opA[2] = {tA, '\0'}, opB[2] = {tB, '\0'};
  // The discarded branch is never instantiated, so the instance overload need not exist in Kokkos Kernels 3.x.
  if constexpr (KBLA_KOKKOSBLAS_GEMM_TAKES_INSTANCE &&
                blas_gemm_views_accessible<ExecSpace, AViewType, BViewType, CViewType>()) {
    KokkosBlas::gemm(exec, opA, opB, alpha, A, B, beta, C);
  } else {
    using ATS = kbla::Impl::ArithTraits<typename CViewType::non_const_value_type>;
    if (beta == ATS::zero()) scale_matrix(exec, beta, C);
    exec.fence();
    KokkosBlas::gemm(opA, opB, alpha, A, B, beta, C);
    typename ExecSpace::execution_space().fence();
  }
}

}  // namespace Impl
}  // namespace kbla
