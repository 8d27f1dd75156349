// kbla::strassen_gemm: C = alpha * op(A) * op(B) + beta * C (op in N/T/C, the meaning of KokkosBlas::gemm) by
// Strassen's algorithm or Winograd's variant — fewer multiplications, larger rounding errors (see the comment on
// GemmAlgorithm in kbla_options.hpp): opt-in only. kbla::gemm calls this when options.algorithm is strassen,
// strassen2 or winograd.
//
// Without options, or with options whose algorithm is left at GemmAlgorithm::call_default (a plain
// GemmOptions{}), the call runs 1 level of Strassen. Other algorithms by name:
//
//   kbla::GemmOptions o;
//   o.algorithm = kbla::GemmAlgorithm::winograd;  // or strassen (1 level), strassen2 (2 levels)
//   o.levels = 2;                                  // winograd only
//   o.winograd_tau = 1024;                         // split only while min(m, n, k) >= 1024 (0: default)
//   kbla::strassen_gemm(exec, "N", "T", alpha, A, B, beta, C, o);   // or kbla::gemm(..., o)
//
// Paths: Kokkos::Cuda with float / double Views in CudaSpace / CudaUVMSpace that have a unit-stride direction:
// the CUDA kernels of src/cuda (strassen -> fused 1-level kernel, strassen2 -> hybrid, winograd -> cuBLAS
// leaves). Everything else (other backends, complex scalars, Views without a unit stride): the portable
// recursion over KokkosBlas::gemm (src/impl/kbla_strassen_impl.hpp; odd sizes by dynamic peeling, any layout).
// options.algorithm == GemmAlgorithm::classical, named explicitly, means no split at all: one classical product.
// GemmAlgorithm::automatic: the fastest of those for the shape, measured once per class (impl/kbla_gemm_automatic.hpp).
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_gemm_automatic.hpp>
#include <impl/kbla_gemm_checks.hpp>
#include <impl/kbla_scale.hpp>
#include <impl/kbla_strassen_spec.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kbla {
namespace Impl {

inline void check_strassen_options(const char* call, const GemmOptions& options) {
  if ((options.algorithm == GemmAlgorithm::winograd || options.algorithm == GemmAlgorithm::strassen_conventional) &&
      options.levels < 0)
    throw_invalid(std::string(call) + ": options.levels is " + std::to_string(options.levels) +
                  " but must be >= 0 (levels of " +
                  (options.algorithm == GemmAlgorithm::winograd ? "Winograd" : "Strassen") + " recursion)");
  if (options.winograd_tau < 0)
    throw_invalid(std::string(call) + ": options.winograd_tau is " + std::to_string(options.winograd_tau) +
                  " but must be >= 0 (0 = library default)");
}

template <class ExecSpace, class Scalar>
std::size_t strassen_workspace_total(const GemmOptions& options, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (options.algorithm == GemmAlgorithm::automatic) {  // enough for whichever candidate runs
    std::size_t bytes = 0;
    for (const AutomaticGemmCandidate c : automatic_gemm_candidates())
      bytes = std::max(bytes, strassen_workspace_total<ExecSpace, Scalar>(automatic_gemm_options(options, c), m, n, k));
    return bytes;
  }
  return std::max(portable_strassen_workspace_bytes(options, sizeof(Scalar), m, n, k),
                  StrassenTplWorkspace<ExecSpace, Scalar>::bytes(options, m, n, k));
}

// What a Strassen-type call with these options runs for the operands: its code and the levels it recurses
// (GemmAlgorithm::automatic compares candidates by it).
template <class ExecSpace, class AViewType, class BViewType, class CViewType>
StrassenRun strassen_run(const GemmOptions& options, const AViewType& A, const BViewType& B, const CViewType& C,
                         const GemmShape& s) {
  using Spec = Strassen<ExecSpace, AViewType, BViewType, CViewType>;
  return StrassenRun{Spec::implementation(options, A, B, C), Spec::levels_run(options, A, B, C, s.m, s.n, s.k)};
}

// Options of a Strassen-type call, checked with the other arguments (before anything is written).
template <class ExecSpace, class Scalar>
void check_strassen_call(const char* call, const GemmOptions& options, const GemmShape& s) {
  check_strassen_options(call, options);
  if (options.workspace != nullptr) {
    const std::size_t needed = strassen_workspace_total<ExecSpace, Scalar>(options, s.m, s.n, s.k);
    if (options.workspace_bytes < needed) throw_workspace_too_small(call, options.workspace_bytes, needed);
  }
}

}  // namespace Impl

// Bytes a caller-provided GemmOptions::workspace must hold for strassen_gemm on ExecSpace with this scalar
// type, options and shape (m x k times k x n); enough for whichever path the call takes (for automatic, whichever
// candidate). 0: none needed. GemmAlgorithm::call_default counts as strassen, what strassen_gemm runs for it.
template <class ExecSpace, class Scalar>
std::size_t strassen_workspace_bytes(const GemmOptions& options, std::int64_t m, std::int64_t n, std::int64_t k) {
  return Impl::strassen_workspace_total<ExecSpace, Scalar>(
      Impl::with_call_algorithm(options, GemmAlgorithm::strassen), m, n, k);
}

// Checks (before anything is written): trans characters, extents, C overlapping A or B, Views the execution
// space cannot access, options (levels, winograd_tau, a workspace that is too small) — each a
// std::invalid_argument naming the argument and the sizes. k = 0 or alpha = 0 gives C = beta * C; beta = 0
// never reads C (NaN there does not spread).
template <class ExecSpace, class AViewType, class BViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void strassen_gemm(const ExecSpace& exec, const char transA[], const char transB[],
                   typename CViewType::const_value_type& alpha, const AViewType& A, const BViewType& B,
                   typename CViewType::const_value_type& beta, const CViewType& C,
                   const GemmOptions& options = GemmOptions()) {
  constexpr const char* call = "kbla::strassen_gemm";
  using Scalar = typename CViewType::non_const_value_type;
  const Impl::GemmShape s = Impl::check_gemm_arguments<ExecSpace>(call, transA, transB, A, B, C);
  GemmOptions resolved = Impl::with_call_algorithm(options, GemmAlgorithm::strassen);
  Impl::check_strassen_call<ExecSpace, Scalar>(call, resolved, s);
  if (Impl::finish_without_product(exec, s, alpha, beta, C)) return;
  if (resolved.algorithm == GemmAlgorithm::automatic) {  // here the classical candidate is one KokkosBlas::gemm
    const auto run = [&](const GemmOptions& o, const auto& Cx) {
      Impl::Strassen<ExecSpace, AViewType, BViewType, std::decay_t<decltype(Cx)>>::run(exec, s.tA, s.tB, alpha, A, B,
                                                                                      beta, Cx, o, call);
    };
    const Impl::AutomaticGemmCandidate c = Impl::choose_automatic_gemm<ExecSpace, AViewType, BViewType, CViewType>(
        exec, call, s.tA, s.tB, s.m, s.n, s.k, beta == Scalar(0), resolved, run, [&](const GemmOptions& o) {
          return Impl::strassen_run<ExecSpace>(o, A, B, C, s);
        });
    resolved = Impl::automatic_gemm_options(resolved, c);
  }
  Impl::Strassen<ExecSpace, AViewType, BViewType, CViewType>::run(exec, s.tA, s.tB, alpha, A, B, beta, C, resolved,
                                                                  call);
}

// Same, on the default instance of C's execution space.
template <class AViewType, class BViewType, class CViewType>
void strassen_gemm(const char transA[], const char transB[], typename CViewType::const_value_type& alpha,
                   const AViewType& A, const BViewType& B, typename CViewType::const_value_type& beta,
                   const CViewType& C, const GemmOptions& options = GemmOptions()) {
  strassen_gemm(typename CViewType::execution_space(), transA, transB, alpha, A, B, beta, C, options);
}

}  // namespace kbla
