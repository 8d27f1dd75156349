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
//     batched (default):
//       conventional / hybrid: 5*mh*kh (S6 S7 S2 S1 S5) + 5*kh*nh (T6 T7 T3 T1 T4) + 5*mh*nh (P1..P5)
//       winograd:              4*mh*kh (S1..S4) + 4*kh*nh (T1..T4) + 2*mh*nh (X, Y)
//                              innermost level with leaf_streams > 1: + 4*mh*nh (P2, P1, P4, P5) instead of X, Y
//     low_memory (run-1 schedule):
//       conventional / hybrid: mh*kh (A-side sum) + kh*nh (B-side sum) + mh*nh (product M)
//       winograd:              mh*kh + kh*nh + 2*mh*nh (U accumulator X, product P5 in Y)
//   strassen_workspace_bytes walks the same plan as strassen_gemm, so the number is exact.
// * Concurrent leaves (StrassenConfig::leaf_streams > 1, batched schedule): the 7 products of the innermost level
//   run round robin on helper streams forked from / joined into the caller's stream by events (run_products);
//   outer levels, the operand sums, the combinations and the peeling fix-ups stay on the caller's stream. Helper
//   streams, their cuBLAS handles (one per stream) and the events are cached per (device, caller stream) in the
//   registry below, for the life of the process or until strassen_release_cached_resources.
// * cuBLAS leaves use the handle's default math mode (CUBLAS_DEFAULT_MATH: no TF32 for SGEMM, set explicitly
//   when the handle is created) and the 64-bit-integer API (cublas?gemm_64), so no int overflow of m*n or ld.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cublas_stream_handles.hpp"
#include "kbla_cuda_strassen.hpp"

namespace kbla {
namespace cuda {

// strassen_fused.cu: strassen_fused with a cap on its k slices (0: its own choice, 1: none).
template <class T>
cudaError_t strassen_fused_leaf(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                                std::int64_t k, T alpha, const T* A, std::int64_t lda, const T* B, std::int64_t ldb,
                                T beta, T* C, std::int64_t ldc, int simt_tile, int max_k_slices);

namespace {

using i64 = std::int64_t;

// ---------------------------------------------------------------------------------------------------------
// Cached CUDA / cuBLAS objects, one registry for the process (created on first use, never destroyed by a static
// destructor: the CUDA runtime may be gone by then; strassen_release_cached_resources frees them explicitly).
//  * the caller stream's cuBLAS handle comes from the shared per-(device, stream) cache of
//    cublas_stream_handles.hpp (bound once, math mode pinned to the default = no TF32);
//  * per (device, caller stream) the "lanes" of StrassenConfig::leaf_streams: helper streams, each with its own
//    cuBLAS handle bound to it once (a cuBLAS handle has one internal workspace; two streams running GEMMs from one
//    handle at the same time could share it and race), a join event per helper and one fork event. The key
//    includes the host thread when the caller passes cudaStreamPerThread (a different stream per thread). Events
//    are per caller stream, so two host threads working on two streams never touch each other's fork / join.
constexpr int kMaxLanes = 7;  // a Strassen level has 7 products

struct LeafLanes {
  int dev = -1;
  cudaStream_t caller = nullptr;
  std::thread::id thread{};  // set only for cudaStreamPerThread
  int n = 0;                 // helpers created so far (all of s, h, join valid for i < n)
  cudaStream_t s[kMaxLanes] = {};
  cublasHandle_t h[kMaxLanes] = {};
  cudaEvent_t join[kMaxLanes] = {};
  cudaEvent_t fork = nullptr;
};

struct Registry {
  std::mutex mtx;
  std::vector<std::unique_ptr<LeafLanes>> lanes;  // few entries (one per caller stream): linear search
};

Registry& registry() {
  static Registry* r = new Registry();  // intentionally leaked, see above
  return *r;
}

// The caller stream's own handle (shared cache, cublas_stream_handles.hpp): bound to that stream once, so
// concurrent callers on different streams never re-bind one handle.
cudaError_t strassen_cublas_handle(cudaStream_t stream, cublasHandle_t* out) {
  return cublas_handle_for_stream(stream, out);
}

// The lanes of `caller` on the current device with at least `want` helpers (want <= kMaxLanes).
cudaError_t leaf_lanes(cudaStream_t caller, int want, const LeafLanes** out) {
  int dev = -1;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  const std::thread::id tid = caller == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mtx);
  LeafLanes* L = nullptr;
  for (auto& p : r.lanes)
    if (p->dev == dev && p->caller == caller && p->thread == tid) L = p.get();
  if (!L) {
    r.lanes.push_back(std::make_unique<LeafLanes>());
    L = r.lanes.back().get();
    L->dev = dev, L->caller = caller, L->thread = tid;
  }
  if (!L->fork) {
    e = cudaEventCreateWithFlags(&L->fork, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      L->fork = nullptr;
      return e;
    }
  }
  int prio = 0;  // helpers get the caller's priority
  if (L->n < want && cudaStreamGetPriority(caller, &prio) != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave a stale error for the next launch check
    prio = 0;
  }
  while (L->n < want) {
    const int i = L->n;
    cudaStream_t s = nullptr;
    cudaEvent_t ev = nullptr;
    cublasHandle_t h = nullptr;
    e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cublas_create_bound_handle(s, &h);
    if (e != cudaSuccess) {  // undo the partial helper; the entry keeps its complete ones
      if (h) cublasDestroy(h);
      if (ev) cudaEventDestroy(ev);
      if (s) cudaStreamDestroy(s);
      (void)cudaGetLastError();
      return e;
    }
    L->s[i] = s, L->join[i] = ev, L->h[i] = h;
    L->n = i + 1;
  }
  *out = L;
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

// The four quadrants X11, X12, X21, X22 of a view split after row rh and column ch, and of column-major C.
template <class T>
std::array<View<T>, 4> quadrants(View<T> v, i64 rh, i64 ch) {
  return {v, sub(v, 0, ch), sub(v, rh, 0), sub(v, rh, ch)};
}
template <class T>
std::array<T*, 4> quadrants(T* c, i64 ldc, i64 mh, i64 nh) {
  return {c, c + nh * ldc, c + mh, c + mh + nh * ldc};
}

// ---------------------------------------------------------------------------------------------------------
// Elementwise passes. One kernel template runs every operand sum and every combination: NI input blocks and NO
// output blocks of the same storage shape rows x cols (column-major, each with its own ld), and a functor F that
// maps the NI values of one element to the NO results (F::operator()(const T* x, T* y)). A null input reads as 0
// and is never dereferenced (beta == 0: C is not read); a null output is not written. Inputs may alias outputs
// (in-place updates of C): each element is read and written by the same thread.
// Thread work: W consecutive rows of one column per step (W = 16 bytes / sizeof(T): one float4 / double2 load per
// input when every pointer is 16-byte aligned and every ld a multiple of W, else W = 1), columns grid-strided
// over blockIdx.y; about kTargetBlocks blocks per launch, so each thread handles several columns. Two jobs of the
// same NI / NO (e.g. the A-side and the B-side sums of one level) share one launch through blockIdx.z.
// Run 1 used one element per thread (a 256-thread block per 1 KiB of a column) and moved ~0.5 TB/s (FP32) /
// ~0.7 TB/s (FP64) on the H100, inferred from the gap between the measured times and 7 leaf products; these
// passes are memory-bound and should run near DRAM bandwidth.
constexpr int kThreads = 256;
constexpr unsigned kMaxGridY = 65535;
constexpr i64 kTargetBlocks = 4096;  // ~31 blocks per SM on 132 SMs: several waves, short tail

template <class T, int NI, int NO>
struct Ew {
  const T* in[NI];
  i64 ldi[NI];
  T* out[NO];
  i64 ldo[NO];
  i64 rows, cols;
};

template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

template <class T, int NI, int NO, int W, class F>
__device__ __forceinline__ void ew_body(const Ew<T, NI, NO>& a, const F& f) {
  const i64 r0 = (i64(blockIdx.x) * kThreads + threadIdx.x) * W;
  if (r0 >= a.rows) return;
  const bool full = r0 + W <= a.rows;
  using V = typename Vec16<T>::type;
  for (i64 c = blockIdx.y; c < a.cols; c += gridDim.y) {
    T x[NI][W];
#pragma unroll
    for (int i = 0; i < NI; ++i) {
      const T* p = a.in[i];
      if (p == nullptr) {
#pragma unroll
        for (int l = 0; l < W; ++l) x[i][l] = T(0);
      } else if (W > 1 && full) {
        const V v = *reinterpret_cast<const V*>(p + r0 + c * a.ldi[i]);
        const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
        for (int l = 0; l < W; ++l) x[i][l] = e[l];
      } else {
#pragma unroll
        for (int l = 0; l < W; ++l) x[i][l] = (r0 + l < a.rows) ? p[r0 + l + c * a.ldi[i]] : T(0);
      }
    }
    T y[NO][W];
#pragma unroll
    for (int l = 0; l < W; ++l) {
      T xi[NI], yo[NO];
#pragma unroll
      for (int i = 0; i < NI; ++i) xi[i] = x[i][l];
      f(xi, yo);
#pragma unroll
      for (int o = 0; o < NO; ++o) y[o][l] = yo[o];
    }
#pragma unroll
    for (int o = 0; o < NO; ++o) {
      T* q = a.out[o];
      if (q == nullptr) continue;
      if (W > 1 && full) {
        V v;
        T* e = reinterpret_cast<T*>(&v);
#pragma unroll
        for (int l = 0; l < W; ++l) e[l] = y[o][l];
        *reinterpret_cast<V*>(q + r0 + c * a.ldo[o]) = v;
      } else {
#pragma unroll
        for (int l = 0; l < W; ++l)
          if (r0 + l < a.rows) q[r0 + l + c * a.ldo[o]] = y[o][l];
      }
    }
  }
}

template <class T, int NI, int NO, int W, class F0, class F1>
__global__ void __launch_bounds__(kThreads) ew_kernel(Ew<T, NI, NO> a0, F0 f0, Ew<T, NI, NO> a1, F1 f1) {
  if (blockIdx.z == 0)
    ew_body<T, NI, NO, W>(a0, f0);
  else
    ew_body<T, NI, NO, W>(a1, f1);
}

template <class T, int NI, int NO>
bool ew_vectorizable(const Ew<T, NI, NO>& a) {
  constexpr int W = 16 / sizeof(T);
  for (int i = 0; i < NI; ++i)
    if (a.in[i] != nullptr && (reinterpret_cast<std::uintptr_t>(a.in[i]) % 16 != 0 || a.ldi[i] % W != 0))
      return false;
  for (int o = 0; o < NO; ++o)
    if (a.out[o] != nullptr && (reinterpret_cast<std::uintptr_t>(a.out[o]) % 16 != 0 || a.ldo[o] % W != 0))
      return false;
  return true;
}

// One launch for job j0 (and j1 when given; it may have another shape). Empty jobs launch nothing.
template <class T, int NI, int NO, class F0, class F1>
cudaError_t launch_ew(cudaStream_t s, const Ew<T, NI, NO>& j0, const F0& f0, const Ew<T, NI, NO>* j1, const F1& f1) {
  const bool e0 = j0.rows > 0 && j0.cols > 0, e1 = j1 != nullptr && j1->rows > 0 && j1->cols > 0;
  if (!e0 && !e1) return cudaSuccess;
  if (!e0) return launch_ew<T, NI, NO, F1, F1>(s, *j1, f1, nullptr, f1);  // only the second job
  Ew<T, NI, NO> a0 = j0, a1 = e1 ? *j1 : j0;
  if (!e1) a1.rows = 0;  // slice z = 1 is not launched
  constexpr int WV = 16 / sizeof(T);
  const bool vec = ew_vectorizable(a0) && (!e1 || ew_vectorizable(a1));
  const int W = vec ? WV : 1;
  const i64 rows = std::max(a0.rows, a1.rows), cols = std::max(a0.cols, e1 ? a1.cols : 0);
  const i64 bx = ((rows + W - 1) / W + kThreads - 1) / kThreads;
  const i64 by = std::min<i64>(std::min<i64>(cols, kMaxGridY), std::max<i64>(1, kTargetBlocks / bx));
  const dim3 grid(unsigned(bx), unsigned(by), e1 ? 2u : 1u);
  if (vec)
    ew_kernel<T, NI, NO, WV><<<grid, kThreads, 0, s>>>(a0, f0, a1, f1);
  else
    ew_kernel<T, NI, NO, 1><<<grid, kThreads, 0, s>>>(a0, f0, a1, f1);
  return cudaGetLastError();
}

template <class T, int NI, int NO, class F>
cudaError_t launch_ew(cudaStream_t s, const Ew<T, NI, NO>& a0, const F& f0) {
  return launch_ew<T, NI, NO, F, F>(s, a0, f0, nullptr, f0);
}

// --- functors (the arithmetic of run 1, term for term, so the rounding is unchanged) ---
template <class T>
struct AddF {  // out = x + d * y
  T d;
  __device__ void operator()(const T* x, T* y) const { y[0] = x[0] + d * x[1]; }
};

template <class T>
struct CombF {  // inputs X, Y, old0, old1; out_o = (beta_o != 0 ? beta_o * old_o : 0) + cx_o X + cy_o Y
  T beta0, cx0, cy0, beta1, cx1, cy1;
  __device__ void operator()(const T* x, T* y) const {
    {
      T v = (cx0 != T(0)) ? cx0 * x[0] : T(0);
      if (cy0 != T(0)) v += cy0 * x[1];
      y[0] = (beta0 != T(0)) ? beta0 * x[2] + v : v;
    }
    {
      T v = (cx1 != T(0)) ? cx1 * x[0] : T(0);
      if (cy1 != T(0)) v += cy1 * x[1];
      y[1] = (beta1 != T(0)) ? beta1 * x[3] + v : v;
    }
  }
};

template <class T>
struct ScaleF {  // out = beta != 0 ? beta * old : 0 (old is null when beta == 0)
  T beta;
  __device__ void operator()(const T* x, T* y) const { y[0] = (beta != T(0)) ? beta * x[0] : T(0); }
};

// Conventional level, all operand sums at once from the four quadrants (x = X11, X12, X21, X22):
//   A side: S6 = A21 - A11, S7 = A12 - A22, S2 = A21 + A22, S1 = A11 + A22, S5 = A11 + A12
//   B side: T6 = B11 + B12, T7 = B21 + B22, T3 = B12 - B22, T1 = B11 + B22, T4 = B21 - B11
template <class T>
struct ConvSumsA {
  __device__ void operator()(const T* x, T* y) const {
    y[0] = x[2] + T(-1) * x[0];
    y[1] = x[1] + T(-1) * x[3];
    y[2] = x[2] + T(1) * x[3];
    y[3] = x[0] + T(1) * x[3];
    y[4] = x[0] + T(1) * x[1];
  }
};
template <class T>
struct ConvSumsB {
  __device__ void operator()(const T* x, T* y) const {
    y[0] = x[0] + T(1) * x[1];
    y[1] = x[2] + T(1) * x[3];
    y[2] = x[1] + T(-1) * x[3];
    y[3] = x[0] + T(1) * x[3];
    y[4] = x[2] + T(-1) * x[0];
  }
};

// Conventional level, all combinations in one pass. Inputs P1..P5 (alpha M_i), C11 (= alpha M7 + beta C11),
// C12 (old, null when beta == 0), C21 (old, likewise), C22 (= alpha M6 + beta C22). Same order of additions as the
// product-by-product schedule (M3, M2, M1, M4, M5):
//   C11 = ((C11 + P1) + P4) - P5        C12 = (beta C12 + P3) + P5
//   C21 = (beta C21 + P2) + P4          C22 = ((C22 + P3) - P2) + P1
template <class T>
struct ConvCombine {
  T beta;
  __device__ void operator()(const T* x, T* y) const {
    const T p1 = x[0], p2 = x[1], p3 = x[2], p4 = x[3], p5 = x[4];
    T c11 = x[5], c22 = x[8];
    T c12 = (beta != T(0)) ? beta * x[6] + p3 : p3;
    T c21 = (beta != T(0)) ? beta * x[7] + p2 : p2;
    c22 = c22 + p3;
    c22 = c22 + (-p2);
    c11 = c11 + p1;
    c22 = c22 + p1;
    c11 = c11 + p4;
    c21 = c21 + p4;
    c11 = c11 + (-p5);
    c12 = c12 + p5;
    y[0] = c11, y[1] = c12, y[2] = c21, y[3] = c22;
  }
};

// Winograd level, all operand sums at once (x = X11, X12, X21, X22):
//   S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2
//   T1 = B12 - B11, T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21
template <class T>
struct WinoSumsA {
  __device__ void operator()(const T* x, T* y) const {
    const T s1 = x[2] + T(1) * x[3];
    const T s2 = s1 + T(-1) * x[0];
    y[0] = s1;
    y[1] = s2;
    y[2] = x[0] + T(-1) * x[2];
    y[3] = x[1] + T(-1) * s2;
  }
};
template <class T>
struct WinoSumsB {
  __device__ void operator()(const T* x, T* y) const {
    const T t1 = x[1] + T(-1) * x[0];
    const T t2 = x[3] + T(-1) * t1;
    y[0] = t1;
    y[1] = t2;
    y[2] = x[3] + T(-1) * x[1];
    y[3] = t2 + T(-1) * x[2];
  }
};

// --- run-1 style launchers over the new kernel ---
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
Ew<T, 2, 1> ew_of(const AddJob<T>& j) {
  Ew<T, 2, 1> e;
  e.in[0] = j.x, e.ldi[0] = j.ldx, e.in[1] = j.y, e.ldi[1] = j.ldy;
  e.out[0] = j.out, e.ldo[0] = j.ldo;
  e.rows = j.rows, e.cols = j.cols;
  return e;
}

template <class T>
cudaError_t launch_add2(cudaStream_t s, const AddJob<T>& a, const AddJob<T>* b) {
  const Ew<T, 2, 1> e0 = ew_of(a);
  if (!b) return launch_ew<T, 2, 1>(s, e0, AddF<T>{a.d});
  const Ew<T, 2, 1> e1 = ew_of(*b);
  return launch_ew<T, 2, 1>(s, e0, AddF<T>{a.d}, &e1, AddF<T>{b->d});
}

template <class T>
struct CombOut {  // p = (beta != 0 ? beta * p : 0) + cx * X + cy * Y   (Y only read when cy != 0)
  T* p;
  i64 ld;
  T beta, cx, cy;
};

template <class T>
cudaError_t launch_combine(cudaStream_t s, i64 rows, i64 cols, const T* X, i64 ldx, const T* Y, i64 ldy,
                           CombOut<T> o0, const CombOut<T>* o1) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const bool two = o1 != nullptr;
  const CombOut<T> q1 = two ? *o1 : CombOut<T>{nullptr, 1, T(0), T(0), T(0)};
  const bool needY = Y != nullptr && (o0.cy != T(0) || (two && q1.cy != T(0)));
  Ew<T, 4, 2> e;
  e.in[0] = X, e.ldi[0] = ldx;
  e.in[1] = needY ? Y : nullptr, e.ldi[1] = needY ? ldy : 1;
  e.in[2] = (o0.beta != T(0)) ? o0.p : nullptr, e.ldi[2] = o0.ld;
  e.in[3] = (two && q1.beta != T(0)) ? q1.p : nullptr, e.ldi[3] = q1.ld;
  e.out[0] = o0.p, e.ldo[0] = o0.ld;
  e.out[1] = two ? q1.p : nullptr, e.ldo[1] = q1.ld;
  e.rows = rows, e.cols = cols;
  return launch_ew<T, 4, 2>(s, e, CombF<T>{o0.beta, o0.cx, o0.cy, q1.beta, q1.cx, q1.cy});
}

template <class T>
cudaError_t launch_scale(cudaStream_t s, i64 rows, i64 cols, T beta, T* C, i64 ldc) {
  if (rows == 0 || cols == 0 || beta == T(1)) return cudaSuccess;
  Ew<T, 1, 1> e;
  e.in[0] = (beta != T(0)) ? C : nullptr, e.ldi[0] = ldc;
  e.out[0] = C, e.ldo[0] = ldc;
  e.rows = rows, e.cols = cols;
  return launch_ew<T, 1, 1>(s, e, ScaleF<T>{beta});
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
  bool low_memory; // run-1 schedule: one operand-sum pair and one product buffer per level
  int lanes;       // helper streams for the products of the innermost level (0 = serial), <= kMaxLanes
  int simt_tile;   // StrassenConfig::simt_tile, passed to simt_gemm / strassen_fused
};

constexpr std::size_t kAlign = 256;
inline std::size_t round_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

template <class T>
i64 default_tau() {
  // Crossover of one Strassen level over cuBLAS on H100/H200 (anchor strassen-reference-h200-2026-11-22.json,
  // H100 run 1): FP32 SGEMM (no TF32) runs at 48.9 / 51.0 / 50.9 TFLOP/s at 2048 / 4096 / 8192, so one level
  // pays from leaves >= 3072 on (split at n >= 6144). FP64 (DMMA) runs at 55.8 / 59.2 / 56.3: the 4096 leaves
  // are faster than the 8192 product, and with the batched additions (run 2: 29 quarter-blocks of traffic, ~1.4
  // ms at 8192) one level is predicted to gain ~10 % at 8192, so FP64 now splits at n >= 8192 like the
  // conventional path (run 1's 12288 came from the H200 naive version's break-even at 8192).
  return sizeof(T) == 4 ? 6144 : 8192;
}

template <class T>
bool splits(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  if (levels <= 0) return false;
  const i64 mn = std::min(m, std::min(n, k));
  if (mn < 2) return false;
  if (p.algo == StrassenAlgorithm::winograd && mn < p.tau) return false;
  return true;
}

// Whether the level whose products have levels_below levels left and shape mh x nh x kh runs its 7 products on the
// helper streams: only the innermost level (its products are leaf GEMMs and use no workspace, so concurrent
// products cannot collide in a shared inner workspace) and only in the batched schedule (low_memory reuses one
// product buffer for all 7). Why not the outer levels: their 7 products are whole inner levels that carve the same
// workspace tail; running them concurrently would need a private inner workspace per lane (e.g. +4 x 2 GB for
// FP64 16384, 2 levels) and would mostly overlap additions with GEMMs, a different trade than filling wave tails.
template <class T>
bool concurrent_level(const Plan& p, int levels_below, i64 mh, i64 nh, i64 kh);

template <class T>
std::size_t level_bytes(const Plan& p, i64 mh, i64 nh, i64 kh, bool concurrent) {
  const std::size_t s = sizeof(T);
  const std::size_t a = round_up(std::size_t(mh * kh) * s), b = round_up(std::size_t(kh * nh) * s),
                    c = round_up(std::size_t(mh * nh) * s);
  if (p.low_memory) return p.algo == StrassenAlgorithm::winograd ? a + b + 2 * c : a + b + c;
  // batched: every operand sum of the level at once, products that feed two quadrants kept until one combine pass;
  // Winograd's concurrent level keeps P2, P1, P4, P5 apart (4 buffers instead of the accumulators X, Y)
  if (p.algo == StrassenAlgorithm::winograd) return 4 * a + 4 * b + (concurrent ? 4 : 2) * c;
  return 5 * a + 5 * b + 5 * c;
}

template <class T>
std::size_t plan_bytes(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  std::size_t total = 0;
  while (splits<T>(p, levels, m, n, k)) {
    m /= 2;
    n /= 2;
    k /= 2;
    --levels;  // now the levels left to the products of this level
    total += level_bytes<T>(p, m, n, k, concurrent_level<T>(p, levels, m, n, k));
  }
  return total;
}

template <class T>
bool concurrent_level(const Plan& p, int levels_below, i64 mh, i64 nh, i64 kh) {
  return p.lanes > 1 && !p.low_memory && !splits<T>(p, levels_below, mh, nh, kh);
}

template <class T>
bool make_plan(const StrassenConfig& c, Plan* p) {
  p->tau = c.tau > 0 ? c.tau : default_tau<T>();
  p->thin = c.cublas_leaves ? Leaf::blas : Leaf::simt;
  p->simt_tile = c.simt_tile;
  p->leaf = p->thin;
  p->low_memory = c.low_memory;
  p->lanes = (c.leaf_streams > 1 && !c.low_memory) ? std::min(c.leaf_streams, kMaxLanes) : 0;
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
  cublasHandle_t blas = nullptr;      // set on a helper lane (handle bound to s); null: per-device handle
  const LeafLanes* lanes = nullptr;   // the caller stream's helpers when plan.lanes > 1
};

template <class T>
cudaError_t gemm_by(const Ctx<T>& cx, Leaf how, i64 m, i64 n, i64 k, T alpha, View<T> A, View<T> B, T beta, T* C,
                    i64 ldc) {
  if (m == 0 || n == 0) return cudaSuccess;
  const char ta = A.t ? 'T' : 'N', tb = B.t ? 'T' : 'N';
  switch (how) {
    case Leaf::fused:
      // On a helper lane (cx.blas set) other leaves run beside this one: no k slices (sliced concurrent 1024
      // leaves made the 2048 hybrid 14 % slower, H100).
      return strassen_fused_leaf<T>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc,
                                    cx.plan.simt_tile, cx.blas != nullptr ? 1 : 0);
    case Leaf::simt:
      return simt_gemm<T>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc, cx.plan.simt_tile);
    case Leaf::blas:
    default: {
      if (k == 0) return launch_scale<T>(cx.s, m, n, beta, C, ldc);
      cublasHandle_t h = cx.blas;
      if (h == nullptr) {
        const cudaError_t e = strassen_cublas_handle(cx.s, &h);
        if (e != cudaSuccess) return e;
      }
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

// One product of a level: c (mh x nh, ld) = al * a b + bet * c, by rec(levels - 1).
template <class T>
struct Prod {
  T al;
  View<T> a, b;
  T bet;
  T* c;
  i64 ld;
};

// The products of one level, in list order. Serial (concurrent == false): one after another on cx.s, each free to
// recurse with the workspace tail ws (exactly the old code path). Concurrent: fork = an event recorded on cx.s that
// every used helper stream waits for (so the products see the operand sums launched before on cx.s); product i runs
// on helper i % used with that helper's cuBLAS handle; join = an event recorded on every used helper that cx.s waits
// for (so the combination launched next on cx.s, and everything later on cx.s, sees all results). No host sync.
// The join is issued even when a launch failed, so cx.s never runs ahead of work still queued on a helper.
// The caller guarantees: the products do not recurse (concurrent_level), no two of them write the same memory and
// none writes what another one reads.
template <class T>
cudaError_t run_products(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, const Prod<T>* P, int np,
                         bool concurrent, char* ws) {
  if (!concurrent || cx.lanes == nullptr || cx.lanes->n < 2) {
    for (int i = 0; i < np; ++i)
      KBLA_TRY(rec<T>(cx, levels - 1, mh, nh, kh, P[i].al, P[i].a, P[i].b, P[i].bet, P[i].c, P[i].ld, ws));
    return cudaSuccess;
  }
  const LeafLanes& L = *cx.lanes;
  const int used = std::min(std::min(L.n, cx.plan.lanes), np);
  KBLA_TRY(cudaEventRecord(L.fork, cx.s));
  for (int l = 0; l < used; ++l) KBLA_TRY(cudaStreamWaitEvent(L.s[l], L.fork, 0));
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < np && err == cudaSuccess; ++i) {
    const int l = i % used;
    const Ctx<T> lane{L.s[l], cx.plan, L.h[l], nullptr};
    err = rec<T>(lane, levels - 1, mh, nh, kh, P[i].al, P[i].a, P[i].b, P[i].bet, P[i].c, P[i].ld, ws);
  }
  for (int l = 0; l < used; ++l) {
    cudaError_t e = cudaEventRecord(L.join[l], L.s[l]);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(cx.s, L.join[l], 0);
    if (err == cudaSuccess) err = e;
  }
  return err;
}

// One conventional Strassen level on the even part (2mh x 2nh x 2kh); products by rec(levels - 1).
template <class T>
cudaError_t conventional_level(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A,
                               View<T> B, T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S = carve<T>(ws, mh, kh, A.t), Tb = carve<T>(ws, kh, nh, B.t), M = carve<T>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
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

// Storage-shape job over the four quadrants of a view (inputs) and NO workspace buffers of its layout (outputs).
template <class T, int NO>
Ew<T, 4, NO> quad_job(View<T> q11, View<T> q12, View<T> q21, View<T> q22, const Buf<T>* outs, i64 r, i64 c) {
  Ew<T, 4, NO> e;
  const View<T> q[4] = {q11, q12, q21, q22};
  for (int i = 0; i < 4; ++i) e.in[i] = q[i].p, e.ldi[i] = q[i].ld;
  for (int o = 0; o < NO; ++o) e.out[o] = outs[o].p, e.ldo[o] = outs[o].ld;
  e.rows = outs[0].t ? c : r;
  e.cols = outs[0].t ? r : c;
  return e;
}

// One conventional Strassen level, batched (default): one launch forms all 10 operand sums (each quadrant of A
// and B read once), the 7 products follow (M6 -> C22 and M7 -> C11 with beta folded, M1..M5 -> P1..P5), one
// launch adds P1..P5 into the four quadrants. Traffic in quarter blocks (mh x nh etc.): 9 + 9 for the sums,
// 11 (beta == 0: 5 P + C11 + C22 read, 4 written; +2 reads otherwise) for the combination = 29, against 53
// for the product-by-product schedule. Additions in the same order as that schedule (same rounding).
template <class T>
cudaError_t conventional_level_batched(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A,
                                       View<T> B, T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S[5], Tb[5], P[5];
  for (auto& b : S) b = carve<T>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<T>(ws, kh, nh, B.t);
  for (auto& b : P) b = carve<T>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  {
    const Ew<T, 4, 5> ja = quad_job<T, 5>(A11, A12, A21, A22, S, mh, kh);
    const Ew<T, 4, 5> jb = quad_job<T, 5>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<T, 4, 5>(s, ja, ConvSumsA<T>{}, &jb, ConvSumsB<T>{})));
  }
  // S = {S6, S7, S2, S1, S5}, Tb = {T6, T7, T3, T1, T4}. Concurrent at the innermost level (run_products):
  // hazards checked: the 7 outputs are disjoint (C22 and C11 are disjoint quadrants of C, P1..P5 are separate
  // 256-byte-rounded workspace buffers); M6 / M7 read the old C22 / C11 (beta folded) and only their own output;
  // every input (A and B quadrants, S*, T*) is only read in this phase and was written by the sums launch before
  // the fork; the combination (reads P1..P5 and C, writes C) and the peeling fix-ups run on cx.s after the join.
  const T zero = T(0);
  const Prod<T> prods[7] = {
      {alpha, S[0].view(), Tb[0].view(), beta, C22, ldc},     // M6 = (A21 - A11)(B11 + B12)
      {alpha, S[1].view(), Tb[1].view(), beta, C11, ldc},     // M7 = (A12 - A22)(B21 + B22)
      {alpha, A11, Tb[2].view(), zero, P[2].p, P[2].ld},      // M3 = A11 (B12 - B22)
      {alpha, S[2].view(), B11, zero, P[1].p, P[1].ld},       // M2 = (A21 + A22) B11
      {alpha, S[3].view(), Tb[3].view(), zero, P[0].p, P[0].ld},  // M1 = (A11 + A22)(B11 + B22)
      {alpha, A22, Tb[4].view(), zero, P[3].p, P[3].ld},      // M4 = A22 (B21 - B11)
      {alpha, S[4].view(), B22, zero, P[4].p, P[4].ld},       // M5 = (A11 + A12) B22
  };
  KBLA_TRY(run_products<T>(cx, levels, mh, nh, kh, prods, 7, concurrent_level<T>(cx.plan, levels - 1, mh, nh, kh),
                           ws));
  Ew<T, 9, 4> e;
  for (int i = 0; i < 5; ++i) e.in[i] = P[i].p, e.ldi[i] = P[i].ld;
  e.in[5] = C11, e.in[6] = (beta != T(0)) ? C12 : nullptr, e.in[7] = (beta != T(0)) ? C21 : nullptr, e.in[8] = C22;
  for (int i = 5; i < 9; ++i) e.ldi[i] = ldc;
  e.out[0] = C11, e.out[1] = C12, e.out[2] = C21, e.out[3] = C22;
  for (int o = 0; o < 4; ++o) e.ldo[o] = ldc;
  e.rows = mh, e.cols = nh;
  return launch_ew<T, 9, 4>(s, e, ConvCombine<T>{beta});
}

// Winograd level, batched (default): one launch forms S1..S4 and T1..T4 (each quadrant read once: 8 + 8
// quarter blocks of traffic instead of 12 + 12), then the run-1 schedule of products and combinations below.
template <class T>
cudaError_t winograd_level_batched(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A,
                                   View<T> B, T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S[4], Tb[4];
  for (auto& b : S) b = carve<T>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<T>(ws, kh, nh, B.t);
  Buf<T> X = carve<T>(ws, mh, nh, false), Y = carve<T>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const T one = T(1), zero = T(0);
  auto prod = [&](T al, View<T> a, View<T> b, T bet, T* c, i64 ld) {
    return rec<T>(cx, levels - 1, mh, nh, kh, al, a, b, bet, c, ld, ws);
  };
  {
    const Ew<T, 4, 4> ja = quad_job<T, 4>(A11, A12, A21, A22, S, mh, kh);
    const Ew<T, 4, 4> jb = quad_job<T, 4>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<T, 4, 4>(s, ja, WinoSumsA<T>{}, &jb, WinoSumsB<T>{})));
  }
  // X = P2; C11 = beta C11 + X; C11 += P3
  KBLA_TRY(prod(alpha, A11, B11, zero, X.p, X.ld));
  {
    CombOut<T> o0{C11, ldc, beta, one, zero};
    KBLA_TRY(launch_combine<T>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, nullptr));
  }
  KBLA_TRY(prod(alpha, A12, B21, one, C11, ldc));
  KBLA_TRY(prod(alpha, S[0].view(), Tb[0].view(), zero, Y.p, Y.ld));  // Y = P5 = alpha S1 T1
  KBLA_TRY(prod(alpha, S[1].view(), Tb[1].view(), one, X.p, X.ld));   // X += P1 = alpha S2 T2 (U1)
  {
    CombOut<T> o0{C12, ldc, beta, one, one}, o1{C22, ldc, beta, zero, one};
    KBLA_TRY(launch_combine<T>(s, mh, nh, X.p, X.ld, Y.p, Y.ld, o0, &o1));
  }
  KBLA_TRY(prod(alpha, S[3].view(), B22, one, C12, ldc));     // C12 += P6 = alpha S4 B22
  KBLA_TRY(prod(-alpha, A22, Tb[3].view(), beta, C21, ldc));  // C21 = beta C21 - P7 (P7 = alpha A22 T4)
  KBLA_TRY(prod(alpha, S[2].view(), Tb[2].view(), one, X.p, X.ld));   // X += P4 = alpha S3 T3 (U2)
  CombOut<T> o0{C21, ldc, one, one, zero}, o1{C22, ldc, one, one, zero};
  return launch_combine<T>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, &o1);
}

// Winograd level, concurrent products (the innermost level when StrassenConfig::leaf_streams > 1). The batched
// schedule above chains products through the accumulators X, Y and C with beta = 1 (X = P2 -> U1 -> U2), so its
// products depend on each other; here every product gets its own target and one pass combines them:
//   P2 -> Q0, P1 -> Q1, P4 -> Q2, P5 -> Q3 (beta 0), C11 = beta C11 + P3, C12 = beta C12 + P6,
//   C21 = beta C21 - P7 (beta folded into the three GEMMs, which do not read C when beta == 0), then
//   U1 = P2 + P1, U2 = U1 + P4; C11 += P2; C12 = (C12 + U1) + P5; C21 += U2; C22 = (beta C22 + P5) + U2.
// Same products and the same U1 / U2 as the batched schedule; the quadrant sums are added in another order
// (e.g. C12 gets P6 first), so results may differ in the last bits, with the same error bound. Workspace
// 4 mh kh + 4 kh nh + 4 mh nh (2 mh nh more than batched). Traffic of the combination in quarter blocks: 4 Q +
// C11, C12, C21 (+ C22 when beta != 0) read, 4 written = 11 (12), against 3 combine launches of 2-3, 4-6 and 5
// blocks plus 4 GEMM epilogues reading their accumulator in the batched schedule.
// Hazards: the 7 outputs (Q0..Q3, C11, C12, C21) are disjoint; no product reads another's output (inputs: A, B
// quadrants, S1..S4, T1..T4, written by the sums launch before the fork); C22 is touched only by the combination.
template <class T>
struct WinoCombine {  // x = P2, P1, P4, P5, C11 (beta C11 + P3), C12 (beta C12 + P6), C21 (beta C21 - P7), C22 old
  T beta;
  __device__ void operator()(const T* x, T* y) const {
    const T p2 = x[0], p1 = x[1], p4 = x[2], p5 = x[3];
    const T u1 = p2 + p1;
    const T u2 = u1 + p4;
    y[0] = x[4] + p2;
    y[1] = (x[5] + u1) + p5;
    y[2] = x[6] + u2;
    y[3] = ((beta != T(0)) ? beta * x[7] + p5 : p5) + u2;
  }
};

template <class T>
cudaError_t winograd_level_concurrent(const Ctx<T>& cx, int levels, i64 mh, i64 nh, i64 kh, T alpha, View<T> A,
                                      View<T> B, T beta, T* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<T> S[4], Tb[4], Q[4];
  for (auto& b : S) b = carve<T>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<T>(ws, kh, nh, B.t);
  for (auto& b : Q) b = carve<T>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const T zero = T(0);
  {
    const Ew<T, 4, 4> ja = quad_job<T, 4>(A11, A12, A21, A22, S, mh, kh);
    const Ew<T, 4, 4> jb = quad_job<T, 4>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<T, 4, 4>(s, ja, WinoSumsA<T>{}, &jb, WinoSumsB<T>{})));
  }
  // S = {S1, S2, S3, S4}, Tb = {T1, T2, T3, T4}
  const Prod<T> prods[7] = {
      {alpha, A11, B11, zero, Q[0].p, Q[0].ld},                 // P2 = alpha A11 B11
      {alpha, S[1].view(), Tb[1].view(), zero, Q[1].p, Q[1].ld},  // P1 = alpha S2 T2
      {alpha, S[2].view(), Tb[2].view(), zero, Q[2].p, Q[2].ld},  // P4 = alpha S3 T3
      {alpha, S[0].view(), Tb[0].view(), zero, Q[3].p, Q[3].ld},  // P5 = alpha S1 T1
      {alpha, A12, B21, beta, C11, ldc},                        // C11 = beta C11 + P3, P3 = alpha A12 B21
      {alpha, S[3].view(), B22, beta, C12, ldc},                // C12 = beta C12 + P6, P6 = alpha S4 B22
      {-alpha, A22, Tb[3].view(), beta, C21, ldc},              // C21 = beta C21 - P7, P7 = alpha A22 T4
  };
  KBLA_TRY(run_products<T>(cx, levels, mh, nh, kh, prods, 7, true, ws));
  Ew<T, 8, 4> e;
  for (int i = 0; i < 4; ++i) e.in[i] = Q[i].p, e.ldi[i] = Q[i].ld;
  e.in[4] = C11, e.in[5] = C12, e.in[6] = C21, e.in[7] = (beta != T(0)) ? C22 : nullptr;
  for (int i = 4; i < 8; ++i) e.ldi[i] = ldc;
  e.out[0] = C11, e.out[1] = C12, e.out[2] = C21, e.out[3] = C22;
  for (int o = 0; o < 4; ++o) e.ldo[o] = ldc;
  e.rows = mh, e.cols = nh;
  return launch_ew<T, 8, 4>(s, e, WinoCombine<T>{beta});
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
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
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
  const bool wino = cx.plan.algo == StrassenAlgorithm::winograd;
  if (cx.plan.low_memory && wino)
    KBLA_TRY(winograd_level<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (cx.plan.low_memory)
    KBLA_TRY(conventional_level<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (wino && concurrent_level<T>(cx.plan, levels - 1, mh, nh, kh) && cx.lanes != nullptr)
    KBLA_TRY(winograd_level_concurrent<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (wino)
    KBLA_TRY(winograd_level_batched<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else
    KBLA_TRY(conventional_level_batched<T>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
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
    return strassen_fused<T>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, config.simt_tile);
  const std::size_t need = plan_bytes<T>(p, p.levels, m, n, k);
  if (workspace_bytes < need || (need > 0 && workspace == nullptr)) return cudaErrorInvalidValue;
  if (need > 0 && reinterpret_cast<std::uintptr_t>(workspace) % sizeof(T) != 0) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  Ctx<T> cx{stream, p};
  if (p.lanes > 1 && splits<T>(p, p.levels, m, n, k)) {  // some level will split: its innermost one is concurrent
    const LeafLanes* L = nullptr;
    const cudaError_t e = leaf_lanes(stream, p.lanes, &L);
    if (e != cudaSuccess) return e;
    cx.lanes = L;
  }
  return rec<T>(cx, p.levels, m, n, k, alpha, View<T>{A, lda, ta}, View<T>{B, ldb, tb}, beta, C, ldc,
                static_cast<char*>(workspace));
}

template <class T>
std::int64_t strassen_default_tau() {
  return default_tau<T>();
}

cudaError_t strassen_release_cached_resources() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mtx);
  int cur = -1;
  const cudaError_t ge = cudaGetDevice(&cur);
  cudaError_t err = ge;
  for (auto& p : r.lanes) {
    LeafLanes& L = *p;
    if (cudaSetDevice(L.dev) != cudaSuccess && err == cudaSuccess) err = cudaErrorInvalidDevice;
    for (int i = 0; i < L.n; ++i) {
      const cudaError_t e = cudaStreamSynchronize(L.s[i]);
      if (err == cudaSuccess) err = e;
      if (cublasDestroy(L.h[i]) != CUBLAS_STATUS_SUCCESS && err == cudaSuccess) err = cudaErrorUnknown;
      cudaEventDestroy(L.join[i]);
      cudaStreamDestroy(L.s[i]);
    }
    if (L.fork) cudaEventDestroy(L.fork);
  }
  r.lanes.clear();
  {
    const cudaError_t e = cublas_release_stream_handles();
    if (err == cudaSuccess) err = e;
  }
  if (ge == cudaSuccess) cudaSetDevice(cur);
  return err;
}

#define KBLA_INST(T)                                                                                             \
  template std::int64_t strassen_default_tau<T>();                                                              \
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
