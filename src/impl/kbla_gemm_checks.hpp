// Argument checks of the gemm-type calls (kbla::gemm, kbla::strassen_gemm): trans characters, extents, C
// overlapping A or B, Views the execution space cannot access. Each failure is a std::invalid_argument naming
// the call, the argument and the sizes; nothing is written before they all pass.
#pragma once

#include <impl/kbla_argument_checks.hpp>

#include <cstdint>
#include <string>

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

}  // namespace Impl
}  // namespace kbla
