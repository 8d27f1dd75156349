// Helpers shared by the solver tests: host <-> device block copies, random orthonormal / prescribed-spectrum
// matrices built on the host (independently of the code under test), norms.
#pragma once

#include <kbla_solvers.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kbla_test {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
template <class T>
using DeviceBlock = Kokkos::View<T**, Kokkos::LayoutLeft, Mem>;
template <class T>
using HostMatrix = kbla::dense::Matrix<T>;

template <class T>
struct Rand;
template <>
struct Rand<double> {
  static double get(std::mt19937_64& g) { return std::normal_distribution<double>()(g); }
};
template <>
struct Rand<Kokkos::complex<double>> {
  static Kokkos::complex<double> get(std::mt19937_64& g) {
    std::normal_distribution<double> d;
    const double re = d(g), im = d(g);
    return Kokkos::complex<double>(re, im);
  }
};

template <class T>
HostMatrix<T> random_matrix(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  HostMatrix<T> A(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) A(i, j) = Rand<T>::get(g);
  return A;
}

// Orthonormal columns by modified Gram-Schmidt, twice (host, long-hand: the reference, not the code under test).
template <class T>
HostMatrix<T> orthonormalize(HostMatrix<T> A) {
  for (int j = 0; j < A.cols(); ++j)
    for (int pass = 0; pass < 2; ++pass) {
      for (int k = 0; k < j; ++k) {
        T h(0);
        for (int i = 0; i < A.rows(); ++i) h += kbla::dense::conj(A(i, k)) * A(i, j);
        for (int i = 0; i < A.rows(); ++i) A(i, j) -= A(i, k) * h;
      }
      double nrm = 0;
      for (int i = 0; i < A.rows(); ++i) nrm += kbla::dense::abs2(A(i, j));
      nrm = std::sqrt(nrm);
      for (int i = 0; i < A.rows(); ++i) A(i, j) /= T(nrm);
    }
  return A;
}

template <class T>
DeviceBlock<T> to_device(const HostMatrix<T>& h, const char* label = "block") {
  DeviceBlock<T> d(std::string(label), std::size_t(h.rows()), std::size_t(h.cols()));
  auto m = Kokkos::create_mirror_view(d);
  for (int j = 0; j < h.cols(); ++j)
    for (int i = 0; i < h.rows(); ++i) m(i, j) = h(i, j);
  Kokkos::deep_copy(d, m);
  return d;
}

template <class View>
HostMatrix<typename View::non_const_value_type> to_host(const View& d) {
  using T = typename View::non_const_value_type;
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  HostMatrix<T> h(int(d.extent(0)), int(d.extent(1)));
  for (int j = 0; j < h.cols(); ++j)
    for (int i = 0; i < h.rows(); ++i) h(i, j) = m(i, j);
  return h;
}

template <class T>
double frobenius(const HostMatrix<T>& A) {
  double s = 0;
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) s += kbla::dense::abs2(A(i, j));
  return std::sqrt(s);
}

// ||I - A^H A||_F
template <class T>
double orthogonality_loss(const HostMatrix<T>& A) {
  HostMatrix<T> G = kbla::dense::multiply(A, A, true);
  for (int i = 0; i < G.rows(); ++i) G(i, i) -= T(1);
  return frobenius(G);
}

template <class T>
HostMatrix<T> hcat(const HostMatrix<T>& A, const HostMatrix<T>& B) {
  HostMatrix<T> C(A.rows(), A.cols() + B.cols());
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) C(i, j) = A(i, j);
  for (int j = 0; j < B.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) C(i, A.cols() + j) = B(i, j);
  return C;
}

}  // namespace kbla_test
