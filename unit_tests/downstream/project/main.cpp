// Computes a small A^H B through the installed library and checks one entry against a hand sum; includes the
// solver headers that come without KokkosSparse, to check that they are installed and stand alone.
#include <kbla.hpp>
#include <kbla_eigen.hpp>
#include <kbla_ortho.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int status = 1;
  {
    const int K = 257, M = 3, N = 2;
    Kokkos::View<double**> A("A", K, M), B("B", K, N), C("C", M, N);
    auto hA = Kokkos::create_mirror_view(A);
    auto hB = Kokkos::create_mirror_view(B);
    double expected = 0;  // C(2, 1)
    for (int k = 0; k < K; ++k) {
      for (int i = 0; i < M; ++i) hA(k, i) = 0.5 + k % 7 - i;
      for (int j = 0; j < N; ++j) hB(k, j) = 1.0 + (k % 5) * j;
      expected += hA(k, 2) * hB(k, 1);
    }
    Kokkos::deep_copy(A, hA);
    Kokkos::deep_copy(B, hB);
    kbla::inner(Kokkos::DefaultExecutionSpace(), 1.0, A, B, 0.0, C);
    auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    if (std::abs(hC(2, 1) - expected) <= 1e-12 * std::abs(expected)) {
      std::printf("downstream ok: C(2,1) = %.17g\n", hC(2, 1));
      status = 0;
    } else {
      std::printf("downstream wrong: C(2,1) = %.17g, expected %.17g\n", hC(2, 1), expected);
    }
  }
  Kokkos::finalize();
  return status;
}
