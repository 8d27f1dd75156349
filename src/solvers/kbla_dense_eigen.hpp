// kbla::dense::hermitian_eigen: the Hermitian eigenproblem A = Z diag(w) Z^H of the solvers' Rayleigh-Ritz step
// (sizes up to a few hundred, on the host, no LAPACK). Included from kbla_dense_host.hpp.
//
// Algorithm, and why (the earlier Householder + tql2 route formed Q and accumulated every QL rotation into the
// n x n Z: ~2.7 n^3 + 2 n^3 + ~6.5 n^3 flops at n = 88, half of it in latency-bound scalar loops and std::hypot):
//  1. Householder reduction to a real symmetric tridiagonal T = Q^H A Q (complex reflectors chosen so that the
//     off-diagonal comes out real, as LAPACK's zlarfg) in the symmetric rank-2 form of LAPACK's sytd2, on the lower
//     triangle only (4/3 n^3 flops): the matrix-vector product reads each column once, as an axpy and an inner
//     product with two partial sums, and the rank-2 update is column axpys, so the compiler vectorises both without
//     reassociating sums; real and imaginary parts in separate arrays (complex data costs real arithmetic only).
//  2. T splits where an off-diagonal is below eps * ||T|| (exact multiplicities show up as such splits). On each
//     unreduced block the eigenvalues come from implicit QL without vectors (tql2's shifts, O(n^2)), the
//     eigenvectors from inverse iteration as LAPACK's dstein (clusters by gap 1e-3 ||T||, modified Gram-Schmidt
//     against the cluster's earlier vectors in every iteration, pseudo-random start from a fixed seed so that
//     results repeat, equal eigenvalues' shifts separated by 10 eps |lambda|), 16 shifts side by side so that the
//     O(n) recurrences run across shifts. A block where a vector does not converge or its residual is not at the
//     eps * ||T|| level is redone by QL with vector accumulation: inverse iteration is a fast path, never the only
//     one. These vectors are real whatever A is.
//  3. Z = Q Y (2 n^3 flops) with the reflectors applied four at a time as block reflectors (LAPACK's larft form),
//     each as two passes over a row-major copy of Y with register tiles, instead of two passes per reflector.
// About 3.3 n^3 flops in all for real data (x4 for complex), the tridiagonal stage O(n^2) plus the clusters'
// re-orthogonalisation. Up to n = 12 the setup costs more than the flops saved: there the former route runs (with
// tql2's std::hypot replaced). kbla_bench_dense_eigen (perf_tests/eigen) times it against the former route and
// LAPACK's dsyevd / zheevd.
#pragma once

#include <solvers/kbla_dense_host.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace kbla {
namespace dense {
namespace eigen_detail {

template <class Scalar>
constexpr bool is_complex_v = kbla::Impl::ArithTraits<Scalar>::is_complex;

// sqrt(a^2 + b^2): the plain formula where the sum of squares is a normal number (always, for the scaled matrices
// here, short of entries near underflow), std::hypot otherwise (several times slower, and QL calls this per rotation).
template <class Real>
inline Real pythag(Real a, Real b) {
  const Real s = a * a + b * b;
  if (s >= std::numeric_limits<Real>::min() / std::numeric_limits<Real>::epsilon() &&
      s <= std::numeric_limits<Real>::max())
    return std::sqrt(s);
  return std::hypot(a, b);
}

// A Hermitian matrix split into real and imaginary parts (imag empty for real data), column-major, n x n: the
// reduction's working copy; afterwards column k below row k + 1 holds reflector k's v (v_0 = 1 implicit).
template <class Real>
struct SplitMatrix {
  int n = 0;
  std::vector<Real> re, im;
  Real& r(int i, int j) { return re[std::size_t(i) + std::size_t(j) * n]; }
  Real& c(int i, int j) { return im[std::size_t(i) + std::size_t(j) * n]; }
};

// One column of the symmetric matrix-vector product on the lower triangle: p += a vj (the column below the
// diagonal) and the return value conj(a)^T v (the same entries read as the row to the right of the diagonal). Two
// partial sums (even / odd entries) so that the loop vectorises without reassociating a sum.
template <class Real>
Real column_times_vector(int len, const Real* __restrict__ a, const Real* __restrict__ v, Real vj,
                         Real* __restrict__ p) {
  Real s0 = 0, s1 = 0;
  int i = 0;
  for (; i + 2 <= len; i += 2) {
    p[i] += a[i] * vj;
    p[i + 1] += a[i + 1] * vj;
    s0 += a[i] * v[i];
    s1 += a[i + 1] * v[i + 1];
  }
  if (i < len) {
    p[i] += a[i] * vj;
    s0 += a[i] * v[i];
  }
  return s0 + s1;
}

// The same for split complex data (a = ar + i ai, ...); the returned conj(a)^T v in (re, im).
template <class Real>
void column_times_vector(int len, const Real* __restrict__ ar, const Real* __restrict__ ai, const Real* __restrict__ vr,
                         const Real* __restrict__ vi, Real vjr, Real vji, Real* __restrict__ pr, Real* __restrict__ pi,
                         Real& re, Real& im) {
  Real r0 = 0, r1 = 0, i0 = 0, i1 = 0;
  int i = 0;
  for (; i + 2 <= len; i += 2) {
    pr[i] += ar[i] * vjr - ai[i] * vji;
    pi[i] += ar[i] * vji + ai[i] * vjr;
    pr[i + 1] += ar[i + 1] * vjr - ai[i + 1] * vji;
    pi[i + 1] += ar[i + 1] * vji + ai[i + 1] * vjr;
    r0 += ar[i] * vr[i] + ai[i] * vi[i];
    i0 += ar[i] * vi[i] - ai[i] * vr[i];
    r1 += ar[i + 1] * vr[i + 1] + ai[i + 1] * vi[i + 1];
    i1 += ar[i + 1] * vi[i + 1] - ai[i + 1] * vr[i + 1];
  }
  if (i < len) {
    pr[i] += ar[i] * vjr - ai[i] * vji;
    pi[i] += ar[i] * vji + ai[i] * vjr;
    r0 += ar[i] * vr[i] + ai[i] * vi[i];
    i0 += ar[i] * vi[i] - ai[i] * vr[i];
  }
  re = r0 + r1;
  im = i0 + i1;
}

// Householder tridiagonalisation of A (Hermitian; only the lower triangle is read and kept up to date), in place:
// d, e the real tridiagonal (e[k] couples d[k] and d[k+1]), tau_re/tau_im the reflectors' factors
// H_k = I - tau_k v_k v_k^H, T = Q^H A Q with Q = H_0 H_1 ... H_{n-2}.
template <class Real, bool cplx>
void tridiagonalize(SplitMatrix<Real>& A, std::vector<Real>& d, std::vector<Real>& e, std::vector<Real>& tau_re,
                    std::vector<Real>& tau_im) {
  const int n = A.n;
  d.assign(n, Real(0));
  e.assign(n, Real(0));
  tau_re.assign(n, Real(0));
  tau_im.assign(n, Real(0));
  std::vector<Real> vr(n), vi(n), pr(n), pi(n);
  for (int k = 0; k + 1 < n; ++k) {
    d[k] = A.r(k, k);
    const int o = k + 1, L = n - o;  // the trailing block A22 = A(o:n, o:n); x = A(o:n, k)
    const Real ar = A.r(o, k), ai = cplx ? A.c(o, k) : Real(0);
    Real xnorm2 = 0;
    for (int i = o + 1; i < n; ++i) xnorm2 += A.r(i, k) * A.r(i, k) + (cplx ? A.c(i, k) * A.c(i, k) : Real(0));
    if (xnorm2 == Real(0) && ai == Real(0)) {
      e[k] = ar;  // H = I
      continue;
    }
    const Real beta = -std::copysign(std::sqrt(ar * ar + ai * ai + xnorm2), ar);
    // tau = (beta - alpha) / beta; v = x / (alpha - beta) with v_0 = 1.
    const Real tr = (beta - ar) / beta, ti = -ai / beta;
    const Real den_r = ar - beta, den_i = ai, den2 = den_r * den_r + den_i * den_i;
    const Real sr = den_r / den2, si = -den_i / den2;  // 1 / (alpha - beta)
    vr[0] = 1;
    vi[0] = 0;
    for (int i = 1; i < L; ++i) {
      const Real xr = A.r(o + i, k), xi = cplx ? A.c(o + i, k) : Real(0);
      vr[i] = xr * sr - xi * si;
      vi[i] = xr * si + xi * sr;
      A.r(o + i, k) = vr[i];  // keep v for the back-transform
      if (cplx) A.c(o + i, k) = vi[i];
    }
    e[k] = beta;
    tau_re[k] = tr;
    tau_im[k] = ti;
    // p = A22 v from the lower triangle: column j gives p(j+1:) += A(j+1:, j) v_j and p_j += A(j+1:, j)^H v(j+1:).
    std::fill(pr.begin(), pr.begin() + L, Real(0));
    std::fill(pi.begin(), pi.begin() + L, Real(0));
    for (int j = 0; j < L; ++j) {
      const Real* colr = &A.r(o, o + j);
      const Real ajj = colr[j];  // the diagonal is real
      if (cplx) {
        const Real* coli = &A.c(o, o + j);
        Real re, im;
        column_times_vector(L - j - 1, colr + j + 1, coli + j + 1, &vr[j + 1], &vi[j + 1], vr[j], vi[j], &pr[j + 1],
                            &pi[j + 1], re, im);
        pr[j] += ajj * vr[j] + re;
        pi[j] += ajj * vi[j] + im;
      } else {
        pr[j] += ajj * vr[j] + column_times_vector(L - j - 1, colr + j + 1, &vr[j + 1], vr[j], &pr[j + 1]);
      }
    }
    // p <- tau p; w = p - (tau / 2) (p^H v) v (sytd2).
    Real hr = 0, hi = 0;  // h = p^H v after scaling
    for (int i = 0; i < L; ++i) {
      const Real qr = pr[i] * tr - (cplx ? pi[i] * ti : Real(0));
      const Real qi = cplx ? pr[i] * ti + pi[i] * tr : Real(0);
      pr[i] = qr;
      if (cplx) pi[i] = qi;
      hr += qr * vr[i] + (cplx ? qi * vi[i] : Real(0));
      if (cplx) hi += qr * vi[i] - qi * vr[i];
    }
    const Real alr = -Real(0.5) * (tr * hr - ti * hi), ali = -Real(0.5) * (tr * hi + ti * hr);
    for (int i = 0; i < L; ++i) {
      pr[i] += alr * vr[i] - (cplx ? ali * vi[i] : Real(0));
      if (cplx) pi[i] += alr * vi[i] + ali * vr[i];
    }
    // Lower triangle of A22 -= v w^H + w v^H, column by column.
    for (int j = 0; j < L; ++j) {
      Real* colr = &A.r(o, o + j);
      const Real wjr = pr[j], vjr = vr[j];
      if (cplx) {
        Real* coli = &A.c(o, o + j);
        const Real wji = -pi[j], vji = -vi[j];  // conjugates
        for (int i = j; i < L; ++i) {
          colr[i] -= vr[i] * wjr - vi[i] * wji + pr[i] * vjr - pi[i] * vji;
          coli[i] -= vr[i] * wji + vi[i] * wjr + pr[i] * vji + pi[i] * vjr;
        }
      } else {
        for (int i = j; i < L; ++i) colr[i] -= vr[i] * wjr + pr[i] * vjr;
      }
    }
  }
  d[n - 1] = A.r(n - 1, n - 1);
  e[n - 1] = 0;
}

// Implicit QL with tql2's shifts on the unreduced or reduced tridiagonal (d[0:n), e[0:n-1)), e[i] coupling d[i]
// and d[i+1]; d becomes the eigenvalues (unsorted), e is destroyed. With z (column-major, `rows` x n, leading
// dimension ldz) the rotations are accumulated into its columns, a sweep's rotations applied together to a few
// rows at a time (as LAPACK's dlasr: each element read and written once per sweep). False: no convergence.
template <class Real>
bool tridiagonal_ql(Real* d, Real* e, int n, Real* z = nullptr, int ldz = 0, int rows = 0) {
  if (n <= 1) return true;
  e[n - 1] = 0;
  const Real eps = std::numeric_limits<Real>::epsilon();
  std::vector<Real> cs, sn;
  if (z) {
    cs.resize(n);
    sn.resize(n);
  }
  Real f = 0, tst1 = 0;
  int total_iterations = 0;
  for (int l = 0; l < n; ++l) {
    tst1 = std::max(tst1, std::abs(d[l]) + std::abs(e[l]));
    int m = l;
    while (m < n - 1 && std::abs(e[m]) > eps * tst1) ++m;
    if (m > l) {
      do {
        if (++total_iterations > 60 * n + 60) return false;
        Real g = d[l];
        Real pp = (d[l + 1] - g) / (Real(2) * e[l]);
        Real r = pythag(pp, Real(1));
        if (pp < 0) r = -r;
        d[l] = e[l] / (pp + r);
        d[l + 1] = e[l] * (pp + r);
        const Real dl1 = d[l + 1];
        Real h = g - d[l];
        for (int i = l + 2; i < n; ++i) d[i] -= h;
        f += h;
        pp = d[m];
        Real c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const Real el1 = e[l + 1];
        for (int i = m - 1; i >= l; --i) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * pp;
          r = pythag(pp, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = pp / r;
          pp = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          if (z) {
            cs[i] = c;
            sn[i] = s;
          }
        }
        if (z) {  // rotation i mixes columns i and i+1, for i = m-1 down to l: carry column i+1 along the row
          constexpr int chunk = 8;
          for (int r0 = 0; r0 < rows; r0 += chunk) {
            const int nr = std::min(chunk, rows - r0);
            Real carry[chunk];
            for (int q = 0; q < nr; ++q) carry[q] = z[r0 + q + std::size_t(m) * ldz];
            for (int i = m - 1; i >= l; --i) {
              const Real ci = cs[i], si = sn[i];
              Real* zi = z + r0 + std::size_t(i) * ldz;
              Real* zi1 = zi + ldz;
              for (int q = 0; q < nr; ++q) {
                const Real a = zi[q];
                zi1[q] = a * si + carry[q] * ci;
                carry[q] = a * ci - carry[q] * si;
              }
            }
            for (int q = 0; q < nr; ++q) z[r0 + q + std::size_t(l) * ldz] = carry[q];
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
  return true;
}

// A fixed-seed generator for inverse iteration's start vectors (uniform in (-1, 1)): results repeat run to run.
struct StartVectorRandom {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  double next() {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t x = state;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
};

// Row k of dlagtf for the nv shifts of a chunk side by side (the arrays' rows k and k + 1; sw: 1 where rows k and
// k + 1 were interchanged). Scalar code: pivoting branches (the compiler does not vectorise them without relaxed
// floating-point traps), but contiguous, cache-resident rows.
template <class Real>
void lu_row_all_shifts(int nv, Real ck, Real ek1, Real dk1, const Real* __restrict__ shift, Real* __restrict__ ak,
                       Real* __restrict__ ak1, Real* __restrict__ bk, Real* __restrict__ bk1, Real* __restrict__ cv,
                       Real* __restrict__ dk, Real* __restrict__ sw, Real* __restrict__ scale1) {
  const Real ack = std::abs(ck);
  for (int j = 0; j < nv; ++j) {
    const Real a0 = ak[j], a1 = dk1 - shift[j], b0 = bk[j], s1 = scale1[j];
    const Real scale2 = ack + std::abs(a1) + std::abs(ek1);
    // dlagtf's test |c_k| / scale2 <= |a0| / scale1, cross-multiplied (positive scales; a zero pivot interchanges).
    if (a0 != Real(0) && ack * s1 <= std::abs(a0) * scale2) {  // no interchange
      const Real l = ck / a0;
      ak1[j] = a1 - l * b0;
      dk[j] = 0;
      bk1[j] = ek1;
      cv[j] = l;
      sw[j] = 0;
      scale1[j] = scale2;
    } else {
      const Real mult = a0 / ck;
      ak[j] = ck;
      ak1[j] = b0 - mult * a1;
      dk[j] = ek1;
      bk1[j] = -mult * ek1;
      bk[j] = a1;
      cv[j] = mult;
      sw[j] = 1;
    }
  }
}

// Step k of L^{-1} for all shifts (xp: row k - 1, xk: row k).
template <class Real>
void forward_row_all_shifts(int nv, const Real* __restrict__ cp, const Real* __restrict__ sw, Real* __restrict__ xp,
                            Real* __restrict__ xk) {
  for (int j = 0; j < nv; ++j) {
    const bool swap = sw[j] != Real(0);
    const Real pivot_row = swap ? xk[j] : xp[j], other = swap ? xp[j] : xk[j];
    xp[j] = pivot_row;
    xk[j] = other - cp[j] * pivot_row;
  }
}

// Step k of U^{-1} for all shifts: xk = (xk - bk x1 - dk x2) / pivot (x1, x2: rows k + 1, k + 2, or null).
template <class Real>
void backward_row_all_shifts(int nv, const Real* __restrict__ bk, const Real* __restrict__ dk,
                             const Real* __restrict__ ik, const Real* __restrict__ x1, const Real* __restrict__ x2,
                             Real* __restrict__ xk) {
  if (x2) {
    for (int j = 0; j < nv; ++j) xk[j] = (xk[j] - bk[j] * x1[j] - dk[j] * x2[j]) * ik[j];
  } else if (x1) {
    for (int j = 0; j < nv; ++j) xk[j] = (xk[j] - bk[j] * x1[j]) * ik[j];
  } else {
    for (int j = 0; j < nv; ++j) xk[j] *= ik[j];
  }
}

// Eigenvectors of one unreduced block (diag[0:bn), off[0:bn-1)) for its ascending eigenvalues lambda by inverse
// iteration as LAPACK's dstein, `chunk` shifts at a time side by side: every array holds row k of the chunk's shifted
// systems next to each other, so the O(bn) serial recurrences of the factorisation and the solves run across shifts
// (vectorised) instead of one shift after another, in arrays that stay in the L1 cache. Per shift: LU with partial
// pivoting of T - shift I (dlagtf), pivots below eps * max|U| replaced by that (EISPACK tinvit; moves the shift by
// O(eps ||T||)), a pseudo-random start, each iteration scaled as dstein and followed by modified Gram-Schmidt against
// the cluster's earlier vectors (clusters by gap 1e-3 ||T||; equal eigenvalues' shifts separated by 10 eps |lambda|;
// earlier chunks' vectors are final, this chunk's are the current iterates), converged two iterations after the
// solve's growth reaches dstein's bound. lambda: `count` ascending eigenvalues of the block (all bn, or a
// contiguous part, as dstein takes any subset); y: column-major bn x count. False: some vector did not converge in 5
// iterations or its residual ||T y - lambda y|| is not at the eps * ||T|| level; the caller then takes the QL route.
template <class Real>
bool inverse_iteration(const Real* diag, const Real* off, int bn, const Real* lambda, int count, Real* y,
                       StartVectorRandom& rng) {
  const Real eps = std::numeric_limits<Real>::epsilon();
  Real onenrm = 0;
  for (int i = 0; i < bn; ++i)
    onenrm = std::max(onenrm, std::abs(diag[i]) + (i > 0 ? std::abs(off[i - 1]) : Real(0)) +
                                  (i + 1 < bn ? std::abs(off[i]) : Real(0)));
  const Real ortol = Real(1e-3) * onenrm, stpcrt = std::sqrt(Real(0.1) / Real(bn)), inverse_norm = Real(1) / onenrm;
  constexpr int max_iterations = 5, extra_iterations = 2, chunk = 16;
  std::vector<Real> shift(count);
  std::vector<int> cluster_start(count, 0);
  for (int j = 0; j < count; ++j) {
    Real xj = lambda[j];
    if (j > 0) {
      const Real pertol = Real(10) * std::abs(eps * xj);
      if (xj - shift[j - 1] < pertol) xj = shift[j - 1] + pertol;
      cluster_start[j] = std::abs(xj - shift[j - 1]) > ortol ? j : cluster_start[j - 1];
    }
    shift[j] = xj;
  }
  const std::size_t size = std::size_t(bn) * chunk;
  std::vector<Real> a(size), b(size), c(size), d(size), inv(size), x(size), swapped(size);
  std::vector<Real> scale1(chunk), tol(chunk), work(chunk);
  std::vector<int> checks(chunk);
  for (int j0 = 0; j0 < count; j0 += chunk) {
    const int nv = std::min(chunk, count - j0);
    const Real* sh = shift.data() + j0;
    auto at = [&](int k, int jj) -> std::size_t { return std::size_t(k) * nv + jj; };
    // dlagtf for the chunk's shifts; c[k] = off[k] is never zero in an unreduced block.
    for (int jj = 0; jj < nv; ++jj) {
      a[jj] = diag[0] - sh[jj];
      b[jj] = bn > 1 ? off[0] : Real(0);
      c[jj] = d[jj] = swapped[jj] = Real(0);
      scale1[jj] = std::abs(a[jj]) + std::abs(b[jj]);
    }
    for (int k = 0; k + 1 < bn; ++k) {
      const std::size_t r0 = at(k, 0), r1 = at(k + 1, 0);
      for (int jj = 0; jj < nv; ++jj) c[r1 + jj] = d[r1 + jj] = swapped[r1 + jj] = Real(0);
      lu_row_all_shifts(nv, off[k], k + 2 < bn ? off[k + 1] : Real(0), diag[k + 1], sh, &a[r0], &a[r1], &b[r0], &b[r1],
                        &c[r0], &d[r0], &swapped[r0], scale1.data());
    }
    std::fill(tol.begin(), tol.end(), Real(0));
    for (int k = 0; k < bn; ++k)
      for (int jj = 0; jj < nv; ++jj)
        tol[jj] = std::max({tol[jj], std::abs(a[at(k, jj)]), k + 1 < bn ? std::abs(b[at(k, jj)]) : Real(0),
                            std::abs(d[at(k, jj)])});
    for (int jj = 0; jj < nv; ++jj) tol[jj] = tol[jj] > Real(0) ? tol[jj] * eps : eps;
    for (int k = 0; k < bn; ++k)
      for (int jj = 0; jj < nv; ++jj) {
        const Real p = a[at(k, jj)];
        inv[at(k, jj)] = Real(1) / (std::abs(p) < tol[jj] ? std::copysign(tol[jj], p) : p);
      }
    for (int k = 0; k < bn; ++k)
      for (int jj = 0; jj < nv; ++jj) x[at(k, jj)] = Real(rng.next());

    std::fill(checks.begin(), checks.end(), 0);
    bool converged = false;
    for (int it = 0; it < max_iterations && !converged; ++it) {
      std::fill(work.begin(), work.end(), Real(0));  // ||x_j||_1, then dstein's scale
      for (int k = 0; k < bn; ++k)
        for (int jj = 0; jj < nv; ++jj) work[jj] += std::abs(x[at(k, jj)]);
      for (int jj = 0; jj < nv; ++jj)
        work[jj] = Real(bn) * onenrm * std::max(eps, std::abs(a[at(bn - 1, jj)])) / work[jj];
      for (int k = 0; k < bn; ++k)
        for (int jj = 0; jj < nv; ++jj) x[at(k, jj)] *= work[jj];
      for (int k = 1; k < bn; ++k)  // L^{-1}, with the row interchanges
        forward_row_all_shifts(nv, &c[at(k - 1, 0)], &swapped[at(k - 1, 0)], &x[at(k - 1, 0)], &x[at(k, 0)]);
      for (int k = bn - 1; k >= 0; --k)  // U^{-1}
        backward_row_all_shifts(nv, &b[at(k, 0)], &d[at(k, 0)], &inv[at(k, 0)], k + 1 < bn ? &x[at(k + 1, 0)] : nullptr,
                                k + 2 < bn ? &x[at(k + 2, 0)] : nullptr, &x[at(k, 0)]);
      converged = true;
      for (int jj = 0; jj < nv; ++jj) {
        const int j = j0 + jj;
        for (int q = cluster_start[j]; q < j; ++q) {  // modified Gram-Schmidt within the cluster (unit vectors)
          Real dot = 0;
          if (q < j0) {
            const Real* yq = y + std::size_t(q) * bn;
            for (int k = 0; k < bn; ++k) dot += x[at(k, jj)] * yq[k];
            for (int k = 0; k < bn; ++k) x[at(k, jj)] -= dot * yq[k];
          } else {
            for (int k = 0; k < bn; ++k) dot += x[at(k, jj)] * x[at(k, q - j0)];
            for (int k = 0; k < bn; ++k) x[at(k, jj)] -= dot * x[at(k, q - j0)];
          }
        }
        Real xmax = 0;
        for (int k = 0; k < bn; ++k) xmax = std::max(xmax, std::abs(x[at(k, jj)]));
        if (xmax >= stpcrt) ++checks[jj];
        converged = converged && checks[jj] >= extra_iterations + 1;
        if (j + 1 < count && cluster_start[j + 1] <= j) {  // a later vector orthogonalises against this one
          Real norm2 = 0;  // of x / xmax: the solve's growth may be near overflow when ||T|| is
          for (int k = 0; k < bn; ++k) norm2 += (x[at(k, jj)] / xmax) * (x[at(k, jj)] / xmax);
          const Real scl = Real(1) / (xmax * std::sqrt(norm2));
          if (!(scl > Real(0) && scl < std::numeric_limits<Real>::infinity())) return false;
          for (int k = 0; k < bn; ++k) x[at(k, jj)] *= scl;
        }
      }
    }
    if (!converged) return false;
    for (int jj = 0; jj < nv; ++jj) {
      const int j = j0 + jj;
      Real norm2 = 0, xmax = 0;
      int imax = 0;
      for (int k = 0; k < bn; ++k)
        if (std::abs(x[at(k, jj)]) > xmax) {
          xmax = std::abs(x[at(k, jj)]);
          imax = k;
        }
      if (!(xmax > Real(0) && xmax < std::numeric_limits<Real>::infinity())) return false;
      for (int k = 0; k < bn; ++k) norm2 += (x[at(k, jj)] / xmax) * (x[at(k, jj)] / xmax);  // no overflow
      const Real scl = (x[at(imax, jj)] < 0 ? Real(-1) : Real(1)) / (xmax * std::sqrt(norm2));
      Real* yj = y + std::size_t(j) * bn;
      for (int k = 0; k < bn; ++k) yj[k] = x[at(k, jj)] * scl;
      Real r2 = 0;  // residual of the unit vector relative to ||T|| (O(bn)): guards the fast path
      for (int i = 0; i < bn; ++i) {
        Real t = (diag[i] - lambda[j]) * yj[i];
        if (i > 0) t += off[i - 1] * yj[i - 1];
        if (i + 1 < bn) t += off[i] * yj[i + 1];
        t *= inverse_norm;
        r2 += t * t;
      }
      if (!(std::sqrt(r2) <= Real(8) * Real(bn) * eps)) return false;
    }
  }
  return true;
}

// Eigen-decomposition of the real symmetric tridiagonal (d, e): w all n eigenvalues ascending, Y (n x count,
// column-major, real) orthonormal, column c the eigenvector of w[first + c] (count = n: all, as before; fewer: the
// vectors not asked for are never formed, as LAPACK's stein on a subset). Splits into unreduced blocks, eigenvalues
// by QL, vectors by inverse iteration or QL with vectors. use_ql: every block by QL with vectors (the fallback
// route; for tests).
template <class Real>
void tridiagonal_eigen(std::vector<Real> d, std::vector<Real> e, std::vector<Real>& w, std::vector<Real>& Y,
                       bool use_ql = false, int first = 0, int count = -1) {
  const int n = int(d.size());
  if (count < 0) count = n - first;
  const Real eps = std::numeric_limits<Real>::epsilon();
  Real tnorm = 0;
  for (int i = 0; i < n; ++i) tnorm = std::max(tnorm, std::abs(d[i]) + (i + 1 < n ? std::abs(e[i]) : Real(0)));
  // The unreduced blocks and their eigenvalues (each block's ascending, stored block after block).
  std::vector<Real> values(n);
  std::vector<int> block_of(n), block_start, block_size;
  std::vector<Real> dd, ee;
  for (int b0 = 0; b0 < n;) {
    int b1 = b0;
    while (b1 + 1 < n && std::abs(e[b1]) > eps * tnorm) ++b1;
    block_start.push_back(b0);
    block_size.push_back(b1 - b0 + 1);
    for (int i = b0; i <= b1; ++i) block_of[i] = int(block_start.size()) - 1;
    dd.assign(d.begin() + b0, d.begin() + b1 + 1);
    ee.assign(e.begin() + b0, e.begin() + b1 + 1);
    if (!tridiagonal_ql(dd.data(), ee.data(), b1 - b0 + 1))
      throw std::runtime_error("kbla::dense::hermitian_eigen: QL iteration did not converge");
    std::sort(dd.begin(), dd.end());
    std::copy(dd.begin(), dd.end(), values.begin() + b0);
    b0 = b1 + 1;
  }
  // All eigenvalues ascending (ties in block order, so a block's part of [first, first + count) is contiguous in
  // its own ascending order).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return values[p] < values[q]; });
  w.resize(n);
  for (int j = 0; j < n; ++j) w[j] = values[order[j]];
  std::vector<int> wanted_lo(block_start.size(), n), wanted_hi(block_start.size(), -1);  // per block, in values[]
  for (int c = 0; c < count; ++c) {
    const int src = order[first + c], b = block_of[src];
    wanted_lo[b] = std::min(wanted_lo[b], src);
    wanted_hi[b] = std::max(wanted_hi[b], src);
  }
  // Each block's wanted vectors, placed at its rows of their columns of Y (zero outside the block).
  Y.assign(std::size_t(n) * count, Real(0));
  std::vector<int> column_of(n, -1);
  for (int c = 0; c < count; ++c) column_of[order[first + c]] = c;
  StartVectorRandom rng;
  std::vector<Real> y;
  for (std::size_t b = 0; b < block_start.size(); ++b) {
    if (wanted_hi[b] < 0) continue;
    const int b0 = block_start[b], bn = block_size[b], lo = wanted_lo[b] - b0, nw = wanted_hi[b] - wanted_lo[b] + 1;
    y.assign(std::size_t(bn) * nw, Real(0));
    if (bn == 1) {
      y[0] = 1;
    } else if (use_ql ||
               !inverse_iteration(d.data() + b0, e.data() + b0, bn, values.data() + b0 + lo, nw, y.data(), rng)) {
      dd.assign(d.begin() + b0, d.begin() + b0 + bn);
      ee.assign(e.begin() + b0, e.begin() + b0 + bn);
      std::vector<Real> z(std::size_t(bn) * bn, Real(0));
      for (int i = 0; i < bn; ++i) z[i + std::size_t(i) * bn] = 1;
      if (!tridiagonal_ql(dd.data(), ee.data(), bn, z.data(), bn, bn))
        throw std::runtime_error("kbla::dense::hermitian_eigen: QL iteration did not converge");
      std::vector<int> ascending(bn);
      std::iota(ascending.begin(), ascending.end(), 0);
      std::stable_sort(ascending.begin(), ascending.end(), [&](int p, int q) { return dd[p] < dd[q]; });
      for (int j = 0; j < nw; ++j) {
        const Real* column = z.data() + std::size_t(ascending[lo + j]) * bn;
        std::copy(column, column + bn, y.begin() + std::size_t(j) * bn);
      }
    }
    for (int j = 0; j < nw; ++j) {
      const int c = column_of[b0 + lo + j];
      if (c < 0) continue;  // cannot happen: a block's wanted part is contiguous
      std::copy(y.begin() + std::size_t(j) * bn, y.begin() + std::size_t(j + 1) * bn,
                Y.begin() + std::size_t(c) * n + b0);
    }
  }
}

// Z = Q Y = H_0 H_1 ... H_{n-2} Y (Y: n x cols) on a row-major copy B of Y (rows padded to a whole number of tiles),
// the reflectors taken `group` at a time, last group first, each group as one block reflector I - V S V^H (S upper
// triangular, as LAPACK's larft): W = V^H B, W <- S W, B -= V W. Both products are one pass over B's rows with a
// tile of W's columns in fixed-size accumulators (registers), instead of two passes over B per reflector.
template <class Scalar, class Real, bool cplx>
void back_transform(SplitMatrix<Real>& A, const std::vector<Real>& tau_re, const std::vector<Real>& tau_im,
                    const std::vector<Real>& Y, Matrix<Scalar>& Z) {
  using C = std::complex<Real>;
  constexpr int group = 4;              // reflectors per block reflector
  constexpr int width = cplx ? 2 : 4;   // columns of B per tile
  const int n = A.n, cols = int(Y.size() / std::size_t(std::max(n, 1)));
  const int ld = (cols + width - 1) / width * width;
  std::vector<Real> br(std::size_t(n) * ld, Real(0)), bi(cplx ? std::size_t(n) * ld : 0, Real(0));
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) br[std::size_t(i) * ld + j] = Y[i + std::size_t(j) * n];
  std::vector<Real> vr(std::size_t(group) * n), vi(std::size_t(group) * n);  // V: row i at i * group
  std::vector<Real> wr(std::size_t(group) * ld), wi(std::size_t(group) * ld);  // W: row r at r * ld
  const int reflectors = n - 1;
  for (int k0 = (reflectors - 1) / group * group; k0 >= 0 && reflectors > 0; k0 -= group) {
    const int row0 = k0 + 1, rows = n - row0;
    C tau[group];
    bool identity = true;
    for (int r = 0; r < group; ++r) {
      const int k = k0 + r;
      tau[r] = k < reflectors ? C(tau_re[k], tau_im[k]) : C(0);
      identity = identity && tau[r] == C(0);
      for (int i = 0; i < rows; ++i) {
        const int row = row0 + i;
        C v(0);
        if (k < reflectors && row >= k + 1) v = row == k + 1 ? C(1) : C(A.r(row, k), cplx ? A.c(row, k) : Real(0));
        vr[std::size_t(i) * group + r] = v.real();
        vi[std::size_t(i) * group + r] = v.imag();
      }
    }
    if (identity) continue;
    C S[group][group] = {};
    for (int r = 0; r < group; ++r) {  // S(0:r, r) = -tau_r S(0:r, 0:r) V(:, 0:r)^H v_r
      C t[group] = {};
      for (int q = 0; q < r; ++q) {  // t_q = v_q^H v_r (real arithmetic: no complex multiplication's NaN checks)
        Real tr = 0, ti = 0;
        for (int i = 0; i < rows; ++i) {
          const Real qr = vr[std::size_t(i) * group + q], qi = vi[std::size_t(i) * group + q];
          const Real rr = vr[std::size_t(i) * group + r], ri = vi[std::size_t(i) * group + r];
          tr += qr * rr + qi * ri;
          ti += qr * ri - qi * rr;
        }
        t[q] = C(tr, ti);
      }
      for (int q = 0; q < r; ++q) {
        C sum(0);
        for (int p = q; p < r; ++p) sum += S[q][p] * t[p];
        S[q][r] = -tau[r] * sum;
      }
      S[r][r] = tau[r];
    }
    // W = V^H B(row0:n, :)
    for (int j0 = 0; j0 < ld; j0 += width) {
      Real accr[group][width] = {}, acci[group][width] = {};
      for (int i = 0; i < rows; ++i) {
        const Real* b = &br[std::size_t(row0 + i) * ld + j0];
        const Real* v = &vr[std::size_t(i) * group];
        if constexpr (cplx) {
          const Real* bimag = &bi[std::size_t(row0 + i) * ld + j0];
          const Real* vim = &vi[std::size_t(i) * group];
          for (int r = 0; r < group; ++r)
            for (int q = 0; q < width; ++q) {
              accr[r][q] += v[r] * b[q] + vim[r] * bimag[q];
              acci[r][q] += v[r] * bimag[q] - vim[r] * b[q];
            }
        } else {
          for (int r = 0; r < group; ++r)
            for (int q = 0; q < width; ++q) accr[r][q] += v[r] * b[q];
        }
      }
      for (int r = 0; r < group; ++r)
        for (int q = 0; q < width; ++q) {
          wr[std::size_t(r) * ld + j0 + q] = accr[r][q];
          wi[std::size_t(r) * ld + j0 + q] = acci[r][q];
        }
    }
    // W <- S W (S upper triangular: row r reads rows r.. of W, so top row first), in real arithmetic.
    for (int r = 0; r < group; ++r) {
      Real* wrr = &wr[std::size_t(r) * ld];
      Real* wir = &wi[std::size_t(r) * ld];
      const Real srr = S[r][r].real(), sri = S[r][r].imag();
      for (int j = 0; j < ld; ++j) {
        const Real xr = wrr[j], xi = wir[j];
        wrr[j] = srr * xr - sri * xi;
        wir[j] = cplx ? srr * xi + sri * xr : Real(0);
      }
      for (int p = r + 1; p < group; ++p) {
        const Real spr = S[r][p].real(), spi = S[r][p].imag();
        const Real* wrp = &wr[std::size_t(p) * ld];
        const Real* wip = &wi[std::size_t(p) * ld];
        for (int j = 0; j < ld; ++j) {
          wrr[j] += spr * wrp[j] - spi * wip[j];
          if (cplx) wir[j] += spr * wip[j] + spi * wrp[j];
        }
      }
    }
    // B(row0:n, :) -= V W
    for (int j0 = 0; j0 < ld; j0 += width) {
      Real wtr[group][width], wti[group][width];
      for (int r = 0; r < group; ++r)
        for (int q = 0; q < width; ++q) {
          wtr[r][q] = wr[std::size_t(r) * ld + j0 + q];
          wti[r][q] = wi[std::size_t(r) * ld + j0 + q];
        }
      for (int i = 0; i < rows; ++i) {
        Real* b = &br[std::size_t(row0 + i) * ld + j0];
        const Real* v = &vr[std::size_t(i) * group];
        if constexpr (cplx) {
          Real* bimag = &bi[std::size_t(row0 + i) * ld + j0];
          const Real* vim = &vi[std::size_t(i) * group];
          for (int q = 0; q < width; ++q) {
            Real sr = b[q], si = bimag[q];
            for (int r = 0; r < group; ++r) {
              sr -= v[r] * wtr[r][q] - vim[r] * wti[r][q];
              si -= v[r] * wti[r][q] + vim[r] * wtr[r][q];
            }
            b[q] = sr;
            bimag[q] = si;
          }
        } else {
          for (int q = 0; q < width; ++q) {
            Real sr = b[q];
            for (int r = 0; r < group; ++r) sr -= v[r] * wtr[r][q];
            b[q] = sr;
          }
        }
      }
    }
  }
  Z.resize(n, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) {
      if constexpr (cplx)
        Z(i, j) = Scalar(br[std::size_t(i) * ld + j], bi[std::size_t(i) * ld + j]);
      else
        Z(i, j) = Scalar(br[std::size_t(i) * ld + j]);
    }
}

// Small matrices (n <= 12: kbla::ortho's s x s tests, twice per step): the route the library used before, Householder
// forming Q and tql2 rotating it, whose O(n^3) terms cost less than the route above's setup at these sizes. Takes
// the scaled Hermitian matrix (whole); Z and w as hermitian_eigen.
template <class Scalar>
void small_hermitian_eigen(const Matrix<Scalar>& Ain, std::vector<mag_t<Scalar>>& w, Matrix<Scalar>& Z) {
  using Real = mag_t<Scalar>;
  const int n = Ain.rows();
  if (Ain.cols() != n) throw std::invalid_argument("kbla::dense::hermitian_eigen: matrix is not square");
  Matrix<Scalar> A = Ain;
  Z = Matrix<Scalar>::identity(n);
  w.assign(n, Real(0));
  if (n == 0) return;
  std::vector<Real> e(n, Real(0));
  std::vector<Scalar> v(n), p(n), zp(n);
  for (int k = 0; k + 1 < n; ++k) {
    const int L = n - k - 1;  // length of x = A(k+1:n, k)
    const Scalar alpha = A(k + 1, k);
    Real xnorm2 = 0;
    for (int i = k + 2; i < n; ++i) xnorm2 += abs2(A(i, k));
    const Real alpha_im = kbla::Impl::ArithTraits<Scalar>::imag(alpha);
    if (xnorm2 == Real(0) && alpha_im == Real(0)) {
      e[k] = real(alpha);
      continue;  // H = I
    }
    const Real beta = -std::copysign(std::sqrt(abs2(alpha) + xnorm2), real(alpha));
    const Scalar tau = (Scalar(beta) - alpha) / Scalar(beta);
    const Scalar scale = Scalar(1) / (alpha - Scalar(beta));
    v[0] = Scalar(1);
    for (int i = 1; i < L; ++i) v[i] = A(k + 1 + i, k) * scale;
    e[k] = beta;
    // Column k / row k become beta e1.
    A(k + 1, k) = Scalar(beta);
    A(k, k + 1) = Scalar(beta);
    for (int i = k + 2; i < n; ++i) A(i, k) = A(k, i) = Scalar(0);
    // Trailing block: A22 <- H^H A22 H, H = I - tau v v^H.
    const int o = k + 1;
    const Scalar ctau = conj(tau);
    for (int j = o; j < n; ++j) {  // left: A22 -= conj(tau) v (v^H A22)
      Scalar s = Scalar(0);
      for (int i = 0; i < L; ++i) s += conj(v[i]) * A(o + i, j);
      s *= ctau;
      for (int i = 0; i < L; ++i) A(o + i, j) -= v[i] * s;
    }
    // Right-hand updates column by column (column-major storage: contiguous inner loops).
    for (int i = 0; i < L; ++i) p[i] = Scalar(0);  // right: A22 -= tau (A22 v) v^H
    for (int j = 0; j < L; ++j) {
      const Scalar vj = v[j];
      const Scalar* a = &A(o, o + j);
      for (int i = 0; i < L; ++i) p[i] += a[i] * vj;
    }
    for (int j = 0; j < L; ++j) {
      const Scalar cv = tau * conj(v[j]);
      Scalar* a = &A(o, o + j);
      for (int i = 0; i < L; ++i) a[i] -= p[i] * cv;
    }
    zp.assign(n, Scalar(0));  // Z <- Z H on columns k+1..n
    for (int j = 0; j < L; ++j) {
      const Scalar vj = v[j];
      const Scalar* z = &Z(0, o + j);
      for (int i = 0; i < n; ++i) zp[i] += z[i] * vj;
    }
    for (int j = 0; j < L; ++j) {
      const Scalar cv = tau * conj(v[j]);
      Scalar* z = &Z(0, o + j);
      for (int i = 0; i < n; ++i) z[i] -= zp[i] * cv;
    }
  }
  std::vector<Real>& d = w;
  for (int k = 0; k < n; ++k) d[k] = real(A(k, k));
  e[n - 1] = 0;

  // tql2, rotating Z's columns: the rotations are real, so a complex column-major Z is a real one of 2n rows.
  constexpr int parts = eigen_detail::is_complex_v<Scalar> ? 2 : 1;
  if (!tridiagonal_ql(d.data(), e.data(), n, reinterpret_cast<Real*>(Z.data()), parts * n, parts * n))
    throw std::runtime_error("kbla::dense::hermitian_eigen: QL iteration did not converge");
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

}  // namespace eigen_detail

// Hermitian eigenproblem A = Z diag(w) Z^H, w ascending, with the eigenvectors of a range of them only (as
// LAPACK's syevx with range 'I'): w gets all n eigenvalues ascending, Z (n x count) the orthonormal eigenvectors
// of w[first], ..., w[first + count - 1]. The others are never formed: the Rayleigh-Ritz step keeps about half of
// its Ritz vectors, and the inverse iteration and the back-transform cost in proportion to the vectors formed.
// Works on the Hermitian part (A + A^H) / 2 of A (see the top of this file for the method).
template <class Scalar>
void hermitian_eigen(const Matrix<Scalar>& Ain, std::vector<mag_t<Scalar>>& w, Matrix<Scalar>& Z, int first,
                     int count) {
  using Real = mag_t<Scalar>;
  constexpr bool cplx = eigen_detail::is_complex_v<Scalar>;
  const int n = Ain.rows();
  if (Ain.cols() != n) throw std::invalid_argument("kbla::dense::hermitian_eigen: matrix is not square");
  if (first < 0 || count < 0 || first > n - count)
    throw std::invalid_argument("kbla::dense::hermitian_eigen: eigenvector range first = " + std::to_string(first) +
                                ", count = " + std::to_string(count) + " is not within the " + std::to_string(n) +
                                " eigenvalues");
  w.assign(n, Real(0));
  if (n == 0) {
    Z.resize(0, 0);
    return;
  }
  eigen_detail::SplitMatrix<Real> A;
  A.n = n;
  A.re.resize(std::size_t(n) * n);
  if (cplx) A.im.resize(std::size_t(n) * n);
  Real anorm = 0;  // the lower triangle of (A + A^H) / 2: the reduction reads no more
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const Scalar h = (Ain(i, j) + conj(Ain(j, i))) / Scalar(2);
      A.r(i, j) = real(h);
      if (cplx) A.c(i, j) = i == j ? Real(0) : Real(kbla::Impl::ArithTraits<Scalar>::imag(h));
      anorm = std::max({anorm, std::abs(A.r(i, j)), cplx ? std::abs(A.c(i, j)) : Real(0)});  // no squares: no overflow
    }
  // Scale into range (as LAPACK's syev) so that squares of entries neither overflow nor underflow.
  const Real smlnum = std::numeric_limits<Real>::min() / std::numeric_limits<Real>::epsilon();
  const Real rmin = std::sqrt(smlnum), rmax = std::sqrt(Real(1) / smlnum);
  Real scale = 1;
  if (anorm > Real(0) && anorm < rmin) scale = rmin / anorm;
  if (anorm > rmax) scale = rmax / anorm;
  if (scale != Real(1)) {
    for (Real& x : A.re) x *= scale;
    for (Real& x : A.im) x *= scale;
  }
  if (n <= 12) {
    Matrix<Scalar> S(n, n);  // the scaled Hermitian part, both triangles
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        if constexpr (cplx)
          S(i, j) = Scalar(A.r(i, j), A.c(i, j));
        else
          S(i, j) = Scalar(A.r(i, j));
        S(j, i) = conj(S(i, j));
      }
    eigen_detail::small_hermitian_eigen(S, w, Z);
    if (scale != Real(1))
      for (Real& x : w) x /= scale;
    if (first != 0 || count != n) {  // all n formed here (n <= 12): keep the range
      Matrix<Scalar> all = Z;
      Z.resize(n, count);
      for (int j = 0; j < count; ++j)
        for (int i = 0; i < n; ++i) Z(i, j) = all(i, first + j);
    }
    return;
  }
  std::vector<Real> d, e, tau_re, tau_im, Y;
  eigen_detail::tridiagonalize<Real, cplx>(A, d, e, tau_re, tau_im);
  eigen_detail::tridiagonal_eigen(std::move(d), std::move(e), w, Y, false, first, count);
  eigen_detail::back_transform<Scalar, Real, cplx>(A, tau_re, tau_im, Y, Z);
  if (scale != Real(1))
    for (Real& x : w) x /= scale;
}

// All eigenvectors: A = Z diag(w) Z^H, w ascending, Z unitary.
template <class Scalar>
void hermitian_eigen(const Matrix<Scalar>& Ain, std::vector<mag_t<Scalar>>& w, Matrix<Scalar>& Z) {
  hermitian_eigen(Ain, w, Z, 0, Ain.rows());
}

}  // namespace dense
}  // namespace kbla
