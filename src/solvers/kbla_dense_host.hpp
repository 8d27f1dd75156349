// Small dense linear algebra on the host for the solvers: the s x s and (m s) x (m s) problems that sit next to
// the tall & skinny device work (Cholesky of a Gram matrix, triangular inverse, Hermitian eigenproblem, singular
// values of a small triangular factor). Self-contained (no LAPACK): the GPU machine does not promise one.
// Column-major, real or Kokkos::complex scalars; sizes are small (up to a few hundred), O(n^3) is fine.
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbla {
namespace dense {

template <class T>
using mag_t = typename kbla::Impl::ArithTraits<T>::mag_type;

template <class T>
inline T conj(const T& x) {
  return kbla::Impl::ArithTraits<T>::conj(x);
}
template <class T>
inline mag_t<T> real(const T& x) {
  return kbla::Impl::ArithTraits<T>::real(x);
}
template <class T>
inline mag_t<T> abs2(const T& x) {
  const mag_t<T> re = kbla::Impl::ArithTraits<T>::real(x), im = kbla::Impl::ArithTraits<T>::imag(x);
  return re * re + im * im;
}

// A column-major host matrix: element (i, j) at data()[i + j * rows()], indexed by int (sizes up to a few hundred).
// host_view() below shows it as a Kokkos host View.
template <class T>
class Matrix {
 public:
  Matrix() = default;
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), a_(std::size_t(rows) * std::size_t(cols), T(0)) {}
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  T& operator()(int i, int j) { return a_[std::size_t(i) + std::size_t(j) * rows_]; }
  const T& operator()(int i, int j) const { return a_[std::size_t(i) + std::size_t(j) * rows_]; }
  T* data() { return a_.data(); }
  const T* data() const { return a_.data(); }
  void resize(int rows, int cols) {
    rows_ = rows;
    cols_ = cols;
    a_.assign(std::size_t(rows) * std::size_t(cols), T(0));
  }
  void set_zero() { std::fill(a_.begin(), a_.end(), T(0)); }
  static Matrix identity(int n) {
    Matrix m(n, n);
    for (int i = 0; i < n; ++i) m(i, i) = T(1);
    return m;
  }

 private:
  int rows_ = 0, cols_ = 0;
  std::vector<T> a_;
};

// The matrix as an unmanaged LayoutLeft Kokkos View in HostSpace over the same memory: valid while the matrix lives
// and is not resized; Kokkos::deep_copy it into a device View of the same shape to use it there.
template <class T>
using HostView = Kokkos::View<T**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
HostView<T> host_view(Matrix<T>& m) {
  return HostView<T>(m.data(), std::size_t(m.rows()), std::size_t(m.cols()));
}
template <class T>
HostView<const T> host_view(const Matrix<T>& m) {
  return HostView<const T>(m.data(), std::size_t(m.rows()), std::size_t(m.cols()));
}

// C = op(A) * B with op = identity or conjugate transpose.
template <class T>
Matrix<T> multiply(const Matrix<T>& A, const Matrix<T>& B, bool conj_transpose_A = false) {
  const int m = conj_transpose_A ? A.cols() : A.rows();
  const int k = conj_transpose_A ? A.rows() : A.cols();
  if (k != B.rows()) throw std::invalid_argument("kbla::dense::multiply: inner dimensions differ");
  Matrix<T> C(m, B.cols());
  for (int j = 0; j < B.cols(); ++j)
    for (int l = 0; l < k; ++l) {
      const T b = B(l, j);
      if (b == T(0)) continue;
      if (conj_transpose_A) {
        for (int i = 0; i < m; ++i) C(i, j) += conj(A(l, i)) * b;
      } else {
        for (int i = 0; i < m; ++i) C(i, j) += A(i, l) * b;
      }
    }
  return C;
}

// Largest |entry| of A - I: the loss of orthogonality when A is a Gram matrix.
template <class T>
mag_t<T> distance_from_identity(const Matrix<T>& A) {
  mag_t<T> d = 0;
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) {
      const T e = A(i, j) - (i == j ? T(1) : T(0));
      d = std::max(d, std::sqrt(abs2(e)));
    }
  return d;
}

struct CholeskyInfo {
  bool ok = false;
  int failed_column = -1;      // first column with a non-positive pivot
  double min_pivot_ratio = 0;  // min_j R(j,j)^2 / G(j,j): small means nearly dependent columns
};

// G = R^H R with R upper triangular (only G's upper triangle is read; `shift` is added to the diagonal).
template <class T>
CholeskyInfo cholesky_upper(const Matrix<T>& G, Matrix<T>& R, mag_t<T> shift = 0) {
  using M = mag_t<T>;
  const int n = G.rows();
  R.resize(n, n);
  CholeskyInfo info;
  info.min_pivot_ratio = std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    M d = real(G(j, j)) + shift;
    for (int i = 0; i < j; ++i) d -= abs2(R(i, j));
    const M gjj = real(G(j, j)) + shift;
    if (!(d > 0) || !(gjj > 0)) {
      info.failed_column = j;
      info.min_pivot_ratio = 0;
      return info;
    }
    info.min_pivot_ratio = std::min(info.min_pivot_ratio, double(d / gjj));
    const M rjj = std::sqrt(d);
    R(j, j) = T(rjj);
    for (int c = j + 1; c < n; ++c) {
      T sum = G(j, c);
      for (int i = 0; i < j; ++i) sum -= conj(R(i, j)) * R(i, c);
      R(j, c) = sum / rjj;
    }
  }
  info.ok = true;
  return info;
}

// Inverse of an upper triangular matrix with a non-zero diagonal (back substitution, column by column).
template <class T>
Matrix<T> inverse_upper(const Matrix<T>& R) {
  const int n = R.rows();
  Matrix<T> X(n, n);
  for (int j = 0; j < n; ++j) {
    X(j, j) = T(1) / R(j, j);
    for (int i = j - 1; i >= 0; --i) {
      T sum = T(0);
      for (int l = i + 1; l <= j; ++l) sum += R(i, l) * X(l, j);
      X(i, j) = -sum / R(i, i);
    }
  }
  return X;
}

// Singular values of a small square matrix (one-sided Jacobi, accurate to eps * ||A|| absolutely, so tiny
// singular values of an ill-conditioned factor are resolved) and an orthonormal U whose leading columns are the
// left singular vectors of the singular values above `keep_tol` * sigma_max (descending). The remaining columns
// complete U to a unitary matrix (their direction is arbitrary).
template <class T>
void singular_values_left(const Matrix<T>& A, std::vector<mag_t<T>>& sigma, Matrix<T>& U) {
  using M = mag_t<T>;
  const int n = A.rows();
  if (A.cols() != n) throw std::invalid_argument("kbla::dense::singular_values_left: matrix is not square");
  Matrix<T> B = A;
  const M eps = std::numeric_limits<M>::epsilon();
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int p = 0; p + 1 < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        M a = 0, b = 0;
        T g = T(0);
        for (int i = 0; i < n; ++i) {
          a += abs2(B(i, p));
          b += abs2(B(i, q));
          g += conj(B(i, p)) * B(i, q);
        }
        const M ga = std::sqrt(abs2(g));
        if (ga == M(0) || ga <= eps * std::sqrt(a * b)) continue;
        rotated = true;
        const T phase = g / ga;  // B_q e^{-i phi} makes the coupling real and positive
        const M zeta = (b - a) / (M(2) * ga);
        const M t = (zeta >= 0 ? M(1) : M(-1)) / (std::abs(zeta) + std::sqrt(M(1) + zeta * zeta));
        const M c = M(1) / std::sqrt(M(1) + t * t), s = c * t;
        for (int i = 0; i < n; ++i) {
          const T bp = B(i, p), bq = B(i, q) * conj(phase);
          B(i, p) = c * bp - s * bq;
          B(i, q) = s * bp + c * bq;
        }
      }
    if (!rotated) break;
  }
  sigma.assign(n, M(0));
  for (int j = 0; j < n; ++j) {
    M a = 0;
    for (int i = 0; i < n; ++i) a += abs2(B(i, j));
    sigma[j] = std::sqrt(a);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return sigma[x] > sigma[y]; });
  std::vector<M> sorted(n);
  U.resize(n, n);
  for (int j = 0; j < n; ++j) {
    sorted[j] = sigma[order[j]];
    for (int i = 0; i < n; ++i) U(i, j) = B(i, order[j]);
  }
  sigma = sorted;
  // Orthonormalise U's columns in order (twice), replacing columns that vanish by unit vectors.
  int next_unit = 0;
  for (int j = 0; j < n; ++j) {
    for (int attempt = 0; attempt <= n; ++attempt) {
      const M norm0 = [&] { M a = 0; for (int i = 0; i < n; ++i) a += abs2(U(i, j)); return std::sqrt(a); }();
      for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < j; ++k) {
          T h = T(0);
          for (int i = 0; i < n; ++i) h += conj(U(i, k)) * U(i, j);
          for (int i = 0; i < n; ++i) U(i, j) -= U(i, k) * h;
        }
      M norm = 0;
      for (int i = 0; i < n; ++i) norm += abs2(U(i, j));
      norm = std::sqrt(norm);
      if (norm > M(0) && norm > M(1e-3) * norm0 && (sigma[j] > M(0) || attempt > 0)) {
        for (int i = 0; i < n; ++i) U(i, j) /= norm;
        break;
      }
      for (int i = 0; i < n; ++i) U(i, j) = T(0);  // try the next unit vector
      U(next_unit % n, j) = T(1);
      ++next_unit;
    }
  }
}

}  // namespace dense
}  // namespace kbla

// hermitian_eigen (Householder tridiagonalisation, QL eigenvalues, inverse iteration, back-transform).
#include <solvers/kbla_dense_eigen.hpp>
