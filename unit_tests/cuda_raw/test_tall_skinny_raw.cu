// Raw-kernel test of kbla::cuda::tsmttsm / tsmm against a CPU long-double reference. No Kokkos.
// Usage: kbla_cuda_raw_tests [--quick | --tiny] [--types DZSC] [--own-kernels]   (--quick / --tiny: reduced sets, for
// compute-sanitizer; --types: which scalar types, D Z S C, default all; --own-kernels: every call with
// TallSkinnyOptions::allow_cublas = false, so that the shapes the selection may send to cuBLAS test the own kernels)
// Prints one line per failure and a final "N passed, N failed"; exit code 0 iff nothing failed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kbla_cuda_tall_skinny.hpp"
#include "raw_test_support.hpp"

using kbla::cuda::Layout;
using kbla::cuda::TallSkinnyOptions;

static std::mt19937_64 g_rng(12345);


template <class T>
struct Tr {
  using R = T;
  using L = long double;
  static constexpr bool cplx = false;
  static const char* name() { return std::is_same<T, float>::value ? "S" : "D"; }
};
template <class R_>
struct Tr<std::complex<R_>> {
  using R = R_;
  using L = std::complex<long double>;
  static constexpr bool cplx = true;
  static const char* name() { return std::is_same<R_, float>::value ? "C" : "Z"; }
};

template <class T>
T rnd() {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (Tr<T>::cplx) return T(typename Tr<T>::R(u(g_rng)), typename Tr<T>::R(u(g_rng)));
  else return T(u(g_rng));
}
template <class T>
T nanv() {
  using R = typename Tr<T>::R;
  if constexpr (Tr<T>::cplx) return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  else return std::numeric_limits<R>::quiet_NaN();
}
template <class T>
typename Tr<T>::L toL(T v) {
  if constexpr (Tr<T>::cplx) return typename Tr<T>::L(v.real(), v.imag());
  else return (long double)v;
}
template <class L>
long double absL(L v) {
  return std::abs(v);
}
template <class L>
L conjL(L v) {
  if constexpr (std::is_same<L, long double>::value) return v;
  else return std::conj(v);
}
// The product written out: std::complex<long double>'s operator* calls the C99 Annex G routine (__mulxc3, NaN and
// infinity recovery), which with a hypotl per modulus made the complex reference the raw test's whole run time.
template <class L>
L mulL(L a, L b) {
  if constexpr (std::is_same<L, long double>::value) return a * b;
  else return L(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}
// |v| of every stored element, computed once per operand instead of once per product
template <class T>
std::vector<long double> moduli(const std::vector<T>& v) {
  std::vector<long double> m(v.size());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = absL(toL(v[i]));
  return m;
}
template <class T>
bool finite(T v) {
  if constexpr (Tr<T>::cplx) return std::isfinite(v.real()) && std::isfinite(v.imag());
  else return std::isfinite(v);
}

// element (i, j) of a matrix with `rows` rows stored with layout l and leading dimension ld
inline std::size_t at(Layout l, std::int64_t ld, std::int64_t i, std::int64_t j) {
  return l == Layout::RowMajor ? std::size_t(i * ld + j) : std::size_t(i + j * ld);
}
inline std::size_t extent(Layout l, std::int64_t ld, std::int64_t rows, std::int64_t cols) {
  if (rows == 0 || cols == 0) return 1;
  return l == Layout::RowMajor ? std::size_t((rows - 1) * ld + cols) : std::size_t((cols - 1) * ld + rows);
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DevBuf(std::size_t n_) : n(n_) { CK(cudaMalloc(&p, n * sizeof(T))); }
  ~DevBuf() { cudaFree(p); }
  void up(const std::vector<T>& h) { CK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  void down(std::vector<T>& h) {
    h.resize(n);
    CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
};

static const char* ln(Layout l) { return l == Layout::RowMajor ? "R" : "C"; }

template <class T>
void report(bool ok, const std::string& what, double worst) {
  if (ok) ++g_pass;
  else {
    ++g_fail;
    if (g_fail <= 60) std::printf("FAIL %s%s worst err/tol %.3g\n", Tr<T>::name(), what.c_str(), worst);
  }
  // a running count, flushed, so that a run cut short by a time limit still tells how far it got
  if ((g_pass + g_fail) % 200 == 0) {
    std::printf("  ... %d passed, %d failed\n", g_pass, g_fail);
    std::fflush(stdout);
  }
}

// s = sum_k conj(A(k, m)) B(k, n) in long double, sa = sum_k |A(k, m)| |B(k, n)| (the error bound's magnitude)
template <class T>
void dot_conj(const std::vector<T>& A, Layout la, std::int64_t lda, const std::vector<long double>& absA,
              const std::vector<T>& B, Layout lb, std::int64_t ldb, const std::vector<long double>& absB, std::int64_t K,
              int m, int n, typename Tr<T>::L& s, long double& sa) {
  for (std::int64_t k = 0; k < K; ++k) {
    const std::size_t ia = at(la, lda, k, m), ib = at(lb, ldb, k, n);
    s += mulL(conjL(toL(A[ia])), toL(B[ib]));
    sa += absA[ia] * absB[ib];
  }
}

// Set around the cases that opt in to the three-product complex form (TallSkinnyOptions::complex_3m).
bool g_complex_3m = false;
// --own-kernels: TallSkinnyOptions::allow_cublas = false in every call
bool g_allow_cublas = true;
TallSkinnyOptions call_options() {
  TallSkinnyOptions opt;
  opt.allow_cublas = g_allow_cublas;
  return opt;
}

// C = alpha A^H B + beta C
template <class T>
void test_tsmttsm(std::int64_t K, int M, int N, Layout la, Layout lb, Layout lc, int pad, T alpha, T beta,
                  bool det = false) {
  using L = typename Tr<T>::L;
  const std::int64_t lda = (la == Layout::RowMajor ? M : K) + pad, ldb = (lb == Layout::RowMajor ? N : K) + pad,
                     ldc = (lc == Layout::RowMajor ? N : M) + pad;
  const std::size_t na = extent(la, lda, K, M), nb = extent(lb, ldb, K, N), nc = extent(lc, ldc, M, N);
  std::vector<T> A(na), B(nb), C0(nc), C;
  for (auto& v : A) v = rnd<T>();
  for (auto& v : B) v = rnd<T>();
  const bool bz = beta == T(0);
  for (auto& v : C0) v = bz ? nanv<T>() : rnd<T>();
  DevBuf<T> dA(na), dB(nb), dC(nc);
  dA.up(A);
  dB.up(B);
  dC.up(C0);
  TallSkinnyOptions opt = call_options();
  opt.deterministic = det;
  opt.complex_3m = g_complex_3m;
  CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, dA.p, lda, la, dB.p, ldb, lb, beta, dC.p, ldc, lc, opt));
  CK(cudaDeviceSynchronize());
  dC.down(C);
  const long double eps = std::numeric_limits<typename Tr<T>::R>::epsilon();
  std::vector<double> ratio(std::size_t(M) * N);
  const std::vector<long double> absA = moduli(A), absB = moduli(B);
#pragma omp parallel for schedule(dynamic)
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      L s = 0;
      long double sa = 0;
      dot_conj<T>(A, la, lda, absA, B, lb, ldb, absB, K, m, n, s, sa);
      L ref = mulL(toL(alpha), s);
      long double mag = absL(toL(alpha)) * sa;
      if (!bz) {
        ref += mulL(toL(beta), toL(C0[at(lc, ldc, m, n)]));
        mag += absL(toL(beta)) * absL(toL(C0[at(lc, ldc, m, n)]));
      }
      const T got = C[at(lc, ldc, m, n)];
      const long double tol = 4 * (K + 8) * eps * mag + 1e-30L;
      const long double err = absL(toL(got) - ref);
      ratio[std::size_t(m) * N + n] = finite(got) ? double(err / tol) : INFINITY;
    }
  double worst = 0;
  for (double r : ratio) worst = std::max(worst, r);
  bool ok = worst <= 1.0;
  // untouched padding of C (ld > rows) must stay as it was
  if (ok && pad > 0)
    for (std::size_t i = 0; i < nc && ok; ++i) {
      const std::int64_t r = lc == Layout::RowMajor ? i / ldc : i % ldc, c = lc == Layout::RowMajor ? i % ldc : i / ldc;
      const bool inside = lc == Layout::RowMajor ? c < N : r < M;
      if (!inside && std::memcmp(&C[i], &C0[i], sizeof(T)) != 0) ok = false;
    }
  char buf[256];
  std::snprintf(buf, sizeof buf, " tsmttsm K=%lld M=%d N=%d A%s B%s C%s pad=%d beta0=%d det=%d 3m=%d", (long long)K, M,
                N, ln(la), ln(lb), ln(lc), pad, int(bz), int(det), int(g_complex_3m));
  if (det && ok) {  // a second run must give the same bits
    dC.up(C0);
    CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, dA.p, lda, la, dB.p, ldb, lb, beta, dC.p, ldc, lc, opt));
    CK(cudaDeviceSynchronize());
    std::vector<T> C2;
    dC.down(C2);
    if (std::memcmp(C.data(), C2.data(), nc * sizeof(T)) != 0) {
      ok = false;
      std::printf("  (deterministic runs differ)\n");
    }
  }
  report<T>(ok, buf, worst);
}

// B = alpha A C + beta B   (inplace: B is A, M == N); off: A and B start `off` elements into their allocations
// (e.g. 8 (mod 16) bytes for off = 1, a subview's start), the elements before them NaN and checked untouched
template <class T>
void test_tsmm(std::int64_t K, int M, int N, Layout la, Layout lc, Layout lb, int pad, T alpha, T beta,
               bool inplace = false, int off = 0) {
  using L = typename Tr<T>::L;
  if (inplace) lb = la;
  const std::int64_t lda = (la == Layout::RowMajor ? M : K) + pad, ldc = (lc == Layout::RowMajor ? N : M) + pad;
  const std::int64_t ldb = inplace ? lda : (lb == Layout::RowMajor ? N : K) + pad;
  const std::size_t na = extent(la, lda, K, M), nc = extent(lc, ldc, M, N), nb = extent(lb, ldb, K, N);
  std::vector<T> A(na), Cm(nc), B0(nb), B;
  for (auto& v : A) v = rnd<T>();
  for (auto& v : Cm) v = rnd<T>();
  const bool bz = beta == T(0);
  if (inplace) B0 = A;
  else
    for (auto& v : B0) v = bz ? nanv<T>() : rnd<T>();
  auto front = [&](const std::vector<T>& v) {  // `off` NaN elements, then v
    std::vector<T> f(off, nanv<T>());
    f.insert(f.end(), v.begin(), v.end());
    return f;
  };
  DevBuf<T> dA(na + off), dC(nc), dB(nb + off);
  dA.up(front(A));
  dC.up(Cm);
  T* bptr = dA.p + off;
  if (!inplace) {
    dB.up(front(B0));
    bptr = dB.p + off;
  }
  CK(kbla::cuda::tsmm<T>(0, K, M, N, alpha, dA.p + off, lda, la, dC.p, ldc, lc, beta, bptr, ldb, lb,
                         call_options()));
  CK(cudaDeviceSynchronize());
  if (inplace) dA.down(B);
  else dB.down(B);
  bool front_kept = true;  // nothing written before B
  for (int i = 0; i < off; ++i) front_kept &= !finite(B[i]);  // still the NaN put there
  B.erase(B.begin(), B.begin() + off);
  const long double eps = std::numeric_limits<typename Tr<T>::R>::epsilon();
  std::vector<double> ratio(std::size_t(K) * N);
  const std::vector<long double> absA = moduli(A), absC = moduli(Cm);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      L s = 0;
      long double sa = 0;
      for (int m = 0; m < M; ++m) {
        const std::size_t ia = at(la, lda, k, m), ic = at(lc, ldc, m, n);
        s += mulL(toL(A[ia]), toL(Cm[ic]));
        sa += absA[ia] * absC[ic];
      }
      L ref = mulL(toL(alpha), s);
      long double mag = absL(toL(alpha)) * sa;
      if (!bz) {
        ref += mulL(toL(beta), toL(B0[at(lb, ldb, k, n)]));
        mag += absL(toL(beta)) * absL(toL(B0[at(lb, ldb, k, n)]));
      }
      const T got = B[at(lb, ldb, k, n)];
      const long double tol = 4 * (M + 8) * eps * mag + 1e-30L;
      const long double err = absL(toL(got) - ref);
      ratio[std::size_t(k) * N + n] = finite(got) ? double(err / tol) : INFINITY;
    }
  double worst = 0;
  for (double r : ratio) worst = std::max(worst, r);
  bool ok = worst <= 1.0 && front_kept;
  if (ok && pad > 0)
    for (std::size_t i = 0; i < nb && ok; ++i) {
      const std::int64_t r = lb == Layout::RowMajor ? i / ldb : i % ldb, c = lb == Layout::RowMajor ? i % ldb : i / ldb;
      const bool inside = lb == Layout::RowMajor ? c < N : r < K;
      if (!inside && std::memcmp(&B[i], &B0[i], sizeof(T)) != 0) ok = false;
    }
  char buf[256];
  std::snprintf(buf, sizeof buf, " tsmm K=%lld M=%d N=%d A%s C%s B%s pad=%d beta0=%d inplace=%d off=%d",
                (long long)K, M, N, ln(la), ln(lc), ln(lb), pad, int(bz), int(inplace), off);
  report<T>(ok, buf, worst);
}

template <class T>
T cval(double re, double im) {
  if constexpr (Tr<T>::cplx) return T(typename Tr<T>::R(re), typename Tr<T>::R(im));
  else return T(re);
}

// The same call captured into a CUDA graph and replayed `reps` times with beta = 1 on a non-default stream: C must
// end as C0 + reps * alpha A^H B (the direct combine of the SIMT kernel keeps per-call flags in its workspace; a
// graph replays the call's arguments unchanged, so captured calls must take a replay-safe combine).
template <class T>
void test_tsmttsm_graph(std::int64_t K, int M, int N, Layout l, int reps) {
  using L = typename Tr<T>::L;
  const std::int64_t lda = l == Layout::RowMajor ? M : K, ldb = l == Layout::RowMajor ? N : K,
                     ldc = l == Layout::RowMajor ? N : M;
  const std::size_t na = extent(l, lda, K, M), nb = extent(l, ldb, K, N), nc = extent(l, ldc, M, N);
  std::vector<T> A(na), B(nb), C0(nc), C;
  for (auto& v : A) v = rnd<T>();
  for (auto& v : B) v = rnd<T>();
  for (auto& v : C0) v = rnd<T>();
  DevBuf<T> dA(na), dB(nb), dC(nc);
  dA.up(A);
  dB.up(B);
  dC.up(C0);
  const T alpha = cval<T>(0.75, -0.5), beta = cval<T>(1, 0);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  // one eager call first (reps counts it); relaxed capture, since a workspace the captured path has not used yet on
  // this stream is allocated (cudaMalloc) during the capture
  CK(kbla::cuda::tsmttsm<T>(st, K, M, N, alpha, dA.p, lda, l, dB.p, ldb, l, beta, dC.p, ldc, l, call_options()));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
  CK(kbla::cuda::tsmttsm<T>(st, K, M, N, alpha, dA.p, lda, l, dB.p, ldb, l, beta, dC.p, ldc, l, call_options()));
  CK(cudaStreamEndCapture(st, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  for (int r = 1; r < reps; ++r) CK(cudaGraphLaunch(ge, st));
  CK(cudaStreamSynchronize(st));
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  CK(cudaStreamDestroy(st));
  dC.down(C);
  const long double eps = std::numeric_limits<typename Tr<T>::R>::epsilon();
  const std::vector<long double> absA = moduli(A), absB = moduli(B);
  double worst = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      L s = 0;
      long double sa = 0;
      dot_conj<T>(A, l, lda, absA, B, l, ldb, absB, K, m, n, s, sa);
      const L c0 = toL(C0[at(l, ldc, m, n)]);
      const L ref = c0 + L(reps) * mulL(toL(alpha), s);
      const long double mag = absL(c0) + reps * absL(toL(alpha)) * sa;
      const T got = C[at(l, ldc, m, n)];
      const long double tol = 4 * reps * (K + 8) * eps * mag + 1e-30L;
      worst = std::max(worst, finite(got) ? double(absL(toL(got) - ref) / tol) : double(INFINITY));
    }
  char buf[160];
  std::snprintf(buf, sizeof buf, " tsmttsm graph replay x%d K=%lld M=%d N=%d %s", reps, (long long)K, M, N, ln(l));
  report<T>(worst <= 1.0, buf, worst);
}

// --tiny: a handful of cases per type that still reach every kernel family (SIMT, DMMA, in place,
// deterministic, tiled), for compute-sanitizer
template <class T>
void tiny_suite() {
  const Layout R = Layout::RowMajor, C = Layout::ColMajor;
  const T al = cval<T>(0.75, -0.5), be = cval<T>(-1.25, 0.375), zero = cval<T>(0, 0);
  for (int w : {1, 5, 16, 40, 64}) {
    test_tsmttsm<T>(1000, w, w, R, R, R, 0, al, be);
    test_tsmttsm<T>(999, w, w, C, C, C, 1, al, zero);
    test_tsmm<T>(1000, w, w, R, R, R, 0, al, zero);
    test_tsmm<T>(999, w, w, C, C, C, 1, al, be);
  }
  test_tsmm<T>(513, 100, 3, C, R, C, 1, al, be);     // one thread per row (update_columns.cuh)
  test_tsmm<T>(1001, 8, 8, C, C, C, 2, al, zero, true);  // the same in place
  test_tsmttsm<T>(500, 7, 70, R, C, R, 0, al, be);
  test_tsmttsm<T>(300, 96, 96, C, C, C, 0, al, be);
  test_tsmm<T>(300, 70, 96, R, C, C, 0, al, be);
  test_tsmm<T>(513, 8, 8, R, R, R, 0, al, zero, true);
  test_tsmm<T>(300, 96, 96, C, C, C, 0, al, be, true);
  // dense row-major: the flat tensor-core staging (real widths 7, 10, 22, complex 3, 7) and the complex row kernel (2)
  for (int w : {2, 3, 7, 10, 22}) test_tsmm<T>(1001, w, w, R, R, R, 0, al, be, w == 3 || w == 10);
  for (int w : {16, 20, 40, 64}) test_tsmm<T>(999, w, w, C, C, C, 0, al, be, w == 64);  // odd ld: staged column stores
  // beta = 0, odd ld: M != N, 8 (mod 16) byte starts, in place (below the bulk-copy kernel's row counts)
  test_tsmm<T>(1001, 64, 50, C, C, C, 0, al, zero, false, 1);
  test_tsmm<T>(999, 33, 33, C, C, C, 0, al, zero, true, 1);
  test_tsmm<T>(1001, 30, 27, C, R, C, 0, al, zero);
  // the bulk-copy kernel (update_bulk.cuh) of complex double, which takes column-major from 2^13 rows (double only from
  // 2^17: too long under the sanitizer): odd ld, M != N, a partial last chunk
  if constexpr (std::is_same<T, std::complex<double>>::value) test_tsmm<T>(8321, 20, 17, C, C, C, 0, al, zero);
  test_tsmttsm<T>(3001, 16, 16, R, R, R, 0, al, be, true);
  test_tsmttsm<T>(0, 4, 4, R, R, R, 0, al, be);
  // narrow shapes (block Gram-Schmidt: p basis columns x s block columns)
  for (int n : {1, 8, 16}) {
    test_tsmttsm<T>(1001, 64, n, C, C, C, 1, al, be);
    test_tsmttsm<T>(1001, 96, n, R, R, R, 0, al, zero);
    test_tsmm<T>(1001, 64, n, C, C, C, 1, al, be);
    test_tsmm<T>(1001, 40, n, R, R, R, 0, al, zero);
  }
  test_tsmttsm<T>(2001, 40, 5, C, C, C, 0, al, be, true);
  test_tsmttsm_graph<T>(100001, 4, 4, R, 3);
}

template <class T>
void suite(bool quick) {
  const Layout R = Layout::RowMajor, C = Layout::ColMajor;
  const T one = cval<T>(1, 0), zero = cval<T>(0, 0);
  const T al = cval<T>(0.75, -0.5), be = cval<T>(-1.25, 0.375);
  const int wmax = quick ? 8 : 64;
  // every width 1..64, square, both layouts, beta = 0 with NaN output and beta != 0
  for (int w = 1; w <= wmax; ++w)
    for (Layout l : {R, C}) {
      const std::int64_t K = quick ? 301 : 1001;
      test_tsmttsm<T>(K, w, w, l, l, l, 0, al, (w % 2) ? zero : be);
      test_tsmm<T>(K, w, w, l, l, l, 0, al, (w % 2) ? be : zero);
    }
  // the one-thread-per-row classes: dense row-major and column-major at even and odd ld, partial last chunk, fewer
  // rows than one chunk, M != N, the deterministic partials (operands within the L2: the register leap-frog)
  for (int w = 1; w <= 8; ++w)
    for (std::int64_t K : {5, 64, 2051, quick ? 4100 : 100003}) {
      test_tsmttsm<T>(K, w, w, C, C, C, int(K % 2), al, (w % 2) ? be : zero);
      test_tsmttsm<T>(K, w, std::max(1, w - 1), R, R, R, 0, al, be);
      test_tsmttsm<T>(K, std::max(1, w - 1), w, C, C, C, int(K % 2), one, zero);
    }
  test_tsmttsm<T>(65537, 4, 4, R, R, R, 0, al, be, true);
  test_tsmttsm<T>(65538, 6, 5, C, C, C, 0, al, be, true);
  if (!quick) {
    // operands beyond the L2: the warp ring (inner_ring.cuh, double) in each of its classes, row-major 4-6 and 8,
    // column-major 3, 5 and 8: dense row-major (odd K * w: the 8-byte last piece) and column-major at even ld (odd
    // K: one double in a column's last piece), partial last chunk; beta = 0 (NaN C) and != 0
    for (int w : {4, 5, 6, 8}) test_tsmttsm<T>(2000003, w, w, R, R, R, 0, al, (w % 2) ? zero : be);
    for (int w : {3, 5, 8}) test_tsmttsm<T>(2000003, w, w, C, C, C, 1, al, (w % 2) ? be : zero);
  }
  // M != N, mixed layouts, strided (ld > rows)
  // (24, 57) ... (48, 33): M != N inside the TSMM DMMA classes (k-steps / n-tiles skipped past M, N)
  const int shapes[][2] = {{1, 7},   {7, 1},   {3, 64},  {64, 5},  {33, 17}, {17, 40},
                           {70, 20}, {20, 130}, {24, 57}, {61, 26}, {13, 30}, {48, 33}};
  for (auto& s : shapes) {
    if (quick && (s[0] > 40 || s[1] > 40)) continue;
    test_tsmttsm<T>(777, s[0], s[1], R, R, R, 0, al, be);
    test_tsmttsm<T>(777, s[0], s[1], C, C, C, 3, al, zero);
    test_tsmttsm<T>(777, s[0], s[1], R, C, C, 1, one, be);
    test_tsmttsm<T>(777, s[0], s[1], C, R, R, 2, al, be);
    test_tsmm<T>(777, s[0], s[1], R, R, R, 0, al, be);
    test_tsmm<T>(777, s[0], s[1], C, C, C, 3, al, zero);
    test_tsmm<T>(777, s[0], s[1], R, C, C, 1, one, be);
    test_tsmm<T>(777, s[0], s[1], C, R, R, 2, al, be);
  }
  // narrow shapes: N <= 16 next to M >= 2N (the narrow tables of tall_skinny_params.hpp), every N class and M
  // class boundary, both single layouts (the narrow rows) and a mixed one (the square path), padded ld
  for (int n : {1, 2, 3, 4, 5, 8, 9, 12, 16}) {
    for (int m : {3, 9, 16, 17, 32, 33, 48, 64, 65, 96, 128, 129}) {
      if (m < 2 * n) continue;
      if (quick && m > 40) continue;
      const std::int64_t K = (m + n) % 3 == 0 ? 4097 : 1003;
      test_tsmttsm<T>(K, m, n, R, R, R, (m % 2), al, (n % 2) ? be : zero);
      test_tsmttsm<T>(K, m, n, C, C, C, (n % 2), al, (n % 2) ? zero : be);
      test_tsmm<T>(K, m, n, R, R, R, (m % 2), al, (n % 2) ? zero : be);
      test_tsmm<T>(K, m, n, C, C, C, (n % 2), al, (n % 2) ? be : zero);
      if (n == 8 || n == 3) {
        test_tsmttsm<T>(K, m, n, C, C, C, 0, al, be, true);  // deterministic: SIMT narrow rows
        test_tsmttsm<T>(K, m, n, R, C, C, 1, al, be);         // mixed layouts
        test_tsmm<T>(K, m, n, C, R, C, 2, al, be);
      }
    }
  }
  // the one-thread-per-row update of column-major operands with N <= 8 (update_columns.cuh): every output width
  // class, M below its lower limit of 4 (the other paths), at and past its column groups of 4 up to its upper limit
  // of 128 (129: the other paths), K
  // below, at and past one block of rows (512), padded ld, C either layout, beta = 0 (NaN B) and != 0, in place
  for (int n : {1, 2, 3, 5, 8}) {
    for (int m : {1, 3, 4, 7, 30, 100, 128, 129}) {
      if (quick && m > 30) continue;
      for (std::int64_t K : {1, 511, 512, 513, 70001}) {
        if (quick && K > 513) continue;
        test_tsmm<T>(K, m, n, C, (m % 2) ? R : C, C, int(K % 3), al, (K % 2) ? be : zero);
      }
    }
    test_tsmm<T>(quick ? 2049 : 70001, n, n, C, C, C, 2, al, zero, true);  // in place
    test_tsmm<T>(1025, n, n, C, R, C, 0, one, be, true);
  }
  for (int n : {1, 8}) {  // long K, K below the block count
    test_tsmttsm<T>(quick ? 20011 : 300007, 64, n, C, C, C, 0, al, be);
    test_tsmm<T>(quick ? 20011 : 300007, 64, n, C, C, C, 0, al, zero);
    test_tsmttsm<T>(3, 96, n, C, C, C, 0, al, be);
    test_tsmm<T>(3, 48, n, R, R, R, 0, al, be);
  }
  // odd K, K below the block count, K = 0
  for (std::int64_t K : {0, 1, 2, 7, 33, 129, 4097}) {
    for (int w : {1, 4, 13, 32}) {
      if (quick && w > 13) continue;
      test_tsmttsm<T>(K, w, w, R, R, R, 0, al, be);
      test_tsmttsm<T>(K, w, w, C, C, C, 1, al, zero);
      test_tsmm<T>(K, w, w, R, R, R, 0, al, be);
      test_tsmm<T>(K, w, w, C, C, C, 1, al, zero);
    }
  }
  // a larger K (many blocks, long grid-stride loops)
  if (!quick)
    for (int w : {1, 3, 8, 24, 64}) {
      const std::int64_t K = w <= 8 ? 400003 : 40003;
      test_tsmttsm<T>(K, w, w, R, R, R, 0, al, be);
      test_tsmttsm<T>(K, w, w, C, C, C, 0, al, zero);
      test_tsmm<T>(K, w, w, R, R, R, 0, al, zero);
      test_tsmm<T>(K, w, w, C, C, C, 0, al, be);
    }
  // column-major D 17-24 at ld != 0 mod 4 (the 32-tile row of KBLA_TSMTTSM_DMMA_D_CC, 17-24 columns of 32 used):
  // ld = 2 mod 4 (even-ld copies) and odd ld (parity-shifted copies), partial last chunk, M != N
  if (!quick) {
    for (int w : {17, 20, 24}) {
      test_tsmttsm<T>(4097, w, w, C, C, C, 1, al, be);
      test_tsmttsm<T>(4095, w, w, C, C, C, 0, al, zero);
    }
    test_tsmttsm<T>(4097, 19, 23, C, C, C, 1, al, be);
    test_tsmttsm<T>(4093, 24, 18, C, C, C, 0, al, zero);
  }
  // column-major rows at any ld and the row-major width-24 row (KBLA_TSMTTSM_DMMA_D_CC / _RR, tsx7): 64-row chunks,
  // 2 stages: ld = 0 mod 4 (K = 4096, 4160), 2 mod 4 and odd, partial last chunks, M != N, beta = 0 with NaN C
  if (!quick) {
    const int dshapes[][2] = {{6, 6}, {7, 7}, {6, 7}, {33, 33}, {40, 40}, {48, 48}, {35, 47},
                              {49, 49}, {56, 56}, {64, 64}, {50, 63}, {64, 49}};
    for (auto& s : dshapes)
      for (std::int64_t K : {4096, 4160, 4098, 4097, 63}) {
        test_tsmttsm<T>(K, s[0], s[1], C, C, C, 0, al, K % 2 ? zero : be);
        if (K == 4096) test_tsmttsm<T>(K, s[0], s[1], C, C, C, 4, al, be);  // ld = 4100
      }
    for (std::int64_t K : {64, 4097, 100003}) {
      test_tsmttsm<T>(K, 24, 24, R, R, R, 0, al, be);
      test_tsmttsm<T>(K, 24, 24, R, R, R, 2, al, zero);
    }
    test_tsmttsm<T>(4097, 24, 21, R, R, R, 0, al, be);
  }
  // wider than one tile
  if (!quick)
    for (int w : {96, 128, 256, 512}) {
      const std::int64_t K = w >= 256 ? 300 : 1000;
      test_tsmttsm<T>(K, w, w, R, R, R, 0, al, be);
      test_tsmttsm<T>(K, w, w, C, C, C, 2, al, zero);
      test_tsmm<T>(K, w, w, R, R, R, 0, al, zero);
      test_tsmm<T>(K, w, w, C, C, C, 2, al, be);
    }
  // in place X <- alpha X C + beta X
  for (int w : {1, 2, 3, 5, 8, 16, 31, 48, 64, 96}) {
    if (quick && w > 16) continue;
    test_tsmm<T>(quick ? 513 : 5003, w, w, R, R, R, 0, al, zero, true);
    test_tsmm<T>(quick ? 513 : 5003, w, w, C, R, C, 2, al, be, true);
  }
  // in place over many rows per thread: the row kernel (row-major, widths <= 4) loads the next rows while it stores
  // the current ones
  for (int w : {2, 4}) test_tsmm<T>(quick ? 300007 : 1000003, w, w, R, R, R, 0, al, w == 2 ? zero : be, true);
  // in place through the TSMM DMMA classes with even leading dimensions (16-byte copies and stores), beta != 0
  // (reads the old X in the epilogue) and a partial last chunk
  for (int w : {13, 24, 40, 64}) {
    if (quick && w > 16) continue;
    test_tsmm<T>(quick ? 514 : 4100, w, w, C, R, C, 0, al, be, true);
    test_tsmm<T>(quick ? 515 : 4099, w, w, R, C, R, 2 - w % 2, al, be, true);
  }
  // odd leading dimensions (odd K or padded ld) and M != N through the tensor-core TSMM classes: complex data
  // at 16 (mod 32) bytes takes the shifted 16-byte copies, real column-major with odd ld the SIMT kernel
  if (!quick) {
    const int tshapes[][2] = {{24, 57}, {57, 24}, {33, 64}, {64, 33}, {47, 47}, {12, 30}, {20, 33}, {63, 17},
                              {13, 16}, {49, 55}};
    for (auto& s : tshapes)
      for (std::int64_t K : {1, 15, 1001, 4097})
        for (int pad : {0, 1, 2}) {
          test_tsmm<T>(K, s[0], s[1], C, C, C, pad, al, pad == 1 ? zero : be);
          test_tsmm<T>(K, s[0], s[1], R, R, R, pad, al, pad == 2 ? zero : be);
          test_tsmm<T>(K, s[0], s[1], C, R, C, pad, al, be);
          if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], C, C, C, pad, al, be, true);
        }
  }
  // real column-major at odd ld through the 256-row chunks of the D 17-24 VEC 1 row (KBLA_TSMM_DMMA_D_ODDLONG):
  // M != N, partial last chunks, C row-major, in place
  if (!quick) {
    const int oshapes[][2] = {{17, 17}, {24, 24}, {19, 23}, {24, 9}, {5, 21}};
    for (auto& s : oshapes)
      for (std::int64_t K : {1, 255, 257, 4097}) {
        test_tsmm<T>(K, s[0], s[1], C, C, C, 0, al, be);
        test_tsmm<T>(K, s[0], s[1], C, R, C, 0, al, zero);
        if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], C, C, C, 0, al, be, true);
      }
  }
  // column-major with lda = 2 (mod 4) through the tensor-core TSMM classes (real: odd columns at 16 (mod 32)
  // bytes, shifted copies), square and M != N, beta = 0 (NaN B) and != 0, in place, partial last chunks
  if (!quick) {
    const int cshapes[][2] = {{26, 26}, {32, 32}, {29, 40}, {43, 43}, {48, 48}, {48, 33},
                              {50, 50}, {61, 59}, {64, 64}, {57, 64}};
    for (auto& s : cshapes)
      for (std::int64_t K : {2, 30, 1002, 4098, 40002}) {
        test_tsmm<T>(K, s[0], s[1], C, C, C, 0, al, zero);
        test_tsmm<T>(K, s[0], s[1], C, R, C, 0, al, be);
        if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], C, C, C, 0, al, be, true);
      }
  }
  // column-major (complex) double A * C on the bulk-copy kernel (update_bulk.cuh: beta = 0, widths 25-64, chunks of 128
  // rows in runs of 1, 4 or 16 per block visit, the rest on the other kernels; double from 2^17-2^19 rows, complex
  // from 2^13, so the short cases here test the kernels around it, and the long ones at the end the bulk-copy
  // kernels): fewer rows than a chunk, exactly one, one more, many (runs cut short, several runs per block); odd ld; A and B starting at 8 (mod 16) bytes (off = 1: the narrow copies at
  // the matrix ends), M != N with column groups past N and k-steps past M, M or N = 1, in place; beta != 0 next to each
  // (the other kernels). Double and complex double (complex: widths 12-48 there, 34-64 on update_bulk_cplx.cuh; the
  // other types never take it).
  if ((std::is_same<T, double>::value || std::is_same<T, std::complex<double>>::value) && !quick) {
    const int bshapes[][2] = {{25, 25}, {32, 32}, {30, 27}, {33, 33}, {48, 48}, {40, 47}, {49, 49},
                              {64, 64}, {53, 61}, {64, 50}, {26, 64}, {64, 17}, {17, 64}, {1, 30}, {30, 1}};
    for (auto& s : bshapes)
      for (std::int64_t K : {63, 64, 128, 129, 1001, 4097, 20002}) {
        const int pad = K % 2 == 0 ? 1 : 0;  // odd ld
        for (int off : {0, 1}) {
          test_tsmm<T>(K, s[0], s[1], C, C, C, pad, al, zero, false, off);
          test_tsmm<T>(K, s[0], s[1], C, R, C, pad + 2 * off, one, zero, false, off);
          if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], C, C, C, pad, al, zero, true, off);
        }
        test_tsmm<T>(K, s[0], s[1], C, C, C, pad, al, be, false, 1);
      }
    // complex widths 34-64 on update_bulk_cplx.cuh (alpha C in shared memory; column-major from 49): row-major A and B,
    // padded rows, M != N in both classes (48 and 64 columns)
    if (!std::is_same<T, double>::value) {
      const int zshapes[][2] = {{49, 49}, {64, 64}, {53, 61}, {64, 50}, {50, 64}, {57, 57}, {40, 35}, {34, 48}};
      for (auto& s : zshapes)
        for (std::int64_t K : {31, 32, 33, 1001, 4097, 20002}) {
          test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, zero);
          test_tsmm<T>(K, s[0], s[1], R, C, R, 1, al, zero, false, 1);
          test_tsmm<T>(K, s[0], s[1], R, R, R, 3, one, zero, s[0] == s[1]);
          test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, be);
        }
    }
    const bool dbl = std::is_same<T, double>::value;  // (complex: a shorter reference)
    test_tsmm<T>(dbl ? 1100003 : 530003, 64, 64, C, C, C, 0, al, zero);  // enough chunks for runs of 16 per visit
    test_tsmm<T>(dbl ? 1000003 : 300007, 33, 30, C, C, C, 0, al, zero, false, 1);
    if (dbl) test_tsmm<T>(300007, 32, 27, C, C, C, 0, al, zero);  // the class 25-32, from 2^18 rows
    if (!dbl) {
      test_tsmm<T>(100003, 60, 60, R, R, R, 0, al, zero);
      // update_bulk_cplx.cuh row-major from 2^18 rows: the classes 34-48 and 49-63
      test_tsmm<T>(270001, 40, 44, R, R, R, 0, al, zero);
      test_tsmm<T>(270001, 60, 57, R, R, R, 1, al, zero);
    }
  }
  // row-major widths up to 6 (real: one thread per row; dense B staged per warp of 32 rows; complex widths 1-2 the
  // same in the real view): K around multiples of 32 and past one grid pass, M != N, padded B (per-row stores),
  // in place
  {
    const int rshapes[][2] = {{3, 3}, {4, 4}, {5, 5}, {6, 6}, {3, 6}, {6, 4}, {5, 2}, {2, 5}, {4, 1}, {1, 2}, {2, 1}};
    for (auto& s : rshapes)
      for (std::int64_t K : {31, 32, 33, 64, 97, 8191, 262147}) {
        if (quick && K > 8191) continue;
        test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, zero);
        test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, be);
        test_tsmm<T>(K, s[0], s[1], R, R, R, 1, al, be);
        if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, be, true);
      }
  }
  // row-major dense A and B through the flat tensor-core staging (real widths odd or 2 mod 4 up to the class W 48,
  // complex odd widths 3-11) and the D 7-8 row: square and M != N (the fragment row order follows M), partial
  // chunks, beta = 0 (NaN B) and != 0, in place; padded B leaves the flat path (the fallback's result is checked too)
  {
    const int fshapes[][2] = {{7, 7}, {8, 8}, {10, 10}, {22, 22}, {46, 46}, {3, 3}, {11, 11},
                              {10, 7}, {7, 10}, {14, 22}, {22, 3}, {3, 9}, {11, 5}, {34, 48}, {46, 40}};
    for (auto& s : fshapes)
      for (std::int64_t K : {1, 15, 63, 65, 4097, 100003}) {
        if (quick && (K > 4097 || s[0] > 22)) continue;
        test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, zero);
        test_tsmm<T>(K, s[0], s[1], R, C, R, 0, al, be);
        if (K == 4097) test_tsmm<T>(K, s[0], s[1], R, R, R, 1, al, be);
        if (s[0] == s[1]) test_tsmm<T>(K, s[0], s[1], R, R, R, 0, al, be, true);
      }
  }
  // the opt-in three-product complex form (Gauss; its rows cover widths 57-64, other widths must ignore the flag):
  // both layouts, odd K, M != N, beta = 0 with NaN C, padded and mixed layouts
  g_complex_3m = true;
  for (int w : {8, 56, 57, 60, 63, 64}) {
    if (quick && w > 8) continue;
    for (std::int64_t K : {1, 7, 1001, 100003}) {
      if (quick && K > 1001) continue;
      test_tsmttsm<T>(K, w, w, R, R, R, 0, al, be);
      test_tsmttsm<T>(K, w, w, C, C, C, 1, al, zero);
    }
  }
  if (!quick) {
    test_tsmttsm<T>(20001, 64, 59, C, C, C, 0, al, be);
    test_tsmttsm<T>(20001, 58, 64, R, R, R, 2, al, zero);
    test_tsmttsm<T>(20001, 61, 61, R, C, C, 0, al, be);
  }
  g_complex_3m = false;
  // deterministic mode (bitwise equal across two runs)
  for (int w : {1, 4, 16, 64}) {
    if (quick && w > 16) continue;
    test_tsmttsm<T>(quick ? 3001 : 100001, w, w, R, R, R, 0, al, be, true);
    test_tsmttsm<T>(quick ? 3001 : 100001, w, w, C, C, C, 0, al, zero, true);
  }
  if (!quick) test_tsmttsm<T>(5000, 130, 70, C, C, R, 1, al, be, true);
  // captured into a graph and replayed (SIMT widths and one tensor-core width)
  for (int w : {1, 4, 8, 40})
    for (Layout l : {R, C}) test_tsmttsm_graph<T>(quick ? 3001 : 200003, w, w, l, 3);
}

int main(int argc, char** argv) {
  bool quick = false, tiny = false;
  std::string types = "DZSC";  // --types: a subset of D Z S C, so that a GPU run can split the suite over processes
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    if (a == "--tiny") tiny = true;
    if (a == "--types" && i + 1 < argc) types = argv[++i];
    if (a == "--own-kernels") g_allow_cublas = false;
    if (a == "--version") {
      std::printf("kbla_cuda_raw_tests\n");
      return 0;
    }
  }
  int dev = 0;
  cudaDeviceProp prop;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %s, %d SMs%s, types %s%s\n", prop.name, prop.multiProcessorCount,
              tiny ? " (tiny set)" : quick ? " (quick set)" : "", types.c_str(), g_allow_cublas ? "" : ", own kernels");
  std::fflush(stdout);
  auto run_type = [&](char t, auto zero) {
    if (types.find(t) == std::string::npos) return;
    using T = decltype(zero);
    if (tiny) tiny_suite<T>();
    else suite<T>(quick);
    std::printf("%c done: %d passed, %d failed so far\n", t, g_pass, g_fail);
    std::fflush(stdout);
  };
  run_type('D', double{});
  run_type('Z', std::complex<double>{});
  run_type('S', float{});
  run_type('C', std::complex<float>{});
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
