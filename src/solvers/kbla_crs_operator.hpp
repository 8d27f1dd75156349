// KokkosSparse::CrsMatrix as a kbla::eigen operator, and the matching kbla::eigen overload. Two operators:
//  - CrsRowwiseOperator (the default of the overload): one thread per row keeps up to 8 block columns in
//    registers, so each pass reads the matrix once for 8 vectors where KokkosSparse::spmv reads it once per
//    vector: about twice as fast on the 100^3 Laplacian (docs/eigen.md). It also offers the Chebyshev filter's
//    combined step (apply_combined), which saves the filter a pass over three blocks per application.
//  - CrsOperator: KokkosSparse::spmv on the multivector (for comparison, or for matrices whose rows are so long
//    that one thread per row is unbalanced).
#pragma once

#include <solvers/kbla_eigen.hpp>

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace kbla {

template <class CrsMatrixType>
struct CrsOperator {
  CrsMatrixType A;
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    using Scalar = typename CrsMatrixType::non_const_value_type;
    KokkosSparse::spmv("N", Scalar(1), A, X, Scalar(0), Y);
  }
};

// Y(:, j0 : j0 + Columns) = A X(:, j0 : j0 + Columns): thread i reads row i's entries once and accumulates Columns
// products. Combined form (Combined = true, for kbla::eigen's Chebyshev filter): Y = alpha A X + beta X + gamma Z in
// the same pass, where Z may be Y itself (each thread reads its own row of Z before writing that row of Y).
template <class CrsMatrixType, class XView, class YView, int Columns, bool Combined = false, class ZView = YView>
struct CrsRowwiseChunk {
  using Scalar = typename CrsMatrixType::non_const_value_type;
  typename CrsMatrixType::row_map_type::const_type rowmap;
  typename CrsMatrixType::index_type::const_type entries;
  typename CrsMatrixType::values_type::const_type values;
  XView X;
  YView Y;
  int j0;
  ZView Z = ZView();
  Scalar alpha = Scalar(1), beta = Scalar(0), gamma = Scalar(0);
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Scalar acc[Columns];
    for (int k = 0; k < Columns; ++k) acc[k] = Scalar(0);
    const auto end = rowmap(i + 1);
    for (auto q = rowmap(i); q < end; ++q) {
      const Scalar a = values(q);
      const auto c = entries(q);
      for (int k = 0; k < Columns; ++k) acc[k] += a * X(c, j0 + k);
    }
    if constexpr (Combined) {
      for (int k = 0; k < Columns; ++k)
        Y(i, j0 + k) = alpha * acc[k] + beta * X(i, j0 + k) + gamma * Z(i, j0 + k);
    } else {
      for (int k = 0; k < Columns; ++k) Y(i, j0 + k) = acc[k];
    }
  }
};

template <class CrsMatrixType>
struct CrsRowwiseOperator {
  using Scalar = typename CrsMatrixType::non_const_value_type;
  CrsMatrixType A;
  template <int Columns, bool Combined, class XView, class YView, class ZView>
  void chunk(const XView& X, const YView& Y, int j0, const ZView& Z, Scalar alpha, Scalar beta, Scalar gamma) const {
    using Exec = typename CrsMatrixType::execution_space;
    Kokkos::parallel_for(
        "kbla::CrsRowwiseOperator", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, A.numRows()),
        CrsRowwiseChunk<CrsMatrixType, XView, YView, Columns, Combined, ZView>{
            A.graph.row_map, A.graph.entries, A.values, X, Y, j0, Z, alpha, beta, gamma});
  }
  template <bool Combined, class XView, class YView, class ZView>
  void apply(const XView& X, const YView& Y, const ZView& Z, Scalar alpha, Scalar beta, Scalar gamma) const {
    const int m = int(X.extent(1));
    int j = 0;
    for (; j + 8 <= m; j += 8) chunk<8, Combined>(X, Y, j, Z, alpha, beta, gamma);
    switch (m - j) {  // the last, narrower chunk: a compiled width each, so acc stays in registers
      case 7: chunk<7, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 6: chunk<6, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 5: chunk<5, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 4: chunk<4, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 3: chunk<3, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 2: chunk<2, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      case 1: chunk<1, Combined>(X, Y, j, Z, alpha, beta, gamma); break;
      default: break;
    }
  }
  // Y = A X
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    apply<false>(X, Y, Y, Scalar(1), Scalar(0), Scalar(0));
  }
  // Y = alpha A X + beta X + gamma Z in one pass over A (Z may be Y): a step of kbla::eigen's Chebyshev recurrence
  // without a separate pass over the blocks (kbla_chebyshev_filter.hpp looks for this member).
  template <class XView, class YView, class ZView>
  void apply_combined(const XView& X, const YView& Y, double alpha, double beta, const ZView& Z, double gamma) const {
    apply<true>(X, Y, Z, Scalar(alpha), Scalar(beta), Scalar(gamma));
  }
};

// Eigenpairs of a Hermitian (symmetric) sparse matrix; the matrix must be square (Hermitian is not checked here:
// the caller knows; the driver checks files it reads).
template <class ExecSpace, class ScalarType, class OrdinalType, class Device, class MemoryTraits, class SizeType>
EigenResult<ScalarType, typename ExecSpace::memory_space> eigen(
    const ExecSpace& exec, const KokkosSparse::CrsMatrix<ScalarType, OrdinalType, Device, MemoryTraits, SizeType>& A,
    const EigenOptions& options) {
  if (A.numRows() != A.numCols()) {
    std::ostringstream os;
    os << "kbla::eigen: the matrix is " << A.numRows() << " x " << A.numCols() << "; it must be square (Hermitian)";
    throw std::invalid_argument(os.str());
  }
  using Crs = KokkosSparse::CrsMatrix<ScalarType, OrdinalType, Device, MemoryTraits, SizeType>;
  return eigen<ScalarType>(exec, CrsRowwiseOperator<Crs>{A}, std::int64_t(A.numRows()), options);
}

}  // namespace kbla
