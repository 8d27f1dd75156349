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

template <class Scalar>
using mag_t = typename kbla::Impl::ArithTraits<Scalar>::mag_type;

template <class Scalar>
inline Scalar conj(const Scalar& x) {
  return kbla::Impl::ArithTraits<Scalar>::conj(x);
}
template <class Scalar>
inline mag_t<Scalar> real(const Scalar& x) {
  return kbla::Impl::ArithTraits<Scalar>::real(x);
}
template <class Scalar>
inline mag_t<Scalar> abs2(const Scalar& x) {
  const mag_t<Scalar> re = kbla::Impl::ArithTraits<Scalar>::real(x), im = kbla::Impl::ArithTraits<Scalar>::imag(x);
  return re * re + im * im;
}

// A column-major host matrix: element (i, j) at data()[i + j * rows()], indexed by int (sizes up to a few hundred).
// host_view() below shows it as a Kokkos host View.
template <class Scalar>
class Matrix {
 public:
  Matrix() = default;
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), a_(std::size_t(rows) * std::size_t(cols), Scalar(0)) {}
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  Scalar& operator()(int i, int j) { return a_[std::size_t(i) + std::size_t(j) * rows_]; }
  const Scalar& operator()(int i, int j) const { return a_[std::size_t(i) + std::size_t(j) * rows_]; }
  Scalar* data() { return a_.data(); }
  const Scalar* data() const { return a_.data(); }
  void resize(int rows, int cols) {
    rows_ = rows;
    cols_ = cols;
    a_.assign(std::size_t(rows) * std::size_t(cols), Scalar(0));
  }
  void set_zero() { std::fill(a_.begin(), a_.end(), Scalar(0)); }
  static Matrix identity(int n) {
    Matrix m(n, n);
    for (int i = 0; i < n; ++i) m(i, i) = Scalar(1);
    return m;
  }

 private:
  int rows_ = 0, cols_ = 0;
  std::vector<Scalar> a_;
};

// The matrix as an unmanaged LayoutLeft Kokkos View in HostSpace over the same memory: valid while the matrix lives
// and is not resized; Kokkos::deep_copy it into a device View of the same shape to use it there.
template <class Scalar>
using HostView = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class Scalar>
HostView<Scalar> host_view(Matrix<Scalar>& m) {
  return HostView<Scalar>(m.data(), std::size_t(m.rows()), std::size_t(m.cols()));
}
template <class Scalar>
HostView<const Scalar> host_view(const Matrix<Scalar>& m) {
  return HostView<const Scalar>(m.data(), std::size_t(m.rows()), std::size_t(m.cols()));
}

// C = op(A) * B with op = identity or conjugate transpose.
template <class Scalar>
Matrix<Scalar> multiply(const Matrix<Scalar>& A, const Matrix<Scalar>& B, bool conj_transpose_A = false) {
  const int m = conj_transpose_A ? A.cols() : A.rows();
  const int k = conj_transpose_A ? A.rows() : A.cols();
  if (k != B.rows()) throw std::invalid_argument("kbla::dense::multiply: inner dimensions differ");
  Matrix<Scalar> C(m, B.cols());
  for (int j = 0; j < B.cols(); ++j)
    for (int l = 0; l < k; ++l) {
      const Scalar b = B(l, j);
      if (b == Scalar(0)) continue;
      if (conj_transpose_A) {
        for (int i = 0; i < m; ++i) C(i, j) += conj(A(l, i)) * b;
      } else {
        for (int i = 0; i < m; ++i) C(i, j) += A(i, l) * b;
      }
    }
  return C;
}

// Largest |entry| of A - I: the loss of orthogonality when A is a Gram matrix.
template <class Scalar>
mag_t<Scalar> distance_from_identity(const Matrix<Scalar>& A) {
  mag_t<Scalar> d = 0;
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) {
      const Scalar e = A(i, j) - (i == j ? Scalar(1) : Scalar(0));
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
template <class Scalar>
CholeskyInfo cholesky_upper(const Matrix<Scalar>& G, Matrix<Scalar>& R, mag_t<Scalar> shift = 0) {
  using Real = mag_t<Scalar>;
  const int n = G.rows();
  R.resize(n, n);
  CholeskyInfo info;
  info.min_pivot_ratio = std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    Real d = real(G(j, j)) + shift;
    for (int i = 0; i < j; ++i) d -= abs2(R(i, j));
    const Real gjj = real(G(j, j)) + shift;
    if (!(d > 0) || !(gjj > 0)) {
      info.failed_column = j;
      info.min_pivot_ratio = 0;
      return info;
    }
    info.min_pivot_ratio = std::min(info.min_pivot_ratio, double(d / gjj));
    const Real rjj = std::sqrt(d);
    R(j, j) = Scalar(rjj);
    for (int c = j + 1; c < n; ++c) {
      Scalar sum = G(j, c);
      for (int i = 0; i < j; ++i) sum -= conj(R(i, j)) * R(i, c);
      R(j, c) = sum / rjj;
    }
  }
  info.ok = true;
  return info;
}

// Inverse of an upper triangular matrix with a non-zero diagonal (back substitution, column by column).
template <class Scalar>
Matrix<Scalar> inverse_upper(const Matrix<Scalar>& R) {
  const int n = R.rows();
  Matrix<Scalar> X(n, n);
  for (int j = 0; j < n; ++j) {
    X(j, j) = Scalar(1) / R(j, j);
    for (int i = j - 1; i >= 0; --i) {
      Scalar sum = Scalar(0);
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
template <class Scalar>
void singular_values_left(const Matrix<Scalar>& A, std::vector<mag_t<Scalar>>& sigma, Matrix<Scalar>& U) {
  using Real = mag_t<Scalar>;
  const int n = A.rows();
  if (A.cols() != n) throw std::invalid_argument("kbla::dense::singular_values_left: matrix is not square");
  Matrix<Scalar> B = A;
  const Real eps = std::numeric_limits<Real>::epsilon();
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int p = 0; p + 1 < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        Real a = 0, b = 0;
        Scalar g = Scalar(0);
        for (int i = 0; i < n; ++i) {
          a += abs2(B(i, p));
          b += abs2(B(i, q));
          g += conj(B(i, p)) * B(i, q);
        }
        const Real ga = std::sqrt(abs2(g));
        if (ga == Real(0) || ga <= eps * std::sqrt(a * b)) continue;
        rotated = true;
        const Scalar phase = g / ga;  // B_q e^{-i phi} makes the coupling real and positive
        const Real zeta = (b - a) / (Real(2) * ga);
        const Real t = (zeta >= 0 ? Real(1) : Real(-1)) / (std::abs(zeta) + std::sqrt(Real(1) + zeta * zeta));
        const Real c = Real(1) / std::sqrt(Real(1) + t * t), s = c * t;
        for (int i = 0; i < n; ++i) {
          const Scalar bp = B(i, p), bq = B(i, q) * conj(phase);
          B(i, p) = c * bp - s * bq;
          B(i, q) = s * bp + c * bq;
        }
      }
    if (!rotated) break;
  }
  sigma.assign(n, Real(0));
  for (int j = 0; j < n; ++j) {
    Real a = 0;
    for (int i = 0; i < n; ++i) a += abs2(B(i, j));
    sigma[j] = std::sqrt(a);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return sigma[x] > sigma[y]; });
  std::vector<Real> sorted(n);
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
      const Real norm0 = [&] { Real a = 0; for (int i = 0; i < n; ++i) a += abs2(U(i, j)); return std::sqrt(a); }();
      for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < j; ++k) {
          Scalar h = Scalar(0);
          for (int i = 0; i < n; ++i) h += conj(U(i, k)) * U(i, j);
          for (int i = 0; i < n; ++i) U(i, j) -= U(i, k) * h;
        }
      Real norm = 0;
      for (int i = 0; i < n; ++i) norm += abs2(U(i, j));
      norm = std::sqrt(norm);
      if (norm > Real(0) && norm > Real(1e-3) * norm0 && (sigma[j] > Real(0) || attempt > 0)) {
        for (int i = 0; i < n; ++i) U(i, j) /= norm;
        break;
      }
      for (int i = 0; i < n; ++i) U(i, j) = Scalar(0);  // try the next unit vector
      U(next_unit % n, j) = Scalar(1);
      ++next_unit;
    }
  }
}

}  // namespace dense
}  // namespace kbla

// hermitian_eigen (Householder tridiagonalisation, QL eigenvalues, inverse iteration, back-transform).
#include <solvers/kbla_dense_eigen.hpp>
