// KokkosBlas::gemm on a given execution space instance, with BLAS beta = 0 semantics.
//
// KokkosBlas::gemm 3.4 takes no execution space instance and runs on the default one: order it after work
// already queued on `exec`, and finish it before later work on `exec` (a no-op for the default instance).
// beta = 0: KokkosBlas' portable kernels compute beta * C, so C is zeroed first so that NaN there cannot spread.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_scale.hpp>

#include <KokkosBlas3_gemm.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AViewType, class BViewType, class CViewType>
void blas_gemm(const ExecSpace& exec, char tA, char tB, typename CViewType::const_value_type& alpha,
               const AViewType& A, const BViewType& B, typename CViewType::const_value_type& beta,
               const CViewType& C) {
  using ATS = kbla::Impl::ArithTraits<typename CViewType::non_const_value_type>;
  if (beta == ATS::zero()) scale_matrix(exec, beta, C);
  exec.fence();
  const char opA[2] = {tA, '\0'}, opB[2] = {tB, '\0'};
  KokkosBlas::gemm(opA, opB, alpha, A, B, beta, C);
  typename ExecSpace::execution_space().fence();
}

}  // namespace Impl
}  // namespace kbla
