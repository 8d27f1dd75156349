// cuBLAS path of kbla::inner (TSMTTSM, C = alpha A^H B + beta C) and kbla::update (TSMM, B = alpha A C + beta B):
// each call is one cuBLAS gemm on the library's handle for the caller's stream (cublas_stream_handles.hpp). The
// dispatch takes it for widths above 64, where these products are compute-bound GEMMs and cuBLAS's DMMA kernels
// measured several times faster than the tiled kernels here, and for the classes of calls where the selection
// (tall_skinny_select.cu) picks it. Used when the layouts map onto cuBLAS's column-major gemm (always for real types;
// complex TSMTTSM needs A and C in the same layout) and the call is not in place.
#include <cublas_v2.h>

#include <climits>

#include "common/cublas_stream_handles.hpp"
#include "tall_skinny_dispatch.cuh"

namespace kbla {
namespace cuda {
namespace detail {

namespace {
cudaError_t handle_for(cudaStream_t stream, cublasHandle_t* h) { return cublas_handle_for_stream(stream, h); }

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const float* al, const float* A, int lda, const float* B, int ldb, const float* be, float* C,
                    int ldc) {
  return cublasSgemm(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const double* al, const double* A, int lda, const double* B, int ldb, const double* be, double* C,
                    int ldc) {
  return cublasDgemm(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const std::complex<float>* al, const std::complex<float>* A, int lda,
                    const std::complex<float>* B, int ldb, const std::complex<float>* be, std::complex<float>* C,
                    int ldc) {
  return cublasCgemm(h, ta, tb, m, n, k, reinterpret_cast<const cuComplex*>(al),
                     reinterpret_cast<const cuComplex*>(A), lda, reinterpret_cast<const cuComplex*>(B), ldb,
                     reinterpret_cast<const cuComplex*>(be), reinterpret_cast<cuComplex*>(C), ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const std::complex<double>* al, const std::complex<double>* A, int lda,
                    const std::complex<double>* B, int ldb, const std::complex<double>* be,
                    std::complex<double>* C, int ldc) {
  return cublasZgemm(h, ta, tb, m, n, k, reinterpret_cast<const cuDoubleComplex*>(al),
                     reinterpret_cast<const cuDoubleComplex*>(A), lda, reinterpret_cast<const cuDoubleComplex*>(B),
                     ldb, reinterpret_cast<const cuDoubleComplex*>(be), reinterpret_cast<cuDoubleComplex*>(C), ldc);
}

bool fits(std::int64_t v) { return v <= INT_MAX; }

template <class Scalar>
cudaError_t ts_impl(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                    Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta, Scalar* C, std::int64_t ldc,
                    Layout lc) {
  constexpr bool cplx = ScalarOf<Scalar>::cplx;
  if (!fits(K) || !fits(lda) || !fits(ldb) || !fits(ldc)) return cudaErrorNotSupported;
  const cublasOperation_t H = cplx ? CUBLAS_OP_C : CUBLAS_OP_T;
  cublasHandle_t h;
  cudaError_t e = handle_for(s, &h);
  if (e != cudaSuccess) return e;
  cublasStatus_t st;
  if (lc == Layout::ColMajor) {  // C = A^H B
    if (cplx && la == Layout::RowMajor) return cudaErrorNotSupported;
    const cublasOperation_t oa = la == Layout::ColMajor ? H : CUBLAS_OP_N;
    const cublasOperation_t ob = lb == Layout::ColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    st = gemm(h, oa, ob, M, N, int(K), &alpha, A, int(lda), B, int(ldb), &beta, C, int(ldc));
  } else {  // C^T = B^T conj(A)
    if (cplx && la == Layout::ColMajor) return cudaErrorNotSupported;
    const cublasOperation_t ob = lb == Layout::ColMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t oa = la == Layout::RowMajor ? H : CUBLAS_OP_N;
    st = gemm(h, ob, oa, N, M, int(K), &alpha, B, int(ldb), A, int(lda), &beta, C, int(ldc));
  }
  return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

template <class Scalar>
cudaError_t tm_impl(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A, std::int64_t lda,
                    Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta, Scalar* B, std::int64_t ldb,
                    Layout lb) {
  if (!fits(K) || !fits(lda) || !fits(ldb) || !fits(ldc)) return cudaErrorNotSupported;
  cublasHandle_t h;
  cudaError_t e = handle_for(s, &h);
  if (e != cudaSuccess) return e;
  cublasStatus_t st;
  if (lb == Layout::ColMajor) {  // B = A C
    const cublasOperation_t oa = la == Layout::ColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t oc = lc == Layout::ColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    st = gemm(h, oa, oc, int(K), N, M, &alpha, A, int(lda), C, int(ldc), &beta, B, int(ldb));
  } else {  // B^T = C^T A^T
    const cublasOperation_t oc = lc == Layout::RowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t oa = la == Layout::RowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    st = gemm(h, oc, oa, N, int(K), M, &alpha, C, int(ldc), A, int(lda), &beta, B, int(ldb));
  }
  return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}
}  // namespace

#define KBLA_TS_CUBLAS_DEF(Scalar)                                                                                   \
  cudaError_t cublas_tsmttsm(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,            \
                             std::int64_t lda, Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta, \
                             Scalar* C, std::int64_t ldc, Layout lc) {                                               \
    return ts_impl<Scalar>(s, K, M, N, alpha, A, lda, la, B, ldb, lb, beta, C, ldc, lc);                             \
  }                                                                                                                  \
  cudaError_t cublas_tsmm(cudaStream_t s, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,               \
                          std::int64_t lda, Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta,    \
                          Scalar* B, std::int64_t ldb, Layout lb) {                                                  \
    return tm_impl<Scalar>(s, K, M, N, alpha, A, lda, la, C, ldc, lc, beta, B, ldb, lb);                             \
  }
KBLA_TS_CUBLAS_DEF(float)
KBLA_TS_CUBLAS_DEF(double)
KBLA_TS_CUBLAS_DEF(std::complex<float>)
KBLA_TS_CUBLAS_DEF(std::complex<double>)

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
