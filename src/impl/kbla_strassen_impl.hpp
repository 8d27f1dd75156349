// Portable Strassen / Winograd for kbla::strassen_gemm (any execution space; the reference the CUDA path is
// tested against, and the path for complex scalars, strided Views without a unit stride, and every backend
// without a vendor path).
//
// C = alpha * op(A) * op(B) + beta * C by recursion over 2 x 2 blocks: a level scales C by beta (beta = 0 writes
// zeros, never reads C), then forms operand sums S (m/2 x k/2) and T (k/2 x n/2) in workspace, multiplies them
// by the next level (or by KokkosBlas::gemm at a leaf) into P (m/2 x n/2) or straight into a C quadrant, and
// adds P into the C quadrants it belongs to. Winograd's variant keeps a fourth block U (= M1 + M6, then + M7,
// the shared partial sums of its 15-addition form). Recursion stops after `levels` levels or when
// min(m, n, k) < tau; the leaves are KokkosBlas::gemm on exec (impl/kbla_blas_gemm.hpp).
//
// Odd sizes: dynamic peeling. A level splits the even part 2m' x 2k' x 2n' (m' = floor(m/2), ...) and fixes up
// the rest with classical leaf products: the last k column/row (rank-1 update of the even C block), the last
// column of C (all rows), the last row of C (even columns). No padding, no copies of A or B.
//
// Layouts and transposes: every View is viewed as an unmanaged LayoutStride View (one instantiation of the
// recursion per scalar type and memory space, whatever the user's layouts); op(A) / op(B) blocks are subviews of
// A / B with the transposition kept as 'N'/'T'/'C'; operand sums apply op() while they are formed, so workspace
// blocks are plain ('N') column-major matrices. Leaves whose three blocks each have a unit-stride direction
// (the usual case: workspace, LayoutLeft / LayoutRight Views and their subviews) call KokkosBlas::gemm on
// LayoutLeft Views (row-major blocks as transposed column-major ones, C^T = op(B)^T op(A)^T for a row-major C),
// so that its BLAS / cuBLAS TPL can take them; the rest (no unit stride, or a conjugate without transpose
// that such a flip would need for complex data) call it on the strided Views (Kokkos Kernels' own kernel).
//
// Workspace: one block per call (the 7 products of a level run one after another and share the space of the
// level below): from options.workspace when given, else a Kokkos::View in C's memory space.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <impl/kbla_blas_gemm.hpp>
#include <impl/kbla_scale.hpp>
#include <impl/kbla_strassen_kernels.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace kbla {
namespace Impl {

constexpr std::int64_t kStrassenPortableTau = 64;  // default recursion threshold of the portable path
constexpr std::size_t kStrassenAlign = 128;        // bytes; every workspace block starts on this boundary

// Levels an algorithm asks for (classical: 0, a single leaf).
inline int nominal_strassen_levels(const GemmOptions& o) {
  switch (o.algorithm) {
    case GemmAlgorithm::strassen: return 1;
    case GemmAlgorithm::strassen2: return 2;
    case GemmAlgorithm::strassen_conventional: return o.levels;
    case GemmAlgorithm::winograd: return o.levels;
    default: return 0;
  }
}

struct StrassenPlan {
  bool winograd = false;
  int levels = 0;
  std::int64_t tau = kStrassenPortableTau;
  // Whether a (sub-)product at recursion depth `level` is split.
  bool splits(int level, std::int64_t m, std::int64_t n, std::int64_t k) const {
    return level < levels && std::min({m, n, k}) >= tau;
  }
  // Levels the recursion takes for an m x n x k product (0: a single classical leaf).
  int levels_for(std::int64_t m, std::int64_t n, std::int64_t k) const {
    int level = 0;
    while (splits(level, m, n, k)) {
      m /= 2;
      n /= 2;
      k /= 2;
      ++level;
    }
    return level;
  }
};

inline StrassenPlan strassen_plan(const GemmOptions& o) {
  StrassenPlan p;
  p.winograd = o.algorithm == GemmAlgorithm::winograd;
  p.levels = nominal_strassen_levels(o);
  p.tau = o.winograd_tau > 0 ? std::max<std::int64_t>(o.winograd_tau, 2) : kStrassenPortableTau;
  return p;
}

// Which code the portable path runs for these options: 0 the Strassen recursion (strassen, strassen2 and
// strassen_conventional alike), 1 the Winograd recursion (GemmAlgorithm::automatic times each once per level count).
inline int portable_strassen_implementation(const GemmOptions& o) { return strassen_plan(o).winograd ? 1 : 0; }

inline std::size_t strassen_block_bytes(std::int64_t rows, std::int64_t cols, std::size_t scalar_bytes) {
  const std::size_t b = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * scalar_bytes;
  return (b + kStrassenAlign - 1) / kStrassenAlign * kStrassenAlign;
}

// Workspace of the recursion from depth `level` down (0 when nothing is split).
inline std::size_t strassen_level_bytes(const StrassenPlan& p, std::size_t scalar_bytes, int level, std::int64_t m,
                                        std::int64_t n, std::int64_t k) {
  if (!p.splits(level, m, n, k)) return 0;
  const std::int64_t m2 = m / 2, n2 = n / 2, k2 = k / 2;
  return strassen_block_bytes(m2, k2, scalar_bytes) + strassen_block_bytes(k2, n2, scalar_bytes) +
         strassen_block_bytes(m2, n2, scalar_bytes) * (p.winograd ? 2 : 1) +
         strassen_level_bytes(p, scalar_bytes, level + 1, m2, n2, k2);
}

// What a caller-provided workspace must hold for the portable path (room to align its start included).
inline std::size_t portable_strassen_workspace_bytes(const GemmOptions& o, std::size_t scalar_bytes, std::int64_t m,
                                                     std::int64_t n, std::int64_t k) {
  const std::size_t b = strassen_level_bytes(strassen_plan(o), scalar_bytes, 0, m, n, k);
  return b == 0 ? 0 : b + kStrassenAlign;
}

[[noreturn]] inline void throw_workspace_too_small(const char* call, std::size_t given, std::size_t needed) {
  throw_invalid(std::string(call) + ": options.workspace_bytes is " + std::to_string(given) +
                " but this call needs " + std::to_string(needed) + " bytes (kbla::strassen_workspace_bytes)");
}

template <class ExecSpace, class Scalar, class MemSpace>
struct StrassenPortable {
  using Device = Kokkos::Device<ExecSpace, MemSpace>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
  using CMV = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  using Range = std::pair<std::int64_t, std::int64_t>;

  // op(v) with op in {'N', 'T', 'C'}.
  struct Op {
    CMV v;
    char t;
    std::int64_t rows() const { return t == 'N' ? v.extent(0) : v.extent(1); }
    std::int64_t cols() const { return t == 'N' ? v.extent(1) : v.extent(0); }
    // Rows [r0, r1) and columns [c0, c1) of op(v).
    Op block(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) const {
      if (t == 'N') return Op{CMV(Kokkos::subview(v, Range(r0, r1), Range(c0, c1))), t};
      return Op{CMV(Kokkos::subview(v, Range(c0, c1), Range(r0, r1))), t};
    }
  };

  // Carves column-major blocks off the workspace, front to back.
  struct Workspace {
    char* next;
    MV take(std::int64_t rows, std::int64_t cols) {
      MV w(reinterpret_cast<Scalar*>(next), Kokkos::LayoutStride(rows, 1, cols, rows));
      next += strassen_block_bytes(rows, cols, sizeof(Scalar));
      return w;
    }
  };

  // ---- leaves: KokkosBlas::gemm, on column-major (LayoutLeft) Views where the blocks allow it
  using LL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device, Unmanaged>;
  using CLL = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device, Unmanaged>;

  // A strided block X as a column-major matrix Y: Y = X (transposed = false) or Y = X^T (true), Y is rows x cols
  // with leading dimension ld >= rows. ok = false: no unit-stride direction.
  struct ColMajor {
    bool ok = false, transposed = false;
    std::int64_t rows = 0, cols = 0, ld = 1;
  };
  template <class View>
  static ColMajor col_major(const View& X) {
    const std::int64_t r = X.extent(0), c = X.extent(1), s0 = X.stride(0), s1 = X.stride(1);
    ColMajor y;
    if (s0 == 1 && (c <= 1 || s1 >= r)) {
      y = {true, false, r, c, c <= 1 ? std::max<std::int64_t>(r, 1) : s1};
    } else if (s1 == 1 && (r <= 1 || s0 >= c)) {
      y = {true, true, c, r, r <= 1 ? std::max<std::int64_t>(c, 1) : s0};
    } else if (r <= 1 && s1 >= 1) {
      y = {true, false, r, c, s1};
    } else if (c <= 1 && s0 >= 1) {
      y = {true, true, c, r, s0};
    }
    return y;
  }
  // A LayoutLeft View with leading dimension ld: the first `rows` rows of an ld x cols parent.
  template <class Value>
  static Kokkos::View<Value**, Kokkos::LayoutLeft, Device, Unmanaged> left_view(Value* p, const ColMajor& y) {
    const Kokkos::View<Value**, Kokkos::LayoutLeft, Device, Unmanaged> parent(p, y.ld, y.cols);
    return Kokkos::subview(parent, Range(0, y.rows), Kokkos::ALL);
  }
  // The BLAS op of Y that gives op_t(X) (or its transpose when C is computed transposed); false when that
  // would be a conjugate without transpose.
  static bool blas_op(char t, bool stored_transposed, bool c_transposed, char& out) {
    const bool conj = t == 'C' && ATS::is_complex;
    bool trans = t != 'N';
    if (stored_transposed) trans = !trans;
    if (c_transposed) trans = !trans;
    if (conj && !trans) return false;
    out = trans ? (conj ? 'C' : 'T') : 'N';
    return true;
  }

  // C = alpha op(A) op(B) + beta C by KokkosBlas::gemm.
  static void leaf(const ExecSpace& exec, const Scalar& alpha, const Op& A, const Op& B, const Scalar& beta,
                   const MV& C) {
    const ColMajor ca = col_major(A.v), cb = col_major(B.v), cc = col_major(C);
    if (ca.ok && cb.ok && cc.ok) {
      const bool tc = cc.transposed;  // column-major C^T = op(B)^T op(A)^T
      const Op& F = tc ? B : A;
      const Op& G = tc ? A : B;
      const ColMajor& cf = tc ? cb : ca;
      const ColMajor& cg = tc ? ca : cb;
      char tf = 'N', tg = 'N';
      if (blas_op(F.t, cf.transposed, tc, tf) && blas_op(G.t, cg.transposed, tc, tg)) {
        blas_gemm(exec, tf, tg, alpha, CLL(left_view(F.v.data(), cf)), CLL(left_view(G.v.data(), cg)), beta,
                  LL(left_view(C.data(), cc)));
        return;
      }
    }
    blas_gemm(exec, A.t, B.t, alpha, A.v, B.v, beta, C);
  }

  static MV block(const MV& C, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    return MV(Kokkos::subview(C, Range(r0, r1), Range(c0, c1)));
  }

  // W = a op(X) + b op(Y), returned as an operand.
  static Op sum(const ExecSpace& exec, const MV& W, const Scalar& a, const Op& X, const Scalar& b, const Op& Y) {
    sum_operands(exec, W, a, X.v, X.t, b, Y.v, Y.t);
    return Op{CMV(W), 'N'};
  }
  static void add(const ExecSpace& exec, const MV& C1, const Scalar& s1, const MV& C2, const Scalar& s2,
                  const MV& P) {
    add_product(exec, C1, s1, C2, s2, CMV(P));
  }

  // C = alpha op(A) op(B) + beta C, split while the plan says so.
  static void multiply(const ExecSpace& exec, const StrassenPlan& plan, int level, const Scalar& alpha, const Op& A,
                       const Op& B, const Scalar& beta, const MV& C, Workspace ws) {
    const std::int64_t m = C.extent(0), n = C.extent(1), k = A.cols();
    if (!plan.splits(level, m, n, k)) {
      leaf(exec, alpha, A, B, beta, C);
      return;
    }
    scale_matrix(exec, beta, C);  // from here on the level only adds into C
    const std::int64_t m2 = m / 2, n2 = n / 2, k2 = k / 2;
    const Op A11 = A.block(0, m2, 0, k2), A12 = A.block(0, m2, k2, 2 * k2);
    const Op A21 = A.block(m2, 2 * m2, 0, k2), A22 = A.block(m2, 2 * m2, k2, 2 * k2);
    const Op B11 = B.block(0, k2, 0, n2), B12 = B.block(0, k2, n2, 2 * n2);
    const Op B21 = B.block(k2, 2 * k2, 0, n2), B22 = B.block(k2, 2 * k2, n2, 2 * n2);
    const MV C11 = block(C, 0, m2, 0, n2), C12 = block(C, 0, m2, n2, 2 * n2);
    const MV C21 = block(C, m2, 2 * m2, 0, n2), C22 = block(C, m2, 2 * m2, n2, 2 * n2);
    const MV S = ws.take(m2, k2), T = ws.take(k2, n2), P = ws.take(m2, n2);
    const MV U = plan.winograd ? ws.take(m2, n2) : MV();
    const Level lv{exec, plan, level + 1, alpha, ws};
    if (plan.winograd) {
      lv.winograd(A11, A12, A21, A22, B11, B12, B21, B22, C11, C12, C21, C22, S, T, P, U);
    } else {
      lv.strassen(A11, A12, A21, A22, B11, B12, B21, B22, C11, C12, C21, C22, S, T, P);
    }
    // Peeling: the parts of the product the even 2m' x 2k' x 2n' split left out, as classical leaf products.
    const Scalar one = ATS::one();
    if (k % 2 != 0) leaf(exec, alpha, A.block(0, 2 * m2, k - 1, k), B.block(k - 1, k, 0, 2 * n2), one,
                         block(C, 0, 2 * m2, 0, 2 * n2));
    if (n % 2 != 0) leaf(exec, alpha, A, B.block(0, k, n - 1, n), one, block(C, 0, m, n - 1, n));
    if (m % 2 != 0) leaf(exec, alpha, A.block(m - 1, m, 0, k), B.block(0, k, 0, 2 * n2), one,
                         block(C, m - 1, m, 0, 2 * n2));
  }

  // The 7 products of one level; C already holds beta * C.
  struct Level {
    const ExecSpace& exec;
    const StrassenPlan& plan;
    int next;  // depth of the sub-products
    Scalar alpha;
    Workspace ws;  // what is left for the sub-products

    // C += sign * alpha * X Y (beta = 1 straight into a C quadrant), or P = alpha * X Y (beta = 0).
    void into(const Op& X, const Op& Y, const Scalar& beta, const MV& C, const Scalar& sign = ATS::one()) const {
      multiply(exec, plan, next, sign * alpha, X, Y, beta, C, ws);
    }

    // Strassen (1969): C11 = M1 + M4 - M5 + M7, C12 = M3 + M5, C21 = M2 + M4, C22 = M1 - M2 + M3 + M6.
    void strassen(const Op& A11, const Op& A12, const Op& A21, const Op& A22, const Op& B11, const Op& B12,
                  const Op& B21, const Op& B22, const MV& C11, const MV& C12, const MV& C21, const MV& C22,
                  const MV& S, const MV& T, const MV& P) const {
      const Scalar one = ATS::one(), mone = -ATS::one(), zero = ATS::zero();
      into(sum(exec, S, one, A11, one, A22), sum(exec, T, one, B11, one, B22), zero, P);  // M1
      add(exec, C11, one, C22, one, P);
      into(sum(exec, S, one, A21, one, A22), B11, zero, P);  // M2
      add(exec, C21, one, C22, mone, P);
      into(A11, sum(exec, T, one, B12, mone, B22), zero, P);  // M3
      add(exec, C12, one, C22, one, P);
      into(A22, sum(exec, T, one, B21, mone, B11), zero, P);  // M4
      add(exec, C11, one, C21, one, P);
      into(sum(exec, S, one, A11, one, A12), B22, zero, P);  // M5
      add(exec, C11, mone, C12, one, P);
      into(sum(exec, S, one, A21, mone, A11), sum(exec, T, one, B11, one, B12), one, C22);  // M6
      into(sum(exec, S, one, A12, mone, A22), sum(exec, T, one, B21, one, B22), one, C11);  // M7
    }

    // Winograd's variant (15 additions; Higham Sec. 23.2.2, Li et al. 2011 Fig. 4):
    //   S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2,
    //   T1 = B12 - B11, T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21,
    //   M1 = A11 B11, M2 = A12 B21, M3 = S4 B22, M4 = A22 T4, M5 = S1 T1, M6 = S2 T2, M7 = S3 T3,
    //   U2 = M1 + M6, U3 = U2 + M7: C11 = M1 + M2, C12 = U2 + M5 + M3, C21 = U3 - M4, C22 = U3 + M5.
    void winograd(const Op& A11, const Op& A12, const Op& A21, const Op& A22, const Op& B11, const Op& B12,
                  const Op& B21, const Op& B22, const MV& C11, const MV& C12, const MV& C21, const MV& C22,
                  const MV& S, const MV& T, const MV& P, const MV& U) const {
      const Scalar one = ATS::one(), mone = -ATS::one(), zero = ATS::zero();
      const MV none;
      into(A11, B11, zero, U);  // U = M1
      add(exec, C11, one, none, zero, U);
      const Op S1 = sum(exec, S, one, A21, one, A22), T1 = sum(exec, T, one, B12, mone, B11);
      into(S1, T1, zero, P);  // M5
      add(exec, C12, one, C22, one, P);
      const Op S2 = sum(exec, S, one, S1, mone, A11), T2 = sum(exec, T, one, B22, mone, T1);
      into(S2, T2, zero, P);  // M6
      add(exec, U, one, none, zero, P);  // U = U2
      add(exec, C12, one, none, zero, U);
      into(sum(exec, S, one, A12, mone, S2), B22, one, C12);  // C12 += M3 (S4 B22)
      into(A22, sum(exec, T, one, T2, mone, B21), one, C21, mone);  // C21 -= M4 (A22 T4)
      into(sum(exec, S, one, A11, mone, A21), sum(exec, T, one, B22, mone, B12), one, U);  // U = U3 = U2 + M7
      add(exec, C21, one, C22, one, U);
      into(A12, B21, one, C11);  // C11 += M2
    }
  };

  template <class AView, class BView, class CView>
  static void run(const ExecSpace& exec, char tA, char tB, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const GemmOptions& options, const char* call) {
    const StrassenPlan plan = strassen_plan(options);
    const Op a{CMV(A), tA}, b{CMV(B), tB};
    const MV c(C);
    const std::size_t bytes = strassen_level_bytes(plan, sizeof(Scalar), 0, c.extent(0), c.extent(1), a.cols());
    Kokkos::View<char*, MemSpace> owned;
    char* base = nullptr;
    if (bytes > 0) {
      if (options.workspace != nullptr) {
        if (options.workspace_bytes < bytes + kStrassenAlign)
          throw_workspace_too_small(call, options.workspace_bytes, bytes + kStrassenAlign);
        const auto p = reinterpret_cast<std::uintptr_t>(options.workspace);
        base = reinterpret_cast<char*>((p + kStrassenAlign - 1) / kStrassenAlign * kStrassenAlign);
      } else {
        owned = Kokkos::View<char*, MemSpace>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::strassen workspace"), bytes);
        base = owned.data();
      }
    }
    multiply(exec, plan, 0, alpha, a, b, beta, c, Workspace{base});
    if (owned.data() != nullptr) exec.fence();  // the last kernels may still read the workspace
  }
};

// The portable path for any Views: the recursion runs in C's memory space; A and B must live there too (else a
// classical KokkosBlas::gemm, as mixing memory spaces is not something the recursion's one View type can hold).
template <class ExecSpace, class AView, class BView, class CView>
void strassen_portable(const ExecSpace& exec, char tA, char tB, typename CView::const_value_type& alpha,
                       const AView& A, const BView& B, typename CView::const_value_type& beta, const CView& C,
                       const GemmOptions& options, const char* call) {
  using Mem = typename CView::memory_space;
  using Scalar = typename CView::non_const_value_type;
  if constexpr (std::is_same<typename AView::memory_space, Mem>::value &&
                std::is_same<typename BView::memory_space, Mem>::value) {
    StrassenPortable<ExecSpace, Scalar, Mem>::run(exec, tA, tB, alpha, A, B, beta, C, options, call);
  } else {
    blas_gemm(exec, tA, tB, alpha, A, B, beta, C);
  }
}

}  // namespace Impl
}  // namespace kbla
