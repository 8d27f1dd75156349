// KokkosSparse::CrsMatrix as a kbla::eigen operator, and the matching kbla::eigen overload. Two operators:
//  - CrsRowwiseOperator (the default of the overload): one thread per row keeps up to 8 block columns in
//    registers, so each pass reads the matrix once for 8 vectors where KokkosSparse::spmv reads it once per
//    vector: about twice as fast on the 100^3 Laplacian (docs/eigen.md).
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
// products.
template <class CrsMatrixType, class XView, class YView, int Columns>
struct CrsRowwiseChunk {
  using Scalar = typename CrsMatrixType::non_const_value_type;
  typename CrsMatrixType::row_map_type::const_type rowmap;
  typename CrsMatrixType::index_type::const_type entries;
  typename CrsMatrixType::values_type::const_type values;
  XView X;
  YView Y;
  int j0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Scalar acc[Columns];
    for (int k = 0; k < Columns; ++k) acc[k] = Scalar(0);
    const auto end = rowmap(i + 1);
    for (auto q = rowmap(i); q < end; ++q) {
      const Scalar a = values(q);
      const auto c = entries(q);
      for (int k = 0; k < Columns; ++k) acc[k] += a * X(c, j0 + k);
    }
    for (int k = 0; k < Columns; ++k) Y(i, j0 + k) = acc[k];
  }
};

template <class CrsMatrixType>
struct CrsRowwiseOperator {
  CrsMatrixType A;
  template <int Columns, class XView, class YView>
  void chunk(const XView& X, const YView& Y, int j0) const {
    using Exec = typename CrsMatrixType::execution_space;
    Kokkos::parallel_for(
        "kbla::CrsRowwiseOperator", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, A.numRows()),
        CrsRowwiseChunk<CrsMatrixType, XView, YView, Columns>{A.graph.row_map, A.graph.entries, A.values, X, Y, j0});
  }
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    const int m = int(X.extent(1));
    int j = 0;
    for (; j + 8 <= m; j += 8) chunk<8>(X, Y, j);
    switch (m - j) {  // the last, narrower chunk: a compiled width each, so acc stays in registers
      case 7: chunk<7>(X, Y, j); break;
      case 6: chunk<6>(X, Y, j); break;
      case 5: chunk<5>(X, Y, j); break;
      case 4: chunk<4>(X, Y, j); break;
      case 3: chunk<3>(X, Y, j); break;
      case 2: chunk<2>(X, Y, j); break;
      case 1: chunk<1>(X, Y, j); break;
      default: break;
    }
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
