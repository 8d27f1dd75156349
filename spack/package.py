# Spack recipe for KokkosBlockLA. The project has no public source URL yet, so the recipe builds a checkout:
#   spack repo create <repo>; cp spack/package.py <repo>/packages/kokkos-block-la/package.py; spack repo add <repo>
#   cd <checkout> && spack dev-build kokkos-block-la@0.1.0 [+cuda cuda_arch=90]
from spack.package import *


class KokkosBlockLa(CMakePackage, CudaPackage):
    """Fast dense products on block vectors for Kokkos applications: tall & skinny C = A^H B and B = A C
    (the kernels inside block Krylov eigen-solvers and block Gram-Schmidt), a routing gemm, block
    orthogonalisation and a block Lanczos eigen-solver. Portable Kokkos paths everywhere; hand-written CUDA
    kernels behind the same calls when Kokkos has CUDA."""

    # No public homepage or repository yet: versions are built from a local checkout (spack dev-build).
    homepage = "https://kokkos.org"  # the ecosystem this library belongs to; replace when the project is public
    has_code = False

    version("0.1.0")

    variant("tests", default=False, description="Build the unit tests")
    variant("perf_tests", default=False, description="Build the benchmarks and kbla_driver")

    depends_on("cmake@3.16:", type="build")
    depends_on("kokkos@3.4:")
    depends_on("kokkos-kernels@3.4:")
    depends_on("googletest", type="build", when="+tests")

    # CUDA kernels are built exactly when the Kokkos underneath has CUDA; keep the two consistent.
    depends_on("kokkos+cuda+cuda_lambda", when="+cuda")
    depends_on("kokkos-kernels+cuda+cublas", when="+cuda")
    depends_on("kokkos~cuda", when="~cuda")
    conflicts("cuda_arch=none", when="+cuda", msg="KokkosBlockLA's CUDA kernels need a cuda_arch (e.g. 90)")

    def cmake_args(self):
        args = [
            self.define_from_variant("KBLA_ENABLE_CUDA", "cuda"),
            self.define_from_variant("KBLA_ENABLE_TESTS", "tests"),
            self.define_from_variant("KBLA_ENABLE_PERF_TESTS", "perf_tests"),
        ]
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", self.spec.variants["cuda_arch"].value))
            # Kokkos 3.x with CUDA wants its nvcc_wrapper as the C++ compiler.
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["kokkos"].kokkos_cxx))
        return args
