// Argument checks of the gemm-type calls (kbla::gemm, kbla::strassen_gemm): trans characters, extents, C
// overlapping A or B, Views the execution space cannot access. Each failure is a std::invalid_argument naming
// the call, the argument and the sizes; nothing is written before they all pass. Then the BLAS semantics both
// calls share for products with nothing to multiply.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_scale.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

#include <impl/kbla_arith_traits.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace kbla {
namespace Impl {

// op(A) is m x k, op(B) is k x n; tA, tB normalized to 'N', 'T' or 'C'.
struct GemmShape {
  char tA, tB;
  std::int64_t m, n, k;
};

template <class ExecSpace, class AViewType, class BViewType, class CViewType>
GemmShape check_gemm_arguments(const char* call, const char transA[], const char transB[], const AViewType& A,
                               const BViewType& B, const CViewType& C) {
  require_rank2_view<AViewType>();
  require_rank2_view<BViewType>();
  require_rank2_view<CViewType>();
  static_assert(std::is_same<typename CViewType::value_type, typename CViewType::non_const_value_type>::value,
                "kbla gemm-type call: C must be a View of non-const values");
  static_assert(same_scalar<AViewType, BViewType, CViewType>::value,
                "kbla gemm-type call: A, B and C must hold the same scalar type");
  GemmShape s;
  s.tA = normalized_trans(call, "transA", transA);
  s.tB = normalized_trans(call, "transB", transB);
  require_accessible<ExecSpace>(call, "A", A);
  require_accessible<ExecSpace>(call, "B", B);
  require_accessible<ExecSpace>(call, "C", C);
  s.m = s.tA == 'N' ? A.extent(0) : A.extent(1);
  s.k = s.tA == 'N' ? A.extent(1) : A.extent(0);
  const std::int64_t kB = s.tB == 'N' ? B.extent(0) : B.extent(1);
  s.n = s.tB == 'N' ? B.extent(1) : B.extent(0);
  if (kB != s.k) {
    throw_invalid(std::string(call) + ": op(A) is " + std::to_string(s.m) + " x " + std::to_string(s.k) +
                  " (A is " + shape_of(A) + ", transA '" + s.tA + "') but op(B) is " + std::to_string(kB) + " x " +
                  std::to_string(s.n) + " (B is " + shape_of(B) + ", transB '" + s.tB +
                  "'): inner dimensions differ");
  }
  require_extents(call, "C", C, s.m, s.n, "C = op(A) * op(B) is rows of op(A) x columns of op(B)");
  require_no_overlap(call, "C", C, "A", A);
  require_no_overlap(call, "C", C, "B", B);
  return s;
}

// The options with GemmAlgorithm::call_default replaced by the algorithm the call is named for.
inline GemmOptions with_call_algorithm(const GemmOptions& options, GemmAlgorithm call_algorithm) {
  GemmOptions resolved = options;
  if (resolved.algorithm == GemmAlgorithm::call_default) resolved.algorithm = call_algorithm;
  return resolved;
}

// Nothing to multiply: empty C (nothing to do), k = 0 or alpha = 0 (C = beta * C; beta = 0 never reads C).
// Returns true when C is final.
template <class ExecSpace, class CViewType>
bool finish_without_product(const ExecSpace& exec, const GemmShape& s,
                            typename CViewType::const_value_type& alpha,
                            typename CViewType::const_value_type& beta, const CViewType& C) {
  using ATS = kbla::Impl::ArithTraits<typename CViewType::non_const_value_type>;
  if (s.m == 0 || s.n == 0) return true;
  if (s.k != 0 && alpha != ATS::zero()) return false;
  scale_matrix(exec, beta, C);
  return true;
}

}  // namespace Impl
}  // namespace kbla
