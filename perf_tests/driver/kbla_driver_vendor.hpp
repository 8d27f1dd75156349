// The vendor baseline kbla_driver times beside the library.
// With the library's CUDA kernels (KBLA_ENABLE_CUDA) the baseline is cuBLAS called directly on the execution
// space's stream, as a user calling the vendor BLAS would; on every other backend it is KokkosBlas::gemm.
#pragma once

#include <KokkosBlas3_gemm.hpp>
#include <KokkosBlockLA_config.hpp>
#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

#if KBLA_ENABLE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace kbla_driver {

// KokkosBlas::gemm on the execution space's views: C = A^H B (inner) and B = A C (update).
template <class Exec, class Enable = void>
class Vendor {
 public:
  explicit Vendor(const Exec&) {}
  static std::string name() { return "KokkosBlas::gemm"; }
  static std::string short_name() { return "KokkosBlas"; }
  template <class AV, class BV, class CV>
  void inner(const AV& A, const BV& B, const CV& C) {
    using Scalar = typename CV::non_const_value_type;
    KokkosBlas::gemm(is_complex<Scalar>() ? "C" : "T", "N", Scalar(1), A, B, Scalar(0), C);
  }
  template <class AV, class CV, class BV>
  void update(const AV& A, const CV& C, const BV& B) {
    using Scalar = typename BV::non_const_value_type;
    KokkosBlas::gemm("N", "N", Scalar(1), A, C, Scalar(0), B);
  }

 private:
  template <class Scalar>
  static constexpr bool is_complex() {
    return !std::is_same<Scalar, double>::value && !std::is_same<Scalar, float>::value;
  }
};

#if KBLA_ENABLE_CUDA
// cuBLAS on the stream of the Kokkos::Cuda instance. Row-major (LayoutRight) operands are read as the transposed
// column-major matrices: C = A^H B becomes C^T = B^T conj(A), B = A C becomes B^T = C^T A^T.
template <>
class Vendor<Kokkos::Cuda, void> {
 public:
  explicit Vendor(const Kokkos::Cuda& exec) {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetStream(handle_, exec.cuda_stream());
  }
  ~Vendor() { cublasDestroy(handle_); }
  Vendor(const Vendor&) = delete;
  Vendor& operator=(const Vendor&) = delete;
  static std::string name() { return "cuBLAS (cublasDgemm / cublasZgemm called directly)"; }
  static std::string short_name() { return "cuBLAS"; }

  template <class AV, class BV, class CV>
  void inner(const AV& A, const BV& B, const CV& C) {
    const int K = int(A.extent(0)), M = int(A.extent(1)), N = int(B.extent(1));
    if (left<AV>())
      gemm(CUBLAS_OP_C, CUBLAS_OP_N, M, N, K, A.data(), ld(A), B.data(), ld(B), C.data(), ld(C));
    else
      gemm(CUBLAS_OP_N, conj_trans<AV>(), N, M, K, B.data(), ld(B), A.data(), ld(A), C.data(), ld(C));
    check();
  }
  template <class AV, class CV, class BV>
  void update(const AV& A, const CV& C, const BV& B) {
    const int K = int(A.extent(0)), M = int(A.extent(1)), N = int(C.extent(1));
    if (left<AV>())
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, K, N, M, A.data(), ld(A), C.data(), ld(C), B.data(), ld(B));
    else
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, N, K, M, C.data(), ld(C), A.data(), ld(A), B.data(), ld(B));
    check();
  }

 private:
  cublasHandle_t handle_ = nullptr;
  cublasStatus_t status_ = CUBLAS_STATUS_SUCCESS;

  template <class View>
  static constexpr bool left() {
    return std::is_same<typename View::array_layout, Kokkos::LayoutLeft>::value;
  }
  template <class View>
  static int ld(const View& v) {
    return int(left<View>() ? v.stride(1) : v.stride(0));
  }
  template <class View>
  static cublasOperation_t conj_trans() {
    return std::is_same<typename View::non_const_value_type, double>::value ? CUBLAS_OP_T : CUBLAS_OP_C;
  }
  void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double* a, int lda,
            const double* b, int ldb, double* c, int ldc) {
    const double one = 1, zero = 0;
    status_ = cublasDgemm(handle_, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  }
  void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const Kokkos::complex<double>* a,
            int lda, const Kokkos::complex<double>* b, int ldb, Kokkos::complex<double>* c, int ldc) {
    const cuDoubleComplex one{1, 0}, zero{0, 0};
    status_ = cublasZgemm(handle_, ta, tb, m, n, k, &one, reinterpret_cast<const cuDoubleComplex*>(a), lda,
                          reinterpret_cast<const cuDoubleComplex*>(b), ldb, &zero,
                          reinterpret_cast<cuDoubleComplex*>(c), ldc);
  }
  void check() const {
    if (status_ != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cuBLAS gemm failed with status " + std::to_string(int(status_)));
  }
};
#endif

}  // namespace kbla_driver
