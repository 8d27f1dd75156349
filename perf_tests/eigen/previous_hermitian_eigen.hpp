// The library's previous host Hermitian eigen-solver (Householder tridiagonalisation forming Q, then EISPACK tql2
// accumulating every rotation into Z), kept verbatim as kbla_bench_dense_eigen's same-run "before" baseline.
#pragma once

#include <solvers/kbla_dense_host.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kbla_bench {

using kbla::dense::abs2;
using kbla::dense::conj;
using kbla::dense::mag_t;
using kbla::dense::Matrix;
using kbla::dense::real;

// Hermitian eigenproblem A = Z diag(w) Z^H, w ascending, Z unitary. Householder reduction to a real symmetric
// tridiagonal matrix (complex reflectors chosen so the off-diagonal comes out real, as LAPACK's zlarfg), then
// implicit QL with Wilkinson-type shifts (EISPACK tql2) accumulating the rotations into the reflectors' product.
// Reads the whole of A (which must be Hermitian; symmetrise first if it is only nearly so).
template <class T>
void previous_hermitian_eigen(const Matrix<T>& Ain, std::vector<mag_t<T>>& w, Matrix<T>& Z) {
  using M = mag_t<T>;
  const int n = Ain.rows();
  if (Ain.cols() != n) throw std::invalid_argument("kbla::dense::hermitian_eigen: matrix is not square");
  Matrix<T> A = Ain;
  Z = Matrix<T>::identity(n);
  w.assign(n, M(0));
  if (n == 0) return;
  std::vector<M> e(n, M(0));
  std::vector<T> v(n), p(n), zp(n);
  for (int k = 0; k + 1 < n; ++k) {
    const int L = n - k - 1;  // length of x = A(k+1:n, k)
    const T alpha = A(k + 1, k);
    M xnorm2 = 0;
    for (int i = k + 2; i < n; ++i) xnorm2 += abs2(A(i, k));
    const M alpha_im = kbla::Impl::ArithTraits<T>::imag(alpha);
    if (xnorm2 == M(0) && alpha_im == M(0)) {
      e[k] = real(alpha);
      continue;  // H = I
    }
    const M beta = -std::copysign(std::sqrt(abs2(alpha) + xnorm2), real(alpha));
    const T tau = (T(beta) - alpha) / T(beta);
    const T scale = T(1) / (alpha - T(beta));
    v[0] = T(1);
    for (int i = 1; i < L; ++i) v[i] = A(k + 1 + i, k) * scale;
    e[k] = beta;
    // Column k / row k become beta e1.
    A(k + 1, k) = T(beta);
    A(k, k + 1) = T(beta);
    for (int i = k + 2; i < n; ++i) A(i, k) = A(k, i) = T(0);
    // Trailing block: A22 <- H^H A22 H, H = I - tau v v^H.
    const int o = k + 1;
    const T ctau = conj(tau);
    for (int j = o; j < n; ++j) {  // left: A22 -= conj(tau) v (v^H A22)
      T s = T(0);
      for (int i = 0; i < L; ++i) s += conj(v[i]) * A(o + i, j);
      s *= ctau;
      for (int i = 0; i < L; ++i) A(o + i, j) -= v[i] * s;
    }
    // Right-hand updates column by column (column-major storage: contiguous inner loops).
    for (int i = 0; i < L; ++i) p[i] = T(0);  // right: A22 -= tau (A22 v) v^H
    for (int j = 0; j < L; ++j) {
      const T vj = v[j];
      const T* a = &A(o, o + j);
      for (int i = 0; i < L; ++i) p[i] += a[i] * vj;
    }
    for (int j = 0; j < L; ++j) {
      const T cv = tau * conj(v[j]);
      T* a = &A(o, o + j);
      for (int i = 0; i < L; ++i) a[i] -= p[i] * cv;
    }
    zp.assign(n, T(0));  // Z <- Z H on columns k+1..n
    for (int j = 0; j < L; ++j) {
      const T vj = v[j];
      const T* z = &Z(0, o + j);
      for (int i = 0; i < n; ++i) zp[i] += z[i] * vj;
    }
    for (int j = 0; j < L; ++j) {
      const T cv = tau * conj(v[j]);
      T* z = &Z(0, o + j);
      for (int i = 0; i < n; ++i) z[i] -= zp[i] * cv;
    }
  }
  std::vector<M>& d = w;
  for (int k = 0; k < n; ++k) d[k] = real(A(k, k));
  e[n - 1] = 0;

  // tql2: e[i] couples d[i] and d[i+1].
  const M eps = std::numeric_limits<M>::epsilon();
  M f = 0, tst1 = 0;
  int total_iterations = 0;
  for (int l = 0; l < n; ++l) {
    tst1 = std::max(tst1, std::abs(d[l]) + std::abs(e[l]));
    int m = l;
    while (m < n - 1 && std::abs(e[m]) > eps * tst1) ++m;
    if (m > l) {
      do {
        if (++total_iterations > 60 * n + 60)
          throw std::runtime_error("kbla::dense::hermitian_eigen: QL iteration did not converge");
        M g = d[l];
        M pp = (d[l + 1] - g) / (M(2) * e[l]);
        M r = std::hypot(pp, M(1));
        if (pp < 0) r = -r;
        d[l] = e[l] / (pp + r);
        d[l + 1] = e[l] * (pp + r);
        const M dl1 = d[l + 1];
        M h = g - d[l];
        for (int i = l + 2; i < n; ++i) d[i] -= h;
        f += h;
        pp = d[m];
        M c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const M el1 = e[l + 1];
        for (int i = m - 1; i >= l; --i) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * pp;
          r = std::hypot(pp, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = pp / r;
          pp = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          for (int k = 0; k < n; ++k) {
            const T zk1 = Z(k, i + 1), zk = Z(k, i);
            Z(k, i + 1) = zk * s + zk1 * c;
            Z(k, i) = zk * c - zk1 * s;
          }
        }
        pp = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * pp;
        d[l] = c * pp;
      } while (std::abs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  // Sort ascending (selection sort keeps the column swaps few).
  for (int i = 0; i + 1 < n; ++i) {
    int k = i;
    for (int j = i + 1; j < n; ++j)
      if (d[j] < d[k]) k = j;
    if (k != i) {
      std::swap(d[i], d[k]);
      for (int r = 0; r < n; ++r) std::swap(Z(r, i), Z(r, k));
    }
  }
}

}  // namespace kbla_bench
