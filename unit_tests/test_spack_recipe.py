#!/usr/bin/env python3
"""Checks spack/package.py without Spack (CI has none): the recipe is loaded against a stand-in of the few
Spack names it uses, and its declarations and CMake arguments are checked for the specs users build:
  - Kokkos / Kokkos Kernels 3.4 to 4.x accepted (Spack takes the newest the range allows: 4.6 and later);
  - the backends follow Kokkos: +cuda needs a CUDA Kokkos of the same cuda_arch and passes nvcc_wrapper,
    +rocm a ROCm Kokkos and hipcc, neither leaves the CUDA kernels off;
  - +tests builds the GoogleTests (googletest dependency) and `spack install --test=root` runs ctest;
  - +nccl needs +mpi and +cuda.
What it cannot check is Spack's own behaviour (concretisation, fetching): that needs a Spack installation.
usage: test_spack_recipe.py [RECIPE]   (default: spack/package.py of this checkout)"""
import os
import sys
import types

RECIPE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                            "spack", "package.py")

declared = []  # (kind, args, kwargs) in the order the recipe declares them


def _record(kind):
    def record(*args, **kwargs):
        declared.append((kind, args, kwargs))
    return record


class FakeVariant:
    def __init__(self, value):
        self.value = value


class FakeSpec:
    """A concrete spec: `on` are the enabled boolean variants, `values` the valued ones (cuda_arch)."""

    def __init__(self, on, values=None, deps=None):
        self.on = set(on)
        self.variants = {k: FakeVariant(v) for k, v in (values or {}).items()}
        for name in ("tests", "perf_tests", "mpi", "nccl", "cuda", "rocm"):
            self.variants.setdefault(name, FakeVariant(name in self.on))
        self.deps = deps or {}

    def satisfies(self, query):
        # "+x", "~x", "^kokkos+rocm": enough for what the recipe asks
        query = query.strip()
        if query.startswith("^"):
            dep, _, flag = query[1:].partition("+")
            return flag in self.deps.get(dep, set())
        if query.startswith("+"):
            return query[1:] in self.on
        if query.startswith("~"):
            return query[1:] not in self.on
        raise AssertionError("the stand-in does not understand " + query)

    def __getitem__(self, name):
        return types.SimpleNamespace(prefix=FakePrefix("/prefix/" + name),
                                     kokkos_cxx="/prefix/kokkos/bin/nvcc_wrapper", hipcc="/prefix/hip/bin/hipcc")


class FakePrefix(str):
    """A Spack prefix: a path whose .bin is its bin folder."""

    @property
    def bin(self):
        return os.path.join(self, "bin")


class FakeCMakePackage:
    def __init__(self, spec):
        self.spec = spec
        self.build_directory = "/build"

    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant].value)

    def __getitem__(self, name):  # Spack >= 1.0: dependency package objects
        raise KeyError(name)


ran = []  # commands the recipe's check() ran


def install_stand_in():
    spack = types.ModuleType("spack")
    package = types.ModuleType("spack.package")
    package.CMakePackage = FakeCMakePackage
    package.CudaPackage = type("CudaPackage", (), {"cuda_arch_values": ("80", "90")})
    package.ROCmPackage = type("ROCmPackage", (), {"amdgpu_targets": ("gfx90a",)})
    for kind in ("version", "variant", "depends_on", "conflicts"):
        setattr(package, kind, _record(kind))
    package.env = {}
    package.make_jobs = 2
    package.join_path = os.path.join
    package.Executable = lambda path: (lambda *args: ran.append((path,) + args))

    class WorkingDir:
        def __init__(self, path):
            self.path = path

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    package.working_dir = WorkingDir
    package.__all__ = [n for n in dir(package) if not n.startswith("_")]
    spack.package = package
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = package


def load_recipe():
    install_stand_in()
    namespace = {"__name__": "kokkos_block_la_recipe"}
    with open(RECIPE) as f:
        exec(compile(f.read(), RECIPE, "exec"), namespace)
    return namespace["KokkosBlockLa"]


failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


def depends(spec_text, when=None):
    return any(k == "depends_on" and a and a[0] == spec_text and kw.get("when") == when for k, a, kw in declared)


def conflicts(spec_text, when):
    return any(k == "conflicts" and a and a[0] == spec_text and kw.get("when") == when for k, a, kw in declared)


def main():
    recipe = load_recipe()
    expect(depends("kokkos@3.4:4"), "Kokkos 3.4 to 4.x accepted")
    expect(depends("kokkos-kernels@3.4:4"), "Kokkos Kernels 3.4 to 4.x accepted")
    expect(depends("googletest", "+tests"), "+tests depends on googletest")
    expect(depends("kokkos+cuda+cuda_lambda", "+cuda"), "+cuda needs a CUDA Kokkos")
    expect(depends("kokkos-kernels+cuda+cublas", "+cuda"), "+cuda needs Kokkos Kernels with cuBLAS")
    expect(depends("kokkos cuda_arch=90", "+cuda cuda_arch=90"), "+cuda cuda_arch=90 needs Kokkos for sm_90")
    expect(depends("kokkos~cuda", "~cuda"), "~cuda needs a Kokkos without CUDA")
    expect(depends("kokkos+rocm", "+rocm"), "+rocm needs a ROCm Kokkos")
    expect(depends("mpi", "+mpi") and depends("nccl", "+nccl"), "+mpi / +nccl dependencies")
    expect(conflicts("+nccl", "~mpi") and conflicts("+nccl", "~cuda"), "+nccl needs +mpi and +cuda")
    expect(conflicts("+cuda", "+rocm"), "one device backend")

    openmp = recipe(FakeSpec(on=["tests"], deps={"kokkos": {"openmp"}}))
    args = openmp.cmake_args()
    expect("-DKBLA_ENABLE_CUDA=OFF" in args and "-DKBLA_ENABLE_TESTS=ON" in args,
           "OpenMP +tests: CUDA kernels off, tests on: %s" % args)
    expect(not any(a.startswith("-DCMAKE_CXX_COMPILER=") for a in args), "host build keeps the default compiler")
    openmp.check()
    expect(len(ran) == 1 and ran[0][0].endswith("ctest") and "--output-on-failure" in ran[0],
           "--test=root runs ctest with +tests: %s" % ran)

    ran.clear()
    cuda = recipe(FakeSpec(on=["cuda", "mpi", "nccl"], values={"cuda_arch": "90"}, deps={"kokkos": {"cuda"}}))
    args = cuda.cmake_args()
    expect("-DKBLA_ENABLE_CUDA=ON" in args and "-DCMAKE_CUDA_ARCHITECTURES=90" in args,
           "+cuda cuda_arch=90: CUDA kernels for sm_90: %s" % args)
    expect("-DCMAKE_CXX_COMPILER=/prefix/kokkos/bin/nvcc_wrapper" in args, "+cuda compiles with nvcc_wrapper")
    expect("-DKBLA_ENABLE_MPI=ON" in args and "-DKBLA_ENABLE_NCCL=ON" in args and
           "-DNCCL_ROOT=/prefix/nccl" in args, "+mpi +nccl: %s" % args)
    cuda.check()
    expect(not ran, "~tests: check() runs nothing")

    rocm = recipe(FakeSpec(on=["rocm"], deps={"kokkos": {"rocm"}}))
    args = rocm.cmake_args()
    expect("-DKBLA_ENABLE_CUDA=OFF" in args and "-DCMAKE_CXX_COMPILER=/prefix/hip/bin/hipcc" in args,
           "+rocm: portable path compiled with hipcc: %s" % args)

    for f in failures:
        print("FAILED:", f)
    print("spack recipe: %d checks failed" % len(failures) if failures else "spack recipe: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
