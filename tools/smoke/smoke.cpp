// Correctness smoke test of KokkosBlas::gemm on Kokkos::Cuda (cuBLAS TPL) against a host reference.
// Prints one line per case and "SMOKE PASS" / "SMOKE FAIL"; exit code 0 only on pass.
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef KOKKOS_ENABLE_CUDA
#error "this smoke test needs a Kokkos install with the Cuda backend"
#endif

using Exec   = Kokkos::Cuda;
using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::CudaSpace>;

// deterministic entries in [-1, 1)
KOKKOS_INLINE_FUNCTION double entry(int i, int j, int seed) {
  unsigned h = 2654435761u * static_cast<unsigned>(i + 1) ^ 40503u * static_cast<unsigned>(j + 7) ^
               97u * static_cast<unsigned>(seed);
  h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
  return static_cast<double>(h % 2048u) / 1024.0 - 1.0;
}

Matrix filled(const char* name, int rows, int cols, int seed) {
  Matrix m(std::string(name), rows, cols);
  Kokkos::parallel_for(
      name, Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(int i, int j) { m(i, j) = entry(i, j, seed); });
  return m;
}

// C = alpha * op(A) * op(B) + beta * C, checked entry by entry against a host loop
bool check(const char* ta, const char* tb, int M, int N, int K) {
  const bool tA = ta[0] == 'T', tB = tb[0] == 'T';
  Matrix A = filled("A", tA ? K : M, tA ? M : K, 1);
  Matrix B = filled("B", tB ? N : K, tB ? K : N, 2);
  Matrix C = filled("C", M, N, 3);
  const double alpha = 1.5, beta = -0.5;
  auto hA = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A);
  auto hB = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  auto hC0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);

  KokkosBlas::gemm(ta, tb, alpha, A, B, beta, C);
  Kokkos::fence();
  auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);

  double max_err = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0.0, sabs = 0.0;
      for (int k = 0; k < K; ++k) {
        const double a = tA ? hA(k, i) : hA(i, k), b = tB ? hB(j, k) : hB(k, j);
        s += a * b; sabs += std::fabs(a * b);
      }
      const double ref = alpha * s + beta * hC0(i, j);
      const double scale = std::fabs(alpha) * sabs + std::fabs(beta * hC0(i, j)) + 1e-300;
      max_err = std::fmax(max_err, std::fabs(hC(i, j) - ref) / scale);
    }
  const bool ok = max_err < 1e-13;
  std::printf("gemm(\"%s\",\"%s\") M=%d N=%d K=%d  max scaled error %.3e  %s\n", ta, tb, M, N, K, max_err,
              ok ? "ok" : "WRONG");
  return ok;
}

double time_gemm(int n) {
  Matrix A = filled("A", n, n, 4), B = filled("B", n, n, 5), C(std::string("C"), n, n);
  KokkosBlas::gemm("N", "N", 1.0, A, B, 0.0, C);  // warm-up (cuBLAS handle, kernels)
  Kokkos::fence();
  Kokkos::Timer t;
  const int reps = 5;
  for (int r = 0; r < reps; ++r) KokkosBlas::gemm("N", "N", 1.0, A, B, 0.0, C);
  Kokkos::fence();
  return 2.0 * n * double(n) * n * reps / t.seconds() * 1e-12;
}

int main(int argc, char* argv[]) {
  int rc = 0;
  Kokkos::initialize(argc, argv);
  {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, Exec().cuda_device());
#ifdef KOKKOS_ARCH_HOPPER90
    const char* arch = "HOPPER90 (sm_90)";
#else
    const char* arch = "not HOPPER90";
#endif
    std::printf("device: %s (cc %d.%d, %d SMs); Kokkos %d built for %s\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, KOKKOS_VERSION, arch);
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
    std::printf("KokkosKernels: cuBLAS TPL enabled\n");
#else
    std::printf("KokkosKernels: cuBLAS TPL NOT enabled\n");
#endif
    bool ok = true;
    ok &= check("T", "N", 37, 29, 4099);    // tall & skinny inner product shape
    ok &= check("T", "N", 256, 192, 1000);
    ok &= check("N", "N", 300, 200, 150);
    ok &= check("N", "T", 64, 80, 96);
    if (ok) std::printf("gemm(\"N\",\"N\") 4096^3 double: %.2f TFLOP/s\n", time_gemm(4096));
    std::printf("%s\n", ok ? "SMOKE PASS" : "SMOKE FAIL");
    rc = ok ? 0 : 1;
  }
  Kokkos::finalize();
  return rc;
}
