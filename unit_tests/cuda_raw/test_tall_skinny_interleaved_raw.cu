// Raw-kernel test of kbla::cuda::tsmm / tsmttsm on operands that interleave in one allocation without sharing an
// element (what kbla's overlap check now accepts): the column blocks Q and X of a row-major basis [Q | X | guard]
// (X = alpha Q C + beta X, C = alpha Q^H X + beta C, X <- alpha X S in place) and the row blocks of a column-major
// matrix (B below A, the small matrix below B). Every element of the allocation outside the output must keep its
// bits (guards are NaN, Q is data the kernel reads at the same time). All width classes, M != N, the four types,
// and row counts where the bulk-copy kernels take over. No Kokkos, no GoogleTest.
// Usage: kbla_tall_skinny_interleaved_raw_tests [--quick]. Prints "N passed, N failed"; exit code 0 iff none failed.
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

namespace {

std::mt19937_64 g_rng(2025);

template <class T>
struct Real {
  using type = T;
};
template <class R>
struct Real<std::complex<R>> {
  using type = R;
};
template <class T>
constexpr bool is_complex() {
  return !std::is_same<T, typename Real<T>::type>::value;
}
template <class T>
const char* type_name() {
  if constexpr (std::is_same<T, float>::value) return "S";
  else if constexpr (std::is_same<T, double>::value) return "D";
  else if constexpr (std::is_same<T, std::complex<float>>::value) return "C";
  else return "Z";
}
template <class T>
T random_value() {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (is_complex<T>()) return T(typename Real<T>::type(u(g_rng)), typename Real<T>::type(u(g_rng)));
  else return T(u(g_rng));
}
template <class T>
T nan_value() {
  const auto n = std::numeric_limits<typename Real<T>::type>::quiet_NaN();
  if constexpr (is_complex<T>()) return T(n, n);
  else return T(n);
}
template <class T>
T make_value(double re, double im) {
  using R = typename Real<T>::type;
  if constexpr (is_complex<T>()) return T(R(re), R(im));
  else return T(re);
}
struct Wide {
  long double re = 0, im = 0;
};
template <class T>
Wide widen(const T& x, bool conjugate = false) {
  if constexpr (is_complex<T>()) return {x.real(), conjugate ? -(long double)x.imag() : (long double)x.imag()};
  else return {(long double)x, 0};
}
long double modulus(const Wide& w) { return std::sqrt(w.re * w.re + w.im * w.im); }

// One allocation on the device and its host copy; `at(i, j)` in the allocation's layout and leading dimension.
template <class T>
struct Buffer {
  Layout layout;
  std::int64_t rows, cols, ld;
  std::vector<T> host;
  T* device = nullptr;
  Buffer(Layout l, std::int64_t r, std::int64_t c)
      : layout(l), rows(r), cols(c), ld(l == Layout::RowMajor ? c : r), host(std::size_t(r * c), nan_value<T>()) {
    CK(cudaMalloc(&device, host.size() * sizeof(T)));
  }
  ~Buffer() { cudaFree(device); }
  std::size_t at(std::int64_t i, std::int64_t j) const {
    return layout == Layout::RowMajor ? std::size_t(i * ld + j) : std::size_t(i + j * ld);
  }
  void randomize(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = c0; j < c1; ++j) host[at(i, j)] = random_value<T>();
  }
  void upload() { CK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const {
    std::vector<T> h(host.size());
    CK(cudaMemcpy(h.data(), device, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  T* ptr(std::int64_t i, std::int64_t j) { return device + at(i, j); }
};

struct Block {
  std::int64_t r0, c0, rows, cols;
  bool contains(std::int64_t i, std::int64_t j) const { return i >= r0 && i < r0 + rows && j >= c0 && j < c0 + cols; }
};

// out(i, j) = alpha * sum_t left(i, t) right(t, j) + beta * old(i, j) over the blocks of `before`, against `after`,
// and every element outside `out` bitwise unchanged. inner_conj: left(i, t) = conj(L(t, i)) (tsmttsm).
template <class T>
bool check(const Buffer<T>& buf, const std::vector<T>& after, const Buffer<T>& lbuf, Block L, bool inner_conj,
           const Buffer<T>& rbuf, Block R, T alpha, T beta, Block out, const std::string& what) {
  const std::vector<T>& before = buf.host;
  const std::int64_t inner = inner_conj ? L.rows : L.cols;
  const long double eps = std::numeric_limits<typename Real<T>::type>::epsilon();
  const Wide a = widen(alpha), b = widen(beta);
  const bool beta_zero = beta == T(0);
  long bad = 0;
  double worst = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : bad) reduction(max : worst)
  for (std::int64_t i = 0; i < out.rows; ++i)
    for (std::int64_t j = 0; j < out.cols; ++j) {
      long double re = 0, im = 0, mag = 0;
      for (std::int64_t t = 0; t < inner; ++t) {
        const Wide l = inner_conj ? widen(lbuf.host[lbuf.at(L.r0 + t, L.c0 + i)], true)
                                  : widen(lbuf.host[lbuf.at(L.r0 + i, L.c0 + t)]);
        const Wide r = widen(rbuf.host[rbuf.at(R.r0 + t, R.c0 + j)]);
        re += l.re * r.re - l.im * r.im;
        im += l.re * r.im + l.im * r.re;
        mag += modulus(l) * modulus(r);
      }
      long double ref_re = a.re * re - a.im * im, ref_im = a.re * im + a.im * re;
      mag *= modulus(a);
      if (!beta_zero) {
        const Wide o = widen(before[buf.at(out.r0 + i, out.c0 + j)]);
        ref_re += b.re * o.re - b.im * o.im;
        ref_im += b.re * o.im + b.im * o.re;
        mag += modulus(b) * modulus(o);
      }
      const Wide g = widen(after[buf.at(out.r0 + i, out.c0 + j)]);
      const long double err = std::sqrt((g.re - ref_re) * (g.re - ref_re) + (g.im - ref_im) * (g.im - ref_im));
      const long double tol = 4 * (inner + 8) * eps * mag + 1e-30L;
      const double ratio = std::isfinite(double(g.re)) && std::isfinite(double(g.im)) ? double(err / tol) : INFINITY;
      worst = std::max(worst, ratio);
      if (!(ratio <= 1.0)) ++bad;
    }
  long clobbered = 0;
  std::int64_t first_i = -1, first_j = -1;
  for (std::int64_t i = 0; i < buf.rows; ++i)
    for (std::int64_t j = 0; j < buf.cols; ++j)
      if (!out.contains(i, j) && std::memcmp(&before[buf.at(i, j)], &after[buf.at(i, j)], sizeof(T)) != 0) {
        if (clobbered++ == 0) first_i = i, first_j = j;
      }
  const bool ok = bad == 0 && clobbered == 0;
  if (ok) {
    ++g_pass;
  } else {
    ++g_fail;
    if (g_fail <= 60)
      std::printf("FAIL %s%s: %ld wrong entries (worst err/tol %.3g), %ld elements outside the output changed"
                  " (first (%lld, %lld))\n",
                  type_name<T>(), what.c_str(), bad, worst, clobbered, (long long)first_i, (long long)first_j);
  }
  if ((g_pass + g_fail) % 200 == 0) {
    std::printf("  ... %d passed, %d failed\n", g_pass, g_fail);
    std::fflush(stdout);
  }
  return ok;
}

template <class T>
std::string label(const char* op, std::int64_t K, int M, int N, bool beta_zero) {
  char s[160];
  std::snprintf(s, sizeof s, " %s K=%lld M=%d N=%d beta0=%d", op, (long long)K, M, N, int(beta_zero));
  return s;
}

// [Q | X | 3 guard columns], row-major, a NaN guard row above and below: X = alpha Q C + beta X (C separate,
// column-major), then C2 = alpha Q^H X + beta C2 (C2 separate, NaN frame), then X <- alpha X S in place.
template <class T>
void row_major_basis(std::int64_t K, int M, int N, T alpha, T beta, bool with_inner, bool with_in_place) {
  const std::int64_t width = M + N + 3;
  {
    Buffer<T> V(Layout::RowMajor, K + 2, width);
    V.randomize(1, K + 1, 0, M);
    if (beta != T(0)) V.randomize(1, K + 1, M, M + N);
    Buffer<T> C(Layout::ColMajor, M, N);
    C.randomize(0, M, 0, N);
    V.upload();
    C.upload();
    CK(kbla::cuda::tsmm<T>(0, K, M, N, alpha, V.ptr(1, 0), V.ld, Layout::RowMajor, C.device, C.ld, Layout::ColMajor,
                           beta, V.ptr(1, M), V.ld, Layout::RowMajor));
    CK(cudaDeviceSynchronize());
    check<T>(V, V.download(), V, {1, 0, K, M}, false, C, {0, 0, M, N}, alpha, beta, {1, M, K, N},
             label<T>("tsmm X = Q C on [Q | X] row-major", K, M, N, beta == T(0)));
  }
  if (with_inner) {
    Buffer<T> V(Layout::RowMajor, K + 2, width);
    V.randomize(1, K + 1, 0, M + N);
    V.upload();
    Buffer<T> C(Layout::ColMajor, M + 1, N + 1);  // C = rows [1, M + 1) x columns [0, N): a NaN frame
    if (beta != T(0)) C.randomize(1, M + 1, 0, N);
    C.upload();
    CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, V.ptr(1, 0), V.ld, Layout::RowMajor, V.ptr(1, M), V.ld,
                              Layout::RowMajor, beta, C.ptr(1, 0), C.ld, Layout::ColMajor));
    CK(cudaDeviceSynchronize());
    const std::vector<T> v_after = V.download();
    const bool v_kept = std::memcmp(v_after.data(), V.host.data(), v_after.size() * sizeof(T)) == 0;
    check<T>(C, C.download(), V, {1, 0, K, M}, true, V, {1, M, K, N}, alpha, beta, {1, 0, M, N},
             label<T>("tsmttsm C = Q^H X on [Q | X] row-major", K, M, N, beta == T(0)) +
                 (v_kept ? "" : " (and the basis changed)"));
    if (!v_kept) ++g_fail;
  }
  if (with_in_place) {
    Buffer<T> V(Layout::RowMajor, K + 2, width);
    V.randomize(1, K + 1, 0, M + N);
    Buffer<T> S(Layout::ColMajor, N, N);
    S.randomize(0, N, 0, N);
    V.upload();
    S.upload();
    CK(kbla::cuda::tsmm<T>(0, K, N, N, alpha, V.ptr(1, M), V.ld, Layout::RowMajor, S.device, S.ld, Layout::ColMajor,
                           T(0), V.ptr(1, M), V.ld, Layout::RowMajor));
    CK(cudaDeviceSynchronize());
    check<T>(V, V.download(), V, {1, M, K, N}, false, S, {0, 0, N, N}, alpha, T(0), {1, M, K, N},
             label<T>("tsmm in place X <- X S on [Q | X] row-major", K, N, N, true));
  }
}

// Column-major rows: A = rows [0, K) x [0, M), NaN row, B = rows [K + 1, 2K + 1) x [0, N), NaN row, small block
// rows [2K + 2, 2K + 2 + max(M, N)), a NaN column at the end. tsmm B = alpha A C + beta B with C the small block;
// tsmttsm small = alpha A^H B + beta small.
template <class T>
void column_major_rows(std::int64_t K, int M, int N, T alpha, T beta, bool with_inner) {
  const std::int64_t rows = 2 * K + 3 + std::max(M, N), cols = std::max(M, N) + 1, s0 = 2 * K + 2;
  {
    Buffer<T> W(Layout::ColMajor, rows, cols);
    W.randomize(0, K, 0, M);
    W.randomize(s0, s0 + M, 0, N);
    if (beta != T(0)) W.randomize(K + 1, 2 * K + 1, 0, N);
    W.upload();
    CK(kbla::cuda::tsmm<T>(0, K, M, N, alpha, W.ptr(0, 0), W.ld, Layout::ColMajor, W.ptr(s0, 0), W.ld,
                           Layout::ColMajor, beta, W.ptr(K + 1, 0), W.ld, Layout::ColMajor));
    CK(cudaDeviceSynchronize());
    check<T>(W, W.download(), W, {0, 0, K, M}, false, W, {s0, 0, M, N}, alpha, beta, {K + 1, 0, K, N},
             label<T>("tsmm B = A C on column-major row blocks", K, M, N, beta == T(0)));
  }
  if (with_inner) {
    Buffer<T> W(Layout::ColMajor, rows, cols);
    W.randomize(0, K, 0, M);
    W.randomize(K + 1, 2 * K + 1, 0, N);
    if (beta != T(0)) W.randomize(s0, s0 + M, 0, N);
    W.upload();
    CK(kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, W.ptr(0, 0), W.ld, Layout::ColMajor, W.ptr(K + 1, 0), W.ld,
                              Layout::ColMajor, beta, W.ptr(s0, 0), W.ld, Layout::ColMajor));
    CK(cudaDeviceSynchronize());
    check<T>(W, W.download(), W, {0, 0, K, M}, true, W, {K + 1, 0, K, N}, alpha, beta, {s0, 0, M, N},
             label<T>("tsmttsm C = A^H B on column-major row blocks", K, M, N, beta == T(0)));
  }
}

const int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64};
constexpr int kWidthCount = int(sizeof(kWidths) / sizeof(kWidths[0]));

template <class T>
void run_type(bool quick) {
  const T alpha = make_value<T>(0.75, -0.5), beta = make_value<T>(-0.5, 0.25);
  const T minus_one = T(-1), one = T(1), zero = T(0);
  const std::int64_t K = 2053;
  for (int i = 0; i < kWidthCount; ++i)
    for (int step : {1, 4, 9}) {
      if (quick && step != 4) continue;
      const int M = kWidths[i], N = kWidths[(i + step) % kWidthCount];
      row_major_basis<T>(K, M, N, minus_one, one, step == 1, false);                // X -= Q C
      row_major_basis<T>(K, M, N, alpha, zero, step == 4, step == 9);               // beta = 0 (NaN X)
      column_major_rows<T>(K, M, N, alpha, step == 1 ? zero : beta, step != 9);
    }
  for (int N : kWidths) row_major_basis<T>(K + 7, kWidths[(N * 7) % kWidthCount], N, alpha, beta, false, true);
  if (quick) return;
  // the bulk-copy kernels (beta = 0, whole chunks, tall_skinny_params.hpp) and their remainder
  if constexpr (std::is_same<T, double>::value) {
    column_major_rows<T>((1 << 18) + 3, 30, 27, alpha, zero, false);
    column_major_rows<T>((1 << 19) + 5, 40, 33, alpha, zero, false);
    column_major_rows<T>((1 << 17) + 1, 56, 60, alpha, zero, false);
  }
  if constexpr (std::is_same<T, std::complex<double>>::value) {
    column_major_rows<T>((1 << 13) + 5, 20, 17, alpha, zero, false);
    column_major_rows<T>((1 << 14) + 9, 40, 36, alpha, zero, false);
    row_major_basis<T>((1 << 18) + 3, 36, 34, alpha, zero, false, false);
    row_major_basis<T>((1 << 18) + 3, 60, 56, alpha, zero, false, false);
  }
  row_major_basis<T>((1 << 17) + 5, 8, 5, alpha, beta, true, true);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  run_type<double>(quick);
  run_type<std::complex<double>>(quick);
  run_type<float>(quick);
  run_type<std::complex<float>>(quick);
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
