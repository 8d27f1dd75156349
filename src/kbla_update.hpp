// kbla::update: B = alpha * A * C + beta * B for tall & skinny A (K x M), B (K x N) and a small C (M x N).
// The basis update of block Krylov and block Gram-Schmidt methods (TSMM in Ernst et al. 2020).
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_update_spec.hpp>

#include <impl/kbla_arith_traits.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace kbla {

// B may be the very same View as A (in place, X <- alpha * X * C + beta * X, which needs a square C); any other
// shared element of B with A or C throws (parts of one allocation that share no element are fine, e.g. the
// column blocks Q and X of a LayoutRight basis [Q | X] in X -= Q C), as do mismatched extents and Views the
// execution space cannot access. Nothing is written when a check fails. beta = 0 never reads B.
// options.tuning: how the kernel is chosen for the call's class (TuningOptions; the CUDA selection, or the portable
// path's route to KokkosBlas::gemm).
template <class ExecSpace, class AViewType, class CViewType, class BViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void update(const ExecSpace& exec, typename BViewType::const_value_type& alpha, const AViewType& A,
            const CViewType& C, typename BViewType::const_value_type& beta, const BViewType& B,
            const UpdateOptions& options) {
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
  const bool in_place = Impl::same_view(A, B);
  if (in_place) {
    const std::int64_t M = A.extent(1);
    Impl::require_extents(call, "C", C, M, M,
                          "in place needs a square C: B is A, so A * C must keep A's " + std::to_string(M) +
                              " columns");
  }
  Impl::require_extents(call, "C", C, A.extent(1), C.extent(1), "C must have as many rows as A has columns (M)");
  Impl::require_extents(call, "B", B, A.extent(0), C.extent(1), "B = A * C is A.extent(0) x C.extent(1)");
  Impl::require_no_overlap(call, "B", B, "C", C);
  if (!in_place) Impl::require_no_overlap(call, "B", B, "A", A);
  Impl::Update<ExecSpace, AViewType, CViewType, BViewType>::update(exec, alpha, A, C, beta, B, options);
}

// Same, with the default options.
template <class ExecSpace, class AViewType, class CViewType, class BViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void update(const ExecSpace& exec, typename BViewType::const_value_type& alpha, const AViewType& A,
            const CViewType& C, typename BViewType::const_value_type& beta, const BViewType& B) {
  update(exec, alpha, A, C, beta, B, UpdateOptions());
}

// Same, on the default instance of B's execution space.
template <class AViewType, class CViewType, class BViewType>
void update(typename BViewType::const_value_type& alpha, const AViewType& A, const CViewType& C,
            typename BViewType::const_value_type& beta, const BViewType& B, const UpdateOptions& options) {
  update(typename BViewType::execution_space(), alpha, A, C, beta, B, options);
}

template <class AViewType, class CViewType, class BViewType>
void update(typename BViewType::const_value_type& alpha, const AViewType& A, const CViewType& C,
            typename BViewType::const_value_type& beta, const BViewType& B) {
  update(typename BViewType::execution_space(), alpha, A, C, beta, B, UpdateOptions());
}

// In place: X <- alpha * X * C (X: K x M, C: M x M), rotating a basis without a second K x M buffer. Checked as
// kbla::update is (errors name kbla::update_in_place, X and C): C must be square with X's column count, must not
// share an element with X, and both must be accessible from the execution space.
template <class ExecSpace, class XViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void update_in_place(const ExecSpace& exec, typename XViewType::const_value_type& alpha, const XViewType& X,
                     const CViewType& C, const UpdateOptions& options) {
  constexpr const char* call = "kbla::update_in_place";
  Impl::require_rank2_view<XViewType>();
  Impl::require_rank2_view<CViewType>();
  static_assert(std::is_same<typename XViewType::value_type, typename XViewType::non_const_value_type>::value,
                "kbla::update_in_place: X must be a View of non-const values");
  static_assert(Impl::same_scalar<XViewType, CViewType>::value,
                "kbla::update_in_place: X and C must hold the same scalar type");
  Impl::require_accessible<ExecSpace>(call, "X", X);
  Impl::require_accessible<ExecSpace>(call, "C", C);
  const std::int64_t M = X.extent(1);
  Impl::require_extents(call, "C", C, M, M,
                        "C must be square: X <- alpha * X * C keeps X's " + std::to_string(M) + " columns");
  Impl::require_no_overlap(call, "X", X, "C", C);
  using Scalar = typename XViewType::non_const_value_type;
  Impl::Update<ExecSpace, XViewType, CViewType, XViewType>::update(
      exec, alpha, X, C, kbla::Impl::ArithTraits<Scalar>::zero(), X, options);
}

// Same, with the default options.
template <class ExecSpace, class XViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void update_in_place(const ExecSpace& exec, typename XViewType::const_value_type& alpha, const XViewType& X,
                     const CViewType& C) {
  update_in_place(exec, alpha, X, C, UpdateOptions());
}

// Same, on the default instance of X's execution space.
template <class XViewType, class CViewType>
void update_in_place(typename XViewType::const_value_type& alpha, const XViewType& X, const CViewType& C,
                     const UpdateOptions& options) {
  update_in_place(typename XViewType::execution_space(), alpha, X, C, options);
}

template <class XViewType, class CViewType>
void update_in_place(typename XViewType::const_value_type& alpha, const XViewType& X, const CViewType& C) {
  update_in_place(typename XViewType::execution_space(), alpha, X, C, UpdateOptions());
}

}  // namespace kbla
