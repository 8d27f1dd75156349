// Workspace-based Strassen paths of kbla_cuda_strassen.hpp, C = alpha op(A) op(B) + beta C: conventional Strassen
// (classical 7-product formulas, leaves by cuBLAS or simt_gemm), the 2-level hybrid (one conventional level over
// the fused 1-level kernel) and Winograd's variant (7 products, 15 additions) recursing by a size threshold tau;
// plus the dispatcher strassen_gemm / strassen_workspace_bytes, which sends StrassenAlgorithm::fused to
// strassen_fused.cu and the others here (through Kokkos: strassen2 -> hybrid, winograd, classical -> conventional
// with no level). The views and elementwise passes are in strassen_elementwise.cuh, the plan and its workspace size
// in strassen_plan.hpp, the helper streams in strassen_leaf_lanes.cu.

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
//     low_memory (product-by-product schedule):
//       conventional / hybrid: mh*kh (A-side sum) + kh*nh (B-side sum) + mh*nh (product M)
//       winograd:              mh*kh + kh*nh + 2*mh*nh (U accumulator X, product P5 in Y)
//   strassen_workspace_bytes walks the same plan as strassen_gemm, so the number is exact.
// * Concurrent leaves (StrassenConfig::leaf_streams > 1, batched schedule): the 7 products of the innermost level
//   run round robin on helper streams forked from / joined into the caller's stream by events (run_products);
//   outer levels, the operand sums, the combinations and the peeling fix-ups stay on the caller's stream. Helper
//   streams, their cuBLAS handles (one per stream) and the events are cached per (device, caller stream) in the
//   registry of strassen_leaf_lanes.cu, for the life of the process or until strassen_release_cached_resources.
// * cuBLAS leaves use the handle's default math mode (CUBLAS_DEFAULT_MATH: no TF32 for SGEMM, set explicitly
//   when the handle is created) and the 64-bit-integer API (cublas?gemm_64), so no int overflow of m*n or ld.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>

#include "common/cublas_stream_handles.hpp"
#include "kbla_cuda_strassen.hpp"
#include "strassen_elementwise.cuh"
#include "strassen_leaf_lanes.hpp"
#include "strassen_plan.hpp"

namespace kbla {
namespace cuda {

// strassen_fused.cu: strassen_fused with a cap on its k slices (0: its own choice, 1: none).
template <class Scalar>
cudaError_t strassen_fused_leaf(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                                std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                                std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, int simt_tile,
                                int max_k_slices);

namespace {

using i64 = std::int64_t;
using namespace strassen_detail;  // views, elementwise passes, plan, lanes

// The caller stream's own handle (shared cache, cublas_stream_handles.hpp): bound to that stream once, so
// concurrent callers on different streams never re-bind one handle.
cudaError_t strassen_cublas_handle(cudaStream_t stream, cublasHandle_t* out) {
  return cublas_handle_for_stream(stream, out);
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
template <class Scalar>
struct Ctx {
  cudaStream_t s;
  Plan plan;
  cublasHandle_t blas = nullptr;      // set on a helper lane (handle bound to s); null: per-device handle
  const LeafLanes* lanes = nullptr;   // the caller stream's helpers when plan.lanes > 1
};

template <class Scalar>
cudaError_t gemm_by(const Ctx<Scalar>& cx, Leaf how, i64 m, i64 n, i64 k, Scalar alpha, View<Scalar> A, View<Scalar> B,
                    Scalar beta, Scalar* C, i64 ldc) {
  if (m == 0 || n == 0) return cudaSuccess;
  const char ta = A.t ? 'T' : 'N', tb = B.t ? 'T' : 'N';
  switch (how) {
    case Leaf::fused:
      // On a helper lane (cx.blas set) other leaves run beside this one: no k slices (sliced concurrent leaves
      // made the hybrid slower).
      return strassen_fused_leaf<Scalar>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc,
                                    cx.plan.simt_tile, cx.blas != nullptr ? 1 : 0);
    case Leaf::simt:
      return simt_gemm<Scalar>(cx.s, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, C, ldc, cx.plan.simt_tile);
    case Leaf::blas:
    default: {
      if (k == 0) return launch_scale<Scalar>(cx.s, m, n, beta, C, ldc);
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
template <class Scalar>
struct Buf {
  Scalar* p;
  i64 ld;
  bool t;
  View<Scalar> view() const { return View<Scalar>{p, ld, t}; }
};

template <class Scalar>
Buf<Scalar> carve(char*& ws, i64 r, i64 c, bool t) {
  Buf<Scalar> b{reinterpret_cast<Scalar*>(ws), std::max<i64>(1, t ? c : r), t};
  ws += round_up(std::size_t(r * c) * sizeof(Scalar));
  return b;
}

// out (buffer, logical r x c) = x + d * y, x and y views with the buffer's flag.
template <class Scalar>
AddJob<Scalar> job(Buf<Scalar> out, i64 r, i64 c, View<Scalar> x, Scalar d, View<Scalar> y) {
  return AddJob<Scalar>{out.p, out.ld, x.p, x.ld, y.p, y.ld, d, out.t ? c : r, out.t ? r : c};
}

template <class Scalar>
cudaError_t rec(const Ctx<Scalar>& cx, int levels, i64 m, i64 n, i64 k, Scalar alpha, View<Scalar> A, View<Scalar> B,
                Scalar beta, Scalar* C, i64 ldc, char* ws);

#define KBLA_TRY(x)                        \
  do {                                     \
    const cudaError_t e_ = (x);            \
    if (e_ != cudaSuccess) return e_;      \
  } while (0)

// One product of a level: c (mh x nh, ld) = al * a b + bet * c, by rec(levels - 1).
template <class Scalar>
struct Prod {
  Scalar al;
  View<Scalar> a, b;
  Scalar bet;
  Scalar* c;
  i64 ld;
};

// The products of one level, in list order. Serial (concurrent == false): one after another on cx.s, each free to
// recurse with the workspace tail ws (the schedule without helper streams). Concurrent: fork = an event recorded on
// cx.s that every used helper stream waits for (so the products see the operand sums launched before on cx.s);
// product i runs on helper i % used with that helper's cuBLAS handle; join = an event recorded on every used helper
// that cx.s waits for (so the combination launched next on cx.s, and everything later on cx.s, sees all results).
// No host sync.
// The join is issued even when a launch failed, so cx.s never runs ahead of work still queued on a helper.
// The caller guarantees: the products do not recurse (concurrent_level), no two of them write the same memory and
// none writes what another one reads.
template <class Scalar>
cudaError_t run_products(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, const Prod<Scalar>* P, int np,
                         bool concurrent, char* ws) {
  if (!concurrent || cx.lanes == nullptr || cx.lanes->n < 2) {
    for (int i = 0; i < np; ++i)
      KBLA_TRY(rec<Scalar>(cx, levels - 1, mh, nh, kh, P[i].al, P[i].a, P[i].b, P[i].bet, P[i].c, P[i].ld, ws));
    return cudaSuccess;
  }
  const LeafLanes& L = *cx.lanes;
  const int used = std::min(std::min(L.n, cx.plan.lanes), np);
  KBLA_TRY(cudaEventRecord(L.fork, cx.s));
  for (int l = 0; l < used; ++l) KBLA_TRY(cudaStreamWaitEvent(L.s[l], L.fork, 0));
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < np && err == cudaSuccess; ++i) {
    const int l = i % used;
    const Ctx<Scalar> lane{L.s[l], cx.plan, L.h[l], nullptr};
    err = rec<Scalar>(lane, levels - 1, mh, nh, kh, P[i].al, P[i].a, P[i].b, P[i].bet, P[i].c, P[i].ld, ws);
  }
  for (int l = 0; l < used; ++l) {
    cudaError_t e = cudaEventRecord(L.join[l], L.s[l]);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(cx.s, L.join[l], 0);
    if (err == cudaSuccess) err = e;
  }
  return err;
}

// One conventional Strassen level on the even part (2mh x 2nh x 2kh); products by rec(levels - 1).
template <class Scalar>
cudaError_t conventional_level(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, Scalar alpha, View<Scalar> A,
                               View<Scalar> B, Scalar beta, Scalar* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<Scalar> S = carve<Scalar>(ws, mh, kh, A.t), Tb = carve<Scalar>(ws, kh, nh, B.t),
              M = carve<Scalar>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const Scalar one = Scalar(1);
  auto sa = [&](View<Scalar> x, Scalar d, View<Scalar> y) { return job(S, mh, kh, x, d, y); };
  auto tb = [&](View<Scalar> x, Scalar d, View<Scalar> y) { return job(Tb, kh, nh, x, d, y); };
  auto prod = [&](View<Scalar> a, View<Scalar> b, Scalar bet, Scalar* c, i64 ld) {
    return rec<Scalar>(cx, levels - 1, mh, nh, kh, alpha, a, b, bet, c, ld, ws);
  };
  // M6 = (A21 - A11)(B11 + B12) -> C22 (beta folded)
  {
    AddJob<Scalar> j1 = tb(B11, one, B12);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A21, -one, A11), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), beta, C22, ldc));
  }
  // M7 = (A12 - A22)(B21 + B22) -> C11 (beta folded)
  {
    AddJob<Scalar> j1 = tb(B21, one, B22);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A12, -one, A22), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), beta, C11, ldc));
  }
  // M3 = A11 (B12 - B22): C12 = beta C12 + M3, C22 += M3
  {
    KBLA_TRY(launch_add2<Scalar>(s, tb(B12, -one, B22), nullptr));
    KBLA_TRY(prod(A11, Tb.view(), Scalar(0), M.p, M.ld));
    CombOut<Scalar> o0{C12, ldc, beta, one, Scalar(0)}, o1{C22, ldc, one, one, Scalar(0)};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M2 = (A21 + A22) B11: C21 = beta C21 + M2, C22 -= M2
  {
    KBLA_TRY(launch_add2<Scalar>(s, sa(A21, one, A22), nullptr));
    KBLA_TRY(prod(S.view(), B11, Scalar(0), M.p, M.ld));
    CombOut<Scalar> o0{C21, ldc, beta, one, Scalar(0)}, o1{C22, ldc, one, -one, Scalar(0)};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M1 = (A11 + A22)(B11 + B22): C11 += M1, C22 += M1
  {
    AddJob<Scalar> j1 = tb(B11, one, B22);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A11, one, A22), &j1));
    KBLA_TRY(prod(S.view(), Tb.view(), Scalar(0), M.p, M.ld));
    CombOut<Scalar> o0{C11, ldc, one, one, Scalar(0)}, o1{C22, ldc, one, one, Scalar(0)};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M4 = A22 (B21 - B11): C11 += M4, C21 += M4
  {
    KBLA_TRY(launch_add2<Scalar>(s, tb(B21, -one, B11), nullptr));
    KBLA_TRY(prod(A22, Tb.view(), Scalar(0), M.p, M.ld));
    CombOut<Scalar> o0{C11, ldc, one, one, Scalar(0)}, o1{C21, ldc, one, one, Scalar(0)};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  // M5 = (A11 + A12) B22: C11 -= M5, C12 += M5
  {
    KBLA_TRY(launch_add2<Scalar>(s, sa(A11, one, A12), nullptr));
    KBLA_TRY(prod(S.view(), B22, Scalar(0), M.p, M.ld));
    CombOut<Scalar> o0{C11, ldc, one, -one, Scalar(0)}, o1{C12, ldc, one, one, Scalar(0)};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, M.p, M.ld, nullptr, 0, o0, &o1));
  }
  return cudaSuccess;
}

// Storage-shape job over the four quadrants of a view (inputs) and Outputs workspace buffers of its layout (outputs).
template <class Scalar, int Outputs>
Ew<Scalar, 4, Outputs> quad_job(View<Scalar> q11, View<Scalar> q12, View<Scalar> q21, View<Scalar> q22,
                           const Buf<Scalar>* outs, i64 r, i64 c) {
  Ew<Scalar, 4, Outputs> e;
  const View<Scalar> q[4] = {q11, q12, q21, q22};
  for (int i = 0; i < 4; ++i) e.in[i] = q[i].p, e.ldi[i] = q[i].ld;
  for (int o = 0; o < Outputs; ++o) e.out[o] = outs[o].p, e.ldo[o] = outs[o].ld;
  e.rows = outs[0].t ? c : r;
  e.cols = outs[0].t ? r : c;
  return e;
}

// One conventional Strassen level, batched (default): one launch forms all 10 operand sums (each quadrant of A
// and B read once), the 7 products follow (M6 -> C22 and M7 -> C11 with beta folded, M1..M5 -> P1..P5), one
// launch adds P1..P5 into the four quadrants. Traffic in quarter blocks (mh x nh etc.): 9 + 9 for the sums,
// 11 (beta == 0: 5 P + C11 + C22 read, 4 written; +2 reads otherwise) for the combination = 29, against 53
// for the product-by-product schedule. Additions in the same order as that schedule (same rounding).
template <class Scalar>
cudaError_t conventional_level_batched(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, Scalar alpha,
                                       View<Scalar> A, View<Scalar> B, Scalar beta, Scalar* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<Scalar> S[5], Tb[5], P[5];
  for (auto& b : S) b = carve<Scalar>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<Scalar>(ws, kh, nh, B.t);
  for (auto& b : P) b = carve<Scalar>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  {
    const Ew<Scalar, 4, 5> ja = quad_job<Scalar, 5>(A11, A12, A21, A22, S, mh, kh);
    const Ew<Scalar, 4, 5> jb = quad_job<Scalar, 5>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<Scalar, 4, 5>(s, ja, ConvSumsA<Scalar>{}, &jb, ConvSumsB<Scalar>{})));
  }
  // S = {S6, S7, S2, S1, S5}, Tb = {T6, T7, T3, T1, T4}. Concurrent at the innermost level (run_products):
  // hazards checked: the 7 outputs are disjoint (C22 and C11 are disjoint quadrants of C, P1..P5 are separate
  // 256-byte-rounded workspace buffers); M6 / M7 read the old C22 / C11 (beta folded) and only their own output;
  // every input (A and B quadrants, S*, T*) is only read in this phase and was written by the sums launch before
  // the fork; the combination (reads P1..P5 and C, writes C) and the peeling fix-ups run on cx.s after the join.
  const Scalar zero = Scalar(0);
  const Prod<Scalar> prods[7] = {
      {alpha, S[0].view(), Tb[0].view(), beta, C22, ldc},     // M6 = (A21 - A11)(B11 + B12)
      {alpha, S[1].view(), Tb[1].view(), beta, C11, ldc},     // M7 = (A12 - A22)(B21 + B22)
      {alpha, A11, Tb[2].view(), zero, P[2].p, P[2].ld},      // M3 = A11 (B12 - B22)
      {alpha, S[2].view(), B11, zero, P[1].p, P[1].ld},       // M2 = (A21 + A22) B11
      {alpha, S[3].view(), Tb[3].view(), zero, P[0].p, P[0].ld},  // M1 = (A11 + A22)(B11 + B22)
      {alpha, A22, Tb[4].view(), zero, P[3].p, P[3].ld},      // M4 = A22 (B21 - B11)
      {alpha, S[4].view(), B22, zero, P[4].p, P[4].ld},       // M5 = (A11 + A12) B22
  };
  KBLA_TRY(run_products<Scalar>(cx, levels, mh, nh, kh, prods, 7,
                                concurrent_level<Scalar>(cx.plan, levels - 1, mh, nh, kh), ws));
  Ew<Scalar, 9, 4> e;
  for (int i = 0; i < 5; ++i) e.in[i] = P[i].p, e.ldi[i] = P[i].ld;
  e.in[5] = C11, e.in[6] = (beta != Scalar(0)) ? C12 : nullptr, e.in[7] = (beta != Scalar(0)) ? C21 : nullptr,
  e.in[8] = C22;
  for (int i = 5; i < 9; ++i) e.ldi[i] = ldc;
  e.out[0] = C11, e.out[1] = C12, e.out[2] = C21, e.out[3] = C22;
  for (int o = 0; o < 4; ++o) e.ldo[o] = ldc;
  e.rows = mh, e.cols = nh;
  return launch_ew<Scalar, 9, 4>(s, e, ConvCombine<Scalar>{beta});
}

// Winograd level, batched (default): one launch forms S1..S4 and T1..T4 (each quadrant read once: 8 + 8
// quarter blocks of traffic instead of 12 + 12), then the products and combinations of the product-by-product
// schedule below.
template <class Scalar>
cudaError_t winograd_level_batched(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, Scalar alpha,
                                   View<Scalar> A, View<Scalar> B, Scalar beta, Scalar* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<Scalar> S[4], Tb[4];
  for (auto& b : S) b = carve<Scalar>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<Scalar>(ws, kh, nh, B.t);
  Buf<Scalar> X = carve<Scalar>(ws, mh, nh, false), Y = carve<Scalar>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const Scalar one = Scalar(1), zero = Scalar(0);
  auto prod = [&](Scalar al, View<Scalar> a, View<Scalar> b, Scalar bet, Scalar* c, i64 ld) {
    return rec<Scalar>(cx, levels - 1, mh, nh, kh, al, a, b, bet, c, ld, ws);
  };
  {
    const Ew<Scalar, 4, 4> ja = quad_job<Scalar, 4>(A11, A12, A21, A22, S, mh, kh);
    const Ew<Scalar, 4, 4> jb = quad_job<Scalar, 4>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<Scalar, 4, 4>(s, ja, WinoSumsA<Scalar>{}, &jb, WinoSumsB<Scalar>{})));
  }
  // X = P2; C11 = beta C11 + X; C11 += P3
  KBLA_TRY(prod(alpha, A11, B11, zero, X.p, X.ld));
  {
    CombOut<Scalar> o0{C11, ldc, beta, one, zero};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, nullptr));
  }
  KBLA_TRY(prod(alpha, A12, B21, one, C11, ldc));
  KBLA_TRY(prod(alpha, S[0].view(), Tb[0].view(), zero, Y.p, Y.ld));  // Y = P5 = alpha S1 T1
  KBLA_TRY(prod(alpha, S[1].view(), Tb[1].view(), one, X.p, X.ld));   // X += P1 = alpha S2 T2 (U1)
  {
    CombOut<Scalar> o0{C12, ldc, beta, one, one}, o1{C22, ldc, beta, zero, one};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, X.p, X.ld, Y.p, Y.ld, o0, &o1));
  }
  KBLA_TRY(prod(alpha, S[3].view(), B22, one, C12, ldc));     // C12 += P6 = alpha S4 B22
  KBLA_TRY(prod(-alpha, A22, Tb[3].view(), beta, C21, ldc));  // C21 = beta C21 - P7 (P7 = alpha A22 T4)
  KBLA_TRY(prod(alpha, S[2].view(), Tb[2].view(), one, X.p, X.ld));   // X += P4 = alpha S3 T3 (U2)
  CombOut<Scalar> o0{C21, ldc, one, one, zero}, o1{C22, ldc, one, one, zero};
  return launch_combine<Scalar>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, &o1);
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
template <class Scalar>
struct WinoCombine {  // x = P2, P1, P4, P5, C11 (beta C11 + P3), C12 (beta C12 + P6), C21 (beta C21 - P7), C22 old
  Scalar beta;
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    const Scalar p2 = x[0], p1 = x[1], p4 = x[2], p5 = x[3];
    const Scalar u1 = p2 + p1;
    const Scalar u2 = u1 + p4;
    y[0] = x[4] + p2;
    y[1] = (x[5] + u1) + p5;
    y[2] = x[6] + u2;
    y[3] = ((beta != Scalar(0)) ? beta * x[7] + p5 : p5) + u2;
  }
};

template <class Scalar>
cudaError_t winograd_level_concurrent(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, Scalar alpha,
                                      View<Scalar> A, View<Scalar> B, Scalar beta, Scalar* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<Scalar> S[4], Tb[4], Q[4];
  for (auto& b : S) b = carve<Scalar>(ws, mh, kh, A.t);
  for (auto& b : Tb) b = carve<Scalar>(ws, kh, nh, B.t);
  for (auto& b : Q) b = carve<Scalar>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const Scalar zero = Scalar(0);
  {
    const Ew<Scalar, 4, 4> ja = quad_job<Scalar, 4>(A11, A12, A21, A22, S, mh, kh);
    const Ew<Scalar, 4, 4> jb = quad_job<Scalar, 4>(B11, B12, B21, B22, Tb, kh, nh);
    KBLA_TRY((launch_ew<Scalar, 4, 4>(s, ja, WinoSumsA<Scalar>{}, &jb, WinoSumsB<Scalar>{})));
  }
  // S = {S1, S2, S3, S4}, Tb = {T1, T2, T3, T4}
  const Prod<Scalar> prods[7] = {
      {alpha, A11, B11, zero, Q[0].p, Q[0].ld},                 // P2 = alpha A11 B11
      {alpha, S[1].view(), Tb[1].view(), zero, Q[1].p, Q[1].ld},  // P1 = alpha S2 T2
      {alpha, S[2].view(), Tb[2].view(), zero, Q[2].p, Q[2].ld},  // P4 = alpha S3 T3
      {alpha, S[0].view(), Tb[0].view(), zero, Q[3].p, Q[3].ld},  // P5 = alpha S1 T1
      {alpha, A12, B21, beta, C11, ldc},                        // C11 = beta C11 + P3, P3 = alpha A12 B21
      {alpha, S[3].view(), B22, beta, C12, ldc},                // C12 = beta C12 + P6, P6 = alpha S4 B22
      {-alpha, A22, Tb[3].view(), beta, C21, ldc},              // C21 = beta C21 - P7, P7 = alpha A22 T4
  };
  KBLA_TRY(run_products<Scalar>(cx, levels, mh, nh, kh, prods, 7, true, ws));
  Ew<Scalar, 8, 4> e;
  for (int i = 0; i < 4; ++i) e.in[i] = Q[i].p, e.ldi[i] = Q[i].ld;
  e.in[4] = C11, e.in[5] = C12, e.in[6] = C21, e.in[7] = (beta != Scalar(0)) ? C22 : nullptr;
  for (int i = 4; i < 8; ++i) e.ldi[i] = ldc;
  e.out[0] = C11, e.out[1] = C12, e.out[2] = C21, e.out[3] = C22;
  for (int o = 0; o < 4; ++o) e.ldo[o] = ldc;
  e.rows = mh, e.cols = nh;
  return launch_ew<Scalar, 8, 4>(s, e, WinoCombine<Scalar>{beta});
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
template <class Scalar>
cudaError_t winograd_level(const Ctx<Scalar>& cx, int levels, i64 mh, i64 nh, i64 kh, Scalar alpha, View<Scalar> A,
                           View<Scalar> B, Scalar beta, Scalar* C, i64 ldc, char* ws) {
  const cudaStream_t s = cx.s;
  Buf<Scalar> S = carve<Scalar>(ws, mh, kh, A.t), Tb = carve<Scalar>(ws, kh, nh, B.t);
  Buf<Scalar> X = carve<Scalar>(ws, mh, nh, false), Y = carve<Scalar>(ws, mh, nh, false);
  const auto [A11, A12, A21, A22] = quadrants(A, mh, kh);
  const auto [B11, B12, B21, B22] = quadrants(B, kh, nh);
  const auto [C11, C12, C21, C22] = quadrants(C, ldc, mh, nh);
  const Scalar one = Scalar(1), zero = Scalar(0);
  auto sa = [&](View<Scalar> x, Scalar d, View<Scalar> y) { return job(S, mh, kh, x, d, y); };
  auto tb = [&](View<Scalar> x, Scalar d, View<Scalar> y) { return job(Tb, kh, nh, x, d, y); };
  auto prod = [&](Scalar al, View<Scalar> a, View<Scalar> b, Scalar bet, Scalar* c, i64 ld) {
    return rec<Scalar>(cx, levels - 1, mh, nh, kh, al, a, b, bet, c, ld, ws);
  };
  const View<Scalar> Sv = S.view(), Tv = Tb.view();
  // X = P2 = alpha A11 B11; C11 = beta C11 + X; C11 += P3
  KBLA_TRY(prod(alpha, A11, B11, zero, X.p, X.ld));
  {
    CombOut<Scalar> o0{C11, ldc, beta, one, zero};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, nullptr));
  }
  KBLA_TRY(prod(alpha, A12, B21, one, C11, ldc));
  // S1 = A21 + A22, T1 = B12 - B11; Y = P5
  {
    AddJob<Scalar> j1 = tb(B12, -one, B11);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A21, one, A22), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, zero, Y.p, Y.ld));
  // S2 = S1 - A11, T2 = B22 - T1; X += P1 (X = U1)
  {
    AddJob<Scalar> j1 = tb(B22, -one, Tv);
    KBLA_TRY(launch_add2<Scalar>(s, sa(Sv, -one, A11), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, one, X.p, X.ld));
  // C12 = beta C12 + U1 + P5, C22 = beta C22 + P5
  {
    CombOut<Scalar> o0{C12, ldc, beta, one, one}, o1{C22, ldc, beta, zero, one};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, X.p, X.ld, Y.p, Y.ld, o0, &o1));
  }
  // S4 = A12 - S2, T4 = T2 - B21; C12 += P6 = alpha S4 B22; C21 = beta C21 - P7 (P7 = alpha A22 T4)
  {
    AddJob<Scalar> j1 = tb(Tv, -one, B21);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A12, -one, Sv), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, B22, one, C12, ldc));
  KBLA_TRY(prod(-alpha, A22, Tv, beta, C21, ldc));
  // S3 = A11 - A21, T3 = B22 - B12; X += P4 (X = U2); C21 += U2, C22 += U2
  {
    AddJob<Scalar> j1 = tb(B22, -one, B12);
    KBLA_TRY(launch_add2<Scalar>(s, sa(A11, -one, A21), &j1));
  }
  KBLA_TRY(prod(alpha, Sv, Tv, one, X.p, X.ld));
  {
    CombOut<Scalar> o0{C21, ldc, one, one, zero}, o1{C22, ldc, one, one, zero};
    KBLA_TRY(launch_combine<Scalar>(s, mh, nh, X.p, X.ld, nullptr, 0, o0, &o1));
  }
  return cudaSuccess;
}

template <class Scalar>
cudaError_t rec(const Ctx<Scalar>& cx, int levels, i64 m, i64 n, i64 k, Scalar alpha, View<Scalar> A, View<Scalar> B,
                Scalar beta, Scalar* C, i64 ldc, char* ws) {
  if (m == 0 || n == 0) return cudaSuccess;
  if (k == 0 || alpha == Scalar(0)) return launch_scale<Scalar>(cx.s, m, n, beta, C, ldc);
  if (!splits<Scalar>(cx.plan, levels, m, n, k))
    return gemm_by<Scalar>(cx, cx.plan.leaf, m, n, k, alpha, A, B, beta, C, ldc);
  const i64 mh = m / 2, nh = n / 2, kh = k / 2;
  const bool wino = cx.plan.algo == StrassenAlgorithm::winograd;
  if (cx.plan.low_memory && wino)
    KBLA_TRY(winograd_level<Scalar>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (cx.plan.low_memory)
    KBLA_TRY(conventional_level<Scalar>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (wino && concurrent_level<Scalar>(cx.plan, levels - 1, mh, nh, kh) && cx.lanes != nullptr)
    KBLA_TRY(winograd_level_concurrent<Scalar>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else if (wino)
    KBLA_TRY(winograd_level_batched<Scalar>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  else
    KBLA_TRY(conventional_level_batched<Scalar>(cx, levels, mh, nh, kh, alpha, A, B, beta, C, ldc, ws));
  const Leaf thin = cx.plan.thin;
  if (k & 1)  // rank-1 update of the even part by the last k-slice
    KBLA_TRY(
        gemm_by<Scalar>(cx, thin, 2 * mh, 2 * nh, 1, alpha, sub(A, 0, k - 1), sub(B, k - 1, 0), Scalar(1), C, ldc));
  if (m & 1)  // last row of C, all n columns
    KBLA_TRY(gemm_by<Scalar>(cx, thin, 1, n, k, alpha, sub(A, m - 1, 0), B, beta, C + (m - 1), ldc));
  if (n & 1)  // last column of C, the even rows
    KBLA_TRY(gemm_by<Scalar>(cx, thin, 2 * mh, 1, k, alpha, A, sub(B, 0, n - 1), beta, C + (n - 1) * ldc, ldc));
  return cudaSuccess;
}

bool valid_op(char t) { return t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c'; }
bool is_trans(char t) { return !(t == 'N' || t == 'n'); }

}  // namespace

// -------------------------------------------------------------------------------------------------------------
template <class Scalar>
std::size_t strassen_workspace_bytes(const StrassenConfig& config, std::int64_t m, std::int64_t n, std::int64_t k) {
  Plan p;
  if (!make_plan<Scalar>(config, &p) || m < 0 || n < 0 || k < 0) return 0;
  if (p.algo == StrassenAlgorithm::fused) return 0;
  return plan_bytes<Scalar>(p, p.levels, m, n, k);
}

template <class Scalar>
cudaError_t strassen_gemm(cudaStream_t stream, const StrassenConfig& config, char transA, char transB, std::int64_t m,
                          std::int64_t n, std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda,
                          const Scalar* B, std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, void* workspace,
                          std::size_t workspace_bytes) {
  Plan p;
  if (!make_plan<Scalar>(config, &p)) return cudaErrorInvalidValue;
  if (!valid_op(transA) || !valid_op(transB) || m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  const bool ta = is_trans(transA), tb = is_trans(transB);
  if (lda < std::max<i64>(1, ta ? k : m) || ldb < std::max<i64>(1, tb ? n : k) || ldc < std::max<i64>(1, m))
    return cudaErrorInvalidValue;
  if (p.algo == StrassenAlgorithm::fused)
    return strassen_fused<Scalar>(stream, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                  config.simt_tile);
  const std::size_t need = plan_bytes<Scalar>(p, p.levels, m, n, k);
  if (workspace_bytes < need || (need > 0 && workspace == nullptr)) return cudaErrorInvalidValue;
  if (need > 0 && reinterpret_cast<std::uintptr_t>(workspace) % sizeof(Scalar) != 0) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  Ctx<Scalar> cx{stream, p};
  if (p.lanes > 1 && splits<Scalar>(p, p.levels, m, n, k)) {  // some level will split: its innermost one is concurrent
    const LeafLanes* L = nullptr;
    const cudaError_t e = leaf_lanes(stream, p.lanes, &L);
    if (e != cudaSuccess) return e;
    cx.lanes = L;
  }
  return rec<Scalar>(cx, p.levels, m, n, k, alpha, View<Scalar>{A, lda, ta}, View<Scalar>{B, ldb, tb}, beta, C, ldc,
                static_cast<char*>(workspace));
}

template <class Scalar>
std::int64_t strassen_default_tau() {
  return default_tau<Scalar>();
}

template <class Scalar>
int strassen_levels(const StrassenConfig& config, std::int64_t m, std::int64_t n, std::int64_t k) {
  Plan p;
  if (!make_plan<Scalar>(config, &p) || m < 0 || n < 0 || k < 0) return 0;
  int levels = 0;
  for (int left = p.levels; splits<Scalar>(p, left, m, n, k); --left, ++levels) {  // the halving rec<Scalar> does
    m /= 2;
    n /= 2;
    k /= 2;
  }
  return p.leaf == Leaf::fused ? levels + 1 : levels;  // the fused kernel is one level itself
}

cudaError_t strassen_release_cached_resources() {
  const cudaError_t lanes = release_leaf_lanes();
  const cudaError_t handles = cublas_release_stream_handles();
  return lanes != cudaSuccess ? lanes : handles;
}

#define KBLA_INST(Scalar)                                                                                  \
  template std::int64_t strassen_default_tau<Scalar>();                                                    \
  template int strassen_levels<Scalar>(const StrassenConfig&, std::int64_t, std::int64_t, std::int64_t);   \
  template std::size_t strassen_workspace_bytes<Scalar>(const StrassenConfig&, std::int64_t, std::int64_t, \
                                                        std::int64_t);                                     \
  template cudaError_t strassen_gemm<Scalar>(                                                              \
      cudaStream_t, const StrassenConfig&, char, char, std::int64_t, std::int64_t, std::int64_t, Scalar,   \
      const Scalar*, std::int64_t, const Scalar*, std::int64_t, Scalar, Scalar*, std::int64_t, void*, std::size_t);
KBLA_INST(float)
KBLA_INST(double)
#undef KBLA_INST

}  // namespace cuda
}  // namespace kbla
