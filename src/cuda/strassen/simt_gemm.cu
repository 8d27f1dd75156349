// kbla::cuda::simt_gemm: the classical product C = alpha op(A) op(B) + beta C on the SIMT tile engine
// (gemm_tile.cuh), one product per launch. Called directly through the raw API, and for the leaves and peeling
// fix-ups of conventional / winograd Strassen when StrassenConfig::cublas_leaves is false. Also the base the fused
// Strassen kernel is measured against: same tiles, same loaders, same main loop.
#include "gemm_tile.cuh"
#include "kbla_cuda_strassen.hpp"

namespace kbla {
namespace cuda {

namespace {

template <class Scalar, gemm_tile::Shape TileShape, bool TransposeA, bool TransposeB>
cudaError_t launch_gemm(cudaStream_t s, const gemm_tile::Batch<Scalar>& bp) {
  using D = gemm_tile::Derived<Scalar, TileShape>;
  dim3 grid(unsigned(bp.tiles_m) * unsigned(bp.tiles_n), 1, 1);
  gemm_tile::gemm_kernel<Scalar, TileShape, TransposeA, TransposeB><<<grid, D::THREADS, 0, s>>>(bp);
  return cudaGetLastError();
}

template <class Scalar, gemm_tile::Shape TileShape>
cudaError_t run_gemm(cudaStream_t stream, int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha,
                     const Scalar* A, std::int64_t lda, const Scalar* B, std::int64_t ldb, Scalar beta, Scalar* C,
                     std::int64_t ldc) {
  using namespace gemm_tile;
  using Cfg = TileConfig<Scalar, TileShape>;
  const std::int64_t tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
  if (tiles_m * tiles_n > INT_MAX) return cudaErrorNotSupported;

  Batch<Scalar> bp{};
  bp.m = int(m);
  bp.n = int(n);
  bp.k = int(k);
  bp.tiles_m = int(tiles_m);
  bp.tiles_n = int(tiles_n);
  bp.ldc = ldc;
  bp.alpha = alpha;
  bp.beta = beta;
  Product<Scalar>& p = bp.z[0];
  p.a = make_operand<Scalar>(A, lda, ta != 0, 0, 0, m, k, false, 0, 0, 0, 0, Scalar(0));
  p.b = make_operand<Scalar>(B, ldb, tb != 0, 0, 0, k, n, false, 0, 0, 0, 0, Scalar(0));
  p.d = Output<Scalar>{C, int(m), int(n), Scalar(1)};
  p.e = Output<Scalar>{nullptr, 0, 0, Scalar(0)};

  if (ta == 0 && tb == 0) return launch_gemm<Scalar, TileShape, false, false>(stream, bp);
  if (ta == 0) return launch_gemm<Scalar, TileShape, false, true>(stream, bp);
  if (tb == 0) return launch_gemm<Scalar, TileShape, true, false>(stream, bp);
  return launch_gemm<Scalar, TileShape, true, true>(stream, bp);
}

}  // namespace

template <class Scalar>
cudaError_t simt_gemm(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n, std::int64_t k,
                      Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B, std::int64_t ldb, Scalar beta,
                      Scalar* C, std::int64_t ldc, int simt_tile) {
  using namespace gemm_tile;
  const int ta = parse_op(transA), tb = parse_op(transB);
  cudaError_t e = check_args(ta, tb, m, n, k, lda, ldb, ldc);
  if (e != cudaSuccess) return e;
  if (m == 0 || n == 0) return cudaSuccess;
  if (k == 0 || alpha == Scalar(0)) return launch_scale(stream, m, n, beta, C, ldc);
  if constexpr (std::is_same<Scalar, float>::value) {
    const Shape sh = resolve_shape<Scalar>(simt_tile);
    if (sh == Shape::wide)
      return run_gemm<Scalar, Shape::wide>(stream, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    if (sh == Shape::wide_async)
      return run_gemm<Scalar, Shape::wide_async>(stream, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  return run_gemm<Scalar, Shape::classic>(stream, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class Scalar>
cudaError_t simt_gemm(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n, std::int64_t k,
                      Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B, std::int64_t ldb, Scalar beta,
                      Scalar* C, std::int64_t ldc) {
  return simt_gemm<Scalar>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}

void set_simt_tile(int simt_tile) {
  gemm_tile::process_shape().store(gemm_tile::valid_shape(simt_tile) ? simt_tile : 0, std::memory_order_relaxed);
}

template <class Scalar>
int simt_tile_resolved(int simt_tile) {
  return int(gemm_tile::resolve_shape<Scalar>(simt_tile));
}

template int simt_tile_resolved<float>(int);
template int simt_tile_resolved<double>(int);
template cudaError_t simt_gemm<float>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, float,
                                      const float*, std::int64_t, const float*, std::int64_t, float, float*,
                                      std::int64_t, int);
template cudaError_t simt_gemm<double>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, double,
                                       const double*, std::int64_t, const double*, std::int64_t, double, double*,
                                       std::int64_t, int);
template cudaError_t simt_gemm<float>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, float,
                                      const float*, std::int64_t, const float*, std::int64_t, float, float*,
                                      std::int64_t);
template cudaError_t simt_gemm<double>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, double,
                                       const double*, std::int64_t, const double*, std::int64_t, double, double*,
                                       std::int64_t);

}  // namespace cuda
}  // namespace kbla
