// KokkosSparse::CrsMatrix as a kbla::eigen operator: Y = A X by KokkosSparse::spmv on multivectors (one pass over
// the matrix for the whole block), and the matching kbla::eigen overload.
#pragma once

#include <solvers/kbla_eigen.hpp>

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

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
  return eigen<ScalarType>(exec, CrsOperator<Crs>{A}, std::int64_t(A.numRows()), options);
}

}  // namespace kbla
