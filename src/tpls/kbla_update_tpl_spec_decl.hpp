// kbla::update on Kokkos::Cuda through the hand-written TSMM kernel (src/cuda), Kokkos Kernels style.
// A and B may interleave in one allocation without sharing an element (the column blocks Q, X of a row-major basis
// [Q | X], row blocks of a column-major View): the kernels write only B's K x N elements (every store is guarded
// by the row and column bounds, the staged runs need ldb == N, bulk stores cover one column's or one row's own
// elements) and use only A's and C's, so they run on such operands as they are
// (unit_tests/cuda_raw/test_tall_skinny_interleaved_raw.cu checks every element's bits).
#pragma once

#include <impl/kbla_update_spec.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>
#include <tuning/kbla_tuning_environment.hpp>

#if KBLA_ENABLE_CUDA
namespace kbla {
namespace Impl {

template <class AView, class CView, class BView>
struct Update<Kokkos::Cuda, AView, CView, BView, true> {
  using Scalar = typename BView::non_const_value_type;
  static void update(const Kokkos::Cuda& exec, const Scalar& alpha, const AView& A, const CView& C,
                     const Scalar& beta, const BView& B, const UpdateOptions& options) {
    const RawMatrix a = raw_matrix(A), c = raw_matrix(C), b = raw_matrix(B);
    // The kernel takes non-empty shapes only (it returns invalid-argument for M or N = 0): empty ones follow BLAS
    // semantics (B = beta B, or nothing) on the portable path. No unit stride: portable path too.
    const bool empty = B.extent(0) == 0 || A.extent(1) == 0 || B.extent(1) == 0;
    if (empty || !(a.ok && b.ok && c.ok)) {
      UpdatePortable<Kokkos::Cuda, AView, CView, BView>::run(exec, alpha, A, C, beta, B);
      return;
    }
    kbla::cuda::TallSkinnyOptions raw_options;
    raw_options.tuning = options.tuning.mode;
    raw_options.choice_cache_path = tuning::choice_cache_path(options.tuning.cache_path);
    throw_on_cuda_error(kbla::cuda::tsmm(exec.cuda_stream(), B.extent(0), static_cast<int>(A.extent(1)),
                                         static_cast<int>(B.extent(1)), raw_value(alpha), raw_pointer(A), a.ld,
                                         a.layout, raw_pointer(C), c.ld, c.layout, raw_value(beta), raw_pointer(B),
                                         b.ld, b.layout, raw_options),
                        "kbla::update (CUDA tsmm)");
  }
};

}  // namespace Impl
}  // namespace kbla
#endif
