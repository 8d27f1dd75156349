// Views of op(X) and the elementwise passes (operand sums, combinations, beta scaling) of the workspace Strassen
// paths, conventional, hybrid and winograd (strassen_workspace.cu, whose header explains the view convention): one
// memory-bound kernel template runs every pass, VectorWidth-wide per thread. Included by that file only.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace kbla {
namespace cuda {
namespace strassen_detail {

using i64 = std::int64_t;

// Views. Logical element (i, j) of the r x c matrix op(X) is t ? p[j + i*ld] : p[i + j*ld].
template <class Scalar>
struct View {
  const Scalar* p;
  i64 ld;
  bool t;
};

template <class Scalar>
View<Scalar> sub(View<Scalar> v, i64 i0, i64 j0) {  // logical offset (i0, j0)
  return View<Scalar>{v.t ? v.p + i0 * v.ld + j0 : v.p + i0 + j0 * v.ld, v.ld, v.t};
}

// The four quadrants X11, X12, X21, X22 of a view split after row rh and column ch, and of column-major C.
template <class Scalar>
std::array<View<Scalar>, 4> quadrants(View<Scalar> v, i64 rh, i64 ch) {
  return {v, sub(v, 0, ch), sub(v, rh, 0), sub(v, rh, ch)};
}
template <class Scalar>
std::array<Scalar*, 4> quadrants(Scalar* c, i64 ldc, i64 mh, i64 nh) {
  return {c, c + nh * ldc, c + mh, c + mh + nh * ldc};
}

// Elementwise passes. One kernel template runs every operand sum and every combination: Inputs input blocks and Outputs
// output blocks of the same storage shape rows x cols (column-major, each with its own ld), and a functor Op that
// maps the Inputs values of one element to the Outputs results (Op::operator()(const Scalar* x, Scalar* y)). A null
// input reads as 0 and is never dereferenced (beta == 0: C is not read); a null output is not written. Inputs may alias
// outputs (in-place updates of C): each element is read and written by the same thread.
// Thread work: VectorWidth consecutive rows of one column per step (VectorWidth = 16 bytes / sizeof(Scalar): one float4
// / double2 load per input when every pointer is 16-byte aligned and every ld a multiple of VectorWidth, else
// VectorWidth = 1), columns grid-strided over blockIdx.y; about kTargetBlocks blocks per launch, so each thread handles
// several columns. Two jobs of the same Inputs / Outputs (e.g. the A-side and the B-side sums of one level) share one
// launch through blockIdx.z. One element per thread (a 256-thread block per 1 KiB of a column) left these memory-bound
// passes far below DRAM bandwidth; they should run near it.
constexpr int kThreads = 256;
constexpr unsigned kMaxGridY = 65535;
constexpr i64 kTargetBlocks = 4096;  // ~31 blocks per SM on 132 SMs: several waves, short tail

template <class Scalar, int Inputs, int Outputs>
struct Ew {
  const Scalar* in[Inputs];
  i64 ldi[Inputs];
  Scalar* out[Outputs];
  i64 ldo[Outputs];
  i64 rows, cols;
};

template <class Scalar>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

template <class Scalar, int Inputs, int Outputs, int VectorWidth, class Op>
__device__ __forceinline__ void ew_body(const Ew<Scalar, Inputs, Outputs>& a, const Op& f) {
  const i64 r0 = (i64(blockIdx.x) * kThreads + threadIdx.x) * VectorWidth;
  if (r0 >= a.rows) return;
  const bool full = r0 + VectorWidth <= a.rows;
  using V = typename Vec16<Scalar>::type;
  for (i64 c = blockIdx.y; c < a.cols; c += gridDim.y) {
    Scalar x[Inputs][VectorWidth];
#pragma unroll
    for (int i = 0; i < Inputs; ++i) {
      const Scalar* p = a.in[i];
      if (p == nullptr) {
#pragma unroll
        for (int l = 0; l < VectorWidth; ++l) x[i][l] = Scalar(0);
      } else if (VectorWidth > 1 && full) {
        const V v = *reinterpret_cast<const V*>(p + r0 + c * a.ldi[i]);
        const Scalar* e = reinterpret_cast<const Scalar*>(&v);
#pragma unroll
        for (int l = 0; l < VectorWidth; ++l) x[i][l] = e[l];
      } else {
#pragma unroll
        for (int l = 0; l < VectorWidth; ++l) x[i][l] = (r0 + l < a.rows) ? p[r0 + l + c * a.ldi[i]] : Scalar(0);
      }
    }
    Scalar y[Outputs][VectorWidth];
#pragma unroll
    for (int l = 0; l < VectorWidth; ++l) {
      Scalar xi[Inputs], yo[Outputs];
#pragma unroll
      for (int i = 0; i < Inputs; ++i) xi[i] = x[i][l];
      f(xi, yo);
#pragma unroll
      for (int o = 0; o < Outputs; ++o) y[o][l] = yo[o];
    }
#pragma unroll
    for (int o = 0; o < Outputs; ++o) {
      Scalar* q = a.out[o];
      if (q == nullptr) continue;
      if (VectorWidth > 1 && full) {
        V v;
        Scalar* e = reinterpret_cast<Scalar*>(&v);
#pragma unroll
        for (int l = 0; l < VectorWidth; ++l) e[l] = y[o][l];
        *reinterpret_cast<V*>(q + r0 + c * a.ldo[o]) = v;
      } else {
#pragma unroll
        for (int l = 0; l < VectorWidth; ++l)
          if (r0 + l < a.rows) q[r0 + l + c * a.ldo[o]] = y[o][l];
      }
    }
  }
}

template <class Scalar, int Inputs, int Outputs, int VectorWidth, class FirstOp, class SecondOp>
__global__ void __launch_bounds__(kThreads)
    ew_kernel(Ew<Scalar, Inputs, Outputs> a0, FirstOp f0, Ew<Scalar, Inputs, Outputs> a1, SecondOp f1) {
  if (blockIdx.z == 0)
    ew_body<Scalar, Inputs, Outputs, VectorWidth>(a0, f0);
  else
    ew_body<Scalar, Inputs, Outputs, VectorWidth>(a1, f1);
}

template <class Scalar, int Inputs, int Outputs>
bool ew_vectorizable(const Ew<Scalar, Inputs, Outputs>& a) {
  constexpr int VectorWidth = 16 / sizeof(Scalar);
  for (int i = 0; i < Inputs; ++i)
    if (a.in[i] != nullptr && (reinterpret_cast<std::uintptr_t>(a.in[i]) % 16 != 0 || a.ldi[i] % VectorWidth != 0))
      return false;
  for (int o = 0; o < Outputs; ++o)
    if (a.out[o] != nullptr && (reinterpret_cast<std::uintptr_t>(a.out[o]) % 16 != 0 || a.ldo[o] % VectorWidth != 0))
      return false;
  return true;
}

// One launch for job j0 (and j1 when given; it may have another shape). Empty jobs launch nothing.
template <class Scalar, int Inputs, int Outputs, class FirstOp, class SecondOp>
cudaError_t launch_ew(cudaStream_t s, const Ew<Scalar, Inputs, Outputs>& j0, const FirstOp& f0,
                      const Ew<Scalar, Inputs, Outputs>* j1, const SecondOp& f1) {
  const bool e0 = j0.rows > 0 && j0.cols > 0, e1 = j1 != nullptr && j1->rows > 0 && j1->cols > 0;
  if (!e0 && !e1) return cudaSuccess;
  if (!e0)
    return launch_ew<Scalar, Inputs, Outputs, SecondOp, SecondOp>(s, *j1, f1, nullptr, f1);  // only the second job
  Ew<Scalar, Inputs, Outputs> a0 = j0, a1 = e1 ? *j1 : j0;
  if (!e1) a1.rows = 0;  // slice z = 1 is not launched
  constexpr int WV = 16 / sizeof(Scalar);
  const bool vec = ew_vectorizable(a0) && (!e1 || ew_vectorizable(a1));
  const int VectorWidth = vec ? WV : 1;
  const i64 rows = std::max(a0.rows, a1.rows), cols = std::max(a0.cols, e1 ? a1.cols : 0);
  const i64 bx = ((rows + VectorWidth - 1) / VectorWidth + kThreads - 1) / kThreads;
  const i64 by = std::min<i64>(std::min<i64>(cols, kMaxGridY), std::max<i64>(1, kTargetBlocks / bx));
  const dim3 grid(unsigned(bx), unsigned(by), e1 ? 2u : 1u);
  if (vec)
    ew_kernel<Scalar, Inputs, Outputs, WV><<<grid, kThreads, 0, s>>>(a0, f0, a1, f1);
  else
    ew_kernel<Scalar, Inputs, Outputs, 1><<<grid, kThreads, 0, s>>>(a0, f0, a1, f1);
  return cudaGetLastError();
}

template <class Scalar, int Inputs, int Outputs, class Op>
cudaError_t launch_ew(cudaStream_t s, const Ew<Scalar, Inputs, Outputs>& a0, const Op& f0) {
  return launch_ew<Scalar, Inputs, Outputs, Op, Op>(s, a0, f0, nullptr, f0);
}

// --- functors (the arithmetic of the product-by-product schedule, term for term, so the rounding is unchanged) ---
template <class Scalar>
struct AddF {  // out = x + d * y
  Scalar d;
  __device__ void operator()(const Scalar* x, Scalar* y) const { y[0] = x[0] + d * x[1]; }
};

template <class Scalar>
struct CombF {  // inputs X, Y, old0, old1; out_o = (beta_o != 0 ? beta_o * old_o : 0) + cx_o X + cy_o Y
  Scalar beta0, cx0, cy0, beta1, cx1, cy1;
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    {
      Scalar v = (cx0 != Scalar(0)) ? cx0 * x[0] : Scalar(0);
      if (cy0 != Scalar(0)) v += cy0 * x[1];
      y[0] = (beta0 != Scalar(0)) ? beta0 * x[2] + v : v;
    }
    {
      Scalar v = (cx1 != Scalar(0)) ? cx1 * x[0] : Scalar(0);
      if (cy1 != Scalar(0)) v += cy1 * x[1];
      y[1] = (beta1 != Scalar(0)) ? beta1 * x[3] + v : v;
    }
  }
};

template <class Scalar>
struct ScaleF {  // out = beta != 0 ? beta * old : 0 (old is null when beta == 0)
  Scalar beta;
  __device__ void operator()(const Scalar* x, Scalar* y) const { y[0] = (beta != Scalar(0)) ? beta * x[0] : Scalar(0); }
};

// Conventional level, all operand sums at once from the four quadrants (x = X11, X12, X21, X22):
//   A side: S6 = A21 - A11, S7 = A12 - A22, S2 = A21 + A22, S1 = A11 + A22, S5 = A11 + A12
//   B side: T6 = B11 + B12, T7 = B21 + B22, T3 = B12 - B22, T1 = B11 + B22, T4 = B21 - B11
template <class Scalar>
struct ConvSumsA {
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    y[0] = x[2] + Scalar(-1) * x[0];
    y[1] = x[1] + Scalar(-1) * x[3];
    y[2] = x[2] + Scalar(1) * x[3];
    y[3] = x[0] + Scalar(1) * x[3];
    y[4] = x[0] + Scalar(1) * x[1];
  }
};
template <class Scalar>
struct ConvSumsB {
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    y[0] = x[0] + Scalar(1) * x[1];
    y[1] = x[2] + Scalar(1) * x[3];
    y[2] = x[1] + Scalar(-1) * x[3];
    y[3] = x[0] + Scalar(1) * x[3];
    y[4] = x[2] + Scalar(-1) * x[0];
  }
};

// Conventional level, all combinations in one pass. Inputs P1..P5 (alpha M_i), C11 (= alpha M7 + beta C11),
// C12 (old, null when beta == 0), C21 (old, likewise), C22 (= alpha M6 + beta C22). Same order of additions as the
// product-by-product schedule (M3, M2, M1, M4, M5):
//   C11 = ((C11 + P1) + P4) - P5        C12 = (beta C12 + P3) + P5
//   C21 = (beta C21 + P2) + P4          C22 = ((C22 + P3) - P2) + P1
template <class Scalar>
struct ConvCombine {
  Scalar beta;
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    const Scalar p1 = x[0], p2 = x[1], p3 = x[2], p4 = x[3], p5 = x[4];
    Scalar c11 = x[5], c22 = x[8];
    Scalar c12 = (beta != Scalar(0)) ? beta * x[6] + p3 : p3;
    Scalar c21 = (beta != Scalar(0)) ? beta * x[7] + p2 : p2;
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
template <class Scalar>
struct WinoSumsA {
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    const Scalar s1 = x[2] + Scalar(1) * x[3];
    const Scalar s2 = s1 + Scalar(-1) * x[0];
    y[0] = s1;
    y[1] = s2;
    y[2] = x[0] + Scalar(-1) * x[2];
    y[3] = x[1] + Scalar(-1) * s2;
  }
};
template <class Scalar>
struct WinoSumsB {
  __device__ void operator()(const Scalar* x, Scalar* y) const {
    const Scalar t1 = x[1] + Scalar(-1) * x[0];
    const Scalar t2 = x[3] + Scalar(-1) * t1;
    y[0] = t1;
    y[1] = t2;
    y[2] = x[3] + Scalar(-1) * x[1];
    y[3] = t2 + Scalar(-1) * x[2];
  }
};

// --- launchers of the product-by-product (low_memory) schedule over the same kernel ---
template <class Scalar>
struct AddJob {  // out = x + d * y over a rows x cols column-major block (out may alias x or y)
  Scalar* out;
  i64 ldo;
  const Scalar* x;
  i64 ldx;
  const Scalar* y;
  i64 ldy;
  Scalar d;
  i64 rows, cols;
};

template <class Scalar>
Ew<Scalar, 2, 1> ew_of(const AddJob<Scalar>& j) {
  Ew<Scalar, 2, 1> e;
  e.in[0] = j.x, e.ldi[0] = j.ldx, e.in[1] = j.y, e.ldi[1] = j.ldy;
  e.out[0] = j.out, e.ldo[0] = j.ldo;
  e.rows = j.rows, e.cols = j.cols;
  return e;
}

template <class Scalar>
cudaError_t launch_add2(cudaStream_t s, const AddJob<Scalar>& a, const AddJob<Scalar>* b) {
  const Ew<Scalar, 2, 1> e0 = ew_of(a);
  if (!b) return launch_ew<Scalar, 2, 1>(s, e0, AddF<Scalar>{a.d});
  const Ew<Scalar, 2, 1> e1 = ew_of(*b);
  return launch_ew<Scalar, 2, 1>(s, e0, AddF<Scalar>{a.d}, &e1, AddF<Scalar>{b->d});
}

template <class Scalar>
struct CombOut {  // p = (beta != 0 ? beta * p : 0) + cx * X + cy * Y   (Y only read when cy != 0)
  Scalar* p;
  i64 ld;
  Scalar beta, cx, cy;
};

template <class Scalar>
cudaError_t launch_combine(cudaStream_t s, i64 rows, i64 cols, const Scalar* X, i64 ldx, const Scalar* Y, i64 ldy,
                           CombOut<Scalar> o0, const CombOut<Scalar>* o1) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const bool two = o1 != nullptr;
  const CombOut<Scalar> q1 = two ? *o1 : CombOut<Scalar>{nullptr, 1, Scalar(0), Scalar(0), Scalar(0)};
  const bool needY = Y != nullptr && (o0.cy != Scalar(0) || (two && q1.cy != Scalar(0)));
  Ew<Scalar, 4, 2> e;
  e.in[0] = X, e.ldi[0] = ldx;
  e.in[1] = needY ? Y : nullptr, e.ldi[1] = needY ? ldy : 1;
  e.in[2] = (o0.beta != Scalar(0)) ? o0.p : nullptr, e.ldi[2] = o0.ld;
  e.in[3] = (two && q1.beta != Scalar(0)) ? q1.p : nullptr, e.ldi[3] = q1.ld;
  e.out[0] = o0.p, e.ldo[0] = o0.ld;
  e.out[1] = two ? q1.p : nullptr, e.ldo[1] = q1.ld;
  e.rows = rows, e.cols = cols;
  return launch_ew<Scalar, 4, 2>(s, e, CombF<Scalar>{o0.beta, o0.cx, o0.cy, q1.beta, q1.cx, q1.cy});
}

template <class Scalar>
cudaError_t launch_scale(cudaStream_t s, i64 rows, i64 cols, Scalar beta, Scalar* C, i64 ldc) {
  if (rows == 0 || cols == 0 || beta == Scalar(1)) return cudaSuccess;
  Ew<Scalar, 1, 1> e;
  e.in[0] = (beta != Scalar(0)) ? C : nullptr, e.ldi[0] = ldc;
  e.out[0] = C, e.ldo[0] = ldc;
  e.rows = rows, e.cols = cols;
  return launch_ew<Scalar, 1, 1>(s, e, ScaleF<Scalar>{beta});
}

}  // namespace strassen_detail
}  // namespace cuda
}  // namespace kbla
