// Workspace-based Strassen paths of kbla_cuda_strassen.hpp: conventional Strassen (classical 7-product
// formulas, leaves by cuBLAS or simt_gemm), the 2-level hybrid (one conventional level over the fused
// 1-level kernel) and Winograd's variant (7 products, 15 additions) recursing by a size threshold tau;
// plus the dispatcher strassen_gemm / strassen_workspace_bytes.
//
// Design notes
// ------------
// * Operands are "views" of op(X): (pointer, ld, transposed flag). A quadrant of op(A) is addressed through the
//   flag (quadrant (i, j) of A^T is the transpose of quadrant (j, i) of A), and an operand SUM of quadrants of
//   op(A) is stored in A's own storage layout (i.e. as the transpose when op(A) = A^T) and keeps the flag. So
//   the flag never changes down the recursion, every elementwise kernel reads and writes column-major storage
//   with unit stride (coalesced), and the leaf GEMM just receives 'T' for that operand. For real T, 'C' == 'T'.
// * Odd sizes: dynamic peeling at every recursion level. With m = 2 mh + mr, n = 2 nh + nr, k = 2 kh + kr:
//   the even part C[0:2mh, 0:2nh] = op(A)[0:2mh, 0:2kh] op(B)[0:2kh, 0:2nh] is done by the fast algorithm
//   (which applies beta there), then
//     kr: C[0:2mh, 0:2nh] += alpha op(A)[0:2mh, k-1] op(B)[k-1, 0:2nh]   (rank-1 GEMM, beta = 1)
//     mr: C[m-1, 0:n]     = alpha op(A)[m-1, :] op(B) + beta C[m-1, :]    (1 x n x k GEMM)
//     nr: C[0:2mh, n-1]   = alpha op(A)[0:2mh, :] op(B)[:, n-1] + beta C  (2mh x 1 x k GEMM)
//   by the thin GEMM (cuBLAS, or simt_gemm when config.cublas_leaves is false). The three fix-ups touch
//   disjoint parts of C except the rank-1 update, which runs after the even part. No padding, no extra memory.
// * beta folding: every C quadrant receives beta * C exactly once, from the first product or combination that
//   writes it; beta == 0 never reads C (the combine kernels test beta, cuBLAS / the sub-calls honour it).
// * Workspace per level (elements, each buffer rounded up to 256 bytes), recursion levels reuse the same tail:
//     conventional / hybrid: mh*kh (A-side sum) + kh*nh (B-side sum) + mh*nh (product M)
//     winograd:              mh*kh + kh*nh + 2*mh*nh (U accumulator X, product P5 in Y)
//   strassen_workspace_bytes walks the same plan as strassen_gemm, so the number is exact.
// * cuBLAS leaves use the handle's default math mode (CUBLAS_DEFAULT_MATH: no TF32 for SGEMM, set explicitly
//   when the handle is created) and the 64-bit-integer API (cublas?gemm_64), so no int overflow of m*n or ld.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "kbla_cuda_strassen.hpp"

namespace kbla {
namespace cuda {

namespace {

using i64 = std::int64_t;

// ---------------------------------------------------------------------------------------------------------
// cuBLAS handle per device (own helper: created on first use, math mode pinned to the default = no TF32).
constexpr int kMaxDev = 64;

cudaError_t strassen_cublas_handle(cudaStream_t stream, cublasHandle_t* out) {
  static std::mutex mtx;
  static cublasHandle_t handles[kMaxDev] = {};
  int dev = -1;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= kMaxDev) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(mtx);
  if (!handles[dev]) {
    if (cublasCreate(&handles[dev]) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    cublasSetMathMode(handles[dev], CUBLAS_DEFAULT_MATH);
  }
  if (cublasSetStream(handles[dev], stream) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  *out = handles[dev];
  return cudaSuccess;
}

cublasStatus_t cublas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, i64 m, i64 n, i64 k,
                           const float* al, const float* A, i64 lda, const float* B, i64 ldb, const float* be,
                           float* C, i64 ldc) {
  return cublasSgemm_64(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
cublasStatus_t cublas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, i64 m, i64 n, i64 k,
                           const double* al, const double* A, i64 lda, const double* B, i64 ldb, const double* be,
                           double* C, i64 ldc) {
  return cublasDgemm_64(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

// ---------------------------------------------------------------------------------------------------------
// Views. Logical element (i, j) of the r x c matrix op(X) is t ? p[j + i*ld] : p[i + j*ld].
template <class T>
struct View {
  const T* p;
  i64 ld;
  bool t;
};

template <class T>
View<T> sub(View<T> v, i64 i0, i64 j0) {  // logical offset (i0, j0)
  return View<T>{v.t ? v.p + i0 * v.ld + j0 : v.p + i0 + j0 * v.ld, v.ld, v.t};
}

// ---------------------------------------------------------------------------------------------------------
// Elementwise kernels. Block: 256 threads along storage rows; blockIdx.y walks columns (grid-stride).
constexpr int kThreads = 256;
constexpr unsigned kMaxGridY = 65535;

template <class T>
struct AddJob {  // out = x + d * y over a rows x cols column-major block (out may alias x or y)
  T* out;
  i64 ldo;
  const T* x;
  i64 ldx;
  const T* y;
  i64 ldy;
  T d;
  i64 rows, cols;
};

template <class T>
__global__ void add2_kernel(AddJob<T> j0, AddJob<T> j1) {
  const AddJob<T>& j = blockIdx.z == 0 ? j0 : j1;
  const i64 r = i64(blockIdx.x) * kThreads + threadIdx.x;
  if (r >= j.rows) return;
  for (i64 c = blockIdx.y; c < j.cols; c += gridDim.y) {
    j.out[r + c * j.ldo] = j.x[r + c * j.ldx] + j.d * j.y[r + c * j.ldy];
  }
}

template <class T>
struct CombOut {  // p = (beta != 0 ? beta * p : 0) + cx * X + cy * Y   (Y only read when cy != 0)
  T* p;
  i64 ld;
  T beta, cx, cy;
};

template <class T>
__global__ void combine_kernel(i64 rows, i64 cols, const T* X, i64 ldx, const T* Y, i64 ldy, CombOut<T> o0,
                               CombOut<T> o1, int nout) {
  const i64 r = i64(blockIdx.x) * kThreads + threadIdx.x;
  if (r >= rows) return;
  for (i64 c = blockIdx.y; c < cols; c += gridDim.y) {
    const T x = X[r + c * ldx];
    const T y = (Y != nullptr) ? Y[r + c * ldy] : T(0);
    {
      T v = (o0.cx != T(0)) ? o0.cx * x : T(0);
      if (o0.cy != T(0)) v += o0.cy * y;
      T* q = o0.p + r + c * o0.ld;
      *q = (o0.beta != T(0)) ? o0.beta * *q + v : v;
    }
    if (nout > 1) {
      T v = (o1.cx != T(0)) ? o1.cx * x : T(0);
      if (o1.cy != T(0)) v += o1.cy * y;
      T* q = o1.p + r + c * o1.ld;
      *q = (o1.beta != T(0)) ? o1.beta * *q + v : v;
    }
  }
}

template <class T>
__global__ void scale_kernel(i64 rows, i64 cols, T beta, T* C, i64 ldc) {
  const i64 r = i64(blockIdx.x) * kThreads + threadIdx.x;
  if (r >= rows) return;
  for (i64 c = blockIdx.y; c < cols; c += gridDim.y) {
    T* q = C + r + c * ldc;
    *q = (beta != T(0)) ? beta * *q : T(0);
  }
}

dim3 grid_for(i64 rows, i64 cols, unsigned z = 1) {
  return dim3(unsigned((rows + kThreads - 1) / kThreads), unsigned(std::min<i64>(std::max<i64>(cols, 1), kMaxGridY)),
              z);
}

template <class T>
cudaError_t launch_add2(cudaStream_t s, const AddJob<T>& a, const AddJob<T>* b) {
  AddJob<T> j1 = b ? *b : a;
  if (!b) j1.rows = 0;  // second slice of the grid idles
  const i64 rows = std::max(a.rows, j1.rows), cols = std::max(a.cols, j1.cols);
  if (rows == 0 || cols == 0) return cudaSuccess;
  add2_kernel<T><<<grid_for(rows, cols, b ? 2 : 1), kThreads, 0, s>>>(a, j1);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_combine(cudaStream_t s, i64 rows, i64 cols, const T* X, i64 ldx, const T* Y, i64 ldy,
                           CombOut<T> o0, const CombOut<T>* o1) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  combine_kernel<T><<<grid_for(rows, cols), kThreads, 0, s>>>(rows, cols, X, ldx, Y, ldy, o0, o1 ? *o1 : o0,
                                                               o1 ? 2 : 1);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_scale(cudaStream_t s, i64 rows, i64 cols, T beta, T* C, i64 ldc) {
  if (rows == 0 || cols == 0 || beta == T(1)) return cudaSuccess;
  scale_kernel<T><<<grid_for(rows, cols), kThreads, 0, s>>>(rows, cols, beta, C, ldc);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------------------
// The plan shared by strassen_workspace_bytes and strassen_gemm.
enum class Leaf { blas, simt, fused };

struct Plan {
  StrassenAlgorithm algo;  // conventional or winograd for the recursion; hybrid -> conventional over fused
  int levels;
  i64 tau;
  Leaf leaf;       // the 7 products at the bottom
  Leaf thin;       // peeling fix-ups
};

constexpr std::size_t kAlign = 256;
inline std::size_t round_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

template <class T>
i64 default_tau() {
  // Crossover of one Strassen level over cuBLAS on H100/H200 (anchor strassen-reference-h200-2026-11-22.json):
  // FP32 SGEMM (no TF32) loses ~4% at n = 4096 (its 2048 leaves run at ~47 vs ~50 TFLOP/s) and gains ~11% at
  // 8192, so split at n >= 6144 (leaves >= 3072, where SGEMM is near its plateau). FP64 (DMMA tensor cores)
  // is break-even at 8192 and gains ~12% at 16384, so split at n >= 12288.
  return sizeof(T) == 4 ? 6144 : 12288;
}

template <class T>
bool splits(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  if (levels <= 0) return false;
  const i64 mn = std::min(m, std::min(n, k));
  if (mn < 2) return false;
  if (p.algo == StrassenAlgorithm::winograd && mn < p.tau) return false;
  return true;
}

template <class T>
std::size_t level_bytes(const Plan& p, i64 mh, i64 nh, i64 kh) {
  const std::size_t s = sizeof(T);
  std::size_t b = round_up(std::size_t(mh * kh) * s) + round_up(std::size_t(kh * nh) * s) +
                  round_up(std::size_t(mh * nh) * s);
  if (p.algo == StrassenAlgorithm::winograd) b += round_up(std::size_t(mh * nh) * s);
  return b;
}

template <class T>
std::size_t plan_bytes(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  std::size_t total = 0;
  while (splits<T>(p, levels, m, n, k)) {
    m /= 2;
    n /= 2;
    k /= 2;
    total += level_bytes<T>(p, m, n, k);
    --levels;
  }
  return total;
}

template <class T>
bool make_plan(const StrassenConfig& c, Plan* p) {
  p->tau = c.tau > 0 ? c.tau : default_tau<T>();
  p->thin = c.cublas_leaves ? Leaf::blas : Leaf::simt;
  p->leaf = p->thin;
  switch (c.algorithm) {
    case StrassenAlgorithm::conventional:
      p->algo = StrassenAlgorithm::conventional;
      p->levels = std::max(c.levels, 0);
      return true;
    case StrassenAlgorithm::winograd:
      p->algo = StrassenAlgorithm::winograd;
      p->levels = std::max(c.levels, 0);
      return true;
    case StrassenAlgorithm::hybrid:
      p->algo = StrassenAlgorithm::conventional;
      p->levels = 1;
      p->leaf = Leaf::fused;
      return true;
    case StrassenAlgorithm::fused:
      p->algo = StrassenAlgorithm::fused;
      p->levels = 0;
      p->leaf = Leaf::fused;
      return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
template <class T>
struct Ctx {
  cudaStream_t s;
  Plan plan;
};

template <class T>
cudaError_t gemm_by(const Ctx<T>& cx, Leaf how, i64 m, i64 n, i64 k, T alpha, View<T> A, View<T> B, T beta, T* C,
                    i64 ldc) {
  if (m == 0 || n == 0) return cudaSuccess;
  const char ta = A.t ? 'T' : 'N', tb = B.t ? 'T' : 'N';
  switch (how) {
    case Leaf::fused:
      return strassen_fused<T>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc);
    case Leaf::simt:
      return simt_gemm<T>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc);
    case Leaf::blas:
    default: {
      if (k == 0) return launch_scale<T>(cx.s, m, n, beta, C, ldc);
      cublasHandle_t h;
      cudaError_t e = strassen_cublas_handle(cx.s, &h);
      if (e != cudaSuccess) return e;
      const cublasStatus_t st = cublas_gemm(h, A.t ? CUBLAS_OP_T : CUBLAS_OP_N, B.t ? CUBLAS_OP_T : CUBLAS_OP_N, m,
                                            n, k, &alpha, A.p, A.ld, B.p, B.ld, &beta, C, ldc);
      return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    }
  }
}

// Workspace buffer of a logical r x c operand stored in the layout of a view with flag t.
template <class T>
struct Buf {
  T* p;
  i64 ld;
  bool t;
  View<T> view() const { return View<T>{p, ld, t}; }
};

template <class T>
Buf<T> carve(char*& ws, i64 r, i64 c, bool t) {
  Buf<T> b{reinterpret_cast<T*>(ws), std::max<i64>(1, t ? c : r), t};
  ws += round_up(std::size_t(r * c) * sizeof(T));
  return b;
}

// out (buffer, logical r x c) = x + d * y, x and y views with the buffer's flag.
template <class T>
AddJob<T> job(Buf<T> out, i64 r, i64 c, View<T> x, T d, View<T> y) {
  return AddJob<T>{out.p, out.ld, x.p, x.ld, y.p, y.ld, d, out.t ? c : r, out.t ? r : c};
}

template <class T>
cudaError_t rec(const Ctx<T>& cx, int levels, i64 m, i64 n, i64 k, T alpha, View<T> A, View<T> B, T beta, T* C,
                i64 ldc, char* ws);

#define KBLA_TRY(x)                        \
  do {                                     \
    const cudaError_t e_ = (x);            \
    if (e_ != cudaSuccess) return e_;      \
  } while (0)

// One conventional Strassen level on the even part (2mh x 2nh x 2kh); products by rec(levels - 1).
template <class T>
cudaError_t conventional_level(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A,
                               View<T> B, T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S = carve<T>(ws, mh, kh, A.t), Tb = carve<T>(ws, kh, nh, B.t), M = carve<T>(ws, mh, nh, false);
  const View<T> A11 = A, A12 = sub(A, 0, kh), A21 = sub(A, mh, 0), A22 = sub(A, mh, kh);
  const View<T> B11 = B, B12 = sub(B, 0, nh), B21 = sub(B, kh, 0), B22 = sub(B, kh, nh);
  T* C11 = C;
  T* C12 = C + nh * ldc;
  T* C21 = C + mh;
  T* C22 = C + mh + nh * ldc;
  const T one = T(1);
  auto sa = [&](View<T> x, T d, View<T> y) { return job(S, mh, kh, x, d, y); };
  auto tb = [&](View<T> x, T d, View<T> y) { return job(Tb, kh, nh, x, d, y); };
  auto prod = [&](View<T> a, View<T> b, T bet, T* c, i64 ld) {
    return rec<T>(cx, levels - 1, mh, nh, kh, alpha, a, b, bet, c, ld, ws);
  };
  // M6 = (A21 - A11)(B11 + B12) -> C22 (beta folded)
  {
    AddJob<T> j1 = tb(B11, one, B12);
    KBLA_TRY(launch_add2<T>(s, sa(A21, -one, A11), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), beta, C22, ldc));
  }
  // M7 = (A12 - A22)(B21 + B22) -> C11 (beta folded)
  {
    AddJob<T> j1 = tb(B21, one, B22);
    KBLA_TRY(launch_add2<T>(s, sa(A12, -one, A22), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), beta, C11, ldc));
  }
  // M3 = A11 (B12 - B22): C12 = beta C12 + M3, C22 += M3
  {
    KBLA_TRY(launch_add2<T>(s, tb(B12, -one, B22), nullptr));
    KBLA_TRY(prod(A11, Tb.view(), T(0), M.p, M.ld));
    CombOut<T> o0{C12, ldc, beta, one, T(0)}, o1{C22, ldc, one, one, T(0)};
    KBLA_TRY(launch_combine<T>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M2 = (A21 + A22) B11: C21 = beta C21 + M2, C22 -= M2
  {
    KBLA_TRY(launch_add2<T>(s, sa(A21, one, A22), nullptr));
    KBLA_TRY(prod(S.view(), B11, T(0), M.p, M.ld));
    CombOut<T> o0{C21, ldc, beta, one, T(0)}, o1{C22, ldc, one, -one, T(0)};
    KBLA_TRY(launch_combine<T>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M1 = (A11 + A22)(B11 + B22): C11 += M1, C22 += M1
  {
    AddJob<T> j1 = tb(B11, one, B22);
    KBLA_TRY(launch_add2<T>(s, sa(A11, one, A22), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), T(0), M.p, M.ld));
    CombOut<T> o0{C11, ldc, one, one, T(0)}, o1{C22, ldc, one, one, T(0)};
    KBLA_TRY(launch_combine<T>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M4 = A22 (B21 - B11): C11 += M4, C21 += M4
  {
    KBLA_TRY(launch_add2<T>(s, tb(B21, -one, B11), nullptr));
    KBLA_TRY(prod(A22, Tb.view(), T(0), M.p, M.ld));
    CombOut<T> o0{C11, ldc, one, one, T(0)}, o1{C21, ldc, one, one, T(0)};
    KBLA_TRY(launch_combine<T>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M5 = (A11 + A12) B22: C11 -= M5, C12 += M5
  {
    KBLA_TRY(launch_add2<T>(s, sa(A11, one, A12), nullptr));
    KBLA_TRY(prod(S.view(), B22, T(0), M.p, M.ld));
    CombOut<T> o0{C11, ldc, one, -one, T(0)}, o1{C12, ldc, one, one, T(0)};
    KBLA_TRY(launch_combine<T>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  return cudaSuccess;
}

// One level of Winograd's variant on the even part. With P_i = alpha * M_i:
//   S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2
//   T1 = B12 - B11, T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21
//   M1 = S2 T2, M2 = A11 B11, M3 = A12 B21, M4 = S3 T3, M5 = S1 T1, M6 = S4 B22, M7 = A22 T4
//   U1 = M1 + M2, U2 = U1 + M4
//   C11 = M2 + M3, C12 = U1 + M5 + M6, C21 = U2 - M7, C22 = U2 + M5
// Schedule (X accumulates P2 -> U1 -> U2, Y holds P5; C quadrants accumulate with beta folded once):
//   X = P2; C11 = beta C11 + X; C11 += P3 | S1,T1; Y = P5 | S2,T2; X += P1 (= U1)
//   C12 = beta C12 + X + Y, C22 = beta C22 + Y | S4,T4; C12 += P6; C21 = beta C21 - P7
//   S3,T3; X += P4 (= U2); C21 += X, C22 += X
// 8 operand sums in 4 launches, 3 combine launches, 7 products.
template <class T>
cudaError_t winograd_level(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A, View<T> B,
                           T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S = carve<T>(ws, mh, kh, A.t), Tb = carve<T>(ws, kh, nh, B.t);
  Buf<T> X = carve<T>(ws, mh, nh, false), Y = carve<T>(ws, mh, nh, false);
  const View<T> A11 = A, A12 = sub(A, 0, kh), A21 = sub(A, mh, 0), A22 = sub(A, mh, kh);
  const View<T> B11 = B, B12 = sub(B, 0, nh), B21 = sub(B, kh, 0), B22 = sub(B, kh, nh);
  T* C11 = C;
  T* C12 = C + nh * ldc;
  T* C21 = C + mh;
  T* C22 = C + mh + nh * ldc;
  const T one = T(1), zero = T(0);
  auto sa = [&](View<T> x, T d, View<T> y) { return job(S, mh, kh, x, d, y); };
  auto tb = [&](View<T> x, T d, View<T> y) { return job(Tb, kh, nh, x, d, y); };
  auto prod = [&](T al, View<T> a, View<T> b, T bet, T* c, i64 ld) {
    return rec<T>(cx, levels - 1, mh, nh, kh, al, a, b, bet, c, ld, ws);
  };
  const View<T> Sv = S.view(), Tv = Tb.view();
  // X = P2 = alpha A11 B11; C11 = beta C11 + X; C11 += P3
  KBLA_TRY(prod(alpha, A11, B11, zero, X.p, X.ld));
  {
    CombOut<T> o0{C11, ldc, beta, one, zero};
    KBLA_TRY(launch_combine<T>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, nullptr));
  }
  KBLA_TRY(prod(alpha, A12, B21, one, C11, ldc));
  // S1 = A21 + A22, T1 = B12 - B11; Y = P5
  {
    AddJob<T> j1 = tb(B12, -one, B11);
    KBLA_TRY(launch_add2<T>(s, sa(A21, one, A22), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, zero, Y.p, Y.ld));
  // S2 = S1 - A11, T2 = B22 - T1; X += P1 (X = U1)
  {
    AddJob<T> j1 = tb(B22, -one, Tv);
    KBLA_TRY(launch_add2<T>(s, sa(Sv, -one, A11), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, one, X.p, X.ld));
  // C12 = beta C12 + U1 + P5, C22 = beta C22 + P5
  {
    CombOut<T> o0{C12, ldc, beta, one, one}, o1{C22, ldc, beta, zero, one};
    KBLA_TRY(launch_combine<T>(s, mh, nh, X.p, X.ld, Y.p, Y.ld, o0, &o1));
  }
  // S4 = A12 - S2, T4 = T2 - B21; C12 += P6 = alpha S4 B22; C21 = beta C21 - P7 (P7 = alpha A22 T4)
  {
    AddJob<T> j1 = tb(Tv, -one, B21);
    KBLA_TRY(launch_add2<T>(s, sa(A12, -one, Sv), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, B22, one, C12, ldc));
  KBLA_TRY(prod(-alpha, A22, Tv, beta, C21, ldc));
  // S3 = A11 - A21, T3 = B22 - B12; X += P4 (X = U2); C21 += U2, C22 += U2
  {
    AddJob<T> j1 = tb(B22, -one, B12);
    KBLA_TRY(launch_add2<T>(s, sa(A11, -one, A21), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, one, X.p, X.ld));
  {
    CombOut<T> o0{C21, ldc, one, one, zero}, o1{C22, ldc, one, one, zero};
    KBLA_TRY(launch_combine<T>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, &o1));
  }
  return cudaSuccess;
}

template <class T>
cudaError_t rec(const Ctx<T>& cx, int levels, i64 m, i64 n, i64 k, T alpha, View<T> A, View<T> B, T beta, T* C,
                i64 ldc, char* ws) {
  if (m == 0 || n == 0) return cudaSuccess;
  if (k == 0 || alpha == T(0)) return launch_scale<T>(cx.s, m, n, beta, C, ldc);
  if (!splits<T>(cx.plan, levels, m, n, k)) return gemm_by<T>(cx, cx.plan.leaf, m, n, k, alpha, A, B, beta, C, ldc);
  const i64 mh = m / 2, nh = n / 2, kh = k / 2;
  if (cx.plan.algo == StrassenAlgorithm::winograd)
    KBLA_TRY(winograd_level<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else
    KBLA_TRY(conventional_level<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  const Leaf thin = cx.plan.thin;
  if (k & 1)  // rank-1 update of the even part by the last k-slice
    KBLA_TRY(gemm_by<T>(cx, thin, 2 * mh, 2 * nh, 1, alpha, sub(A, 0, k - 1), sub(B, k - 1, 0), T(1), C, ldc));
  if (m & 1)  // last row of C, all n columns
    KBLA_TRY(gemm_by<T>(cx, thin, 1, n, k, alpha, sub(A, m - 1, 0), B, beta, C + (m - 1), ldc));
  if (n & 1)  // last column of C, the even rows
    KBLA_TRY(gemm_by<T>(cx, thin, 2 * mh, 1, k, alpha, A, sub(B, 0, n - 1), beta, C + (n - 1) * ldc, ldc));
  return cudaSuccess;
}

bool valid_op(char t) { return t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c'; }
bool is_trans(char t) { return !(t == 'N' || t == 'n'); }

}  // namespace

// -------------------------------------------------------------------------------------------------------------
template <class T>
std::size_t strassen_workspace_bytes(const StrassenConfig& config, std::int64_t m, std::int64_t n, std::int64_t k) {
  Plan p;
  if (!make_plan<T>(config, &p) || m < 0 || n < 0 || k < 0) return 0;
  if (p.algo == StrassenAlgorithm::fused) return 0;
  return plan_bytes<T>(p, p.levels, m, n, k);
}

template <class T>
cudaError_t strassen_gemm(cudaStream_t stream, const StrassenConfig& config, char transA, char transB,
                          std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A, std::int64_t lda,
                          const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc, void* workspace,
                          std::size_t workspace_bytes) {
  Plan p;
  if (!make_plan<T>(config, &p)) return cudaErrorInvalidValue;
  if (!valid_op(transA) || !valid_op(transB) || m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  const bool ta = is_trans(transA), tb = is_trans(transB);
  if (lda < std::max<i64>(1, ta ? k : m) || ldb < std::max<i64>(1, tb ? n : k) || ldc < std::max<i64>(1, m))
    return cudaErrorInvalidValue;
  if (p.algo == StrassenAlgorithm::fused)
    return strassen_fused<T>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  const std::size_t need = plan_bytes<T>(p, p.levels, m, n, k);
  if (workspace_bytes < need || (need > 0 && workspace == nullptr)) return cudaErrorInvalidValue;
  if (need > 0 && reinterpret_cast<std::uintptr_t>(workspace) % sizeof(T) != 0) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  Ctx<T> cx{stream, p};
  return rec<T>(cx, p.levels, m, n, k, alpha, View<T>{A, lda, ta}, View<T>{B, ldb, tb}, beta, C, ldc,
                static_cast<char*>(workspace));
}

#define KBLA_INST(T)                                                                                             \
  template std::size_t strassen_workspace_bytes<T>(const StrassenConfig&, std::int64_t, std::int64_t,           \
                                                   std::int64_t);                                               \
  template cudaError_t strassen_gemm<T>(cudaStream_t, const StrassenConfig&, char, char, std::int64_t,          \
                                        std::int64_t, std::int64_t, T, const T*, std::int64_t, const T*,        \
                                        std::int64_t, T, T*, std::int64_t, void*, std::size_t);
KBLA_INST(float)
KBLA_INST(double)
#undef KBLA_INST

}  // namespace cuda
}  // namespace kbla
