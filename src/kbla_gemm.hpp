// kbla::gemm: C = alpha * op(A) * op(B) + beta * C with op in {N, T, C}, the meaning of KokkosBlas::gemm.
// Tall & skinny shapes go to kbla::inner (op(A) = A^T or A^H, op(B) = B) and kbla::update (A * B with a
// long first dimension); everything else to KokkosBlas::gemm (cuBLAS on CUDA when Kokkos Kernels has it).
#pragma once

#include <kbla_inner.hpp>
#include <kbla_options.hpp>
#include <kbla_update.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_scale.hpp>

#include <KokkosBlas3_gemm.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace kbla {
namespace Impl {

inline bool is_tall_skinny(const GemmOptions& options, std::int64_t long_dim, std::int64_t a, std::int64_t b) {
  const std::int64_t width = std::max(a, b);
  return options.route_tall_skinny && width <= options.tall_skinny_max_width &&
         long_dim >= std::int64_t(options.tall_skinny_ratio) * width;
}

}  // namespace Impl

// Checks (before anything is written): trans characters, extents, C overlapping A or B, Views the execution
// space cannot access — each a std::invalid_argument naming the argument and the sizes. Empty inner dimension
// gives C = beta * C (KokkosBlas::gemm 3.4 would leave C untouched); beta = 0 never reads C.
template <class ExecSpace, class AViewType, class BViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void gemm(const ExecSpace& exec, const char transA[], const char transB[],
          typename CViewType::const_value_type& alpha, const AViewType& A, const BViewType& B,
          typename CViewType::const_value_type& beta, const CViewType& C, const GemmOptions& options = GemmOptions()) {
  constexpr const char* call = "kbla::gemm";
  using Scalar = typename CViewType::non_const_value_type;
  using ATS = Kokkos::Details::ArithTraits<Scalar>;
  Impl::require_rank2_view<AViewType>();
  Impl::require_rank2_view<BViewType>();
  Impl::require_rank2_view<CViewType>();
  static_assert(std::is_same<typename CViewType::value_type, Scalar>::value,
                "kbla::gemm: C must be a View of non-const values");
  static_assert(Impl::same_scalar<AViewType, BViewType, CViewType>::value,
                "kbla::gemm: A, B and C must hold the same scalar type");
  const char tA = Impl::normalized_trans(call, "transA", transA);
  const char tB = Impl::normalized_trans(call, "transB", transB);
  Impl::require_accessible<ExecSpace>(call, "A", A);
  Impl::require_accessible<ExecSpace>(call, "B", B);
  Impl::require_accessible<ExecSpace>(call, "C", C);
  const std::int64_t m = tA == 'N' ? A.extent(0) : A.extent(1);
  const std::int64_t k = tA == 'N' ? A.extent(1) : A.extent(0);
  const std::int64_t kB = tB == 'N' ? B.extent(0) : B.extent(1);
  const std::int64_t n = tB == 'N' ? B.extent(1) : B.extent(0);
  if (kB != k) {
    Impl::throw_invalid(std::string(call) + ": op(A) is " + std::to_string(m) + " x " + std::to_string(k) +
                        " (A is " + Impl::shape_of(A) + ", transA '" + tA + "') but op(B) is " + std::to_string(kB) +
                        " x " + std::to_string(n) + " (B is " + Impl::shape_of(B) + ", transB '" + tB +
                        "'): inner dimensions differ");
  }
  Impl::require_extents(call, "C", C, m, n, "C = op(A) * op(B) is rows of op(A) x columns of op(B)");
  Impl::require_no_overlap(call, "C", C, "A", A);
  Impl::require_no_overlap(call, "C", C, "B", B);

  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == ATS::zero()) {
    Impl::scale_matrix(exec, beta, C);
    return;
  }
  if (tA != 'N' && tB == 'N' && Impl::is_tall_skinny(options, k, m, n)) {
    InnerOptions inner_options;
    inner_options.deterministic = options.deterministic;
    Impl::Inner<ExecSpace, AViewType, BViewType, CViewType>::inner(exec, tA == 'C', alpha, A, B, beta, C,
                                                                   inner_options);
    return;
  }
  if (tA == 'N' && tB == 'N' && Impl::is_tall_skinny(options, m, k, n)) {
    Impl::Update<ExecSpace, AViewType, BViewType, CViewType>::update(exec, alpha, A, B, beta, C);
    return;
  }
  // KokkosBlas::gemm 3.4 takes no execution space instance and runs on the default one: order it after work
  // already queued on `exec`, and finish it before later work on `exec` (a no-op for the default instance).
  // beta = 0: KokkosBlas' portable kernels compute beta * C, so zero C first so that NaN there cannot spread.
  if (beta == ATS::zero()) Impl::scale_matrix(exec, beta, C);
  exec.fence();
  const char opA[2] = {tA, '\0'}, opB[2] = {tB, '\0'};
  KokkosBlas::gemm(opA, opB, alpha, A, B, beta, C);
  typename ExecSpace::execution_space().fence();
}

// Same, on the default instance of C's execution space.
template <class AViewType, class BViewType, class CViewType>
void gemm(const char transA[], const char transB[], typename CViewType::const_value_type& alpha, const AViewType& A,
          const BViewType& B, typename CViewType::const_value_type& beta, const CViewType& C,
          const GemmOptions& options = GemmOptions()) {
  gemm(typename CViewType::execution_space(), transA, transB, alpha, A, B, beta, C, options);
}

}  // namespace kbla
