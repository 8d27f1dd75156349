// kbla::update: B = alpha * A * C + beta * B for tall & skinny A (K x M), B (K x N) and a small C (M x N).
// The basis update of block Krylov and block Gram-Schmidt methods (TSMM in Ernst et al. 2020).
#pragma once

#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_update_spec.hpp>

#include <type_traits>

namespace kbla {

// B may be the very same View as A (in place, X <- alpha * X * C + beta * X, needs M == N); any other overlap
// of B with A or C throws, as do mismatched extents and Views the execution space cannot access. Nothing is
// written when a check fails. beta = 0 never reads B.
template <class ExecSpace, class AViewType, class CViewType, class BViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void update(const ExecSpace& exec, typename BViewType::const_value_type& alpha, const AViewType& A,
            const CViewType& C, typename BViewType::const_value_type& beta, const BViewType& B) {
  constexpr const char* call = "kbla::update";
  Impl::require_rank2_view<AViewType>();
  Impl::require_rank2_view<CViewType>();
  Impl::require_rank2_view<BViewType>();
  static_assert(std::is_same<typename BViewType::value_type, typename BViewType::non_const_value_type>::value,
                "kbla::update: B must be a View of non-const values");
  static_assert(Impl::same_scalar<AViewType, CViewType, BViewType>::value,
                "kbla::update: A, C and B must hold the same scalar type");
  Impl::require_accessible<ExecSpace>(call, "A", A);
  Impl::require_accessible<ExecSpace>(call, "C", C);
  Impl::require_accessible<ExecSpace>(call, "B", B);
  Impl::require_extents(call, "C", C, A.extent(1), C.extent(1), "C must have as many rows as A has columns (M)");
  Impl::require_extents(call, "B", B, A.extent(0), C.extent(1), "B = A * C is A.extent(0) x C.extent(1)");
  Impl::require_no_overlap(call, "B", B, "C", C);
  if (!Impl::same_view(A, B)) Impl::require_no_overlap(call, "B", B, "A", A);
  Impl::Update<ExecSpace, AViewType, CViewType, BViewType>::update(exec, alpha, A, C, beta, B);
}

// Same, on the default instance of B's execution space.
template <class AViewType, class CViewType, class BViewType>
void update(typename BViewType::const_value_type& alpha, const AViewType& A, const CViewType& C,
            typename BViewType::const_value_type& beta, const BViewType& B) {
  update(typename BViewType::execution_space(), alpha, A, C, beta, B);
}

// In place: X <- alpha * X * C (X: K x M, C: M x M), rotating a basis without a second K x M buffer.
template <class ExecSpace, class XViewType, class CViewType>
void update_in_place(const ExecSpace& exec, typename XViewType::const_value_type& alpha, const XViewType& X,
                     const CViewType& C) {
  if (C.extent(0) != C.extent(1)) {
    Impl::throw_invalid("kbla::update_in_place: C is " + Impl::shape_of(C) +
                        " but must be square (X <- X * C keeps X's " + std::to_string(X.extent(1)) + " columns)");
  }
  using Scalar = typename XViewType::non_const_value_type;
  update(exec, alpha, X, C, Kokkos::Details::ArithTraits<Scalar>::zero(), X);
}

}  // namespace kbla
