// kbla::inner on Kokkos::Cuda through the hand-written TSMTTSM kernel (src/cuda), Kokkos Kernels style.
// C may interleave with A or B in one allocation without sharing an element (e.g. C in the rows below A of a
// column-major View): the kernels write only C's M x N elements (guarded stores and atomics) and use only A's and
// B's, so such operands need no copy (unit_tests/cuda_raw/test_tall_skinny_interleaved_raw.cu).
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <impl/kbla_inner_spec.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>
#include <tuning/kbla_tuning_environment.hpp>

#if KBLA_ENABLE_CUDA
namespace kbla {
namespace Impl {

// A contiguous LayoutLeft copy of `v` on the device, conjugated when asked: complex A^T * B (gemm "T") runs as
// conj(A)^H * B. One extra pass over A, cheap next to the product (A is read once anyway).
template <class View>
using packed_view_t =
    Kokkos::View<typename View::non_const_value_type**, Kokkos::LayoutLeft, typename View::memory_space>;

template <class View>
packed_view_t<View> packed_copy(const Kokkos::Cuda& exec, const View& v, bool conjugate) {
  using ATS = kbla::Impl::ArithTraits<typename View::non_const_value_type>;
  const packed_view_t<View> p(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::inner packed operand"),
                              v.extent(0), v.extent(1));
  using Range2 = Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t rows = v.extent(0), cols = v.extent(1);
  Kokkos::parallel_for(
      "kbla::inner(pack)", Range2(exec, {0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { p(i, j) = conjugate ? ATS::conj(v(i, j)) : v(i, j); });
  return p;
}

template <class AView, class BView, class CView>
struct Inner<Kokkos::Cuda, AView, BView, CView, true> {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;

  static void inner(const Kokkos::Cuda& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                    const Scalar& beta, const CView& C, const InnerOptions& options) {
    // The kernel takes M, N >= 1 and Views with one unit stride. Empty outputs and Views without a unit stride
    // take the portable kernel (src/impl), as in kbla::update: it reads any strides, so no copy is needed.
    const RawMatrix a = raw_matrix(A), b = raw_matrix(B), c = raw_matrix(C);
    if (C.extent(0) == 0 || C.extent(1) == 0 || !(a.ok && b.ok && c.ok)) {
      InnerPortable<Kokkos::Cuda, AView, BView, CView>::run(exec, conjA, alpha, A, B, beta, C, options);
      return;
    }
    // The kernel computes A^H * B: A^T * B of complex data runs on a conjugated copy of A.
    constexpr bool is_complex = ATS::is_complex;
    if (is_complex && !conjA) {
      const auto Ap = packed_copy(exec, A, true);
      run(exec, alpha, Ap, raw_matrix(Ap), B, b, beta, C, c, options);
    } else {
      run(exec, alpha, A, a, B, b, beta, C, c, options);
    }
  }

 private:
  // C = alpha * A^H * B + beta * C by the kernel.
  template <class AV, class BV>
  static void run(const Kokkos::Cuda& exec, const Scalar& alpha, const AV& A, const RawMatrix& a, const BV& B,
                  const RawMatrix& b, const Scalar& beta, const CView& C, const RawMatrix& c,
                  const InnerOptions& options) {
    kbla::cuda::TallSkinnyOptions raw_options;
    raw_options.deterministic = options.deterministic;
    raw_options.complex_3m = options.complex_3m;
    raw_options.tuning = options.tuning.mode;
    raw_options.choice_cache_path = tuning::choice_cache_path(options.tuning.cache_path);
    throw_on_cuda_error(kbla::cuda::tsmttsm(exec.cuda_stream(), A.extent(0), static_cast<int>(C.extent(0)),
                                            static_cast<int>(C.extent(1)), raw_value(alpha), raw_pointer(A), a.ld,
                                            a.layout, raw_pointer(B), b.ld, b.layout, raw_value(beta),
                                            raw_pointer(C), c.ld, c.layout, raw_options),
                        "kbla::inner (CUDA tsmttsm)");
  }
};

}  // namespace Impl
}  // namespace kbla
#endif
