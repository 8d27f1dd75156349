// Raw test of the workspace Strassen paths (kbla::cuda::strassen_gemm: conventional levels 1/2, hybrid,
// Winograd levels 1/2 with a small tau so recursion happens at test sizes, plus the forwarded fused path and
// conventional over simt_gemm leaves) against a CPU long-double reference. No Kokkos, no GoogleTest.
// Each workspace algorithm runs in both schedules: batched additions (default) and low_memory (run-1 schedule),
// and with the innermost level's products on helper streams (StrassenConfig::leaf_streams: the default 4, and 2,
// 7) as well as serially (leaf_streams = 1, names "...-serial"); Winograd's innermost level has its own schedule
// when concurrent, so both are checked, also with tau stopping the recursion early (12 x 12 x 12 at tau 8: the
// first of 2 levels is the innermost). Some cases run on a created (blocking and non-blocking) stream and on
// cudaStreamPerThread instead of the legacy default stream (fork / join events on another caller stream), and
// strassen_release_cached_resources is called between the precisions (the double run re-creates everything).
// The "aligned" cases (sizes with halves divisible by 4, ld a multiple of 4) take the 16-byte vector path of the
// elementwise kernels; the others (odd ld) the scalar path.
// Every float algorithm that runs the library's SIMT kernels (fused, hybrid, conventional over simt_gemm leaves)
// runs on all three SIMT tile shapes (names "...-t1": classic 128x128x8, "...-t2": wide 256x128x8, "...-t3":
// wide_async, the wide tiles fed by a 3-stage cp.async ring), selected by
// StrassenConfig::simt_tile and by kbla::cuda::set_simt_tile around the call (the latter reaches the SIMT kernels
// whether or not strassen_gemm forwards the config field); double has one shape.
// Prints "N passed, N failed" and returns nonzero on failure. --quick runs a subset.
//
// Tolerance (max-norm, per entry):
//   |C - C_ref| <= c0 * (k + 2) * eps * |alpha| * max|A| * max|B| * g^L  +  4 * eps * |beta| * max|C0|
// Derivation: the classical leaf satisfies |c - c^| <= gamma_k * sum_l |a_il||b_lj| <= k u * k max|A| max|B|
// (worst case, Higham Thm 3.5); for rounding errors that behave like independent random variables (Higham &
// Mary 2019) gamma_k is replaced by ~sqrt(k) u, and sum |a||b| ~ k/4 for uniform [-1,1] data, so k u max|A|max|B|
// is an upper bound with margin. Each Strassen level multiplies the norm-wise bound by at most 12 (Higham,
// Thm 23.3: (n/n0)^log2(12)) and each Winograd level by 18 (Higham eq. 23.13: log2(18)); g is 12 or 18 and L
// the number of levels actually applied (the fused kernel is one more Strassen level). c0 = 8 covers the
// peeling fix-ups and the final beta combination. A wrong quadrant / sign / missing k-slice gives errors of
// order sqrt(k) max|A| max|B| >> this tolerance (e.g. float, k = 513, L = 2: tol ~ 0.07, bug ~ 10).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kbla_cuda_strassen.hpp"
#include "raw_test_support.hpp"

using kbla::cuda::StrassenAlgorithm;
using kbla::cuda::StrassenConfig;
using i64 = std::int64_t;

struct Rng {
  std::uint64_t s;
  double next() {  // uniform [-1, 1]
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return double(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
};

struct Algo {
  std::string name;
  StrassenConfig cfg;
  double growth;  // per-level error growth factor
  int extra;      // extra levels inside (fused kernel)
  int tile = 0;   // SIMT tile shape pinned for this row (0: library default)
};

static bool uses_simt(const StrassenConfig& c) {
  return c.algorithm == StrassenAlgorithm::fused || c.algorithm == StrassenAlgorithm::hybrid || !c.cublas_leaves;
}

// float: every SIMT row three times, pinned to tile 1, 2 and 3; double: unchanged.
static std::vector<Algo> with_tiles(const std::vector<Algo>& in, bool fp32) {
  std::vector<Algo> out;
  for (const Algo& a : in) {
    if (!fp32 || !uses_simt(a.cfg)) {
      out.push_back(a);
      continue;
    }
    for (int t : {1, 2, 3}) {
      Algo b = a;
      b.name += t == 1 ? "-t1" : t == 2 ? "-t2" : "-t3";
      b.cfg.simt_tile = t;
      b.tile = t;
      out.push_back(b);
    }
  }
  return out;
}

static int levels_applied(const StrassenConfig& c, i64 m, i64 n, i64 k, std::int64_t default_tau) {
  int lv = c.levels;
  if (c.algorithm == StrassenAlgorithm::hybrid) lv = 1;
  if (c.algorithm == StrassenAlgorithm::fused) return 0;
  const i64 tau = c.tau > 0 ? c.tau : default_tau;
  int L = 0;
  while (L < lv) {
    const i64 mn = std::min(m, std::min(n, k));
    if (mn < 2) break;
    if (c.algorithm == StrassenAlgorithm::winograd && mn < tau) break;
    m /= 2, n /= 2, k /= 2, ++L;
  }
  return L;
}

static bool is_t(char c) { return c != 'N'; }

template <class T>
struct Problem {
  char ta, tb;
  i64 m, n, k, lda, ldb, ldc;
  T alpha, beta;
  std::vector<T> A, B, C0;  // C0 holds the whole ldc x (n + 1) buffer incl. guard zone
  std::vector<long double> ref;
  double maxA = 0, maxB = 0, maxC = 0;
};

template <class T>
static Problem<T> make_problem(char ta, char tb, i64 m, i64 n, i64 k, T alpha, T beta, bool nan_c, std::uint64_t seed,
                               bool aligned = false) {
  Problem<T> p;
  p.ta = ta, p.tb = tb, p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  const i64 ra = is_t(ta) ? k : m, ca = is_t(ta) ? m : k;
  const i64 rb = is_t(tb) ? n : k, cb = is_t(tb) ? k : n;
  p.lda = ra + 3, p.ldb = rb + 2, p.ldc = m + 5;
  if (aligned) {  // ld a multiple of 4 elements (16 bytes for float) when the extent is
    p.lda = (ra + 3) / 4 * 4 + 4, p.ldb = (rb + 3) / 4 * 4 + 4, p.ldc = (m + 3) / 4 * 4 + 4;
  }
  Rng r{seed * 2654435761ull + 12345};
  p.A.assign(std::size_t(p.lda * std::max<i64>(ca, 1)), T(0));
  p.B.assign(std::size_t(p.ldb * std::max<i64>(cb, 1)), T(0));
  for (i64 j = 0; j < ca; ++j)
    for (i64 i = 0; i < p.lda; ++i) p.A[i + j * p.lda] = T(i < ra ? r.next() : 1e30);  // junk in the pad rows
  for (i64 j = 0; j < cb; ++j)
    for (i64 i = 0; i < p.ldb; ++i) p.B[i + j * p.ldb] = T(i < rb ? r.next() : 1e30);
  p.C0.assign(std::size_t(p.ldc * (n + 1)), T(777.0));  // sentinel outside the m x n window
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i)
      p.C0[i + j * p.ldc] = nan_c ? std::numeric_limits<T>::quiet_NaN() : T(r.next());
  for (auto v : p.A) p.maxA = std::max(p.maxA, std::fabs(double(v)) < 1e29 ? std::fabs(double(v)) : 0.0);
  for (auto v : p.B) p.maxB = std::max(p.maxB, std::fabs(double(v)) < 1e29 ? std::fabs(double(v)) : 0.0);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i)
      if (!nan_c) p.maxC = std::max(p.maxC, std::fabs(double(p.C0[i + j * p.ldc])));
  // reference (long double)
  p.ref.assign(std::size_t(m * n), 0.0L);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) {
      long double s = 0;
      for (i64 l = 0; l < k; ++l) {
        const long double a = is_t(ta) ? p.A[l + i * p.lda] : p.A[i + l * p.lda];
        const long double b = is_t(tb) ? p.B[j + l * p.ldb] : p.B[l + j * p.ldb];
        s += a * b;
      }
      long double v = (long double)alpha * s;
      if (beta != T(0)) v += (long double)beta * p.C0[i + j * p.ldc];
      p.ref[i + j * m] = v;
    }
  return p;
}

template <class T>
struct Dev {
  T *A = nullptr, *B = nullptr, *C = nullptr;
  Dev(const Problem<T>& p) {
    CK(cudaMalloc(&A, std::max<std::size_t>(1, p.A.size()) * sizeof(T)));
    CK(cudaMalloc(&B, std::max<std::size_t>(1, p.B.size()) * sizeof(T)));
    CK(cudaMalloc(&C, std::max<std::size_t>(1, p.C0.size()) * sizeof(T)));
    CK(cudaMemcpy(A, p.A.data(), p.A.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, p.B.data(), p.B.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~Dev() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
};

template <class T>
static void report(bool ok, const char* prec, const Algo& a, const Problem<T>& p, const std::string& what) {
  if (ok) {
    ++g_pass;
  } else {
    ++g_fail;
    std::printf("FAIL %s %-18s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g: %s\n", prec, a.name.c_str(), p.ta, p.tb,
                (long long)p.m, (long long)p.n, (long long)p.k, double(p.alpha), double(p.beta), what.c_str());
  }
}

static cudaStream_t g_stream = 0;  // the caller's stream for strassen_gemm

template <class T>
static void run_case(const char* prec, const Algo& a, const Problem<T>& p, Dev<T>& d) {
  const std::size_t ws = kbla::cuda::strassen_workspace_bytes<T>(a.cfg, p.m, p.n, p.k);
  void* w = nullptr;
  if (ws) CK(cudaMalloc(&w, ws));
  CK(cudaMemcpy(d.C, p.C0.data(), p.C0.size() * sizeof(T), cudaMemcpyHostToDevice));
  // a pageable H2D copy may return before its DMA lands; a non-blocking g_stream is not ordered after it
  CK(cudaDeviceSynchronize());
  kbla::cuda::set_simt_tile(a.tile);  // 0 = back to the default
  // too-small workspace must be rejected, leaving C untouched
  if (ws > 0) {
    cudaError_t e = kbla::cuda::strassen_gemm<T>(g_stream, a.cfg, p.ta, p.tb, p.m, p.n, p.k, p.alpha, d.A, p.lda, d.B,
                                                 p.ldb, p.beta, d.C, p.ldc, w, ws - 1);
    report(e == cudaErrorInvalidValue, prec, a, p, "too-small workspace not rejected");
  }
  cudaError_t e = kbla::cuda::strassen_gemm<T>(g_stream, a.cfg, p.ta, p.tb, p.m, p.n, p.k, p.alpha, d.A, p.lda, d.B,
                                               p.ldb, p.beta, d.C, p.ldc, w, ws);
  cudaError_t e2 = cudaDeviceSynchronize();
  kbla::cuda::set_simt_tile(0);
  if (e != cudaSuccess || e2 != cudaSuccess) {
    report(false, prec, a, p, std::string("error ") + cudaGetErrorString(e != cudaSuccess ? e : e2));
    if (w) cudaFree(w);
    if (e2 != cudaSuccess) std::exit(3);  // sticky error: nothing further is meaningful
    return;
  }
  std::vector<T> C(p.C0.size());
  CK(cudaMemcpy(C.data(), d.C, C.size() * sizeof(T), cudaMemcpyDeviceToHost));
  if (w) cudaFree(w);
  const double eps = std::numeric_limits<T>::epsilon();
  const int L = levels_applied(a.cfg, p.m, p.n, p.k, kbla::cuda::strassen_default_tau<T>()) + a.extra;
  const double tol = 8.0 * double(p.k + 2) * eps * std::fabs(double(p.alpha)) * p.maxA * p.maxB *
                         std::pow(a.growth, L) +
                     4.0 * eps * std::fabs(double(p.beta)) * p.maxC + 1e-300;
  double maxerr = 0;
  bool finite = true, guard = true;
  for (i64 j = 0; j <= p.n; ++j)
    for (i64 i = 0; i < p.ldc; ++i) {
      const std::size_t idx = std::size_t(i + j * p.ldc);
      if (idx >= C.size()) continue;
      if (i < p.m && j < p.n) {
        if (!std::isfinite(double(C[idx]))) {
          finite = false;
          continue;
        }
        maxerr = std::max(maxerr, double(std::fabs((long double)C[idx] - p.ref[i + j * p.m])));
      } else if (std::memcmp(&C[idx], &p.C0[idx], sizeof(T)) != 0) {
        guard = false;
      }
    }
  char buf[160];
  std::snprintf(buf, sizeof buf, "max err %.3e > tol %.3e (L=%d)", maxerr, tol, L);
  report(finite, prec, a, p, "non-finite result");
  report(guard, prec, a, p, "wrote outside C's m x n window");
  report(maxerr <= tol, prec, a, p, buf);
}

template <class T>
static void run_all(const char* prec, bool quick) {
  std::vector<Algo> algos;
  // leaf_streams -1: the library default (4)
  auto cfg = [](StrassenAlgorithm al, int lv, i64 tau, bool blas, bool low_memory = false, int leaf_streams = -1) {
    StrassenConfig c;
    c.algorithm = al, c.levels = lv, c.tau = tau, c.cublas_leaves = blas, c.low_memory = low_memory;
    if (leaf_streams >= 0) c.leaf_streams = leaf_streams;
    return c;
  };
  algos.push_back({"conventional-L1", cfg(StrassenAlgorithm::conventional, 1, 0, true), 12, 0});
  algos.push_back({"conventional-L2", cfg(StrassenAlgorithm::conventional, 2, 0, true), 12, 0});
  algos.push_back({"hybrid", cfg(StrassenAlgorithm::hybrid, 2, 0, true), 12, 1});
  algos.push_back({"winograd-L1-tau8", cfg(StrassenAlgorithm::winograd, 1, 8, true), 18, 0});
  algos.push_back({"winograd-L2-tau8", cfg(StrassenAlgorithm::winograd, 2, 8, true), 18, 0});
  algos.push_back({"conventional-L2-lowmem", cfg(StrassenAlgorithm::conventional, 2, 0, true, true), 12, 0});
  algos.push_back({"winograd-L2-tau8-lowmem", cfg(StrassenAlgorithm::winograd, 2, 8, true, true), 18, 0});
  // The rows above use the default leaf_streams (4, concurrent innermost level). The serial schedule and other
  // stream counts only in the full run (--quick is the compute-sanitizer set, kept about its old size).
  if (!quick) {
    algos.push_back({"conventional-L1-serial", cfg(StrassenAlgorithm::conventional, 1, 0, true, false, 1), 12, 0});
    algos.push_back({"conventional-L2-serial", cfg(StrassenAlgorithm::conventional, 2, 0, true, false, 1), 12, 0});
    algos.push_back({"winograd-L1-tau8-serial", cfg(StrassenAlgorithm::winograd, 1, 8, true, false, 1), 18, 0});
    algos.push_back({"winograd-L2-tau8-serial", cfg(StrassenAlgorithm::winograd, 2, 8, true, false, 1), 18, 0});
    algos.push_back({"conventional-L2-s7", cfg(StrassenAlgorithm::conventional, 2, 0, true, false, 7), 12, 0});
    algos.push_back({"winograd-L2-tau8-s2", cfg(StrassenAlgorithm::winograd, 2, 8, true, false, 2), 18, 0});
  }
  std::vector<Algo> extra;  // run on fewer cases
  extra.push_back({"winograd-L3-tau2", cfg(StrassenAlgorithm::winograd, 3, 2, true), 18, 0});
  extra.push_back({"winograd-default", cfg(StrassenAlgorithm::winograd, 2, 0, true), 18, 0});
  extra.push_back({"conv-L1-simt", cfg(StrassenAlgorithm::conventional, 1, 0, false), 12, 0});
  extra.push_back({"fused", cfg(StrassenAlgorithm::fused, 1, 0, true), 12, 1});
  extra.push_back({"conv-L1-lowmem", cfg(StrassenAlgorithm::conventional, 1, 0, true, true), 12, 0});
  extra.push_back({"hybrid-lowmem", cfg(StrassenAlgorithm::hybrid, 2, 0, true, true), 12, 1});
  extra.push_back({"conv-L2-simt", cfg(StrassenAlgorithm::conventional, 2, 0, false), 12, 0});
  if (!quick) {
    extra.push_back({"conv-L3", cfg(StrassenAlgorithm::conventional, 3, 0, true), 12, 0});
    extra.push_back({"conv-L3-serial", cfg(StrassenAlgorithm::conventional, 3, 0, true, false, 1), 12, 0});
    extra.push_back({"winograd-L3-tau2-serial", cfg(StrassenAlgorithm::winograd, 3, 2, true, false, 1), 18, 0});
    extra.push_back({"hybrid-serial", cfg(StrassenAlgorithm::hybrid, 2, 0, true, false, 1), 12, 1});
    extra.push_back({"conv-L2-simt-serial", cfg(StrassenAlgorithm::conventional, 2, 0, false, false, 1), 12, 0});
  }
  algos = with_tiles(algos, std::is_same<T, float>::value);
  extra = with_tiles(extra, std::is_same<T, float>::value);

  struct Shape {
    i64 m, n, k;
  };
  static const Shape quick_shapes[] = {{1, 1, 1},       {3, 3, 3},    {31, 31, 31}, {65, 31, 127},
                                       {127, 127, 127}, {64, 64, 64}, {3, 1, 5},    {13, 12, 15}};
  static const Shape full_shapes[] = {{1, 1, 1},     {2, 2, 2},       {3, 3, 3},       {31, 31, 31},
                                      {64, 64, 64},  {65, 65, 65},    {127, 127, 127}, {257, 257, 257},
                                      {513, 513, 513}, {65, 31, 127}, {127, 257, 65},  {257, 127, 513},
                                      {3, 1, 5},     {1, 7, 4},       {33, 2, 9},      {12, 12, 12},
                                      {13, 12, 15}};
  const Shape* shapes = quick ? quick_shapes : full_shapes;
  const std::size_t nshapes = quick ? sizeof(quick_shapes) / sizeof(Shape) : sizeof(full_shapes) / sizeof(Shape);
  const char ops[3] = {'N', 'T', 'C'};
  std::uint64_t seed = sizeof(T);
  for (std::size_t si = 0; si < nshapes; ++si) {
    const Shape& s = shapes[si];
    const i64 mx = std::max(s.m, std::max(s.n, s.k));
    std::vector<std::pair<char, char>> pairs;
    if (mx <= 127 && !quick) {
      for (char a : ops)
        for (char b : ops) pairs.push_back({a, b});
    } else if (mx <= 257 || quick) {
      pairs = {{'N', 'N'}, {'T', 'N'}, {'N', 'T'}, {'C', 'T'}};
    } else {
      pairs = {{'N', 'N'}, {'T', 'C'}};
    }
    for (auto tp : pairs) {
      Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, s.k, T(1.5), T(-0.75), false, ++seed);
      Dev<T> d(p);
      for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      if (tp.first == 'N' || tp.second == 'T')
        for (const Algo& a : extra) run_case<T>(prec, a, p, d);
    }
  }
  // aligned ld and halves divisible by 4: the vectorised elementwise path (float4 / double2), incl. peeling of an
  // odd n and odd k next to aligned quadrants, beta != 0 and beta == 0 with NaN in C
  {
    const Shape aligned_quick[] = {{64, 64, 64}, {136, 72, 264}};
    const Shape aligned_full[] = {{64, 64, 64}, {136, 72, 264}, {256, 256, 256}, {264, 129, 136}, {72, 136, 129}};
    const Shape* as = quick ? aligned_quick : aligned_full;
    const std::size_t na = quick ? 2 : 5;
    for (std::size_t si = 0; si < na; ++si) {
      const Shape& sh = as[si];
      for (auto tp : {std::pair<char, char>{'N', 'N'}, std::pair<char, char>{'T', 'N'},
                      std::pair<char, char>{'N', 'T'}, std::pair<char, char>{'T', 'T'}}) {
        Problem<T> p = make_problem<T>(tp.first, tp.second, sh.m, sh.n, sh.k, T(1.5), T(-0.75), false, ++seed, true);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
        for (const Algo& a : extra) run_case<T>(prec, a, p, d);
      }
      Problem<T> p = make_problem<T>('N', 'N', sh.m, sh.n, sh.k, T(1), T(0), true, ++seed, true);
      Dev<T> d(p);
      for (const Algo& a : algos) run_case<T>(prec, a, p, d);
    }
  }
  // beta == 0 with NaN in C; beta == 1; k == 0; alpha == 0 (A, B not read for results)
  const Shape special[] = {{65, 31, 127}, {31, 31, 31}, {2, 2, 2}};
  for (const Shape& s : special) {
    for (auto tp : {std::pair<char, char>{'N', 'N'}, std::pair<char, char>{'T', 'T'}}) {
      {
        Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, s.k, T(1), T(0), true, ++seed);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
        for (const Algo& a : extra) run_case<T>(prec, a, p, d);
      }
      {
        Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, s.k, T(-1), T(1), false, ++seed);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      }
      {
        Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, 0, T(1.5), T(-2), false, ++seed);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      }
      {
        Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, s.k, T(0), T(0.5), false, ++seed);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      }
      {  // alpha == 0, beta == 0, NaN in C: C must become exactly 0
        Problem<T> p = make_problem<T>(tp.first, tp.second, s.m, s.n, s.k, T(0), T(0), true, ++seed);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      }
    }
  }
  // empty shapes must succeed and write nothing
  for (const Shape& s : {Shape{0, 5, 7}, Shape{5, 0, 7}}) {
    Problem<T> p = make_problem<T>('N', 'N', s.m, s.n, s.k, T(1), T(1), false, ++seed);
    Dev<T> d(p);
    for (const Algo& a : algos) run_case<T>(prec, a, p, d);
  }
  // other caller streams: a created blocking and non-blocking stream, and cudaStreamPerThread (helper lanes are
  // cached per caller stream; the products must still be ordered after the sums and before the combination)
  {
    cudaStream_t blocking = nullptr, nonblocking = nullptr;
    CK(cudaStreamCreate(&blocking));
    CK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    const cudaStream_t streams[3] = {blocking, nonblocking, cudaStreamPerThread};
    const Shape ss[] = {{65, 31, 127}, {64, 64, 64}, {127, 127, 127}};
    for (cudaStream_t st : streams) {
      g_stream = st;
      for (std::size_t si = 0; si < (quick ? 1u : 3u); ++si) {
        const Shape& s = ss[si];
        Problem<T> p = make_problem<T>('N', 'T', s.m, s.n, s.k, T(1.5), T(-0.75), false, ++seed, s.m == 64);
        Dev<T> d(p);
        for (const Algo& a : algos) run_case<T>(prec, a, p, d);
      }
    }
    g_stream = 0;
    CK(cudaStreamSynchronize(blocking));
    CK(cudaStreamSynchronize(nonblocking));
    CK(cudaStreamDestroy(blocking));
    CK(cudaStreamDestroy(nonblocking));
  }
  // invalid arguments
  {
    StrassenConfig c;
    c.algorithm = StrassenAlgorithm::conventional;
    T* dummy = nullptr;
    CK(cudaMalloc(&dummy, 64 * sizeof(T)));
    const Algo tag{"args", c, 12, 0};
    Problem<T> p;
    p.ta = 'N', p.tb = 'N', p.m = 4, p.n = 4, p.k = 4, p.alpha = T(1), p.beta = T(0);
    report(kbla::cuda::strassen_gemm<T>(0, c, 'X', 'N', 4, 4, 4, T(1), dummy, 4, dummy, 4, T(0), dummy, 4, nullptr,
                                        0) == cudaErrorInvalidValue,
           prec, tag, p, "bad trans accepted");
    report(kbla::cuda::strassen_gemm<T>(0, c, 'N', 'N', 4, 4, 4, T(1), dummy, 3, dummy, 4, T(0), dummy, 4, nullptr,
                                        1 << 20) == cudaErrorInvalidValue,
           prec, tag, p, "lda < m accepted");
    report(kbla::cuda::strassen_gemm<T>(0, c, 'N', 'N', 4, 4, 4, T(1), dummy, 4, dummy, 4, T(0), dummy, 4, nullptr,
                                        0) == cudaErrorInvalidValue,
           prec, tag, p, "null workspace accepted");
    cudaFree(dummy);
  }
}

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no CUDA device\n0 passed, 1 failed\n");
    return 1;
  }
  run_all<float>("S", quick);
  {  // free the cached handles / helper streams; the double run creates them again
    const cudaError_t e = kbla::cuda::strassen_release_cached_resources();
    if (e == cudaSuccess) {
      ++g_pass;
    } else {
      ++g_fail;
      std::printf("FAIL strassen_release_cached_resources: %s\n", cudaGetErrorString(e));
    }
  }
  run_all<double>("D", quick);
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
