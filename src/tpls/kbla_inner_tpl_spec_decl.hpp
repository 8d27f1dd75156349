// kbla::inner on Kokkos::Cuda through the hand-written TSMTTSM kernel (src/cuda), Kokkos Kernels style.
#pragma once

#include <impl/kbla_inner_spec.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

#if KBLA_ENABLE_CUDA
namespace kbla {
namespace Impl {

template <class AView, class BView, class CView>
struct Inner<Kokkos::Cuda, AView, BView, CView, true> {
  using Scalar = typename CView::non_const_value_type;
  static void inner(const Kokkos::Cuda& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                    const Scalar& beta, const CView& C, const InnerOptions& options) {
    const RawMatrix a = raw_matrix(A), b = raw_matrix(B), c = raw_matrix(C);
    // The kernels compute A^H * B; A^T * B of complex data (gemm "T") and Views without a unit stride take the
    // portable path.
    constexpr bool is_complex = Kokkos::Details::ArithTraits<Scalar>::is_complex;
    // The kernel takes M, N >= 1 only (invalid-argument otherwise): empty outputs go to the portable path,
    // which writes nothing for them.
    const bool empty = C.extent(0) == 0 || C.extent(1) == 0;
    if (empty || !(a.ok && b.ok && c.ok) || (is_complex && !conjA)) {
      InnerPortable<Kokkos::Cuda, AView, BView, CView>::run(exec, conjA, alpha, A, B, beta, C, options);
      return;
    }
    kbla::cuda::TallSkinnyOptions raw_options;
    raw_options.deterministic = options.deterministic;
    throw_on_cuda_error(kbla::cuda::tsmttsm(exec.cuda_stream(), A.extent(0), static_cast<int>(C.extent(0)),
                                            static_cast<int>(C.extent(1)), raw_value(alpha), raw_pointer(A), a.ld,
                                            a.layout, raw_pointer(B), b.ld, b.layout, raw_value(beta), raw_pointer(C),
                                            c.ld, c.layout, raw_options),
                        "kbla::inner (CUDA tsmttsm)");
  }
};

}  // namespace Impl
}  // namespace kbla
#endif
