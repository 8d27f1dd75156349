// Host dispatch of the tall & skinny products: kbla::inner (TSMTTSM, C = alpha A^H B + beta C) and kbla::update
// (TSMM, B = alpha A C + beta B). tsmttsm_entry / tsmm_entry check the arguments, send widths above kCublasAbove to
// cuBLAS, ask the selection (tall_skinny_select.hpp: model, measurement, choice cache) whether cuBLAS or the own
// kernels run the other shapes, send narrow shapes (N small next to M) to their own tables, and otherwise try the
// kernel families in a fixed order (A^H B: tensor-core, then SIMT; A C: bulk copy, one thread per row, tensor-core,
// SIMT); a launcher that declines with
// cudaErrorNotSupported (layout, alignment, K, beta != 0) falls through to the next. Each per-type .cu file passes a
// `run` callable that picks the configuration from tall_skinny_params.hpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tall_skinny_cublas.hpp"
#include "tall_skinny_params.hpp"
#include "tall_skinny_select.hpp"
#include "update_bulk.cuh"
#include "update_bulk_cplx.cuh"
#include "update_columns.cuh"
#include "update_dmma.cuh"
#include "update_kernel.cuh"
#include "update_rows.cuh"
#include "inner_dmma.cuh"
#include "inner_kernel.cuh"

namespace kbla {
namespace cuda {
namespace detail {

template <class Scalar>
inline bool aligned_elem(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Elem<typename ScalarOf<Scalar>::Real, ScalarOf<Scalar>::cplx>) ==
         0;
}

template <class Scalar>
Coef<typename ScalarOf<Scalar>::Real, ScalarOf<Scalar>::cplx> coef(const Scalar& v) {
  if constexpr (ScalarOf<Scalar>::cplx) return {v.real(), v.imag()};
  else return {v, Scalar(0)};
}


// TSMM on the FP64 tensor cores (KBLA_TSMM_DMMA_D / _Z rows) for double and complex double, tried before the
// SIMT tables; cudaErrorNotSupported (other types, no row, mixed layouts): the SIMT kernel.
#define KBLA_TM_X_DMMA(WMIN, WMAX, W, NT, WR, TU, R, Stages, MINB)                                \
  if (w >= WMIN && w <= WMAX) {                                                                   \
    const cudaError_t e_ = launch_tsmm_dmma<Complex, W, NT, WR, TU, R, Stages, MINB>(a, lay, st); \
    if (e_ != cudaErrorNotSupported) return e_;                                                   \
  }
template <class Real, bool Complex>
cudaError_t tsmm_dmma_try(const TsmmArgs<Real, Complex>& a, int lay, cudaStream_t st) {
  if constexpr (std::is_same<Real, double>::value) {
    const int w = std::max(a.M, a.N);
    if constexpr (Complex) {
      if (lay == kLayRR) {
#define KBLA_TM_X_DMMA_FLAT(WMIN, WMAX, W, NT, WR, TU, R, Stages, MINB)                            \
  if (w >= WMIN && w <= WMAX) {                                                                    \
    const cudaError_t e_ = launch_tsmm_dmma_flat<Complex, W, NT, WR, R, Stages, MINB>(a, lay, st); \
    if (e_ != cudaErrorNotSupported) return e_;                                                    \
  }
        KBLA_TSMM_DMMA_Z_RR_NARROW(KBLA_TM_X_DMMA_FLAT)
#undef KBLA_TM_X_DMMA_FLAT
      }
      KBLA_TSMM_DMMA_Z(KBLA_TM_X_DMMA)
    } else {
      if (lay == kLayRR) {
        KBLA_TSMM_DMMA_D_RR_NARROW(KBLA_TM_X_DMMA)
      }
      if (lay == kLayCC) {
#define KBLA_TM_X_ODDLONG(WMIN, WMAX, W, NT, WR, R, Stages, MINB)                       \
  if (w >= WMIN && w <= WMAX) {                                                         \
    const cudaError_t e_ = launch_tsmm_dmma_oddlong<W, NT, WR, R, Stages, MINB>(a, st); \
    if (e_ != cudaErrorNotSupported) return e_;                                         \
  }
        KBLA_TSMM_DMMA_D_ODDLONG(KBLA_TM_X_ODDLONG)
#undef KBLA_TM_X_ODDLONG
      }
      KBLA_TSMM_DMMA_D(KBLA_TM_X_DMMA)
    }
  }
  return cudaErrorNotSupported;
}

// TSMM for column-major double and complex double on the bulk-copy kernel (update_bulk.cuh, KBLA_TSMM_BULK_D / _Z
// rows): beta == 0, whole chunks of R rows, within each row's K and alignment limits (there it measured faster than
// the older kernels at odd, 2 mod 4 and 0 mod 4 ld alike). On success `a` is left with the last K mod R rows (K = 0
// if none) for the other kernels.
// Runs of SQ consecutive chunks per block visit: 16 where every block gets at least 4 runs, else 4, else 1 (small K
// needs every SM).
// Complex double A * C at the widths of KBLA_TSMM_BULK_ZC (update_bulk_cplx.cuh: alpha C in shared memory), row-major
// or column-major A and B, beta == 0, whole chunks of R rows, K >= 2^LK rows.
template <class Real, bool Complex>
cudaError_t tsmm_bulk_cplx_try(TsmmArgs<Real, Complex>& a, int lay, cudaStream_t st) {
  if constexpr (std::is_same<Real, double>::value && Complex) {
    if ((lay != kLayCC && lay != kLayRR) || !a.beta_zero) return cudaErrorNotSupported;
    const int w = std::max(a.M, a.N);
    const bool row = lay == kLayRR;
#define KBLA_TM_X_ZC(WMIN, WMAX, COLS, R, Stages, NP, TU, RS, SQ, LK, RO)              \
  if (w >= WMIN && w <= WMAX && (row || !RO)) {                                        \
    if (a.K < (std::int64_t(1) << LK)) return cudaErrorNotSupported;                   \
    return row ? launch_tsmm_bulk_cplx<COLS, R, Stages, NP, TU, RS, SQ, true>(a, st)   \
               : launch_tsmm_bulk_cplx<COLS, R, Stages, NP, TU, RS, SQ, false>(a, st); \
  }
    KBLA_TSMM_BULK_ZC(KBLA_TM_X_ZC)
#undef KBLA_TM_X_ZC
  }
  return cudaErrorNotSupported;
}

template <class Real, bool Complex>
cudaError_t tsmm_bulk_try(TsmmArgs<Real, Complex>& a, int lay, cudaStream_t st) {
  if constexpr (std::is_same<Real, double>::value) {
    if constexpr (Complex) {
      const cudaError_t e = tsmm_bulk_cplx_try(a, lay, st);
      if (e != cudaErrorNotSupported) return e;
    }
    if (lay != kLayCC || !a.beta_zero) return cudaErrorNotSupported;
    const int w = std::max(a.M, a.N);
    auto sq_for = [&](int R) {
      const std::int64_t chunks = a.K / R, blocks = sm_count();
      return chunks >= 16 * 4 * blocks ? 16 : chunks >= 4 * 4 * blocks ? 4 : 1;
    };
#define KBLA_TM_X_BULK(WMIN, WMAX, W, R, Stages, ComputeWarps, OutputBuffers, LK, A32)                  \
  if (w >= WMIN && w <= WMAX) {                                                                         \
    if (a.K < (std::int64_t(1) << LK)) return cudaErrorNotSupported;                                    \
    if (A32 && a.asm_ % 32 == 0 && a.bsn % 32 == 0) return cudaErrorNotSupported;                       \
    const int sq = sq_for(R);                                                                           \
    if (sq == 1) return launch_tsmm_bulk<W, R, Stages, ComputeWarps, OutputBuffers, 1, Complex>(a, st); \
    if (sq == 4) return launch_tsmm_bulk<W, R, Stages, ComputeWarps, OutputBuffers, 4, Complex>(a, st); \
    return launch_tsmm_bulk<W, R, Stages, ComputeWarps, OutputBuffers, 16, Complex>(a, st);             \
  }
    if constexpr (Complex) {
      KBLA_TSMM_BULK_Z(KBLA_TM_X_BULK)
    } else {
      KBLA_TSMM_BULK_D(KBLA_TM_X_BULK)
    }
#undef KBLA_TM_X_BULK
  }
  return cudaErrorNotSupported;
}

// TSMM one thread per row (update_rows.cuh) for row-major double up to width 6 and complex double width 2, where the
// staged kernel's shared memory round trip is the limiter.
template <class Real, bool Complex>
cudaError_t tsmm_rows_try(const TsmmArgs<Real, Complex>& a, int lay, cudaStream_t st) {
  if (lay != kLayRR) return cudaErrorNotSupported;
  // complex double width 2 (the real view of width 4): faster than the SIMT kernel at few and at many rows. Width 1
  // lost at few rows and width 3 is no faster than the flat tensor-core row, so both stay where they were.
  if constexpr (std::is_same<Real, double>::value && Complex) {
    if (std::max(a.M, a.N) == 2) return launch_tsmm_rows<Real, 4, true>(a, st);
  }
  if constexpr (std::is_same<Real, double>::value && !Complex) {
    switch (std::max(a.M, a.N)) {
      case 1: return launch_tsmm_rows<Real, 1>(a, st);
      case 2: return launch_tsmm_rows<Real, 2>(a, st);
      case 3: return launch_tsmm_rows<Real, 3>(a, st);
      case 4: return launch_tsmm_rows<Real, 4>(a, st);
      case 5: return launch_tsmm_rows<Real, 5>(a, st);
      case 6: return launch_tsmm_rows<Real, 6>(a, st);
      default: break;
    }
  }
  return cudaErrorNotSupported;
}

// Column-major double TSMM on the SIMT kernel (odd K; the tensor-core path declined it): the rows of
// KBLA_TSMM_D_COL first, then the KBLA_TSMM_D rows.
#define KBLA_TM_X_DCOL(WMIN, WMAX, W, TN, U, RK, MINB) \
  if (w >= WMIN && w <= WMAX) return launch_tsmm<Real, Complex, W, W, TN, U, RK, 1, MINB>(a, st, 0, true);
template <class Real, bool Complex>
cudaError_t tsmm_dcol_try(const TsmmArgs<Real, Complex>& a, int lay, cudaStream_t st) {
  if constexpr (std::is_same<Real, double>::value && !Complex) {
    if (lay != kLayCC) return cudaErrorNotSupported;
    const int w = std::max(a.M, a.N);
    KBLA_TSMM_D_COL(KBLA_TM_X_DCOL)
  }
  return cudaErrorNotSupported;
}

inline int lay_of(Layout a, Layout b) {
  if (a == Layout::RowMajor && b == Layout::RowMajor) return kLayRR;
  if (a == Layout::ColMajor && b == Layout::ColMajor) return kLayCC;
  return kLayGEN;
}

// Narrow shapes (tall_skinny_params.hpp): N small next to M, up to kNarrowMaxM (cuBLAS above, as for wide
// square shapes). The per-type tables say which N they cover; a shape none covers takes the square path.
constexpr int kNarrowMaxM = 128;
inline bool narrow_shape(int M, int N, int max_m) { return N <= 16 && M >= 2 * N && M > 2 && M <= max_m; }

inline bool ld_ok(std::int64_t ld, Layout l, std::int64_t rows, std::int64_t cols) {
  return l == Layout::RowMajor ? ld >= std::max<std::int64_t>(cols, 1) : ld >= std::max<std::int64_t>(rows, 1);
}

template <class Scalar, class Run, class RunNarrow>
cudaError_t tsmttsm_entry(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                          std::int64_t lda, Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta,
                          Scalar* C, std::int64_t ldc, Layout lc, const TallSkinnyOptions& opt, Run run,
                          RunNarrow run_narrow) {
  using Real = typename ScalarOf<Scalar>::Real;
  constexpr bool Complex = ScalarOf<Scalar>::cplx;
  using E = Elem<Real, Complex>;
  if (K < 0 || M < 1 || N < 1 || C == nullptr) return cudaErrorInvalidValue;
  if (!ld_ok(ldc, lc, M, N)) return cudaErrorInvalidValue;
  if (!aligned_elem<Scalar>(C)) return cudaErrorMisalignedAddress;
  TsmttsmArgs<Real, Complex> a{};
  a.C = reinterpret_cast<E*>(C);
  a.ldc = ldc;
  a.crow = lc == Layout::RowMajor;
  a.K = K;
  a.M = M;
  a.N = N;
  a.alpha = coef(alpha);
  a.beta = coef(beta);
  a.beta_zero = (beta == Scalar(0));
  a.deterministic = opt.deterministic;
  a.complex_3m = opt.complex_3m;
  if (K == 0) {
    const std::int64_t n = std::int64_t(M) * N;
    scale_kernel<Real, Complex>
        <<<unsigned((n + 255) / 256), 256, 0, stream>>>(a.C, ldc, a.crow, M, N, a.beta, a.beta_zero);
    return cudaGetLastError();
  }
  if (A == nullptr || B == nullptr) return cudaErrorInvalidValue;
  if (!ld_ok(lda, la, K, M) || !ld_ok(ldb, lb, K, N)) return cudaErrorInvalidValue;
  if (!aligned_elem<Scalar>(A) || !aligned_elem<Scalar>(B)) return cudaErrorMisalignedAddress;
  a.A = reinterpret_cast<const E*>(A);
  a.B = reinterpret_cast<const E*>(B);
  a.ask = la == Layout::RowMajor ? lda : 1;
  a.asm_ = la == Layout::RowMajor ? 1 : lda;
  a.bsk = lb == Layout::RowMajor ? ldb : 1;
  a.bsm = lb == Layout::RowMajor ? 1 : ldb;
  const bool narrow = narrow_shape(M, N, kNarrowMaxM);
  const bool wide = std::max(M, N) > kCublasAbove;
  const bool to_cublas =
      opt.allow_cublas && ((wide && !narrow) || inner_takes_cublas<Scalar>(stream, K, M, N, alpha, A, lda, la, B, ldb,
                                                                           lb, beta, C, ldc, lc, opt));
  if (narrow && !to_cublas) {
    const cudaError_t e = run_narrow(a, lay_of(la, lb), stream);
    if (e != cudaErrorNotSupported) return e;
  }
  if ((to_cublas || wide) && opt.allow_cublas) {
    const cudaError_t e = cublas_tsmttsm(stream, K, M, N, alpha, A, lda, la, B, ldb, lb, beta, C, ldc, lc);
    if (e != cudaErrorNotSupported) return e;
  }
  return run(a, lay_of(la, lb), stream);
}

template <class Scalar, class Run, class RunNarrow>
cudaError_t tsmm_entry(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                       std::int64_t lda, Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta,
                       Scalar* B, std::int64_t ldb, Layout lb, const TallSkinnyOptions& opt, int max_inplace_width,
                       Run run, RunNarrow run_narrow) {
  using Real = typename ScalarOf<Scalar>::Real;
  constexpr bool Complex = ScalarOf<Scalar>::cplx;
  using E = Elem<Real, Complex>;
  if (K < 0 || M < 1 || N < 1) return cudaErrorInvalidValue;
  if (K == 0) return cudaSuccess;
  if (A == nullptr || B == nullptr || C == nullptr) return cudaErrorInvalidValue;
  if (!ld_ok(lda, la, K, M) || !ld_ok(ldb, lb, K, N) || !ld_ok(ldc, lc, M, N)) return cudaErrorInvalidValue;
  if (!aligned_elem<Scalar>(A) || !aligned_elem<Scalar>(B) || !aligned_elem<Scalar>(C))
    return cudaErrorMisalignedAddress;
  const bool inplace = static_cast<const void*>(A) == static_cast<const void*>(B);
  if (inplace && (M != N || la != lb || lda != ldb)) return cudaErrorInvalidValue;
  const bool narrow_class = narrow_shape(M, N, 64);  // the narrow tables stage all of M (MT <= 64)
  const bool wide = std::max(M, N) > kCublasAbove;    // never narrow: narrow shapes have M <= 64 here
  // Column-major A and B with few output columns: the one-thread-per-row kernel (update_columns.cuh), up to
  // M = 128 (wider A than the square tables: measured against cuBLAS by the selection, not sent to it outright).
  // From M = 4: below, a thread's few multiply-adds per row leave it short of the row kernels (complex M = 2 on an
  // H200: 55-70 % of the read bandwidth against 74-79 %).
  const bool columns = la == Layout::ColMajor && lb == Layout::ColMajor && N <= kUpdateColumnsMaxN &&
                       M >= kUpdateColumnsMinM && M <= kUpdateColumnsMaxM;
  const bool to_cublas =
      !inplace && opt.allow_cublas &&
      ((wide && !columns) ||
       update_takes_cublas<Scalar>(stream, K, M, N, alpha, A, lda, la, C, ldc, lc, beta, B, ldb, lb, opt));
  const bool narrow = !inplace && narrow_class && !to_cublas;
  if (to_cublas) {
    const cudaError_t e = cublas_tsmm(stream, K, M, N, alpha, A, lda, la, C, ldc, lc, beta, B, ldb, lb);
    if (e != cudaErrorNotSupported) return e;
  }
  TsmmArgs<Real, Complex> a{};
  a.A = reinterpret_cast<const E*>(A);
  a.ask = la == Layout::RowMajor ? lda : 1;
  a.asm_ = la == Layout::RowMajor ? 1 : lda;
  a.C = reinterpret_cast<const E*>(C);
  a.ldc = ldc;
  a.crow = lc == Layout::RowMajor;
  a.B = reinterpret_cast<E*>(B);
  a.bsk = lb == Layout::RowMajor ? ldb : 1;
  a.bsn = lb == Layout::RowMajor ? 1 : ldb;
  a.K = K;
  a.M = M;
  a.N = N;
  a.alpha = coef(alpha);
  a.beta = coef(beta);
  a.beta_zero = (beta == Scalar(0));
  const int lay = lay_of(la, lb);
  if (columns && !to_cublas) {
    const cudaError_t e = launch_update_columns(a, lay, stream);
    if (e != cudaErrorNotSupported) return e;
  }
  if (narrow) {
    const cudaError_t e = run_narrow(a, lay, stream);
    if (e != cudaErrorNotSupported) return e;
  }
  if (!inplace || N <= max_inplace_width) return run(a, lay, stream);

  // In place and wider than one tile: blocks of other column tiles would overwrite rows still being read.
  // Copy chunks of rows of A to scratch and run out of place from there.
  const std::int64_t es = sizeof(E);
  std::int64_t kc = std::max<std::int64_t>(1, (std::int64_t(256) << 20) / (es * M));
  kc = std::min(kc, K);
  void* tmp = nullptr;
  cudaError_t err = workspace(stream, 1, std::size_t(kc) * M * es, &tmp);
  if (err != cudaSuccess) return err;
  for (std::int64_t k0 = 0; k0 < K; k0 += kc) {
    const std::int64_t kn = std::min(kc, K - k0);
    TsmmArgs<Real, Complex> c = a;
    c.K = kn;
    if (la == Layout::RowMajor) {
      err = cudaMemcpy2DAsync(tmp, M * es, A + k0 * lda, lda * es, M * es, kn, cudaMemcpyDeviceToDevice, stream);
      c.ask = M;
      c.B = a.B + k0 * ldb;
    } else {
      err = cudaMemcpy2DAsync(tmp, kn * es, A + k0, lda * es, kn * es, M, cudaMemcpyDeviceToDevice, stream);
      c.asm_ = kn;
      c.B = a.B + k0;
    }
    if (err != cudaSuccess) return err;
    c.A = static_cast<const E*>(tmp);
    err = run(c, lay, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla

// Overloads of tsmttsm_impl / tsmm_impl for one type from its tables (used once per .cu file);
// tall_skinny_api.cu defines the templates of the contract on top of them.
namespace kbla {
namespace cuda {
namespace detail {
#define KBLA_TS_IMPL_DECL(Scalar)                                                                               \
  cudaError_t tsmttsm_impl(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,    \
                           std::int64_t lda, Layout layoutA, const Scalar* B, std::int64_t ldb, Layout layoutB, \
                           Scalar beta, Scalar* C, std::int64_t ldc, Layout layoutC,                            \
                           const TallSkinnyOptions& options);                                                   \
  cudaError_t tsmm_impl(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,       \
                        std::int64_t lda, Layout layoutA, const Scalar* C, std::int64_t ldc, Layout layoutC,    \
                        Scalar beta, Scalar* B, std::int64_t ldb, Layout layoutB, const TallSkinnyOptions& options);
KBLA_TS_IMPL_DECL(float)
KBLA_TS_IMPL_DECL(double)
KBLA_TS_IMPL_DECL(std::complex<float>)
KBLA_TS_IMPL_DECL(std::complex<double>)
}  // namespace detail
}  // namespace cuda
}  // namespace kbla

#define KBLA_TS_DEFINE_TSMTTSM(Scalar, TABLE, GEN, PRE, NARROW, NPRE)                                             \
  namespace kbla {                                                                                                \
  namespace cuda {                                                                                                \
  namespace detail {                                                                                              \
  cudaError_t tsmttsm_impl(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,      \
                           std::int64_t lda, Layout layoutA, const Scalar* B, std::int64_t ldb, Layout layoutB,   \
                           Scalar beta, Scalar* C, std::int64_t ldc, Layout layoutC,                              \
                           const TallSkinnyOptions& options) {                                                    \
    using Real_ = ScalarOf<Scalar>::Real;                                                                         \
    constexpr bool Complex_ = ScalarOf<Scalar>::cplx;                                                             \
    auto run = [](const TsmttsmArgs<Real_, Complex_>& a, int lay, cudaStream_t st) -> cudaError_t {               \
      const int w = a.M > a.N ? a.M : a.N;                                                                        \
      PRE if (lay == kLayRR) { TABLE(KBLA_TS_X_RR) }                                                              \
      else if (lay == kLayCC) {                                                                                   \
        TABLE(KBLA_TS_X_CC)                                                                                       \
      }                                                                                                           \
      else {                                                                                                      \
        GEN(KBLA_TS_X_GEN)                                                                                        \
      }                                                                                                           \
      return cudaErrorNotSupported;                                                                               \
    };                                                                                                            \
    auto run_narrow = [](const TsmttsmArgs<Real_, Complex_>& a, int lay, cudaStream_t st) -> cudaError_t {        \
      NPRE if (lay == kLayRR) { NARROW(KBLA_TSN_X_RR) }                                                           \
      else if (lay == kLayCC) {                                                                                   \
        NARROW(KBLA_TSN_X_CC)                                                                                     \
      }                                                                                                           \
      return cudaErrorNotSupported;                                                                               \
    };                                                                                                            \
    return tsmttsm_entry<Scalar>(stream, K, M, N, alpha, A, lda, layoutA, B, ldb, layoutB, beta, C, ldc, layoutC, \
                                 options, run, run_narrow);                                                       \
  }                                                                                                               \
  }                                                                                                               \
  }                                                                                                               \
  }
#define KBLA_TS_X_RR(W, TM, TN, PM, PN) \
  if (w <= W || W == 64) return launch_tsmttsm_square<Real_, Complex_, TM, TN, PM, PN, kLayRR>(a, st);
#define KBLA_TS_X_CC(W, TM, TN, PM, PN) \
  if (w <= W || W == 64) return launch_tsmttsm_square<Real_, Complex_, TM, TN, PM, PN, kLayCC>(a, st);
#define KBLA_TS_X_GEN(W, TM, TN, PM, PN) \
  if (w <= W || W == 64) return launch_tsmttsm<Real_, Complex_, TM, TN, PM, PN, kLayGEN>(a, st);

#define KBLA_TS_DEFINE_TSMM(Scalar, TABLE, GEN, NARROW)                                                               \
  namespace kbla {                                                                                                    \
  namespace cuda {                                                                                                    \
  namespace detail {                                                                                                  \
  cudaError_t tsmm_impl(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,             \
                        std::int64_t lda, Layout layoutA, const Scalar* C, std::int64_t ldc, Layout layoutC,          \
                        Scalar beta, Scalar* B, std::int64_t ldb, Layout layoutB, const TallSkinnyOptions& options) { \
    using Real_ = ScalarOf<Scalar>::Real;                                                                             \
    constexpr bool Complex_ = ScalarOf<Scalar>::cplx;                                                                 \
    auto run = [](const TsmmArgs<Real_, Complex_>& a0, int lay, cudaStream_t st) -> cudaError_t {                     \
      TsmmArgs<Real_, Complex_> a = a0;                                                                               \
      {                                                                                                               \
        cudaError_t e_ = tsmm_bulk_try(a, lay, st); /* may leave only the last rows in a */                           \
        if (e_ != cudaErrorNotSupported && (e_ != cudaSuccess || a.K == 0)) return e_;                                \
      }                                                                                                               \
      const int w = a.M > a.N ? a.M : a.N;                                                                            \
      {                                                                                                               \
        cudaError_t e_ = tsmm_rows_try(a, lay, st);                                                                   \
        if (e_ != cudaErrorNotSupported) return e_;                                                                   \
        e_ = tsmm_dmma_try(a, lay, st);                                                                               \
        if (e_ != cudaErrorNotSupported) return e_;                                                                   \
        e_ = tsmm_dcol_try(a, lay, st);                                                                               \
        if (e_ != cudaErrorNotSupported) return e_;                                                                   \
      }                                                                                                               \
      if (lay == kLayRR) {                                                                                            \
        TABLE(KBLA_TM_X_RR)                                                                                           \
      } else if (lay == kLayCC) {                                                                                     \
        TABLE(KBLA_TM_X_CC)                                                                                           \
      } else {                                                                                                        \
        GEN(KBLA_TM_X_GEN)                                                                                            \
      }                                                                                                               \
      return cudaErrorNotSupported;                                                                                   \
    };                                                                                                                \
    auto run_narrow = [](const TsmmArgs<Real_, Complex_>& a, int lay, cudaStream_t st) -> cudaError_t {               \
      if (lay == kLayRR) {                                                                                            \
        NARROW(KBLA_TMN_X_RR)                                                                                         \
      } else if (lay == kLayCC) {                                                                                     \
        NARROW(KBLA_TMN_X_CC)                                                                                         \
      }                                                                                                               \
      return cudaErrorNotSupported;                                                                                   \
    };                                                                                                                \
    return tsmm_entry<Scalar>(stream, K, M, N, alpha, A, lda, layoutA, C, ldc, layoutC, beta, B, ldb, layoutB,        \
                              options, 64, run, run_narrow);                                                          \
  }                                                                                                                   \
  }                                                                                                                   \
  }                                                                                                                   \
  }
#define KBLA_TM_X_RR(W, TN, U, RK) \
  if (w <= W || W == 64) return launch_tsmm<Real_, Complex_, W, W, TN, U, RK, 0>(a, st);
#define KBLA_TM_X_CC(W, TN, U, RK) \
  if (w <= W || W == 64) return launch_tsmm<Real_, Complex_, W, W, TN, U, RK, 1>(a, st);
#define KBLA_TM_X_GEN(W, TN, U, RK) \
  if (w <= W || W == 64) return launch_tsmm<Real_, Complex_, W, W, TN, U, RK, 2>(a, st);

#define KBLA_TS_X_DMMA(WMIN, WMAX, BM, BN, FM, FN, KC, Stages) \
  if (w >= WMIN && w <= WMAX) {                                                            \
    const cudaError_t e_ = launch_tsmttsm_dmma<Complex_, BM, BN, FM, FN, KC, Stages>(a, st);          \
    if (e_ != cudaErrorNotSupported) return e_;                                               \
  }
#define KBLA_TS_PRE_NONE
// double: RRTABLE first for row-major A and B; for column-major A and B, CCODDTABLE (ld != 0 mod 4 only), then
// CCTABLE; then TABLE.
#define KBLA_TS_PRE_DMMA_D(RRTABLE, CCODDTABLE, CCTABLE, TABLE)                                 \
  if (!a.deterministic) {                                                                     \
    if (lay == kLayRR) {                                                                      \
      RRTABLE(KBLA_TS_X_DMMA)                                                                 \
    } else if (lay == kLayCC) {                                                               \
      if (a.asm_ % 4 != 0 || a.bsm % 4 != 0) { CCODDTABLE(KBLA_TS_X_DMMA) }                   \
      CCTABLE(KBLA_TS_X_DMMA)                                                                 \
    }                                                                                         \
    TABLE(KBLA_TS_X_DMMA)                                                                     \
  }
// complex: the three-product rows (G3TABLE, only when the caller opted in), then the real-view rows (RRTABLE first
// when A and B are row-major, then TABLE)
#define KBLA_TS_X_DMMA_G3(WMIN, WMAX, BM, BN, FM, FN, KC, Stages)                                 \
  if (w >= WMIN && w <= WMAX) {                                                            \
    const cudaError_t e_ = launch_tsmttsm_dmma<Complex_, BM, BN, FM, FN, KC, Stages, true>(a, st);    \
    if (e_ != cudaErrorNotSupported) return e_;                                               \
  }
#define KBLA_TS_PRE_DMMA_G3(G3TABLE, RRTABLE, TABLE)      \
  if (!a.deterministic) {                                   \
    if (a.complex_3m) { G3TABLE(KBLA_TS_X_DMMA_G3) }        \
    if (lay == kLayRR) { RRTABLE(KBLA_TS_X_DMMA) }          \
    TABLE(KBLA_TS_X_DMMA)                                   \
  }

// Narrow-shape rows (tall_skinny_params.hpp)
#define KBLA_TSN_X_RR(NMAX, MMAX, TM, TN, PM, PN) \
  if (a.N <= NMAX && a.M <= MMAX) return launch_tsmttsm<Real_, Complex_, TM, TN, PM, PN, kLayRR>(a, st);
#define KBLA_TSN_X_CC(NMAX, MMAX, TM, TN, PM, PN) \
  if (a.N <= NMAX && a.M <= MMAX) return launch_tsmttsm<Real_, Complex_, TM, TN, PM, PN, kLayCC>(a, st);
#define KBLA_TMN_X_RR(NMAX, MT, NT, TN, U, RK) \
  if (a.N <= NMAX && a.M <= MT) return launch_tsmm<Real_, Complex_, MT, NT, TN, U, RK, 0>(a, st);
#define KBLA_TMN_X_CC(NMAX, MT, NT, TN, U, RK) \
  if (a.N <= NMAX && a.M <= MT) return launch_tsmm<Real_, Complex_, MT, NT, TN, U, RK, 1>(a, st);
#define KBLA_TS_X_DMMA_NARROW(NMAX, MMAX, BM, BN, FM, FN, KC, Stages)                               \
  if (a.N <= NMAX && a.M <= MMAX) {                                                             \
    const cudaError_t e_ = launch_tsmttsm_dmma<Complex_, BM, BN, FM, FN, KC, Stages>(a, st);              \
    if (e_ != cudaErrorNotSupported) return e_;                                                  \
  }
#define KBLA_TS_NPRE_DMMA(TABLE) \
  if (!a.deterministic) { TABLE(KBLA_TS_X_DMMA_NARROW) }
