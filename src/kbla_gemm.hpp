// kbla::gemm: C = alpha * op(A) * op(B) + beta * C with op in {N, T, C}, the meaning of KokkosBlas::gemm.
// options.algorithm == call_default (the default) or classical: tall & skinny shapes go to kbla::inner (op(A) =
// A^T or A^H, op(B) = B) and kbla::update (A * B with a long first dimension); everything else to
// KokkosBlas::gemm (cuBLAS on CUDA when Kokkos Kernels has it).
// options.algorithm strassen, strassen2 or winograd (opt-in, see kbla_options.hpp): every shape goes to
// kbla::strassen_gemm's paths, tall & skinny ones included — the user asked for that algorithm; shapes too
// small to split (min(m, n, k) below the threshold) end in one classical product there.
// options.algorithm automatic: the fastest of the classical path above and those algorithms, measured once per
// class of calls on the running device (impl/kbla_gemm_automatic.hpp).
#pragma once

#include <kbla_inner.hpp>
#include <kbla_options.hpp>
#include <kbla_update.hpp>
#include <kbla_strassen.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_blas_gemm.hpp>
#include <impl/kbla_gemm_checks.hpp>
#include <impl/kbla_scale.hpp>

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

// The product by options.algorithm, classical or a Strassen type (not automatic); arguments checked, m, n, k > 0,
// alpha != 0.
template <class ExecSpace, class AViewType, class BViewType, class CViewType>
void gemm_by_algorithm(const ExecSpace& exec, const char* call, const GemmShape& s,
                       typename CViewType::const_value_type& alpha, const AViewType& A, const BViewType& B,
                       typename CViewType::const_value_type& beta, const CViewType& C, const GemmOptions& options) {
  const char tA = s.tA, tB = s.tB;
  const std::int64_t m = s.m, n = s.n, k = s.k;
  if (options.algorithm != GemmAlgorithm::classical) {
    Strassen<ExecSpace, AViewType, BViewType, CViewType>::run(exec, tA, tB, alpha, A, B, beta, C, options, call);
    return;
  }
  if (tA != 'N' && tB == 'N' && is_tall_skinny(options, k, m, n)) {
    InnerOptions inner_options;
    inner_options.deterministic = options.deterministic;
    inner_options.complex_3m = options.complex_3m;
    Inner<ExecSpace, AViewType, BViewType, CViewType>::inner(exec, tA == 'C', alpha, A, B, beta, C, inner_options);
    return;
  }
  if (tA == 'N' && tB == 'N' && is_tall_skinny(options, m, k, n)) {
    Update<ExecSpace, AViewType, BViewType, CViewType>::update(exec, alpha, A, B, beta, C, UpdateOptions());
    return;
  }
  // KokkosBlas::gemm on exec (Kokkos Kernels 3.x: fences around it), beta = 0 never reading C.
  blas_gemm(exec, tA, tB, alpha, A, B, beta, C);
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
  const Impl::GemmShape s = Impl::check_gemm_arguments<ExecSpace>(call, transA, transB, A, B, C);
  GemmOptions resolved = Impl::with_call_algorithm(options, GemmAlgorithm::classical);
  if (resolved.algorithm != GemmAlgorithm::classical) Impl::check_strassen_call<ExecSpace, Scalar>(call, resolved, s);
  if (Impl::finish_without_product(exec, s, alpha, beta, C)) return;
  if (resolved.algorithm == GemmAlgorithm::automatic) {
    const auto run = [&](const GemmOptions& o, const auto& Cx) {
      Impl::gemm_by_algorithm(exec, call, s, alpha, A, B, beta, Cx, o);
    };
    const Impl::AutomaticGemmCandidate c = Impl::choose_automatic_gemm<ExecSpace, AViewType, BViewType, CViewType>(
        exec, call, s.tA, s.tB, s.m, s.n, s.k, beta == Scalar(0), resolved, run, [&](const GemmOptions& o) {
          return Impl::strassen_run<ExecSpace>(o, A, B, C, s);
        });
    resolved = Impl::automatic_gemm_options(resolved, c);
  }
  Impl::gemm_by_algorithm(exec, call, s, alpha, A, B, beta, C, resolved);
}

// Same, on the default instance of C's execution space.
template <class AViewType, class BViewType, class CViewType>
void gemm(const char transA[], const char transB[], typename CViewType::const_value_type& alpha, const AViewType& A,
          const BViewType& B, typename CViewType::const_value_type& beta, const CViewType& C,
          const GemmOptions& options = GemmOptions()) {
  gemm(typename CViewType::execution_space(), transA, transB, alpha, A, B, beta, C, options);
}

}  // namespace kbla
