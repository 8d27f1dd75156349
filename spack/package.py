# Spack recipe for KokkosBlockLA. The project has no public source URL yet, so the recipe builds a checkout:
#   spack repo create <repo>; cp spack/package.py <repo>/packages/kokkos-block-la/package.py; spack repo add <repo>
#   cd <checkout> && spack dev-build kokkos-block-la@0.1.0 ^kokkos+openmp
#                    spack dev-build kokkos-block-la@0.1.0 +cuda cuda_arch=90
#                    spack dev-build --test=root kokkos-block-la@0.1.0 +tests ^kokkos+openmp   (runs ctest)
#                    spack dev-build kokkos-block-la@0.1.0 +mpi +cuda cuda_arch=90 [+nccl]     (kbla::mpi)
from spack.package import *

try:  # Spack >= 1.0 keeps the build systems in its builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # older Spack exports them from spack.package
    pass


class KokkosBlockLa(CMakePackage, CudaPackage, ROCmPackage):
    """Fast dense products on block vectors for Kokkos applications: tall & skinny C = A^H B and B = A C
    (the kernels inside block Krylov eigen-solvers and block Gram-Schmidt), a routing gemm, block
    orthogonalisation and a block Lanczos eigen-solver. Portable Kokkos paths everywhere; hand-written CUDA
    kernels behind the same calls when Kokkos has CUDA."""

    # No public homepage or repository yet: versions are built from a local checkout (spack dev-build).
    homepage = "https://kokkos.org"  # the ecosystem this library belongs to; replace when the project is public
    has_code = False

    version("0.1.0")

    variant("tests", default=False, description="Build the unit tests (GoogleTest); --test=root runs ctest")
    variant("perf_tests", default=False, description="Build the benchmarks and kbla_driver")
    variant("mpi", default=False, description="Distributed calls over MPI (<kbla_mpi.hpp>, docs/distributed.md)")
    variant("nccl", default=False, description="Also sum over the ranks with NCCL (needs +mpi +cuda)")

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")
    # CI builds and tests against Kokkos / Kokkos Kernels 4.6 (OpenMP) and Debian's 3.4 (Serial). Spack takes
    # the newest version the range allows, so a 4.x at or above 4.6 is what a plain spec gets; 3.4 (and the 4.x
    # between) stays accepted for sites that have it. 5.x (C++20) has not been tried.
    depends_on("kokkos@3.4:4")
    depends_on("kokkos-kernels@3.4:4")
    depends_on("googletest", type="build", when="+tests")
    # +mpi: the installed package config finds MPI again (the kbla target links MPI::MPI_CXX), hence a link
    # dependency; NCCL likewise with +nccl.
    depends_on("mpi", when="+mpi")
    depends_on("nccl", when="+nccl")
    conflicts("+nccl", when="~mpi", msg="NCCL sums over MPI ranks: +nccl needs +mpi")
    conflicts("+nccl", when="~cuda", msg="NCCL runs on CUDA devices: +nccl needs +cuda")

    # The backends are those of the Kokkos underneath. The hand-written CUDA kernels are built exactly when it
    # has CUDA, for the one architecture Kokkos is built for.
    depends_on("kokkos+cuda+cuda_lambda", when="+cuda")
    depends_on("kokkos-kernels+cuda+cublas", when="+cuda")
    depends_on("kokkos~cuda", when="~cuda")
    conflicts("cuda_arch=none", when="+cuda", msg="KokkosBlockLA's CUDA kernels need a cuda_arch (e.g. 90)")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    # HIP: only the portable path (no AMD kernels of its own), compiled with hipcc like Kokkos itself; not
    # tested on AMD hardware.
    depends_on("kokkos+rocm", when="+rocm")
    depends_on("kokkos~rocm", when="~rocm")
    for _target in ROCmPackage.amdgpu_targets:
        depends_on(f"kokkos amdgpu_target={_target}", when=f"+rocm amdgpu_target={_target}")
    conflicts("+cuda", when="+rocm", msg="Kokkos has one device backend")

    def _kokkos_cxx(self):
        try:  # Spack >= 1.0: a dependency's package object through self[...]
            return self["kokkos"].kokkos_cxx
        except (AttributeError, KeyError, TypeError):
            return self.spec["kokkos"].kokkos_cxx

    def cmake_args(self):
        args = [
            self.define_from_variant("KBLA_ENABLE_CUDA", "cuda"),
            self.define_from_variant("KBLA_ENABLE_TESTS", "tests"),
            self.define_from_variant("KBLA_ENABLE_PERF_TESTS", "perf_tests"),
            self.define_from_variant("KBLA_ENABLE_MPI", "mpi"),
            self.define_from_variant("KBLA_ENABLE_NCCL", "nccl"),
        ]
        if self.spec.satisfies("+nccl"):
            args.append(self.define("NCCL_ROOT", self.spec["nccl"].prefix))
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", self.spec.variants["cuda_arch"].value))
            # Kokkos with CUDA (and g++) wants its nvcc_wrapper as the C++ compiler.
            args.append(self.define("CMAKE_CXX_COMPILER", self._kokkos_cxx()))
        elif self.spec.satisfies("^kokkos+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["hip"].hipcc))
        return args

    def check(self):
        """spack install --test=root: ctest in the build tree (GoogleTest suites, driver smoke tests and the
        downstream find_package test)."""
        if not self.spec.satisfies("+tests"):
            return  # ~tests built no test binaries
        # OpenMP: leave thread placement to the system; bound threads of parallel ctest jobs would share cores.
        env["OMP_PROC_BIND"] = "false"
        ctest = Executable(join_path(self.spec["cmake"].prefix.bin, "ctest"))
        with working_dir(self.build_directory):
            ctest("--output-on-failure", f"-j{make_jobs}")
