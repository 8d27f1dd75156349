// Raw-kernel test of kbla::cuda::simt_gemm and kbla::cuda::strassen_fused (float, double) against a CPU
// reference (double accumulation for float inputs: the products are exact and the sum error is 2^-53 k, far
// below the float tolerance; long double for double inputs). No Kokkos, no GoogleTest.
// Usage: kbla_strassen_kernels_raw_tests [--quick]   (--quick: a reduced set, for compute-sanitizer)
// Prints one line per failure and a final "N passed, N failed"; exit code 0 iff nothing failed.
// Every float case runs on all three SIMT tile shapes (simt_tile 1 = classic 128x128x8, 2 = wide 256x128x8,
// 3 = wide_async: wide's tiles fed by a 3-stage cp.async ring; passed explicitly); double has one shape (run once,
// simt_tile 0).
//
// Every case runs on submatrices inside larger buffers: A and B are surrounded by NaN (rows ld > extent, and guard
// elements before / after), so any read outside op(A) / op(B) spreads NaN into C and fails; C is surrounded by a
// sentinel that must be bit-identical afterwards (nothing outside C written). beta == 0 cases fill C with NaN.
//
// Tolerances (u = eps / 2 the unit roundoff; |A||B| the elementwise product of absolute values):
//  * classical: each C_ij is a k-term fma chain, then alpha * acc + beta * C: |err_ij| <= gamma_{k+2} ~ (k + 2) u
//    (|alpha| (|A||B|)_ij + |beta C_ij|). We allow (k + 4) eps, about 2x the bound.
//  * Strassen, one level (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 23.3, max norms
//    ||X|| = max |x_ij|): ||C - C^|| <= [12 (k1^2 + 5 k1) - 10 k1] u ||A|| ||B|| + O(u^2), k1 = ceil(k / 2) the leaf
//    inner dimension. The 12 is the operand count of the worst quadrant (C00 = M1 + M4 - M5 + M7 with
//    4 + 2 + 2 + 4 summed operand pairs); zero padding of odd quadrants adds exact zeros only. We allow
//    eps |alpha| (12 k1^2 + 60 k1 + 12) ||A|| ||B|| on top of the classical term (again ~2x the bound; the
//    atomic accumulation order into C does not change the bound).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kbla_cuda_strassen.hpp"
#include "raw_test_support.hpp"

static std::mt19937_64 g_rng(20240611);


template <class T>
struct Tr;
template <>
struct Tr<float> {
  using Acc = double;
  static const char* name() { return "S"; }
};
template <>
struct Tr<double> {
  using Acc = long double;
  static const char* name() { return "D"; }
};

// ld modes: 0 tight (ld = max(1, rows)), 1 aligned (ld a multiple of 4 plus 4: the 128-bit path),
// 2 odd (ld = rows + 3 and the submatrix starts one element into its buffer: the scalar path).
struct Case {
  char ta, tb;
  std::int64_t m, n, k;
  int modeA, modeB, modeC;
  double alpha, beta;
  bool nanC;     // beta must be 0: C starts as NaN
  bool sampled;  // check a random sample of entries (large sizes)
};

static const std::int64_t kGuard = 37;

struct Layout {
  std::int64_t rows, cols, ld, off, size;
};
static Layout layout(std::int64_t rows, std::int64_t cols, int mode) {
  Layout l{rows, cols, 0, 0, 0};
  const std::int64_t r1 = std::max<std::int64_t>(1, rows);
  l.ld = mode == 0 ? r1 : mode == 1 ? (r1 + 3) / 4 * 4 + 4 : r1 + 3;
  l.off = mode == 2 ? 1 : 0;
  l.size = l.off + l.ld * cols + kGuard;
  return l;
}

template <class T>
struct Problem {
  Case c;
  Layout la, lb, lc;
  std::vector<T> A, B, C0;
  double maxA = 0, maxB = 0;
  T opA(std::int64_t i, std::int64_t l) const {
    return c.ta == 'N' ? A[la.off + i + l * la.ld] : A[la.off + l + i * la.ld];
  }
  T opB(std::int64_t l, std::int64_t j) const {
    return c.tb == 'N' ? B[lb.off + l + j * lb.ld] : B[lb.off + j + l * lb.ld];
  }
  T c0(std::int64_t i, std::int64_t j) const { return C0[lc.off + i + j * lc.ld]; }
};

template <class T>
static Problem<T> make_problem(const Case& c) {
  Problem<T> p;
  p.c = c;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T sentinel = T(-1234.5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  p.la = c.ta == 'N' ? layout(c.m, c.k, c.modeA) : layout(c.k, c.m, c.modeA);
  p.lb = c.tb == 'N' ? layout(c.k, c.n, c.modeB) : layout(c.n, c.k, c.modeB);
  p.lc = layout(c.m, c.n, c.modeC);
  auto fill = [&](std::vector<T>& v, const Layout& l, T outside, bool nan_inside, double* mx) {
    v.assign(l.size, outside);
    for (std::int64_t j = 0; j < l.cols; ++j)
      for (std::int64_t i = 0; i < l.rows; ++i) {
        const T x = nan_inside ? nan : T(u(g_rng));
        v[l.off + i + j * l.ld] = x;
        if (mx && !nan_inside) *mx = std::max(*mx, double(std::fabs(x)));
      }
  };
  fill(p.A, p.la, nan, false, &p.maxA);
  fill(p.B, p.lb, nan, false, &p.maxB);
  fill(p.C0, p.lc, sentinel, c.nanC, nullptr);
  return p;
}

enum class Algo { gemm, strassen };

template <class T>
static void run_one(const Problem<T>& p, Algo algo, int tile) {
  const Case& c = p.c;
  char label[256];
  std::snprintf(label, sizeof label, "%s %s tile=%d %c%c m=%lld n=%lld k=%lld modes=%d%d%d alpha=%g beta=%g%s",
                Tr<T>::name(), algo == Algo::gemm ? "simt_gemm" : "strassen_fused", tile, c.ta, c.tb, (long long)c.m,
                (long long)c.n, (long long)c.k, c.modeA, c.modeB, c.modeC, c.alpha, c.beta, c.nanC ? " (C=NaN)" : "");

  T *dA, *dB, *dC;
  CK(cudaMalloc(&dA, p.A.size() * sizeof(T)));
  CK(cudaMalloc(&dB, p.B.size() * sizeof(T)));
  CK(cudaMalloc(&dC, p.C0.size() * sizeof(T)));
  CK(cudaMemcpy(dA, p.A.data(), p.A.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, p.B.data(), p.B.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, p.C0.data(), p.C0.size() * sizeof(T), cudaMemcpyHostToDevice));
  cudaError_t e;
  if (algo == Algo::gemm)
    e = kbla::cuda::simt_gemm<T>(0, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha), dA + p.la.off, p.la.ld, dB + p.lb.off,
                                 p.lb.ld, T(c.beta), dC + p.lc.off, p.lc.ld, tile);
  else
    e = kbla::cuda::strassen_fused<T>(0, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha), dA + p.la.off, p.la.ld,
                                      dB + p.lb.off, p.lb.ld, T(c.beta), dC + p.lc.off, p.lc.ld, tile);
  cudaError_t e2 = cudaDeviceSynchronize();
  std::vector<T> C(p.C0.size());
  CK(cudaMemcpy(C.data(), dC, C.size() * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  if (e != cudaSuccess || e2 != cudaSuccess) {
    std::printf("FAIL %s: returned %s, sync %s\n", label, cudaGetErrorString(e), cudaGetErrorString(e2));
    ++g_fail;
    return;
  }

  // Nothing outside the submatrix written (bitwise: the sentinel is not a NaN).
  std::int64_t bad_guard = 0;
  for (std::int64_t idx = 0; idx < std::int64_t(C.size()); ++idx) {
    const std::int64_t rel = idx - p.lc.off;
    const bool inside = rel >= 0 && rel < p.lc.ld * c.n && rel % p.lc.ld < c.m;
    if (!inside && std::memcmp(&C[idx], &p.C0[idx], sizeof(T)) != 0) ++bad_guard;
  }

  // Entries to check.
  std::vector<std::pair<std::int64_t, std::int64_t>> ij;
  if (!c.sampled) {
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i) ij.emplace_back(i, j);
  } else if (c.m > 0 && c.n > 0) {
    std::uniform_int_distribution<std::int64_t> ri(0, c.m - 1), rj(0, c.n - 1);
    for (int s = 0; s < 3000; ++s) ij.emplace_back(ri(g_rng), rj(g_rng));
    const std::int64_t m1 = (c.m + 1) / 2, n1 = (c.n + 1) / 2;  // quadrant and tile edges
    for (std::int64_t i : {std::int64_t(0), m1 - 1, m1, c.m - 1, std::int64_t(127), std::int64_t(128),
                           std::int64_t(255), std::int64_t(256), m1 + 255, m1 + 256})
      for (std::int64_t j : {std::int64_t(0), n1 - 1, n1, c.n - 1, std::int64_t(63), std::int64_t(64),
                             std::int64_t(127), std::int64_t(128), n1 + 127, n1 + 128})
        if (i >= 0 && i < c.m && j >= 0 && j < c.n) ij.emplace_back(i, j);
  }

  using Acc = typename Tr<T>::Acc;
  const double eps = std::numeric_limits<T>::epsilon();
  const double k1 = double((c.k + 1) / 2);
  const double strassen_term =
      algo == Algo::strassen ? eps * std::fabs(c.alpha) * (12 * k1 * k1 + 60 * k1 + 12) * p.maxA * p.maxB : 0.0;
  std::int64_t bad = 0;
  double worst = 0;  // max |err| / tol
  std::int64_t wi = -1, wj = -1;
  double wgot = 0, wref = 0;
  std::vector<double> errs(ij.size()), tols(ij.size()), refs(ij.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
#endif
  for (std::int64_t t = 0; t < std::int64_t(ij.size()); ++t) {
    const std::int64_t i = ij[t].first, j = ij[t].second;
    Acc s = 0, a = 0;
    for (std::int64_t l = 0; l < c.k; ++l) {
      const Acc x = Acc(p.opA(i, l)) * Acc(p.opB(l, j));
      s += x;
      a += x < 0 ? -x : x;
    }
    Acc ref = Acc(c.alpha) * s, absref = Acc(std::fabs(c.alpha)) * a;
    if (c.beta != 0) {
      ref += Acc(c.beta) * Acc(p.c0(i, j));
      absref += Acc(std::fabs(c.beta * double(p.c0(i, j))));
    }
    const double got = double(C[p.lc.off + i + j * p.lc.ld]);
    errs[t] = std::fabs(double(Acc(got) - ref));
    tols[t] = (double(c.k) + 4) * eps * double(absref) + strassen_term + 4 * double(std::numeric_limits<T>::min());
    refs[t] = double(ref);
  }
  for (std::size_t t = 0; t < ij.size(); ++t) {
    const double r = errs[t] / tols[t];
    if (!(errs[t] <= tols[t])) ++bad;  // NaN counts as bad
    if (!(r <= worst)) {
      worst = r;
      wi = ij[t].first;
      wj = ij[t].second;
      wgot = double(C[p.lc.off + wi + wj * p.lc.ld]);
      wref = refs[t];
    }
  }
  if (bad || bad_guard) {
    std::printf("FAIL %s: %lld of %zu entries out of tolerance (worst err/tol %.3g at (%lld,%lld): got %.9g ref "
                "%.9g), %lld guard elements changed\n",
                label, (long long)bad, ij.size(), worst, (long long)wi, (long long)wj, wgot, wref,
                (long long)bad_guard);
    ++g_fail;
  } else {
    ++g_pass;
  }
}

template <class T>
static void run_case(const Case& c) {
  const Problem<T> p = make_problem<T>(c);
  if (std::is_same<T, float>::value) {
    for (int tile : {1, 2, 3}) {
      run_one<T>(p, Algo::gemm, tile);
      run_one<T>(p, Algo::strassen, tile);
    }
  } else {
    run_one<T>(p, Algo::gemm, 0);
    run_one<T>(p, Algo::strassen, 0);
  }
}

static void run_both(const Case& c) {
  run_case<float>(c);
  run_case<double>(c);
}

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--quick") quick = true;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no CUDA device\n0 passed, 1 failed\n");
    return 1;
  }

  struct AB {
    double alpha, beta;
    bool nanC;
  };
  const AB abs_[] = {{1.0, 0.0, true}, {1.5, -0.5, false}, {-1.0, 1.0, false}, {0.75, 2.0, false},
                     {2.0, 0.0, true}};
  const char ops[] = {'N', 'T', 'C'};

  // 1. All 9 trans pairs over odd / prime / unequal shapes, cycling ld modes and alpha / beta.
  std::vector<std::array<std::int64_t, 3>> shapes =
      quick ? std::vector<std::array<std::int64_t, 3>>{{1, 1, 1}, {3, 3, 3}, {7, 5, 3}, {33, 31, 65}, {65, 129, 63}}
            : std::vector<std::array<std::int64_t, 3>>{{1, 1, 1},     {2, 2, 2},     {3, 3, 3},     {7, 5, 3},
                                                       {31, 33, 63},  {65, 63, 127}, {129, 127, 65}, {257, 129, 33},
                                                       {33, 257, 129}, {1, 257, 7},  {127, 1, 65},  {3, 65, 257},
                                                       {63, 65, 31},  {2, 3, 1},     {128, 128, 16}};
  int ci = 0;
  for (char ta : ops)
    for (char tb : ops)
      for (const auto& s : shapes) {
        const AB& ab = abs_[ci % 5];
        run_both(Case{ta, tb, s[0], s[1], s[2], ci % 3, (ci + 1) % 3, (ci + 2) % 3, ab.alpha, ab.beta, ab.nanC,
                      false});
        ++ci;
      }

  // 2. Square sizes, aligned (vector loads) and tight / transposed (scalar loads where odd).
  const std::int64_t sizes_full[] = {1, 2, 3, 7, 31, 33, 63, 65, 127, 129, 257};
  const std::int64_t sizes_quick[] = {1, 2, 3, 31, 65};
  const std::int64_t* sz = quick ? sizes_quick : sizes_full;
  const int nsz = quick ? 5 : 11;
  for (int i = 0; i < nsz; ++i) {
    run_both(Case{'N', 'N', sz[i], sz[i], sz[i], 1, 1, 1, 1.0, 0.0, true, false});
    if (!quick) run_both(Case{'T', 'T', sz[i], sz[i], sz[i], 0, 0, 2, -1.0, 0.5, false, false});
  }

  // 3. Degenerate: k = 0, alpha = 0 (C = beta C, beta = 0 writes zeros over NaN), m = 0, n = 0 (nothing written).
  for (char t : {'N', 'T'}) {
    run_both(Case{t, 'N', 17, 9, 0, 0, 2, 1, 1.0, 0.0, true, false});
    run_both(Case{t, 'T', 17, 9, 0, 2, 0, 1, 1.0, 0.5, false, false});
    run_both(Case{'N', t, 33, 65, 31, 1, 1, 2, 0.0, 0.0, true, false});
    run_both(Case{'N', t, 33, 65, 31, 1, 1, 0, 0.0, 2.0, false, false});
    run_both(Case{t, t, 0, 5, 3, 0, 0, 0, 1.0, 0.5, false, false});
    run_both(Case{t, t, 5, 0, 3, 0, 0, 0, 1.0, 0.5, false, false});
    run_both(Case{t, t, 0, 0, 0, 0, 0, 0, 1.0, 0.0, false, false});
  }

  // 4. Larger, checked on a sample: multi-tile grids, long k, beta == 1 (no scaling pass).
  if (quick) {
    run_both(Case{'N', 'T', 257, 263, 269, 1, 2, 1, 1.0, 1.0, false, true});
  } else {
    run_both(Case{'N', 'N', 1024, 1024, 1024, 1, 1, 1, 1.0, 0.0, true, true});
    run_both(Case{'T', 'N', 1023, 1025, 1027, 2, 1, 0, -0.5, 1.0, false, true});
    run_both(Case{'T', 'T', 1024, 1000, 1030, 1, 1, 1, 1.0, -1.0, false, true});
    run_both(Case{'N', 'C', 517, 1031, 2053, 0, 2, 1, 2.0, 0.0, true, true});
    run_both(Case{'N', 'N', 65, 67, 1500, 2, 2, 2, 1.0, 0.25, false, false});
    // Fully checked, several wide tiles (256 x 128) and Strassen quadrants spanning more than one of them.
    run_both(Case{'N', 'N', 1030, 270, 33, 1, 1, 1, 1.0, 0.0, true, false});
    run_both(Case{'T', 'N', 521, 290, 45, 2, 1, 0, -1.0, 0.5, false, false});
    run_both(Case{'N', 'T', 300, 517, 19, 0, 2, 2, 1.0, 0.0, true, false});
    run_both(Case{'T', 'T', 513, 259, 24, 1, 0, 1, 0.5, 1.0, false, false});
    // Long k, fully checked: many slabs through the 3-stage ring (wrap-around, k % 8 != 0 tail slab), 16-byte and
    // 4-byte cp.async paths (ld mode 1 aligned, 2 offset by one element), every trans pair's staging.
    run_both(Case{'N', 'N', 260, 130, 1001, 1, 1, 1, 1.0, 0.0, true, false});
    run_both(Case{'T', 'T', 259, 131, 997, 1, 1, 0, 1.0, 0.0, true, false});
    run_both(Case{'N', 'T', 270, 140, 603, 2, 2, 1, -1.0, 0.5, false, false});
    run_both(Case{'T', 'N', 257, 129, 605, 1, 2, 2, 1.0, 0.0, true, false});
  }

  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
