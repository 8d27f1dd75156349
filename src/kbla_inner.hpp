// kbla::inner: C = alpha * A^H * B + beta * C for tall & skinny A (K x M) and B (K x N), K >> M, N.
// The block inner product of block Krylov and block Gram-Schmidt methods (TSMTTSM in Ernst et al. 2020).
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_inner_spec.hpp>

#include <type_traits>

namespace kbla {

// Arguments are checked before anything is written: mismatched extents, C overlapping A or B, or a View the
// execution space cannot access throw std::invalid_argument naming the argument and the sizes. K = 0 gives
// C = beta * C; beta = 0 never reads C. Asynchronous on `exec` like any Kokkos kernel.
template <class ExecSpace, class AViewType, class BViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inner(const ExecSpace& exec, typename CViewType::const_value_type& alpha, const AViewType& A,
           const BViewType& B, typename CViewType::const_value_type& beta, const CViewType& C,
           const InnerOptions& options = InnerOptions()) {
  constexpr const char* call = "kbla::inner";
  Impl::require_rank2_view<AViewType>();
  Impl::require_rank2_view<BViewType>();
  Impl::require_rank2_view<CViewType>();
  static_assert(std::is_same<typename CViewType::value_type, typename CViewType::non_const_value_type>::value,
                "kbla::inner: C must be a View of non-const values");
  static_assert(Impl::same_scalar<AViewType, BViewType, CViewType>::value,
                "kbla::inner: A, B and C must hold the same scalar type");
  Impl::require_accessible<ExecSpace>(call, "A", A);
  Impl::require_accessible<ExecSpace>(call, "B", B);
  Impl::require_accessible<ExecSpace>(call, "C", C);
  Impl::require_extents(call, "B", B, A.extent(0), B.extent(1), "B must have as many rows as A (K)");
  Impl::require_extents(call, "C", C, A.extent(1), B.extent(1), "C = A^H * B is A.extent(1) x B.extent(1)");
  Impl::require_no_overlap(call, "C", C, "A", A);
  Impl::require_no_overlap(call, "C", C, "B", B);
  Impl::Inner<ExecSpace, AViewType, BViewType, CViewType>::inner(exec, true, alpha, A, B, beta, C, options);
}

// Same, on the default instance of C's execution space.
template <class AViewType, class BViewType, class CViewType>
void inner(typename CViewType::const_value_type& alpha, const AViewType& A, const BViewType& B,
           typename CViewType::const_value_type& beta, const CViewType& C) {
  inner(typename CViewType::execution_space(), alpha, A, B, beta, C);
}

}  // namespace kbla
