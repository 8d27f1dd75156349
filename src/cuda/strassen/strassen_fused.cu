// kbla::cuda::strassen_fused: one Strassen level fused into the SIMT tile engine (Huang et al. 2018), C = alpha
// op(A) op(B) + beta C: the 7 products run as one launch on gemm_tile.cuh's tiles, the operand sums are formed while
// packing and the results added into C's quadrants by atomics; no workspace. strassen_gemm takes it for
// StrassenAlgorithm::fused (GemmAlgorithm::strassen through Kokkos) and for the fused level of hybrid.

// With A, B, C split into quadrants (m1 = ceil(m/2), m2 = m - m1, same for n, k), each of the 7 products is the
// primitive M = (X + delta Y)(V + eps W); D += gamma0 M; E += gamma1 M. The sums are formed while packing the
// shared-memory tiles, the results are atomically added from registers into the C quadrants, so no workspace
// exists. Odd sizes: every quadrant is treated as m1 x k1 (k1 x n1) with the missing rows / columns reading as
// zero (the loader's bounds), and outputs are masked to their real extents; this is Strassen on the matrices
// zero-padded to even sizes, which is exact. All 7 products run in one launch on blockIdx.z after C = beta C.
// delta, eps and gamma are per-product values in the Batch, not template parameters: one launch holds all 7
// products, the variant (which operands are sums) is compile-time per tile body (gemm_tile::strassen_tile), the
// loader holds delta in a register per tile (TileLoader::begin), and gamma scales once per tile in the epilogue.
// Signs as template arguments were measured slower (ptxas scheduled the loop worse).
#include <algorithm>
#include <cstdlib>
#include <type_traits>

#include "gemm_tile.cuh"
#include "kbla_cuda_strassen.hpp"
#include "strassen_schedule.hpp"

namespace kbla {
namespace cuda {

namespace {

using namespace strassen_schedule;
static_assert(kProducts == gemm_tile::kMaxProducts, "one Strassen level: 7 products");

// Blocks of one strassen_kernel instantiation resident per SM (occupancy query, once per process) times the SMs of
// the current device: the wave size. 1 (no split) if a query fails (its error is cleared).
template <class Scalar, gemm_tile::Shape TileShape, bool TransposeA, bool TransposeB>
std::int64_t resident_blocks() {
  static const int per_sm = [] {
    int b = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &b, gemm_tile::strassen_kernel<Scalar, TileShape, TransposeA, TransposeB, false>,
            gemm_tile::Derived<Scalar, TileShape>::THREADS, 0) != cudaSuccess) {
      (void)cudaGetLastError();
      b = 0;
    }
    return b;
  }();
  int dev = 0, sms = 0;
  if (per_sm < 1 || cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 1;
  }
  return std::int64_t(per_sm) * sms;
}

template <class Scalar, gemm_tile::Shape TileShape, bool TransposeA, bool TransposeB>
cudaError_t launch_strassen(cudaStream_t s, gemm_tile::Batch<Scalar>& bp, int products, int max_slices) {
  using Cfg = gemm_tile::TileConfig<Scalar, TileShape>;
  using D = gemm_tile::Derived<Scalar, TileShape>;
  const std::int64_t tiles_m = (bp.m + Cfg::BM - 1) / Cfg::BM, tiles_n = (bp.n + Cfg::BN - 1) / Cfg::BN;
  if (tiles_m * tiles_n > INT_MAX) return cudaErrorNotSupported;
  bp.tiles_m = int(tiles_m);
  bp.tiles_n = int(tiles_n);
  const int slabs = int((std::int64_t(bp.k) + Cfg::BK - 1) / Cfg::BK);
  const std::int64_t tiles = tiles_m * tiles_n, slots = resident_blocks<Scalar, TileShape, TransposeA, TransposeB>();
  const SliceChoice sc = choose_k_slices(tiles * products, slots, slabs, max_slices);
  // FP64 has no 16-byte-atomic epilogue: its sliced launches run the unsliced instantiation (same code).
  constexpr bool kVec4 = std::is_same<Scalar, float>::value;
  if (max_slices != 1 && products == gemm_tile::kMaxProducts) {
    const int sk_mode = 1;  // the model
    const StreamKChoice sk = choose_stream_k(tiles, slots, slabs, sk_mode);
    if (use_stream_k(sk, sc, sk_mode)) {
      bp.slice_slabs = slabs;
      bp.sk_tile0 = sk.tile0;
      if (sk.tile0 > 0)
        gemm_tile::strassen_kernel<Scalar, TileShape, TransposeA, TransposeB, false>
            <<<dim3(unsigned(sk.tile0), 1, unsigned(products)), D::THREADS, 0, s>>>(bp);
      gemm_tile::strassen_stream_k_kernel<Scalar, TileShape, TransposeA, TransposeB, kVec4>
          <<<unsigned(sk.blocks), D::THREADS, 0, s>>>(bp);
      return cudaGetLastError();
    }
  }
  const int slices = sc.slices;
  bp.slice_slabs = (slabs + slices - 1) / slices;
  const int grid_y = (slabs + bp.slice_slabs - 1) / bp.slice_slabs;  // no empty slice
  dim3 grid(unsigned(bp.tiles_m) * unsigned(bp.tiles_n), unsigned(grid_y), unsigned(products));
  if (kVec4 && grid_y > 1)
    gemm_tile::strassen_kernel<Scalar, TileShape, TransposeA, TransposeB, kVec4><<<grid, D::THREADS, 0, s>>>(bp);
  else
    gemm_tile::strassen_kernel<Scalar, TileShape, TransposeA, TransposeB, false><<<grid, D::THREADS, 0, s>>>(bp);
  return cudaGetLastError();
}

template <class Scalar, gemm_tile::Shape TileShape>
cudaError_t launch_strassen(cudaStream_t s, int ta, int tb, gemm_tile::Batch<Scalar>& bp, int max_slices) {
  if (ta == 0 && tb == 0) return launch_strassen<Scalar, TileShape, false, false>(s, bp, 7, max_slices);
  if (ta == 0) return launch_strassen<Scalar, TileShape, false, true>(s, bp, 7, max_slices);
  if (tb == 0) return launch_strassen<Scalar, TileShape, true, false>(s, bp, 7, max_slices);
  return launch_strassen<Scalar, TileShape, true, true>(s, bp, 7, max_slices);
}

// Offsets and extents of quadrant (i, j) of an r x c matrix split at (r1, c1).
struct Quad {
  std::int64_t r0, c0, rows, cols;
};
inline Quad quad(int i, int j, std::int64_t r, std::int64_t c, std::int64_t r1, std::int64_t c1) {
  return Quad{i ? r1 : 0, j ? c1 : 0, i ? r - r1 : r1, j ? c - c1 : c1};
}

}  // namespace

// max_k_slices: 1 where the caller runs other launches beside this one (the hybrid's concurrent leaves), which
// fill the GPU better than slices do; 0: the library's choice (choose_k_slices).
template <class Scalar>
cudaError_t strassen_fused_leaf(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                                std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                                std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, int simt_tile,
                                int max_k_slices) {
  using namespace gemm_tile;
  const int ta = parse_op(transA), tb = parse_op(transB);
  cudaError_t e = check_args(ta, tb, m, n, k, lda, ldb, ldc);
  if (e != cudaSuccess) return e;
  if (m == 0 || n == 0) return cudaSuccess;
  // The products only add into C, so C = beta C comes first (also the whole answer when there is no product).
  e = launch_scale(stream, m, n, beta, C, ldc);
  if (e != cudaSuccess || k == 0 || alpha == Scalar(0)) return e;

  const std::int64_t m1 = (m + 1) / 2, n1 = (n + 1) / 2, k1 = (k + 1) / 2;

  Batch<Scalar> bp{};
  bp.m = int(m1);
  bp.n = int(n1);
  bp.k = int(k1);  // tiles_m / tiles_n: set by the shape's launch
  bp.ldc = ldc;
  bp.alpha = alpha;
  bp.beta = beta;

  // op(A) is m x k, op(B) is k x n; (i, j) are quadrant indices; s = +1 / -1 the sign of the second term.
  auto opA = [&](int xi, int xj, int yi, int yj, int s) {
    const Quad x = quad(xi, xj, m, k, m1, k1);
    if (s == 0) return make_operand<Scalar>(A, lda, ta != 0, x.r0, x.c0, x.rows, x.cols, false, 0, 0, 0, 0, Scalar(0));
    const Quad y = quad(yi, yj, m, k, m1, k1);
    return make_operand<Scalar>(A, lda, ta != 0, x.r0, x.c0, x.rows, x.cols, true, y.r0, y.c0, y.rows, y.cols,
                                Scalar(s));
  };
  auto opB = [&](int xi, int xj, int yi, int yj, int s) {
    const Quad x = quad(xi, xj, k, n, k1, n1);
    if (s == 0) return make_operand<Scalar>(B, ldb, tb != 0, x.r0, x.c0, x.rows, x.cols, false, 0, 0, 0, 0, Scalar(0));
    const Quad y = quad(yi, yj, k, n, k1, n1);
    return make_operand<Scalar>(B, ldb, tb != 0, x.r0, x.c0, x.rows, x.cols, true, y.r0, y.c0, y.rows, y.cols,
                                Scalar(s));
  };
  auto out = [&](int i, int j, int g) {
    const Quad q = quad(i, j, m, n, m1, n1);
    return Output<Scalar>{C + q.r0 + q.c0 * ldc, int(q.rows), int(q.cols), Scalar(g) * alpha};
  };
  const Output<Scalar> none{nullptr, 0, 0, Scalar(0)};

  // Strassen's 7 products (quadrants 0-based): C00 = M1 + M4 - M5 + M7, C01 = M3 + M5, C10 = M2 + M4,
  // C11 = M1 - M2 + M3 + M6. Ordered by variant, the two-sum products first (they are the slowest blocks).
  Product<Scalar>* z = bp.z;
  z[0] = {opA(0, 0, 1, 1, +1), opB(0, 0, 1, 1, +1), out(0, 0, +1), out(1, 1, +1)};  // M1 = (A00+A11)(B00+B11)
  z[1] = {opA(1, 0, 0, 0, -1), opB(0, 0, 0, 1, +1), out(1, 1, +1), none};          // M6 = (A10-A00)(B00+B01)
  z[2] = {opA(0, 1, 1, 1, -1), opB(1, 0, 1, 1, +1), out(0, 0, +1), none};          // M7 = (A01-A11)(B10+B11)
  z[3] = {opA(1, 0, 1, 1, +1), opB(0, 0, 0, 0, 0), out(1, 0, +1), out(1, 1, -1)};  // M2 = (A10+A11) B00
  z[4] = {opA(0, 0, 0, 1, +1), opB(1, 1, 0, 0, 0), out(0, 0, -1), out(0, 1, +1)};  // M5 = (A00+A01) B11
  z[5] = {opA(0, 0, 0, 0, 0), opB(0, 1, 1, 1, -1), out(0, 1, +1), out(1, 1, +1)};  // M3 = A00 (B01-B11)
  z[6] = {opA(1, 1, 0, 0, 0), opB(1, 0, 0, 0, -1), out(0, 0, +1), out(1, 0, +1)};  // M4 = A11 (B10-B00)

  if constexpr (std::is_same<Scalar, float>::value) {
    const Shape sh = resolve_shape<Scalar>(simt_tile);
    if (sh == Shape::wide) return launch_strassen<Scalar, Shape::wide>(stream, ta, tb, bp, max_k_slices);
    if (sh == Shape::wide_async) return launch_strassen<Scalar, Shape::wide_async>(stream, ta, tb, bp, max_k_slices);
  }
  return launch_strassen<Scalar, Shape::classic>(stream, ta, tb, bp, max_k_slices);
}

template <class Scalar>
cudaError_t strassen_fused(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                           std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                           std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, int simt_tile) {
  return strassen_fused_leaf<Scalar>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, simt_tile,
                                     0);
}

template <class Scalar>
cudaError_t strassen_fused(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                           std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                           std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc) {
  return strassen_fused<Scalar>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}

template cudaError_t strassen_fused_leaf<float>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t,
                                                float, const float*, std::int64_t, const float*, std::int64_t, float,
                                                float*, std::int64_t, int, int);
template cudaError_t strassen_fused_leaf<double>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t,
                                                 double, const double*, std::int64_t, const double*, std::int64_t,
                                                 double, double*, std::int64_t, int, int);
template cudaError_t strassen_fused<float>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, float,
                                           const float*, std::int64_t, const float*, std::int64_t, float, float*,
                                           std::int64_t);
template cudaError_t strassen_fused<double>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t,
                                            double, const double*, std::int64_t, const double*, std::int64_t, double,
                                            double*, std::int64_t);
template cudaError_t strassen_fused<float>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t, float,
                                           const float*, std::int64_t, const float*, std::int64_t, float, float*,
                                           std::int64_t, int);
template cudaError_t strassen_fused<double>(cudaStream_t, char, char, std::int64_t, std::int64_t, std::int64_t,
                                            double, const double*, std::int64_t, const double*, std::int64_t, double,
                                            double*, std::int64_t, int);

}  // namespace cuda
}  // namespace kbla
